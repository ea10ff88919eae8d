/**
 * `payout batch status --failed-out` after a retry, corrected in review, that did not pay: its
 * settled status is read before the row is said paid. A retry that settled Failed paid nobody:
 * the row is written again, under a retry batch id of its own (`-2`), and that printed command
 * works as printed (before: the row was left out as "paid since by retry payout …", and once
 * written, the printed id was the first retry's, refused there as a corrected account "paid").
 * A retry still Pending is not said to have paid: the row is left out, with the command that
 * checks it, exit 5. In process, against a sandbox that settles after 200 ms (accounts ending in
 * 0000 settle Failed), behind a proxy that answers the retry's look-ups as told.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { writeLoggedIn, writeProfile, type Run } from '../helpers/e2e.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { shellSplit } from '../helpers/pty.js';
import { fundDemoWallets, payoutPosts, tempWorkDir, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';

const ctx = useSandbox({ settleAfterMs: 200 });
useHostileCleanups();

let work: ReturnType<typeof tempWorkDir>;
const cleanups: Array<() => void> = [];
beforeEach(() => {
  work = tempWorkDir();
  fundDemoWallets(ctx.sb);
});
afterEach(() => work.cleanup());
afterAll(() => cleanups.forEach((c) => c()));

const run = (dir: string, args: string[]): Promise<Run> => payctl(args, { dir });
const sle = () => ctx.sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;

/** Two payroll rows of their own (`tag`), without payout ids; the first pays `account` (ending in 0000: it settles Failed). */
function payroll(tag: string, account: string): BatchRow[] {
  const row = (name: string, amount: string, acct: string): BatchRow => ({
    wallet_id: sle(),
    amount,
    currency: 'SLE',
    type: 'bank',
    name,
    provider: 'ecobank',
    account_number: acct,
    note: 'Nov salary',
  });
  return [row(`Hawa Sesay ${tag}`, '3.00', account), row(`Musa Koroma ${tag}`, '4.00', `0066${tag}01`)];
}

/** The `payctl payout batch ...` command a run printed, as words. */
function printedRetry(r: Run): string[] {
  const line = r.stderr.split('\n').find((l) => l.trim().startsWith('payctl payout batch '));
  expect(line, r.stderr).toBeDefined();
  return shellSplit(line!.trim()).slice(1);
}

/**
 * A payroll whose first row settles Failed, its --failed-out file with that row's account
 * corrected (`corrected`), sent as printed; the retry's look-ups answered with `status`. The
 * config folder, the report, the retry's batch id and its transaction id.
 */
async function retried(corrected: (tag: string) => string, status: string) {
  const proxy = await sandboxProxy(ctx.sb);
  const cfg = tempConfigDir();
  cleanups.push(() => cfg.cleanup());
  writeProfile(cfg.dir, { ...(await writeLoggedIn(ctx.sb, cfg.dir)), baseUrl: proxy.baseUrl });
  const tag = String(Date.now()).slice(-6);
  const file = writeFile(work.file('pay.csv'), toCsv(payroll(tag, `0055${tag}0000`)));
  expect((await run(cfg.dir, ['payout', 'batch', file, '--yes'])).code).toBe(0);
  const report = work.file('pay.report.csv');
  const first = await run(cfg.dir, ['payout', 'batch', 'status', report, '--wait', '--wait-timeout', '30', '--failed-out', work.file('f1.csv')]);
  expect(first.code, first.stderr).toBe(1);
  const retry = printedRetry(first);
  const f1 = work.file('f1.csv');
  writeFileSync(f1, readFileSync(f1, 'utf8').replace(`0055${tag}0000`, corrected(tag))); // the review
  const sent = await run(cfg.dir, [...retry, '--yes']);
  expect(sent.code, sent.stderr).toBe(0);
  const txn = readFileSync(work.file('f1.report.csv'), 'utf8').match(/TXN-[A-Z0-9-]+/)![0];
  proxy.rewriteLookups((raw) => {
    if (!raw.includes(txn)) return raw;
    const doc = JSON.parse(raw) as { data: Record<string, unknown> };
    return JSON.stringify({ ...doc, data: { ...doc.data, status, ...(status === 'failed' ? { failure_reason: 'Account not found' } : {}) } });
  });
  return { cfg, tag, report, retryId: retry.at(-1)!, txn };
}

describe('payout batch status --failed-out: a retry that did not pay', () => {
  it('the retry settled Failed: the row is written again, under the retry id -2, and the printed command pays it once', async () => {
    const { cfg, tag, report, retryId } = await retried((t) => `0056${t}0000`, 'failed');
    const second = await run(cfg.dir, ['payout', 'batch', 'status', report, '--failed-out', work.file('f2.csv')]);
    // Before: "Row 2 Failed, but what it pays was paid since by retry payout …", and f2.csv not written.
    expect(second.code, second.stderr).toBe(1);
    expect(second.stderr).not.toContain('paid since');
    expect(readFileSync(work.file('f2.csv'), 'utf8')).toContain(`Hawa Sesay ${tag}`);
    const again = printedRetry(second);
    // Before: the first retry's id again, whose batch holds her Failed retry.
    expect(again.at(-1)).toBe(`${retryId}-2`);

    // Corrected once more, and sent as printed: paid once.
    const f2 = work.file('f2.csv');
    writeFileSync(f2, readFileSync(f2, 'utf8').replace(`0055${tag}0000`, `0057${tag}01`));
    const from = ctx.sb.requests().length;
    const paid = await run(cfg.dir, [...again, '--yes']);
    expect(paid.code, paid.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
  });

  it('the retry settled Failed: the row sent again in the first retry batch, its account corrected, is not refused as paid', async () => {
    const { cfg, tag, report, retryId } = await retried((t) => `0056${t}0000`, 'failed');
    expect((await run(cfg.dir, ['payout', 'batch', 'status', report, '--failed-out', work.file('f2.csv')])).code).toBe(1);
    const f2 = work.file('f2.csv');
    writeFileSync(f2, readFileSync(f2, 'utf8').replace(`0055${tag}0000`, `0058${tag}01`));
    // Before: refused (exit 2), "account_number … was … when payout … paid Hawa Sesay … in this batch".
    const dry = await run(cfg.dir, ['payout', 'batch', f2, '--batch-id', retryId, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).not.toContain(' paid Hawa Sesay');
  });

  it('the retry still Pending: the row is left out, not said paid, with the command that checks the retry (exit 5)', async () => {
    const { cfg, report, txn } = await retried((t) => `0056${t}01`, 'pending');
    const second = await run(cfg.dir, ['payout', 'batch', 'status', report, '--failed-out', work.file('f2.csv')]);
    expect(second.code, second.stderr).toBe(5);
    expect(second.stderr).not.toContain('paid since');
    expect(second.stderr).toContain('that payout is not known to have paid (accepted, still Pending): it is not written to');
    expect(second.stderr).toContain(`Check it with: payctl payout get ${txn} --wait`);
    expect(existsSync(work.file('f2.csv'))).toBe(false);
  });
});
