/**
 * `payctl payout batch` with a paid row whose account number was corrected in the same file
 * (src/payouts/changed-rows.ts): before, the row was sent again as a new payout (the payee paid
 * twice, only a note about the report file said anything); now it is refused, exit 2, nothing
 * sent, naming the row, the account it was and whom the payout paid. A payroll of two payees
 * with other accounts is never taken for it. In process, the sandbox over real HTTP.
 */
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import type { Run } from '../helpers/e2e.js';
import { payoutPosts, readCsvReport, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

const batch = (args: string[]): Promise<Run> => payctl(['payout', 'batch', ...args], { dir: setup.dir });

/** A bank payroll row (no payout_id: its id is made from what it pays). */
const row = (name: string, amount: string, account: string): BatchRow => ({
  wallet_id: setup.sleWallet,
  amount,
  currency: 'SLE',
  type: 'bank',
  name,
  provider: 'ecobank',
  account_number: account,
  note: 'Nov salary',
});

describe('payout batch: a paid row whose account number was corrected in the file', () => {
  for (const named of [true, false]) {
    it(`is refused, exit 2, nothing sent, naming the account it was and whom it paid (${named ? '--batch-id' : 'no --batch-id, the same file'})`, async () => {
      const tag = String(Date.now()).slice(-7);
      const fatmata = `Fatmata Bangura ${tag}`;
      const ids = named ? ['--batch-id', `nov${tag}`] : [];
      const file = setup.work.file('payroll.csv');
      writeFile(file, toCsv([row(fatmata, '1000.00', `001${tag}`), row(`Ibrahim Koroma ${tag}`, '250.50', `002${tag}`)]));
      expect((await batch([file, ...ids, '--yes'])).code).toBe(0);
      const paid = readCsvReport(setup.work.file('payroll.report.csv'))[0]!.payout_id;

      // The operator "fixes" Fatmata's account in the same file.
      writeFile(file, toCsv([row(fatmata, '1000.00', `009${tag}`), row(`Ibrahim Koroma ${tag}`, '250.50', `002${tag}`)]));
      const from = ctx.sb.requests().length;
      const r = await batch([file, ...ids, '--yes']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`row 2: account_number "009${tag}" was "001${tag}" when payout ${paid} paid ${fatmata} 1,000.00 SLE in this batch`);
      expect(r.stderr).toContain('to another account, is a payout of its own');
      expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    });
  }

  it('a payroll of two payees with other accounts, the same name, amount and note: the second is a new payout, nothing refused', async () => {
    const tag = String(Date.now()).slice(-7);
    const name = `Mohamed Kamara ${tag}`;
    const file = setup.work.file('two.csv');
    writeFile(file, toCsv([row(name, '300.00', `003${tag}`)]));
    expect((await batch([file, '--batch-id', `two${tag}`, '--yes'])).code).toBe(0);
    // The second Mohamed Kamara added beside the first, who stays in the file.
    writeFile(file, toCsv([row(name, '300.00', `003${tag}`), row(name, '300.00', `004${tag}`)]));
    const from = ctx.sb.requests().length;
    const r = await batch([file, '--batch-id', `two${tag}`, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
  });
});
