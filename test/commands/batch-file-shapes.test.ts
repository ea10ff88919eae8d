/**
 * Batch files and reports in the shapes a spreadsheet or another program leaves them, in
 * process against the sandbox: UTF-16 without a byte order mark (every other byte NUL) told
 * to be saved as UTF-8; a title row above the header said as that, with the header's line; a
 * totals row below the payouts said as one, to delete, and a header row repeated in the middle
 * (two sheets pasted together) the same; and `payout batch status` of a report
 * re-saved with a row of separators below it counts only its rows.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { batchRows, payoutPosts, toCsv, writeFile } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const folders = useBatchFolders(ctx);

const run = (args: string[]) => payctl(args, { dir: folders.dir });
const H = 'wallet_id,amount,currency,type,name,provider,account_number,phone_number,note';
const row = (wallet: string, i: number, amount = '700.10') => `${wallet},${amount},SLE,bank,Jul P${i},ecobank,0${9400 + i},,Jul`;

/** Checked with --dry-run: refused (exit 2, nothing sent); the problems listed, one per "  - " line. */
async function problemsOf(file: string): Promise<{ stderr: string; problems: string[] }> {
  const from = ctx.sb.requests().length;
  const r = await run(['payout', 'batch', file, '--dry-run']);
  expect(r.code, r.stderr).toBe(2);
  expect(payoutPosts(ctx.sb, from)).toEqual([]);
  return { stderr: r.stderr, problems: r.stderr.split('\n').flatMap((l) => (l.startsWith('  - ') ? [l.slice(4)] : [])) };
}

describe('a batch file as other programs save it', () => {
  it.each([
    ['utf-16le', 'UTF-16LE'],
    ['utf-16be', 'UTF-16BE'],
  ])('%s without a byte order mark (tab-separated, as a spreadsheet\'s "Unicode text"): save it as UTF-8', async (name, enc) => {
    const text = `${H}\r\n${row(folders.sleWallet, 1)}\r\n`.replace(/,/g, '\t');
    const le = Buffer.from(text, 'utf16le');
    const bytes = enc === 'UTF-16LE' ? le : Buffer.from(le.map((_, i) => le[i ^ 1]!));
    const file = folders.work.file(`${name}.txt`);
    writeFileSync(file, bytes);
    const r = await problemsOf(file);
    expect(r.stderr).toContain(`Error: ${file}: the file is UTF-16 text; save it as UTF-8 (in a spreadsheet: "CSV UTF-8"). Nothing was sent.`);
  });

  it("a title row (and a blank line) above the header: one problem naming the header's line", async () => {
    const file = writeFile(folders.work.file('titled.csv'), `November payroll,,,,,,,,\n,,,,,,,,\n${H}\n${row(folders.sleWallet, 1)}\n${row(folders.sleWallet, 2)}\n`);
    const r = await problemsOf(file);
    expect(r.stderr).toContain(`${file}: 1 problem. Nothing was sent.`);
    expect(r.problems).toEqual(['the header row seems to be on line 3, not line 1: remove the lines above it (a title, a blank line) and save the file again']);
  });

  it('a title without commas above the header is said the same way; a header of unknown columns alone is not', async () => {
    const titled = writeFile(folders.work.file('title1.csv'), `Payroll November 2026\n${H}\n${row(folders.sleWallet, 1)}\n`);
    expect((await problemsOf(titled)).problems).toEqual([
      'the header row seems to be on line 2, not line 1: remove the lines above it (a title, a blank line) and save the file again',
    ]);
    const unknown = writeFile(folders.work.file('colours.csv'), `colour,size\nred,1\n`);
    expect((await problemsOf(unknown)).problems.join('\n')).not.toContain('seems to be on line');
  });

  it.each([
    ['Total,12.00,,,,,,,', 'totals1.csv'],
    [',"2,750.50",,,TOTAL,,,,', 'totals2.csv'],
    [',1400.20,SLE,,Grand total:,,,,', 'totals3.csv'],
  ])('a totals row %j below the payouts: one problem, delete it', async (totals, name) => {
    const file = writeFile(folders.work.file(name), `${H}\n${row(folders.sleWallet, 1)}\n${row(folders.sleWallet, 2)}\n${totals}\n`);
    const r = await problemsOf(file);
    expect(r.problems).toEqual(['row 4: this looks like a totals row (a "Total" cell and amounts only), not a payout: delete it']);
  });

  it('a header row repeated below the payouts (two sheets pasted together): one problem, delete it', async () => {
    const again = 'Wallet ID,amount,currency,type,name,provider,account_number,phone_number,note';
    const file = writeFile(folders.work.file('two-sheets.csv'), `${H}\n${row(folders.sleWallet, 1, '"1,000.00"')}\n${again}\n${row(folders.sleWallet, 2)}\n`);
    const r = await problemsOf(file);
    expect(r.stderr).toContain(`${file}: 1 problem. Nothing was sent.`);
    expect(r.problems).toEqual(['row 3 repeats the header row (two sheets pasted together?), not a payout: delete it']);
  });

  it('a payee named "Name" with the note "note" is a payout row, not a header', async () => {
    const file = writeFile(folders.work.file('named-name.csv'), `${H}\n${folders.sleWallet},5.00,SLE,bank,Name,ecobank,0123,,note\n`);
    const r = await run(['payout', 'batch', file, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('a payee named "Total" with an account is a payout row, not a totals row', async () => {
    const file = writeFile(folders.work.file('named-total.csv'), `${H}\n${folders.sleWallet},5.00,SLE,bank,Total,ecobank,0123,,n\n`);
    const r = await run(['payout', 'batch', file, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('payout batch status of a re-saved report', () => {
  it('a row of separators below the rows is no row: "2 accepted rows of 2"', async () => {
    const rows = batchRows(2, folders.sleWallet, `resaved-${Date.now()}`);
    const file = writeFile(folders.work.file('resaved.csv'), toCsv(rows));
    const sent = await run(['payout', 'batch', file, '--yes']);
    expect(sent.code, sent.stderr).toBe(0);
    const report = folders.work.file('resaved.report.csv');
    appendFileSync(report, ',,,,,,,,\r\n');
    const r = await run(['payout', 'batch', 'status', report]);
    expect(r.stdout).toContain(`2 accepted rows of 2 in ${report}`);
  });
});
