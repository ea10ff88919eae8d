/**
 * `payctl payout batch` never pays a row twice: the process killed with SIGKILL halfway
 * and the same command run again. The built binary against the in-process sandbox (a
 * real process, to be killed). Resets after commit and a 429 that pauses every sender
 * are tested in process: test/commands/payout-batch-faults.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { writeLoggedIn } from '../helpers/e2e.js';
import { expectOneKeyPerPayoutId, useBatchFolders } from '../helpers/batch-fixtures.js';
import {
  batchRows,
  expectExactlyOncePerId,
  expectNoNodeWarnings,
  payctl,
  payoutPosts,
  postedPayoutId,
  readCsvReport,
  startPayctl,
  toCsv,
  writeFile,
} from '../helpers/batch.js';

const ctx = useSandbox();

const setup = useBatchFolders(ctx, writeLoggedIn);

afterEach(() => {
  ctx.sb.faults.clear();
});

const batchArgs = (file: string) => ['payout', 'batch', file, '--concurrency', '8', '--yes'];

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

describe('payout batch under faults: exactly one payout per row', () => {
  it('killed with SIGKILL halfway, then the same command again: one payout per row in total; earlier rows skipped, unknown ones resent with their keys', async () => {
    const sb = ctx.sb;
    const prefix = `kill-${Date.now()}`;
    const rows = batchRows(200, setup.sleWallet, prefix);
    const ids = rows.map((x) => x.payout_id!);
    const file = writeFile(setup.work.file('kill.csv'), toCsv(rows));
    const reportPath = setup.work.file('kill.report.csv');

    // The first 100 POSTs are answered at once; from then on the sandbox holds each one
    // for 1.5 s before committing it. When 8 are held, all 8 senders wait on them (their
    // payouts are committed but the client has no answer yet): kill it then.
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 0, times: 100 });
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 1500, times: Infinity });
    const { child, done } = startPayctl(batchArgs(file), { dir: setup.dir, timeoutMs: 30_000 });
    let exited = false;
    void done.finally(() => (exited = true));
    while (payoutPosts(sb).length < 108 && !exited) await sleep(2);
    expect(exited, 'the batch was still running').toBe(false);
    child.kill('SIGKILL');
    const killed = await done;
    expect(killed.signal).toBe('SIGKILL');
    sb.faults.clear();

    const firstPosts = payoutPosts(sb);
    expect(firstPosts).toHaveLength(108);
    const answered = firstPosts.slice(0, 100).map(postedPayoutId);
    const inFlight = firstPosts.slice(100).map(postedPayoutId);
    // The report written as rows finished: exactly the 100 answered rows, nothing in flight.
    const partial = readCsvReport(reportPath);
    expect(partial.map((l) => l.payout_id).sort()).toEqual([...answered].sort());
    expect(partial.every((l) => l.outcome === 'accepted' && l.batch_id === 'default')).toBe(true);

    // The same command again.
    const from = sb.requests().length;
    const r = await payctl(batchArgs(file), { dir: setup.dir, timeoutMs: 30_000 });
    expect(r.stderr).toContain(`Batch "default": 100 payouts to send from ${file} (100 already accepted earlier, not sent again):`);
    expect(r.stderr).toContain('192 accepted (100 in an earlier run), 8 already submitted, 0 rejected, 0 unknown.');
    expectNoNodeWarnings(r.stderr);
    expect(r.code).toBe(0);

    // The rerun sent nothing for the 100 accepted rows, and sent the other 100.
    const rerunPosts = payoutPosts(sb, from);
    const rerunIds = new Set(rerunPosts.map(postedPayoutId));
    for (const id of answered) expect(rerunIds.has(id), id).toBe(false);
    expect(rerunIds.size).toBe(100);
    for (const id of inFlight) expect(rerunIds.has(id), id).toBe(true);

    // In total: exactly one payout per row, and one key per payout id across both runs
    // (the 8 whose outcome was unknown were resent with the key journaled by the first run).
    expectExactlyOncePerId(sb, ids, prefix);
    const keys = expectOneKeyPerPayoutId(payoutPosts(sb));
    expect(keys.size).toBe(200);
    for (const p of sb.payouts().filter((x) => x.payout_id.startsWith(`${prefix}-`))) {
      expect(p.provider_response.idempotency_key).toBe(keys.get(p.payout_id));
    }

    // The rerun's report: the first run's rows marked, the in-flight ones replayed.
    const report = readCsvReport(reportPath);
    expect(report).toHaveLength(200);
    const held = new Map(sb.payouts().map((p) => [p.payout_id, p]));
    const answeredSet = new Set(answered);
    const inFlightSet = new Set(inFlight);
    report.forEach((l, i) => {
      expect(l.payout_id).toBe(ids[i]);
      expect(l.transaction_id).toBe(held.get(l.payout_id)!.transaction_id);
      if (answeredSet.has(l.payout_id)) expect([l.outcome, l.earlier_run], l.payout_id).toEqual(['accepted', 'yes']);
      else if (inFlightSet.has(l.payout_id)) expect([l.outcome, l.earlier_run], l.payout_id).toEqual(['replayed', '']);
      else expect([l.outcome, l.earlier_run], l.payout_id).toEqual(['accepted', '']);
    });
  }, 45_000);
});
