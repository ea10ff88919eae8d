/**
 * A batch killed halfway, its file re-saved by a spreadsheet that dropped 4 or 8 leading zeros of
 * every account (`0000456719` -> `456719`), in process against the sandbox over real HTTP (probe
 * S, findings 1 and 2). Before: the re-saved file's resume was refused, but its rows put in a file
 * of their own and sent without --batch-id the same day were accepted (other runs were looked up
 * with up to three zeros back only), and the original file, restored and resumed, then paid
 * those payees again. And the refusal said a row whose request was in flight at the kill
 * (journaled, no answer) was "not sent yet", advising to send such rows in a file of their own.
 * Now every form of the zeros is looked up (identity.ts zeroForms), in both directions and for
 * `payout create`, and such a row is said to be of unknown outcome, without that advice.
 */
import { describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import type { Run } from '../helpers/e2e.js';
import { payoutPosts, readCsvReport, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';
import { journalInFlight, useBatchFolders } from '../helpers/batch-fixtures.js';
import { bankPayoutArgs, heldFrom } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

const batch = (args: string[]): Promise<Run> => payctl(['payout', 'batch', ...args], { dir: setup.dir });

/** `n` payroll rows to accounts of `zeros` leading zeros and then digits of their own, as the probe's file. */
function payroll(n: number, zeros: number, tag: string): BatchRow[] {
  const base = 100_000 + Math.floor(Math.random() * 800_000);
  return Array.from({ length: n }, (_, i) => ({
    wallet_id: setup.sleWallet,
    amount: `${10 + i}.50`,
    currency: 'SLE',
    type: 'bank',
    name: `Payee ${tag} ${i + 1}`,
    provider: 'ecobank',
    account_number: `${'0'.repeat(zeros)}${base + i}`,
    note: 'Nov salary',
  }));
}

/** The rows as a spreadsheet saves them when account_number holds numbers. */
const resaved = (rows: BatchRow[]): BatchRow[] => rows.map((r) => ({ ...r, account_number: r.account_number!.replace(/^0+/, '') }));

/** How many payouts the sandbox holds for each payee (by name), whatever the zeros of the account paid. */
function paidPerPayee(tag: string): Map<string, number> {
  const n = new Map<string, number>();
  for (const p of ctx.sb.payouts()) {
    const name = p.recipient.accountDetails.name;
    if (name.includes(tag)) n.set(name, (n.get(name) ?? 0) + 1);
  }
  return n;
}

describe('payout batch killed halfway, its accounts re-saved without their zeros', () => {
  it.each([4, 8])('%i zeros: the rows not in the report, sent in a file of their own, are refused; the original resumed pays each payee once', async (zeros) => {
    const tag = `k${zeros}z${Date.now()}`;
    const rows = payroll(6, zeros, tag);
    const file = setup.work.file('pay.csv');
    // The run killed halfway: rows 2 to 4 accepted, row 5 in flight (journaled, no answer).
    expect((await batch([writeFile(file, toCsv(rows.slice(0, 3))), '--yes'])).code).toBe(0);
    const paid = readCsvReport(setup.work.file('pay.report.csv'));
    writeFile(file, toCsv(rows));
    await journalInFlight(setup.dir, ctx.sb.baseUrl, file, [5]);
    const from = ctx.sb.requests().length;

    // 1) Re-saved by a spreadsheet: the resume is refused; the in-flight row is said to be of unknown outcome.
    writeFile(file, toCsv(resaved(rows)));
    const r1 = await batch([file, '--yes']);
    expect(r1.code, r1.stderr).toBe(2);
    expect(r1.stderr).toContain(
      `  - row 4: account_number ${resaved(rows)[2]!.account_number} was ${rows[2]!.account_number} when payout ${paid[2]!.payout_id} paid the same in batch`,
    );
    expect(r1.stderr).toMatch(
      / {2}- row 5: account_number \d+ was 0+\d+ when payout \S+ was journaled for the same, its outcome unknown \(it may have been paid\) in batch/,
    );
    expect(r1.stderr).not.toContain('not sent yet');
    expect(r1.stderr).not.toContain('send them in a file of their own');

    // 2) Rows 4 to 7 (row 4 paid, row 5 in flight) in a file of their own, without --batch-id: refused, nothing sent.
    const rest = writeFile(setup.work.file('rest.csv'), toCsv(resaved(rows).slice(2)));
    const r2 = await batch([rest, '--yes']);
    expect(r2.code, r2.stderr).toBe(2);
    expect(r2.stderr).toContain('Nothing was sent.');
    expect(r2.stderr).toContain(
      `  - row 2: account_number ${resaved(rows)[2]!.account_number} was ${rows[2]!.account_number} when payout ${paid[2]!.payout_id} paid the same`,
    );
    expect(r2.stderr).toMatch(/ {2}- row 3: account_number \d+ was 0+\d+ when payout \S+ was journaled for the same, its outcome unknown \(it may have been paid\)/);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // 3) The original file restored and resumed: the in-flight row sent under its key, the rest once.
    writeFile(file, toCsv(rows));
    const r3 = await batch([file, '--yes']);
    expect(r3.code, r3.stderr).toBe(0);
    expect(r3.stderr).toContain('6 accepted (3 in an earlier run)');
    expect([...paidPerPayee(tag).values()]).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('a row in flight at the kill, its note re-saved: said to be of unknown outcome, with no advice to send it in a file of its own; resumed as sent, paid once', async () => {
    const tag = `kn${Date.now()}`;
    const rows = payroll(3, 4, tag);
    const file = setup.work.file('pay.csv');
    expect((await batch([writeFile(file, toCsv(rows.slice(0, 1))), '--yes'])).code).toBe(0);
    writeFile(file, toCsv(rows));
    await journalInFlight(setup.dir, ctx.sb.baseUrl, file, [3]);
    const from = ctx.sb.requests().length;

    // Re-saved with the notes' text changed (zeros kept): the rows are payouts this batch journaled, changed since.
    writeFile(file, toCsv(rows.map((r) => ({ ...r, note: 'Nov  salary' }))));
    const r = await batch([file, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Error: ${file}: 2 rows pay what batch "default" paid before, their other cells changed since. Nothing was sent.`);
    expect(r.stderr).toMatch(
      / {2}- row 3: note "Nov {2}salary" was "Nov salary" when payout \S+ was journaled for the same, its outcome unknown \(it may have been paid\) in this batch/,
    );
    expect(r.stderr).toContain(
      'A payout named here with its outcome unknown may have been paid: resume its batch from the file as it was sent (its journaled rows are sent again under their own keys, so each is paid once), or settle it with payctl history reconcile. Never send its row in a file of its own or under a batch id of its own: that would pay it twice.',
    );
    expect(r.stderr).not.toContain('send them in a file of their own');
    expect(r.stderr).not.toContain('not sent yet');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    writeFile(file, toCsv(rows));
    const resumed = await batch([file, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect([...paidPerPayee(tag).values()]).toEqual([1, 1, 1]);
  });

  it('the other way: a copy without its zeros sent first, the original with them sent the same day is refused (4 zeros)', async () => {
    const tag = `rev${Date.now()}`;
    const rows = payroll(2, 4, tag);
    expect((await batch([writeFile(setup.work.file('copy.csv'), toCsv(resaved(rows))), '--yes'])).code).toBe(0);
    const from = ctx.sb.requests().length;
    const original = writeFile(setup.work.file('original.csv'), toCsv(rows));
    const r = await batch([original, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`row 2: account_number "${rows[0]!.account_number}" was "${resaved(rows)[0]!.account_number}"`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect([...paidPerPayee(tag).values()]).toEqual([1, 1]);
  });
});

describe("payout create and a batch row that differ only in the account's leading zeros (4 of them)", () => {
  it('a payout typed without the zeros after a batch row paid with them: a repeat, refused without a terminal, nothing sent', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const account = `0000${100_000 + Math.floor(Math.random() * 800_000)}`;
    const row = { wallet_id: wallet, amount: '15.00', currency: 'SLE', type: 'bank', name: 'Rep4', provider: 'ecobank', account_number: account, note: 'x' };
    expect((await batch([writeFile(setup.work.file('one.csv'), toCsv([row])), '--yes'])).code).toBe(0);
    const r = await payctl(bankPayoutArgs(wallet, account.replace(/^0+/, '')), { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`This payout repeats one sent from this config folder`);
    expect(r.stderr).toContain(`(written "${account}" there)`);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });

  it('a batch file re-saved without the zeros after a payout typed with them: refused, nothing sent', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const account = `0000${100_000 + Math.floor(Math.random() * 800_000)}`;
    expect((await payctl(bankPayoutArgs(wallet, account), { dir: setup.dir })).code).toBe(0);
    const row = { wallet_id: wallet, amount: '15.00', currency: 'SLE', type: 'bank', name: 'Rep4', provider: 'ecobank', account_number: account.replace(/^0+/, '') };
    const r = await batch([writeFile(setup.work.file('one.csv'), toCsv([row])), '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`row 2: account_number ${row.account_number} was ${account} when payout`);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });
});
