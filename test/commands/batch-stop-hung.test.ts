/**
 * A batch stopped (Ctrl-C, SIGTERM) while the service hangs on its requests: the stop is said at
 * once (how many requests it waits for, and that a second Ctrl-C stops at once), no new attempt
 * of a row in flight starts after it (the attempt ends at --timeout and the row is unknown, its
 * key journaled), and the run ends as the uninterrupted one does with unknown outcomes: the
 * "may or may not have been made" warning, the command that finishes them, exit 4.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startPayctl, payctl } from '../helpers/in-process.js';
import { batchRows, payoutPosts, postedPayoutId, toCsv, withOwnPayees } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const folders = useBatchFolders(ctx);
afterEach(() => ctx.sb.faults.clear());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts a batch of `rows` rows, 4 at once, against a service that never answers POST /payout; interrupted once 4 requests are in flight. */
async function stoppedWhileHung(rows: number, extra: string[] = []) {
  const sb = ctx.sb;
  const wallet = freshWallet(sb, '100000.00', 'SLE');
  const prefix = `hung-${rows}-${Date.now()}`;
  const file = join(folders.work.dir, 'pay.csv');
  writeFileSync(file, toCsv(withOwnPayees(batchRows(rows, wallet, prefix), prefix)));
  sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'hang', times: Infinity });
  const run = startPayctl(['payout', 'batch', file, '--concurrency', '4', '--timeout', '1', '--yes', ...extra], { dir: folders.dir });
  const deadline = Date.now() + 10_000;
  while (payoutPosts(sb).length < 4) {
    if (Date.now() > deadline) throw new Error('4 requests did not arrive within 10 s');
    await sleep(5);
  }
  run.interrupt();
  // Said at once, before any request in flight has ended.
  const said = run.stderr();
  const result = await run.done;
  return { file, said, result, posted: payoutPosts(sb).map(postedPayoutId) };
}

describe('a batch stopped while the service hangs', () => {
  it('says at once what it waits for, starts no new attempt, and exits 4 with the unknown outcomes said', async () => {
    const { file, said, result, posted } = await stoppedWhileHung(6);
    expect(said).toContain('Stopping: waiting for 4 requests in flight');
    expect(said).toContain('Ctrl-C again stops at once');
    // One attempt each for the 4 rows in flight; none after the stop.
    expect(posted.length, result.stderr).toBe(4);
    expect(new Set(posted).size).toBe(4);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain('0 accepted, 0 already submitted, 0 rejected, 4 unknown, 2 not sent.');
    expect(result.stderr).not.toContain('rows in flight finished');
    expect(result.stderr).toMatch(/Stopped: 2 rows were not sent/);
    expect(result.stderr).toContain('4 payouts may or may not have been made. Run the same command again to finish them safely (same keys)');
    expect(result.stderr).toContain(`payctl payout batch ${file}`);

    // The rows are unknown in the journal, their keys kept: the rerun resends each once under its key.
    ctx.sb.faults.clear();
    const before = ctx.sb.requests().length;
    const resumed = await payctl(['payout', 'batch', file, '--yes'], { dir: folders.dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = payoutPosts(ctx.sb, before).map(postedPayoutId);
    expect(again.length).toBe(6);
    for (const id of posted) expect(again).toContain(id);
  });

  it('with every row in flight: no new attempt after the stop, exit 4 (--json)', async () => {
    const { said, result, posted } = await stoppedWhileHung(4, ['--json']);
    expect(said).toContain('Stopping: waiting for 4 requests in flight');
    expect(posted.length, result.stderr).toBe(4);
    expect(result.code, result.stderr).toBe(4);
    expect(JSON.parse(result.stdout)).toMatchObject({ unknown: 4, not_sent: 0 });
    expect(result.stderr).toContain('4 payouts may or may not have been made');
  });
});
