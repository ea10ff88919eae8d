/**
 * The names payctl writes reports and batch files under: `payout batch --report` and `payout
 * batch status --failed-out` end in .csv or .jsonl; any other name ("jul.xlsx", a name without
 * an extension) is refused before anything is sent or fetched (exit 2, nothing written), saying
 * the name to give instead, and that name works as printed. In process, the sandbox over HTTP.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { batchRows, payoutPosts, toCsv, writeFile } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const folders = useBatchFolders(ctx);

afterEach(() => ctx.sb.faults.clear());

const run = (args: string[]) => payctl(args, { dir: folders.dir });

/** The path a refusal says to give after `flag`. */
function given(stderr: string, flag: string): string {
  const m = new RegExp(`give ${flag} (\\S+)`).exec(stderr);
  expect(m, stderr).not.toBeNull();
  return m![1]!;
}

describe('--report names a .csv or .jsonl file', () => {
  it('--report jul.xlsx is refused before anything is sent; the name it gives works', async () => {
    const file = writeFile(folders.work.file('jul.csv'), toCsv(batchRows(1, folders.sleWallet, `xlsx-${Date.now()}`)));
    const xlsx = folders.work.file('jul.xlsx');
    const from = ctx.sb.requests().length;
    const r = await run(['payout', 'batch', file, '--report', xlsx, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('Error: Cannot write the report. Nothing was sent.');
    const alt = folders.work.file('jul.report.csv'); // jul.csv is the input file
    expect(r.stderr).toContain(
      `--report ${xlsx}: payctl writes a report as .csv or .jsonl, not .xlsx (CSV text under another name does not open in a spreadsheet); give --report ${alt}`,
    );
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(existsSync(xlsx)).toBe(false);

    const ok = await run(['payout', 'batch', file, '--report', given(r.stderr, '--report'), '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(alt, 'utf8')).toMatch(/^row,payout_id,outcome,/);
  });

  it('a --report without an extension is refused the same way; .jsonl is taken', async () => {
    const file = writeFile(folders.work.file('aug.csv'), toCsv(batchRows(1, folders.sleWallet, `noext-${Date.now()}`)));
    const bare = folders.work.file('aug-report');
    const r = await run(['payout', 'batch', file, '--report', bare, '--dry-run']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--report ${bare}: payctl writes a report as .csv or .jsonl, and this name has none`);
    expect(given(r.stderr, '--report')).toBe(`${bare}.csv`);
    const jsonl = await run(['payout', 'batch', file, '--report', folders.work.file('aug.report.jsonl'), '--dry-run']);
    expect(jsonl.code, jsonl.stderr).toBe(0);
  });

  it('--report r.csv.tmp suggests r.csv (not r.csv.csv), and jul.csv.tmp beside the input jul.csv suggests jul.report.csv', async () => {
    const file = writeFile(folders.work.file('jul.csv'), toCsv(batchRows(1, folders.sleWallet, `tmp-${Date.now()}`)));
    const tmp = folders.work.file('r.csv.tmp');
    const r = await run(['payout', 'batch', file, '--report', tmp, '--dry-run']);
    expect(r.code, r.stderr).toBe(2);
    // Before: give --report …/r.csv.csv
    expect(given(r.stderr, '--report')).toBe(folders.work.file('r.csv'));
    expect((await run(['payout', 'batch', file, '--report', given(r.stderr, '--report'), '--dry-run'])).code).toBe(0);
    const input = await run(['payout', 'batch', file, '--report', folders.work.file('jul.csv.tmp'), '--dry-run']);
    expect(input.code, input.stderr).toBe(2);
    expect(given(input.stderr, '--report')).toBe(folders.work.file('jul.report.csv'));
    const jsonl = await run(['payout', 'batch', file, '--report', folders.work.file('r.jsonl.bak'), '--dry-run']);
    expect(given(jsonl.stderr, '--report')).toBe(folders.work.file('r.jsonl'));
  });
});

describe('--failed-out names a .csv or .jsonl file', () => {
  it("--failed-out failed.xlsx is refused before anything is fetched; the name it gives (the report's format) is written", async () => {
    const wallet = freshWallet(ctx.sb, '100.00');
    const rows = batchRows(1, wallet, `fxlsx-${Date.now()}`).map((r) => ({ ...r, amount: '500.00' }));
    const file = writeFile(folders.work.file('short.csv'), toCsv(rows));
    expect((await run(['payout', 'batch', file, '--yes'])).code).toBe(1); // refused: the wallet holds 100.00
    const report = folders.work.file('short.report.csv');
    const xlsx = folders.work.file('failed.xlsx');
    const from = ctx.sb.requests().length;
    const r = await run(['payout', 'batch', 'status', report, '--failed-out', xlsx]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--failed-out ${xlsx}: payctl writes a batch file as .csv or .jsonl, not .xlsx`);
    expect(r.stderr).toContain('Nothing was fetched.');
    expect(ctx.sb.requests().length).toBe(from);
    expect(existsSync(xlsx)).toBe(false);

    const alt = given(r.stderr, '--failed-out');
    expect(alt).toBe(folders.work.file('failed.csv'));
    const ok = await run(['payout', 'batch', 'status', report, '--failed-out', alt]);
    expect(ok.stderr).toContain(`written to ${alt}`);
    expect(readFileSync(alt, 'utf8')).toMatch(/^wallet_id,amount,currency,/);
  });
});
