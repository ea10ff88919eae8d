/**
 * A batch stopped (Ctrl-C, SIGTERM) while the service hangs on its requests: no new attempt of a
 * row in flight starts after the stop (the attempt ends at --timeout and the row is unknown, its
 * key journaled), and the run ends as the uninterrupted one does with unknown outcomes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startPayctl } from '../helpers/in-process.js';
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
  const result = await run.done;
  return { file, result, posted: payoutPosts(sb).map(postedPayoutId) };
}

describe('a batch stopped while the service hangs', () => {
  it('with every row in flight: no new attempt after the stop, exit 4 (--json)', async () => {
    const { result, posted } = await stoppedWhileHung(4, ['--json']);
    expect(posted.length, result.stderr).toBe(4);
    expect(result.code, result.stderr).toBe(4);
    expect(JSON.parse(result.stdout)).toMatchObject({ unknown: 4, not_sent: 0 });
    expect(result.stderr).toContain('4 payouts may or may not have been made');
  });
});
