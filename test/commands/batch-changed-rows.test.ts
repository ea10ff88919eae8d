/**
 * `payctl payout batch` (and `plan create`) with a file changed since its rows were sent, in
 * cells that make no other payment (src/payouts/changed-rows.ts). In process, the sandbox over
 * real HTTP. Before: a payroll sent, re-saved by a spreadsheet that reformatted the date in its
 * notes and dropped an employee number's zeros, and resumed under the same batch id, paid every
 * row a second time (what a row pays, note and metadata included, is its identity). Now such a
 * file is refused, exit 2, nothing sent, each row named with the cells that differ and the
 * payout it would pay again; put back, it resumes and sends only what is new. And a single
 * payout typed after the batch paid it is caught by the repeat guard.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { payctl, type InProcessOptions } from '../helpers/in-process.js';
import type { Run } from '../helpers/e2e.js';
import { batchRows, payoutPosts, readCsvReport, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';
import { payrollRows, useBatchFolders } from '../helpers/batch-fixtures.js';
import { TestClock } from '../helpers/clock.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

const batch = (args: string[], opts: Partial<InProcessOptions> = {}): Promise<Run> => payctl(['payout', 'batch', ...args], { dir: setup.dir, ...opts });

/** A payroll export: ids made from what each row pays, a dated note and an employee number. */
const payroll = (n: number, tag: string): BatchRow[] => payrollRows(n, setup.sleWallet, tag);

/** As a spreadsheet saves them: the date in the note reformatted, the employee number a number. */
const resaved = (rows: BatchRow[]) => rows.map((r) => ({ ...r, note: 'Salary 11/30/2026', 'metadata.employee': String(Number(r['metadata.employee'])) }));

describe('payout batch: a sent file whose notes and metadata a spreadsheet changed', () => {
  it('is refused, exit 2, nothing sent (a dry run and plan create too), each row named with what differs; put back, it resumes and sends only the new row', async () => {
    const tag = `changed${Date.now()}`;
    const rows = payroll(3, tag);
    const file = setup.work.file('payroll.csv');
    const first = await batch([writeFile(file, toCsv(rows)), '--batch-id', tag, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const report = readCsvReport(setup.work.file('payroll.report.csv'));
    const from = ctx.sb.requests().length;

    // Re-saved, with a fourth row added: rows 2 to 4 are the payouts sent, row 5 is new.
    const added = payroll(1, `${tag}new`)[0]!;
    writeFile(file, toCsv([...resaved(rows), { ...added, note: 'Salary 11/30/2026' }]));
    for (const args of [['--yes'], ['--dry-run']]) {
      const r = await batch([file, '--batch-id', tag, ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n');
      expect(lines[0]).toBe(`Error: ${file}: 3 rows pay what batch "${tag}" paid before, their other cells changed since. Nothing was sent.`);
      rows.forEach((row, i) => {
        const said = `  - row ${i + 2}: note "Salary 11/30/2026" was "Salary 2026-11-30", metadata.employee "${i + 1}" was "${row['metadata.employee']}" when payout ${report[i]!.payout_id} paid the same in this batch (its row ${i + 2}, `;
        expect(lines[1 + i]!.slice(0, said.length)).toBe(said);
        expect(lines[1 + i]!.slice(said.length)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\)$/);
      });
      expect(lines[4]).toMatch(/^A spreadsheet that re-saves a file reformats dates and drops zeros\. Put the cells back as they were sent/);
    }
    const key = await payctl(['keys', 'create', '--name', 'Mariama Kanu'], { dir: setup.dir });
    expect(key.code, key.stderr).toBe(0);
    const plan = await payctl(['plan', 'create', file, '--batch-id', tag], { dir: setup.dir });
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain(`3 rows pay what batch "${tag}" paid before, their other cells changed since. No plan was written.`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // Put back: the three are accepted already, the new row alone is sent.
    writeFile(file, toCsv([...rows, added]));
    const resumed = await batch([file, '--batch-id', tag, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('4 accepted (3 in an earlier run), 0 already submitted, 0 rejected, 0 unknown.');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
  });

  it('a named batch is one payroll whatever its file: saved under another name, in another folder, refused', async () => {
    const tag = `saveas${Date.now()}`;
    const rows = payroll(2, tag);
    const file = setup.work.file('nov.csv');
    expect((await batch([writeFile(file, toCsv(rows)), '--batch-id', tag, '--yes'])).code).toBe(0);
    const report = readCsvReport(setup.work.file('nov.report.csv'));
    const from = ctx.sb.requests().length;
    // "Save As" beside it, and a copy moved to another folder: the same batch's rows, reformatted.
    const copy = setup.work.file('nov (1).csv');
    mkdirSync(setup.work.file('moved'));
    const moved = setup.work.file('moved/nov.csv');
    for (const f of [copy, moved]) {
      const r = await batch([writeFile(f, toCsv(resaved(rows))), '--batch-id', tag, '--yes']);
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.split('\n');
      expect(lines[0]).toBe(`Error: ${f}: 2 rows pay what batch "${tag}" paid before, their other cells changed since. Nothing was sent.`);
      expect(lines[1]).toContain(`when payout ${report[0]!.payout_id} paid the same in this batch (its row 2 of ${file}, `);
      expect(lines[2]).toContain(`when payout ${report[1]!.payout_id} paid the same in this batch (its row 3 of ${file}, `);
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('a run without --batch-id is compared with every batch of the last 24 hours, from any file: a re-saved copy sent the same day is refused; a month on, new payouts', async () => {
    // Before: a named batch's file, re-saved as "pay (1).csv" and sent without its --batch-id (or
    // a run without one re-saved and sent again), was batch "default" from another file,
    // compared with nothing, and paid every row again, exit 0.
    const tag = `sameday${Date.now()}`;
    const rows = payroll(2, tag);
    const file = setup.work.file('pay.csv');
    expect((await batch([writeFile(file, toCsv(rows)), '--batch-id', tag, '--yes'])).code).toBe(0);
    const report = readCsvReport(setup.work.file('pay.report.csv'));
    const from = ctx.sb.requests().length;
    const copy = writeFile(setup.work.file('pay (1).csv'), toCsv(resaved(rows)));
    for (const args of [['--yes'], ['--dry-run']]) {
      const r = await batch([copy, ...args]);
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.split('\n');
      expect(lines[0]).toBe(`Error: ${copy}: 2 rows pay what batch "${tag}" paid before, their other cells changed since. Nothing was sent.`);
      expect(lines[1]).toContain(
        `  - row 2: note "Salary 11/30/2026" was "Salary 2026-11-30", metadata.employee "1" was "00001" when payout ${report[0]!.payout_id} paid the same in batch "${tag}" (its row 2 of ${file}, `,
      );
      expect(lines[3]).toContain('A run without --batch-id is compared with every batch sent in the last 24 hours, from any file.');
    }
    // plan create refuses the copy alike.
    if ((await payctl(['keys', 'show'], { dir: setup.dir })).code !== 0)
      expect((await payctl(['keys', 'create', '--name', 'Fatmata Sesay'], { dir: setup.dir })).code).toBe(0);
    const plan = await payctl(['plan', 'create', copy], { dir: setup.dir });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stderr).toContain(`2 rows pay what batch "${tag}" paid before, their other cells changed since. No plan was written.`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // A run without --batch-id, re-saved under another name and sent again: refused the same way.
    const other = payroll(2, `${tag}d`);
    const plain = setup.work.file('stipends.csv');
    expect((await batch([writeFile(plain, toCsv(other)), '--yes'])).code).toBe(0);
    const again = await batch([writeFile(setup.work.file('stipends (1).csv'), toCsv(resaved(other))), '--yes']);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`2 rows pay what batch "default" paid before, their other cells changed since. Nothing was sent.`);
    expect(again.stderr).toContain(` paid the same in batch "default" (its row 2 of ${plain}, `);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
    // Named, the copy is new payouts, as the refusal says.
    const named = await batch([setup.work.file('stipends (1).csv'), '--batch-id', `${tag}-again`, '--dry-run']);
    expect(named.code, named.stderr).toBe(0);

    // A payroll's months without --batch-id (October's file, then November's with the same
    // amounts and another note, a month later): new payouts.
    const october = payroll(2, `${tag}m`).map((r) => ({ ...r, note: 'Salary 2026-10-31' }));
    const monthAgo = new TestClock(new Date(Date.now() - 31 * 86_400_000));
    expect((await batch([writeFile(setup.work.file('oct-default.csv'), toCsv(october)), '--yes'], { clock: monthAgo })).code).toBe(0);
    const november = october.map((r) => ({ ...r, note: 'Salary 2026-11-30' }));
    const next = await batch([writeFile(setup.work.file('nov-default.csv'), toCsv(november)), '--dry-run']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('changed since');
    // And the same-day copy, 25 hours on: past the window, new payouts (the repeat guard's note aside).
    const later = await batch([copy, '--dry-run'], { clock: new TestClock(new Date(Date.now() + 25 * 3_600_000)) });
    expect(later.code, later.stderr).toBe(0);
  });

  it('a payout_id column saved as numbers (its zeros dropped) is refused, naming the ids; a new id beside the one that paid is a new payout', async () => {
    const tag = `ids${Date.now()}`;
    const stamp = String(Date.now()).slice(-6);
    const rows = payroll(2, tag).map((r, i) => ({ payout_id: `00${stamp}${i}`, ...r }));
    const file = setup.work.file('ids.csv');
    expect((await batch([writeFile(file, toCsv(rows)), '--batch-id', tag, '--yes'])).code).toBe(0);
    const from = ctx.sb.requests().length;
    const r = await batch([writeFile(file, toCsv(rows.map((x) => ({ ...x, payout_id: String(Number(x.payout_id)) })))), '--batch-id', tag, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe(`Error: ${file}: 2 rows pay what batch "${tag}" paid before, their other cells changed since. Nothing was sent.`);
    rows.forEach((x, i) => {
      expect(lines[1 + i]).toContain(
        `  - row ${i + 2}: payout_id "${Number(x.payout_id)}" was "${x.payout_id}" when payout ${x.payout_id} paid the same in this batch (its row ${i + 2}, `,
      );
    });
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    // The payout_id column emptied: the rows' ids would be made from what they pay, new ones.
    const emptied = await batch([writeFile(file, toCsv(rows.map((x) => ({ ...x, payout_id: '' })))), '--batch-id', tag, '--yes']);
    expect(emptied.code, emptied.stderr).toBe(2);
    expect(emptied.stderr).toContain(
      `  - row 2: payout_id (empty) was "${rows[0]!.payout_id}" when payout ${rows[0]!.payout_id} paid the same in this batch (its row 2, `,
    );
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    writeFile(file, toCsv(rows));
    // The file decides identity: a second payout of the same amount to the same account, under an id of its own beside the first.
    const bonus = { ...rows[0]!, payout_id: `${stamp}-bonus`, note: 'Bonus 2026-11-30' };
    const again = await batch([writeFile(file, toCsv([...rows, bonus])), '--batch-id', tag, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
  });

  it("without --batch-id, a copy saved under another name with its payout ids' zeros dropped is refused; ids of their own are new payouts", async () => {
    const tag = `copyids${Date.now()}`;
    const stamp = String(Date.now()).slice(-6);
    const rows = payroll(2, tag).map((r, i) => ({ payout_id: `EMP-00${stamp}${i}`, ...r }));
    expect((await batch([writeFile(setup.work.file('num.csv'), toCsv(rows)), '--yes'])).code).toBe(0);
    const from = ctx.sb.requests().length;
    // Before: the copy's rows were new payouts ("payout_id is used as given"), and paid again.
    const mangled = rows.map((x) => ({ ...x, payout_id: `emp-${Number(x.payout_id.slice(4))}` }));
    const copy = writeFile(setup.work.file('num (1).csv'), toCsv(mangled));
    const r = await batch([copy, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `  - row 2: payout_id "${mangled[0]!.payout_id}" was "${rows[0]!.payout_id}" when payout ${rows[0]!.payout_id} paid the same in batch "default"`,
    );
    expect(r.stderr).toContain('A run without --batch-id is compared with every batch sent in the last 24 hours, from any file.');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    // Ids that are other ids, not a spreadsheet's copy of these: the file decides, new payouts (noted).
    const other = await batch([writeFile(setup.work.file('num (2).csv'), toCsv(rows.map((x, i) => ({ ...x, payout_id: `${stamp}-second-${i}` })))), '--yes']);
    expect(other.code, other.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
  });

  it('a row changed beside the row that paid it, or a batch of another id: nothing refused', async () => {
    const tag = `beside${Date.now()}`;
    const rows = payroll(2, tag);
    const file = setup.work.file('p.csv');
    expect((await batch([writeFile(file, toCsv(rows)), '--batch-id', tag, '--yes'])).code).toBe(0);
    // Row 1 kept as sent, and a second payout to the same account for the same amount with another note: a new payout.
    const bonus = { ...rows[0]!, note: 'Bonus 2026-11-30' };
    const r = await batch([writeFile(file, toCsv([...rows, bonus])), '--batch-id', tag, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('changed since');
    // Another batch id: the repeat guard's business (a note, as before), not this check's.
    const other = await batch([writeFile(setup.work.file('q.csv'), toCsv(resaved(rows))), '--batch-id', `${tag}b`, '--dry-run']);
    expect(other.code, other.stderr).toBe(0);
  });

  it('an amount corrected in the file after its row was paid: refused, naming both amounts, without --batch-id and named; beside its row, a new payout', async () => {
    for (const named of [false, true]) {
      const tag = `amount${named ? 'n' : 'u'}${Date.now()}`;
      const rows = payroll(2, tag).map((r, i) => ({ ...r, amount: i === 0 ? '1500.00' : '1200.00' }));
      const file = setup.work.file(`${tag}.csv`);
      const id = named ? ['--batch-id', tag] : [];
      expect((await batch([writeFile(file, toCsv(rows)), ...id, '--yes'])).code).toBe(0);
      const paid = readCsvReport(setup.work.file(`${tag}.report.csv`));
      const from = ctx.sb.requests().length;
      // The operator fixes a typo: 1200.00 was meant to be 1250.00. Before, the run paid 1,250.00 on top of the 1,200.00.
      const fixed = [rows[0]!, { ...rows[1]!, amount: '1250.00' }];
      const r = await batch([writeFile(file, toCsv(fixed)), ...id, '--yes']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`row 3: amount "1,250.00" was "1,200.00" when payout ${paid[1]!.payout_id} paid this account in this batch (its row 3,`);
      expect(r.stderr).toContain('a difference to pay is a payout of its own');
      expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
      // The row kept beside it, and a second payout to that account of another amount: a new payout, sent.
      const extra = await batch([writeFile(file, toCsv([...rows, { ...rows[1]!, amount: '50.00', note: 'Difference 2026-11-30' }])), ...id, '--yes']);
      expect(extra.code, extra.stderr).toBe(0);
      expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
    }
  });

  // Before, each of these resumes paid the row again, exit 0 (probe 48-A): the look-ups keyed on
  // the wallet and the account as compared, and one dashed account (text to a spreadsheet) turned
  // the lost-zeros check off for the whole column.
  const resumes: Array<{
    what: string;
    named: boolean;
    before: (r: BatchRow[]) => BatchRow[];
    after: (r: BatchRow[], w: { sle: string; other: string }) => BatchRow[];
    said: (w: { sle: string; other: string }) => RegExp;
  }> = [
    {
      what: 'a paid row moved to another wallet of the currency',
      named: true,
      before: (r) => r,
      after: (r, w) => [r[0]!, { ...r[1]!, wallet_id: w.other }],
      said: (w) => new RegExp(`row 3: wallet_id "${w.other}" was "${w.sle}" when payout \\S+ paid the same in this batch`),
    },
    {
      what: "a paid row's account zeros dropped and its metadata re-saved",
      named: true,
      before: (r) => r,
      after: (r) => [r[0]!, { ...r[1]!, account_number: r[1]!.account_number!.replace(/^0+/, ''), 'metadata.employee': '2' }],
      said: () => /row 3: account_number "\d+" was "00\d+", metadata\.employee "2" was "00002" when payout \S+ paid the same in this batch/,
    },
    {
      what: "a paid row's 20-digit account cut to 15 digits, without --batch-id",
      named: false,
      before: (r) => [r[0]!, { ...r[1]!, account_number: '12345678901234567890' }],
      after: (r) => [r[0]!, { ...r[1]!, account_number: '12345678901234500000' }],
      said: () => /row 3: account_number "12345678901234500000" was "12345678901234567890" when payout \S+ paid the same in this batch/,
    },
    {
      what: "a paid row's account zeros dropped beside a dashed account, amounts re-saved plain",
      named: true,
      before: (r) => [{ ...r[0]!, account_number: `0011-${r[0]!.account_number!.slice(2)}` }, r[1]!],
      after: (r) => [
        { ...r[0]!, amount: r[0]!.amount!.replace('.00', '') },
        { ...r[1]!, account_number: r[1]!.account_number!.replace(/^0+/, ''), amount: r[1]!.amount!.replace('.00', '') },
      ],
      said: () => /row 3: account_number "?\d+"? was "?00\d+"?/,
    },
  ];
  it.each(resumes)('$what: refused, exit 2, nothing sent', async (c) => {
    const other = ctx.sb.wallets().find((w) => w.currency === 'SLE' && w.wallet_id !== setup.sleWallet);
    expect(other).toBeDefined();
    const w = { sle: setup.sleWallet, other: other!.wallet_id };
    const tag = `moved${resumes.indexOf(c)}${Date.now()}`;
    const rows = c.before(payroll(2, tag));
    const file = setup.work.file(`${tag}.csv`);
    const id = c.named ? ['--batch-id', tag] : [];
    const first = await batch([writeFile(file, toCsv(rows)), ...id, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const from = ctx.sb.requests().length;
    for (const args of [['--dry-run'], ['--yes']]) {
      const r = await batch([writeFile(file, toCsv(c.after(rows, w))), ...id, ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(c.said(w));
    }
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
  });

  it('a named batch sent in two files: other payees whose accounts differ only in zeros or past 15 digits, and a payee paid another amount from the other wallet, are new payouts (probe 49-E: refused)', async () => {
    const other = ctx.sb.wallets().find((w) => w.currency === 'SLE' && w.wallet_id !== setup.sleWallet)!.wallet_id;
    const tag = `parts${Date.now()}`;
    const row = (name: string, amount: string, account: string, provider = 'ecobank', wallet = setup.sleWallet): BatchRow => ({
      wallet_id: wallet,
      amount,
      currency: 'SLE',
      type: 'bank',
      name,
      provider,
      account_number: account,
      note: 'Nov',
    });
    const part1 = [row('Alice Kamara', '100.00', '1234567890123451'), row('Musa Bangura', '150.00', '0076543210', 'rokel'), row('Fatu Conteh', '120.00', '0044556677')];
    const part2 = [
      row('Bob Sesay', '300.00', '1234567890123452'),
      row('Hawa Jalloh', '180.00', '76543210', 'uba'),
      row('Fatu Conteh', '40.00', '0044556677', 'ecobank', other),
    ];
    expect((await batch([writeFile(setup.work.file(`${tag}-1.csv`), toCsv(part1)), '--batch-id', tag, '--yes'])).code).toBe(0);
    const from = ctx.sb.requests().length;
    const r = await batch([writeFile(setup.work.file(`${tag}-2.csv`), toCsv(part2)), '--batch-id', tag, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(3);
  });

  it("without --batch-id, a copy saved the same day with its accounts' zeros dropped and its notes' dates reformatted: refused (probe 49-E: paid again)", async () => {
    const tag = `copy${Date.now()}`;
    const rows = payroll(2, tag);
    expect((await batch([writeFile(setup.work.file(`${tag}.csv`), toCsv(rows)), '--yes'])).code).toBe(0);
    const from = ctx.sb.requests().length;
    const copy = rows.map((r) => ({ ...r, account_number: r.account_number!.replace(/^0+/, ''), note: 'Salary 11/30/2026' }));
    const r = await batch([writeFile(setup.work.file(`${tag} (1).csv`), toCsv(copy)), '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/row 2: account_number "\d+" was "00\d+", note "Salary 11\/30\/2026" was "Salary 2026-11-30"/);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
  });

  it('names re-saved on a Mac (NFD) against the NFC ones sent: refused, saying only the Unicode normalization differs and what to do; put back, nothing is paid again', async () => {
    const tag = `nfd${Date.now()}`;
    // "José" and "Fañe" as most programs write them (NFC: é is U+00E9), one name plain ASCII.
    const rows = payroll(3, tag).map((r, i) => ({ ...r, name: ['Jos\u00e9 Conteh', 'Employee plain', 'Fa\u00f1e Kamara'][i]! }));
    const file = setup.work.file('payroll.csv');
    const first = await batch([writeFile(file, toCsv(rows)), '--batch-id', tag, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const report = readCsvReport(setup.work.file('payroll.report.csv'));
    const from = ctx.sb.requests().length;

    // Re-saved on a Mac: the same letters decomposed (e then U+0301), which look the same.
    const nfd = rows.map((r) => ({ ...r, name: r.name.normalize('NFD') }));
    expect(nfd[0]!.name).not.toBe(rows[0]!.name);
    writeFile(file, toCsv(nfd));
    const r = await batch([file, '--batch-id', tag, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe(`Error: ${file}: 2 rows pay what batch "${tag}" paid before, their other cells changed since. Nothing was sent.`);
    for (const [k, i] of [0, 2].entries()) {
      const said = `  - row ${i + 2}: name ${JSON.stringify(nfd[i]!.name)} differs only in Unicode normalization (NFD now, NFC when sent: as when a file is re-saved on a Mac) when payout ${report[i]!.payout_id} paid the same in this batch (its row ${i + 2}, `;
      expect(lines[1 + k]!.slice(0, said.length)).toBe(said);
    }
    expect(r.stderr).toContain('A cell that differs only in Unicode normalization looks the same but is other bytes, and those would be sent');
    expect(r.stderr).toContain('save the file from a program that writes them composed (NFC), as they were sent.');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // Put back as sent (NFC): every row accepted before, nothing sent again.
    writeFile(file, toCsv(nfd.map((x) => ({ ...x, name: x.name.normalize('NFC') }))));
    const resumed = await batch([file, '--batch-id', tag, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('3 accepted (3 in an earlier run)');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('with a payout_id column, names re-saved on a Mac (NFD): the conflict says the cells differ only in Unicode normalization (plan create too)', async () => {
    const tag = `nfdid${Date.now()}`;
    const rows = batchRows(3, setup.sleWallet, tag).map((r, i) => (i === 1 ? { ...r, name: 'Jos\u00e9 Conteh' } : r));
    const file = setup.work.file('ids.csv');
    const first = await batch([writeFile(file, toCsv(rows)), '--batch-id', tag, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const from = ctx.sb.requests().length;

    writeFile(file, toCsv(rows.map((r) => ({ ...r, name: r.name!.normalize('NFD') }))));
    const cause = `name "${'Jos\u00e9 Conteh'.normalize('NFD')}" differs only in Unicode normalization (NFD now, NFC when sent: as when a file is re-saved on a Mac); save the file with its letters composed (NFC), as sent`;
    const r = await batch([file, '--batch-id', tag, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${file}: 1 row conflict with earlier payouts. Nothing was sent.`);
    expect(r.stderr).toContain(`  - row 3: payout_id "${tag}-002" was already sent with other details: ${cause}\n`);
    // plan create needs a signing key: this file's first test made one, unless it ran alone.
    if (!existsSync(join(setup.dir, 'signing-key.json'))) expect((await payctl(['keys', 'create', '--name', 'Mariama Kanu'], { dir: setup.dir })).code).toBe(0);
    const plan = await payctl(['plan', 'create', file, '--batch-id', tag], { dir: setup.dir });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stderr).toContain(`row 3: payout id "${tag}-002" was already sent with other details: ${cause}\n`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('payout create of a payout a batch paid an hour ago is caught as a repeat, naming the batch row', async () => {
    const tag = `single${Date.now()}`;
    const [row] = payroll(1, tag);
    const file = setup.work.file('one.csv');
    expect((await batch([writeFile(file, toCsv([row!])), '--batch-id', tag, '--yes'])).code).toBe(0);
    const id = readCsvReport(setup.work.file('one.report.csv'))[0]!.payout_id;
    const from = ctx.sb.requests().length;
    const args = ['payout', 'create', '--wallet', row!.wallet_id!, '--amount', row!.amount!, '--currency', 'SLE', '--type', 'bank'];
    const r = await payctl([...args, '--name', row!.name!, '--provider', 'ecobank', '--account', row!.account_number!, '--yes'], { dir: setup.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`with the same wallet, account, amount and currency: payout id ${id} (row 2 of batch "${tag}" from ${file}), accepted`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});
