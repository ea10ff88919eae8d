/**
 * `payout batch status --failed-out` and what its printed retries pay, in process against the
 * sandbox: two files written from one report are one retry batch (the second sends only what
 * the first did not), rows the API key was refused for are left to the batch's own resume, and
 * a report whose rows are still unknown is exit 4, never "0 accepted", exit 0.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { batchRows, payoutPosts, toCsv, writeFile } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { TestClock } from '../helpers/clock.js';

const ctx = useSandbox();
const folders = useBatchFolders(ctx);

afterEach(() => ctx.sb.faults.clear());

const run = (args: string[], clock?: TestClock) => payctl(args, { dir: folders.dir, ...(clock ? { clock } : {}) });

/** The `payctl payout batch ...` line a run printed, as words. */
function printedRetry(stderr: string): string[] {
  const line = stderr.split('\n').find((l) => l.trim().startsWith('payctl payout batch '));
  expect(line, stderr).toBeDefined();
  return line!.trim().split(' ').slice(1);
}

describe('payout batch status --failed-out: what its printed retries pay', () => {
  it('two --failed-out files from one report, both sent: the rejected row is paid once (one retry batch)', async () => {
    const wallet = freshWallet(ctx.sb, '100.00');
    const rows = batchRows(2, wallet, `twofiles-${Date.now()}`).map((r, i) => ({ ...r, amount: i === 0 ? '40.00' : '500.00' }));
    const file = writeFile(folders.work.file('pay.csv'), toCsv(rows));
    const first = await run(['payout', 'batch', file, '--yes']);
    expect(first.code, first.stderr).toBe(1); // 500.00 refused: the wallet holds 100.00
    ctx.sb.setWallet({ wallet_id: wallet, wallet_name: 'Topped up', currency: 'SLE', balance: '5000.00' });

    const report = folders.work.file('pay.report.csv');
    const a = await run(['payout', 'batch', 'status', report, '--failed-out', folders.work.file('g1.csv')]);
    const b = await run(['payout', 'batch', 'status', report, '--failed-out', folders.work.file('g2.csv')]);
    const retryA = printedRetry(a.stderr);
    const retryB = printedRetry(b.stderr);
    expect(retryA.at(-1)).toBe(retryB.at(-1)); // one batch id
    expect(retryA.at(-1)).toMatch(/^pay-retry-[0-9a-f]{6}-\d{4}-\d{2}-\d{2}$/);

    const from = ctx.sb.requests().length;
    expect((await run([...retryA, '--yes'])).code).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
    const again = await run([...retryB, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);

    // Refused again in its retry (short again), the next file is a batch of its own: its row is sent, not that refusal replayed.
    const wallet2 = freshWallet(ctx.sb, '100.00');
    const rows2 = batchRows(1, wallet2, `again-${Date.now()}`).map((r) => ({ ...r, amount: '500.00' }));
    const file2 = writeFile(folders.work.file('short.csv'), toCsv(rows2));
    expect((await run(['payout', 'batch', file2, '--yes'])).code).toBe(1);
    const report2 = folders.work.file('short.report.csv');
    const r1 = printedRetry((await run(['payout', 'batch', 'status', report2, '--failed-out', folders.work.file('s1.csv')])).stderr);
    expect((await run([...r1, '--yes'])).code).toBe(1); // still short: refused under the retry's key
    ctx.sb.setWallet({ wallet_id: wallet2, wallet_name: 'Topped up', currency: 'SLE', balance: '5000.00' });
    const r2 = printedRetry((await run(['payout', 'batch', 'status', report2, '--failed-out', folders.work.file('s2.csv')])).stderr);
    expect(r2.at(-1)).not.toBe(r1.at(-1));
    const from2 = ctx.sb.requests().length;
    expect((await run([...r2, '--yes'])).code).toBe(0);
    expect(payoutPosts(ctx.sb, from2)).toHaveLength(1);
  });

  it('rows not sent because the key was refused are left to the batch run again, not written (they would be paid twice)', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00');
    const rows = batchRows(2, wallet, `keyrefused-${Date.now()}`);
    const file = writeFile(folders.work.file('k.csv'), toCsv(rows));
    // The key revoked while the batch sends (its first row accepted): the rows after it are refused, nothing sent for them.
    const key = ctx.sb.apiKey;
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 150, times: Infinity });
    const from0 = ctx.sb.requests().length;
    const running = startPayctl(['payout', 'batch', file, '--concurrency', '1', '--yes'], { dir: folders.dir });
    while (payoutPosts(ctx.sb, from0).length === 0) await new Promise((r) => setTimeout(r, 10));
    ctx.sb.revokeApiKey('sk_sandbox_revoked_for_a_while_000');
    const refused = await running.done;
    ctx.sb.revokeApiKey(key);
    ctx.sb.faults.clear();
    expect(refused.code, refused.stderr).toBe(3);

    const out = folders.work.file('k-failed.csv');
    const status = await run(['payout', 'batch', 'status', folders.work.file('k.report.csv'), '--failed-out', out]);
    expect(status.stderr).toContain('was not sent (the API key was refused): running the batch again sends it; it is not written to');
    expect(existsSync(out)).toBe(false);
    const from = ctx.sb.requests().length;
    expect((await run(['payout', 'batch', file, '--yes'])).code).toBe(0);
    expect(payoutPosts(ctx.sb, from).length).toBeGreaterThanOrEqual(1);
  });

  it('a report whose rows are unknown: exit 4 naming them and how to finish them; read as accepted once a rerun has their answers', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00');
    const rows = batchRows(2, wallet, `unknown-${Date.now()}`);
    const file = writeFile(folders.work.file('u.csv'), toCsv(rows));
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const sent = await run(['payout', 'batch', file, '--yes', '--timeout', '2'], new TestClock());
    expect(sent.code, sent.stderr).toBe(4);
    ctx.sb.faults.clear();

    const report = folders.work.file('u.report.csv');
    const status = await run(['payout', 'batch', 'status', report]);
    expect(status.code, status.stderr).toBe(4);
    expect(status.stderr).toContain('2 rows (2, 3) have outcomes still unknown: they may or may not have been made.');
    expect(status.stderr).toContain('payctl history reconcile');
    const json = await run(['--json', 'payout', 'batch', 'status', report]);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ unknown: 2 });

    // The batch run again finishes them (same keys: replays); its report and the status agree.
    const from = ctx.sb.requests().length;
    expect((await run(['payout', 'batch', file, '--yes'])).code).toBe(0);
    expect(ctx.sb.payouts().filter((p) => rows.some((r) => r.payout_id === p.payout_id))).toHaveLength(2);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
    const after = await run(['payout', 'batch', 'status', report]);
    expect(after.code, after.stderr).not.toBe(4);
    expect(readFileSync(report, 'utf8')).not.toContain(',unknown,');
  });
});
