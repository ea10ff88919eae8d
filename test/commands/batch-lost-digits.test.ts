/**
 * `payctl payout batch` with a file a spreadsheet re-saved with its digit columns as numbers
 * (src/payouts/lost-digits.ts). In process, the sandbox over real HTTP. Before: a file sent,
 * re-saved ("0761..." -> 761..., "+232..." -> 232...) and run again paid every row a second
 * time, to accounts that are not the recipients' (what a row pays is its identity). Now such a
 * file is refused, exit 2, nothing sent; with the digits back it resumes and sends only what is
 * new; a number in scientific notation ("1.23457E+18") is refused as a bad cell.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { payctl, type InProcessOptions } from '../helpers/in-process.js';
import type { Run } from '../helpers/e2e.js';
import { batchRows, payoutPosts, readCsvReport, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

const batch = (args: string[], opts: Partial<InProcessOptions> = {}): Promise<Run> => payctl(['payout', 'batch', ...args], { dir: setup.dir, ...opts });

/** Rows with ids made from what each pays, as a payroll export has them. */
function payroll(n: number, tag: string): BatchRow[] {
  const rows = batchRows(n, setup.sleWallet, tag);
  for (const row of rows) delete row.payout_id;
  return rows;
}

/** The rows as a spreadsheet saves them when account_number and phone_number hold numbers. */
function asNumbers(rows: BatchRow[], columns: { account?: boolean; phone?: boolean } = { account: true, phone: true }): BatchRow[] {
  return rows.map((row) => ({
    ...row,
    ...(columns.account ? { account_number: row.account_number!.replace(/^0+/, '') } : {}),
    ...(columns.phone ? { phone_number: row.phone_number!.replace(/^\+/, '') } : {}),
  }));
}

/** Sends the rows as `name`; every row accepted. */
async function sent(rows: BatchRow[], name: string, batchId: string): Promise<void> {
  const r = await batch([writeFile(setup.work.file(name), toCsv(rows)), '--batch-id', batchId, '--yes']);
  expect(r.stderr).toContain(`${rows.length} accepted, 0 already submitted, 0 rejected, 0 unknown.`);
  expect(r.code, r.stderr).toBe(0);
}

describe('payout batch: a sent file re-saved with its digits as numbers', () => {
  it('is refused, exit 2, nothing sent (dry run too), each row named with the payout it repeats; with the digits back it resumes and sends only the new row', async () => {
    const tag = `zeros-${Date.now()}`;
    const rows = payroll(4, tag);
    await sent(rows.slice(0, 3), 'payroll.csv', tag);
    const first = readCsvReport(setup.work.file('payroll.report.csv'));
    const from = ctx.sb.requests().length;

    // Re-saved by a spreadsheet, with a fourth row added: rows 2 to 4 are the payouts sent.
    const resaved = writeFile(setup.work.file('payroll.csv'), toCsv(asNumbers(rows)));
    expect(toCsv(asNumbers(rows))).toContain(',76100001,23276100001,');
    for (const args of [['--yes'], ['--dry-run']]) {
      const r = await batch([resaved, '--batch-id', tag, ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n');
      expect(lines[0]).toBe(
        `Error: ${resaved}: 3 rows pay what payouts sent before paid, but for the leading zeros or "+" of their account or phone number. Nothing was sent.`,
      );
      rows.slice(0, 3).forEach((row, i) => {
        const bare = row.account_number!.replace(/^0+/, '');
        const said = `  - row ${i + 2}: account_number ${bare} was ${row.account_number} and phone_number ${row.phone_number!.slice(1)} was ${row.phone_number} when payout ${first[i]!.payout_id} paid the same in batch "${tag}" from ${resaved} on `;
        expect(lines[1 + i]!.slice(0, said.length)).toBe(said);
        expect(lines[1 + i]!.slice(said.length)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
      });
      expect(lines[4]).toMatch(/^A spreadsheet drops them when it saves these columns as numbers\. Put them back \(format account_number and phone_number as Text/);
      expect(lines).toHaveLength(6);
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // --json: each row a problem of its column, with the row's number.
    const j = await batch([resaved, '--batch-id', tag, '--yes', '--json']);
    expect(j.code).toBe(2);
    expect(j.stdout).toBe('');
    const err = JSON.parse(j.stderr).error;
    expect(err.code).toBe('USAGE_ERROR');
    expect(err.errors.map((e: { field: string; row: number }) => [e.field, e.row])).toEqual([
      ['account_number', 2],
      ['account_number', 3],
      ['account_number', 4],
    ]);

    // The digits back: the three rows accepted before are skipped, only the new one is sent.
    const fixed = await batch([writeFile(setup.work.file('payroll.csv'), toCsv(rows)), '--batch-id', tag, '--yes']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stderr).toContain('4 accepted (3 in an earlier run), 0 already submitted, 0 rejected, 0 unknown.');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
  });

  it('rows of a stopped run, journaled and never sent: the refusal says so, never "paid" (probe 70-R: "when payout … paid the same")', async () => {
    const tag = `zeros-stopped-${Date.now()}`;
    const rows = payroll(3, tag);
    const file = writeFile(setup.work.file('stopped.csv'), toCsv(rows));
    // The key refused on the first row: the run stops, its other rows journaled and not sent.
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 401, times: 1 });
    const stopped = await batch([file, '--batch-id', tag, '--concurrency', '1', '--yes']);
    expect(stopped.code, stopped.stderr).toBe(3);
    const report = readCsvReport(setup.work.file('stopped.report.csv'));

    writeFile(file, toCsv(asNumbers(rows)));
    const r = await batch([file, '--batch-id', tag, '--dry-run']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `row 3: account_number 76100002 was 076100002 and phone_number 23276100002 was +23276100002 when payout ${report[1]!.payout_id} was journaled for the same, not sent yet in batch "${tag}"`,
    );
    expect(r.stderr).not.toMatch(/paid the same in batch/);
  });

  it('plan create of such a file writes no plan (four eyes would approve payouts to the wrong accounts)', async () => {
    const tag = `plan-${Date.now()}`;
    const rows = payroll(2, tag);
    await sent(rows, 'stipends.csv', tag);
    expect((await payctl(['keys', 'create', '--name', 'Maker One'], { dir: setup.dir })).code).toBe(0);
    const planFile = setup.work.file('stipends.plan.json');
    const resaved = writeFile(setup.work.file('stipends.csv'), toCsv(asNumbers(rows)));
    const r = await payctl(['plan', 'create', resaved, '--batch-id', tag, '-o', planFile], { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `Error: ${resaved}: 2 rows pay what payouts sent before paid, but for the leading zeros or "+" of their account or phone number. No plan was written.`,
    );
    expect(r.stderr).toContain(`  - row 2: account_number ${rows[0]!.account_number!.replace(/^0+/, '')} was ${rows[0]!.account_number} and phone_number`);
    expect(existsSync(planFile)).toBe(false);
  });

  it('a phone column that lost its "+" alone is refused too, named as phone_number', async () => {
    const tag = `plus-${Date.now()}`;
    const rows = payroll(2, tag);
    await sent(rows, 'wallets.csv', tag);
    const from = ctx.sb.requests().length;
    const r = await batch([writeFile(setup.work.file('wallets.csv'), toCsv(asNumbers(rows, { phone: true }))), '--batch-id', tag, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`  - row 2: phone_number ${rows[0]!.phone_number!.slice(1)} was ${rows[0]!.phone_number} when payout `);
    expect(r.stderr).toContain(`  - row 3: phone_number ${rows[1]!.phone_number!.slice(1)} was ${rows[1]!.phone_number} when payout `);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('under another batch id, the same payouts re-saved are refused as well (they would go to other accounts)', async () => {
    const tag = `other-${Date.now()}`;
    const rows = payroll(2, tag);
    await sent(rows, 'november.csv', tag);
    const from = ctx.sb.requests().length;
    const r = await batch([writeFile(setup.work.file('december.csv'), toCsv(asNumbers(rows, { account: true }))), '--batch-id', `${tag}-dec`, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`  - row 2: account_number ${rows[0]!.account_number!.replace(/^0+/, '')} was ${rows[0]!.account_number} when payout `);
    expect(r.stderr).toContain(`in batch "${tag}" from ${setup.work.file('november.csv')}`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('under another batch id, its advice is followed as printed: the batch that paid them named, nothing paid twice (probe R62, F0)', async () => {
    const tag = `advice-${Date.now()}`;
    const rows = payroll(2, tag);
    await sent(rows, 'payroll.csv', tag);
    const from = ctx.sb.requests().length;
    const copy = setup.work.file('copy.csv');
    const r = await batch([writeFile(copy, toCsv(asNumbers(rows, { account: true }))), '--batch-id', `${tag}-b`, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    // Before: "Put them back ... and run the same command again: rows accepted before are not sent
    // again", and run again under that batch id with the zeros back, both rows were paid again.
    expect(r.stderr).not.toContain('run the same command again');
    expect(r.stderr).toContain(`and run it as the batch that paid them did (with --batch-id "${tag}"): rows accepted before are not sent again.`);
    expect(r.stderr).toContain(`Under another batch id, as with --batch-id "${tag}-b", they are new payouts, and pay the same people again.`);
    // Followed: the zeros back, under the batch id named. Nothing is sent again.
    writeFile(copy, toCsv(rows));
    const again = await batch([copy, '--batch-id', tag, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`Nothing to send: every row of ${copy} was accepted earlier (batch "${tag}").`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it("paid by two batches: the refusal names each batch's rows, and followed as printed, file by file, nothing is paid twice (probe R63, F1)", async () => {
    const tag = `two-${Date.now()}`;
    const rows = payroll(2, tag);
    await sent([rows[0]!], 'ba.csv', `${tag}-a`);
    await sent([rows[1]!], 'bb.csv', `${tag}-b`);
    const from = ctx.sb.requests().length;
    const r = await batch([writeFile(setup.work.file('copy.csv'), toCsv(asNumbers(rows, { account: true }))), '--batch-id', `${tag}-new`, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    // Before: "run it as the batches that paid them did (with --batch-id a, or with --batch-id b)",
    // and run with the first, the second batch's row was paid again.
    expect(r.stderr).toContain(`They were paid by 2 batches (row 2 with --batch-id "${tag}-a"; row 3 with --batch-id "${tag}-b")`);
    expect(r.stderr).toContain("send each batch's rows in a file of their own, run as that batch was, or take them out of this file.");
    for (const [i, id] of [
      [0, `${tag}-a`],
      [1, `${tag}-b`],
    ] as const) {
      const again = await batch([writeFile(setup.work.file(`own-${i}.csv`), toCsv([rows[i]!])), '--batch-id', id, '--yes']);
      expect(again.code, again.stderr).toBe(0);
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('a cell in scientific notation ("1.23457E+18", "2.3276E+10", a payout_id "4.5101E+11") is refused before anything is asked: exit 2', async () => {
    const rows = payroll(3, `sci-${Date.now()}`);
    rows[0]!.account_number = '1.23457E+18';
    rows[1]!.phone_number = '2.3276E+10';
    rows[2]!.payout_id = '4.5101E+11';
    const file = writeFile(setup.work.file('sci.csv'), toCsv(rows));
    const r = await batch([file, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    const said = 'is a long number as a spreadsheet writes it in scientific notation, its other digits lost: format the column as Text and type the number again';
    expect(r.stderr).toContain(`  - row 2: account_number: "1.23457E+18" ${said}`);
    expect(r.stderr).toContain(`  - row 3: phone_number: "2.3276E+10" ${said}`);
    expect(r.stderr).toContain(`  - row 4: payout_id: "4.5101E+11" ${said}`);
    expect(ctx.sb.requests()).toEqual([]);
  });
});
