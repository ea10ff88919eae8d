/**
 * `payout batch status --failed-out` after a retry that was reviewed before it was sent, as the
 * tool asks ("Review and send it"): a Failed row whose retry paid, with its account or its note
 * corrected in that review, is left out of the next --failed-out file and said (before: written
 * again, and its printed command, or the refusal's advice, paid the person twice). In process,
 * against a sandbox that settles after 200 ms (failing accounts ending in 0000), and a proxy in
 * front of it that makes one payout settle Failed (a provider's passing fault).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { writeLoggedIn, writeProfile, type Run } from '../helpers/e2e.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { loginInProcess } from '../helpers/batch-fixtures.js';
import { shellSplit } from '../helpers/pty.js';
import { fundDemoWallets, payoutPosts, tempWorkDir, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';

const ctx = useSandbox({ settleAfterMs: 200 });
useHostileCleanups();

let cfg: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;

beforeAll(async () => {
  cfg = tempConfigDir();
  await loginInProcess(ctx.sb, cfg.dir);
});
afterAll(() => cfg?.cleanup());
beforeEach(() => {
  work = tempWorkDir();
  fundDemoWallets(ctx.sb);
});
afterEach(() => work.cleanup());

const run = (dir: string, args: string[]): Promise<Run> => payctl(args, { dir });
const sle = () => ctx.sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;

/** Two payroll rows of their own (`tag`), without payout ids; the first pays `account`. */
function payroll(tag: string, account: string, note = 'Nov salary'): BatchRow[] {
  const row = (name: string, amount: string, acct: string): BatchRow => ({
    wallet_id: sle(),
    amount,
    currency: 'SLE',
    type: 'bank',
    name,
    provider: 'ecobank',
    account_number: acct,
    note,
  });
  return [row(`Kadiatu Sesay ${tag}`, '7.00', account), row(`Musa Kargbo ${tag}`, '8.00', `0044${tag.slice(-6)}`)];
}

/** The `payctl payout batch ...` command a run printed, as words. */
function printedRetry(r: Run): string[] {
  const line = r.stderr.split('\n').find((l) => l.trim().startsWith('payctl payout batch '));
  expect(line, r.stderr).toBeDefined();
  return shellSplit(line!.trim()).slice(1);
}

describe('payout batch status --failed-out: a retry corrected in review, then paid', () => {
  it('the account corrected in the retry file: the next --failed-out leaves the row out and names the retry', async () => {
    const tag = String(Date.now()).slice(-6);
    const file = writeFile(work.file('pay.csv'), toCsv(payroll(tag, `0077${tag}0000`)));
    expect((await run(cfg.dir, ['payout', 'batch', file, '--yes'])).code).toBe(0);
    const report = work.file('pay.report.csv');
    const first = await run(cfg.dir, ['payout', 'batch', 'status', report, '--wait', '--wait-timeout', '30', '--failed-out', work.file('f1.csv')]);
    expect(first.code, first.stderr).toBe(1);
    const retry = printedRetry(first);
    // The review: the account the provider did not find, corrected.
    const f1 = work.file('f1.csv');
    writeFileSync(f1, readFileSync(f1, 'utf8').replace(`0077${tag}0000`, `0077${tag}0001`));
    const sent = await run(cfg.dir, [...retry, '--yes']);
    expect(sent.code, sent.stderr).toBe(0);
    expect((await run(cfg.dir, ['payout', 'batch', 'status', work.file('f1.report.csv'), '--wait', '--wait-timeout', '30'])).code).toBe(0);

    const second = await run(cfg.dir, ['payout', 'batch', 'status', report, '--failed-out', work.file('f2.csv')]);
    // Before: the row written again to f2.csv, with a command that sends it.
    expect(second.stderr).toMatch(
      new RegExp(
        `Row 2 Failed, but what it pays was paid since by retry payout \\S+ in batch "${retry.at(-1)}", its account_number changed: account_number "0077${tag}0001" was "0077${tag}0000": it is not written to`,
      ),
    );
    expect(second.stderr).toContain('No Failed or rejected rows to send again:');
    expect(existsSync(work.file('f2.csv'))).toBe(false);
  });

  it('the note corrected in the retry file (the account the same): the row is left out, and nothing is paid twice', async () => {
    const proxy = await sandboxProxy(ctx.sb);
    const pcfg = tempConfigDir();
    try {
      writeProfile(pcfg.dir, { ...(await writeLoggedIn(ctx.sb, pcfg.dir)), baseUrl: proxy.baseUrl });
      const tag = String(Date.now()).slice(-6);
      const file = writeFile(work.file('pay.csv'), toCsv(payroll(tag, `0055${tag}`, 'Nov salry')));
      expect((await run(pcfg.dir, ['payout', 'batch', file, '--yes'])).code).toBe(0);
      const report = work.file('pay.report.csv');
      // Kadiatu's first payout settles Failed (a provider's passing fault); her retry is paid.
      const txn = readFileSync(report, 'utf8')
        .split('\n')[1]!
        .match(/TXN-[A-Z0-9-]+/)![0];
      proxy.rewriteLookups((raw) => {
        if (!raw.includes(txn)) return raw;
        const doc = JSON.parse(raw) as { data: Record<string, unknown> };
        return JSON.stringify({ ...doc, data: { ...doc.data, status: 'failed', failure_reason: 'Provider timeout, try again' } });
      });
      const first = await run(pcfg.dir, ['payout', 'batch', 'status', report, '--wait', '--wait-timeout', '30', '--failed-out', work.file('f1.csv')]);
      expect(first.code, first.stderr).toBe(1);
      const f1 = work.file('f1.csv');
      const unreviewed = readFileSync(f1, 'utf8');
      writeFileSync(f1, unreviewed.replace('Nov salry', 'Nov salary')); // the review: a typo fixed
      const from = ctx.sb.requests().length;
      const retry = printedRetry(first);
      expect((await run(pcfg.dir, [...retry, '--yes'])).code).toBe(0);
      expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
      // The retry settled (a retry still Pending is not said to have paid: batch-status-retry-failed.test.ts).
      expect((await run(pcfg.dir, ['payout', 'batch', 'status', work.file('f1.report.csv'), '--wait', '--wait-timeout', '30'])).code).toBe(0);

      const second = await run(pcfg.dir, ['payout', 'batch', 'status', report, '--failed-out', work.file('f2.csv')]);
      expect(second.stderr).toContain('Row 2 Failed, but what it pays was paid since by retry payout ');
      expect(second.stderr).toContain('its note changed: note "Nov salary" was "Nov salry": it is not written to');
      expect(existsSync(work.file('f2.csv'))).toBe(false);

      // The row as it failed, sent in the retry's batch (a file written before the retry was sent):
      // refused, and the refusal does not advise a batch id of its own (before: it did, and that paid her twice).
      const old = writeFile(work.file('f0.csv'), unreviewed);
      const refused = await run(pcfg.dir, ['payout', 'batch', old, '--batch-id', retry.at(-1)!, '--yes']);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('row 2: note "Nov salry" was "Nov salary" when payout ');
      expect(refused.stderr).toContain('that was its retry');
      expect(refused.stderr).not.toContain('--batch-id NAME');
      expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
    } finally {
      pcfg.cleanup();
    }
  });

  it('two reports of one name in two folders, handled the same day: two retry batch ids, and each printed command works as printed', async () => {
    const tag = String(Date.now()).slice(-6);
    const account = `0066${tag}0000`; // fails: each payroll's row for this payee settles Failed
    const retries: string[][] = [];
    for (const [dept, amount, note] of [
      ['deptA', '7.00', 'Nov salary'],
      ['deptB', '7.10', 'Dec salary'],
    ] as const) {
      mkdirSync(work.file(dept));
      const rows = payroll(tag, account, note).map((r, i) => (i === 0 ? { ...r, amount } : { ...r, account_number: `${r.account_number}${dept.at(-1)}` }));
      const file = writeFile(work.file(`${dept}/pay.csv`), toCsv(rows));
      expect((await run(cfg.dir, ['payout', 'batch', file, '--yes'])).code).toBe(0);
      const status = await run(cfg.dir, [
        'payout',
        'batch',
        'status',
        work.file(`${dept}/pay.report.csv`),
        '--wait',
        '--wait-timeout',
        '30',
        '--failed-out',
        work.file(`${dept}/f1.csv`),
      ]);
      expect(status.code, status.stderr).toBe(1);
      const retry = printedRetry(status);
      // As printed: before, deptB's was refused as deptA's retry with its amount and note changed.
      const dry = await run(cfg.dir, [...retry, '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      retries.push(retry);
      expect((await run(cfg.dir, [...retry, '--yes'])).code).toBe(0);
    }
    expect(retries[0]!.at(-1)).not.toBe(retries[1]!.at(-1));
    for (const r of retries) expect(r.at(-1)).toMatch(/^pay-retry-[0-9a-f]{6}-\d{4}-\d{2}-\d{2}$/);
  });
});
