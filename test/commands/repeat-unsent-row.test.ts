/**
 * `payout create`'s repeat guard over a batch row its run never sent (recorded not made), in
 * process against the sandbox over real HTTP (probe A53, finding 1). A batch paid an account;
 * a re-saved copy (zeros dropped, name edited) journaled the same row and stopped before sending
 * it. Before: the guard named the newest entry, that unsent row, as "sent, no answer recorded",
 * its printed check read "found not made", and the operator who then added --allow-repeat paid
 * the account twice. Now the payout that paid is named first, and the unsent row is said as it
 * is: journaled, not sent, and sent by its batch run again.
 */
import { describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { readCsvReport, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { bankPayoutArgs, heldFrom } from '../helpers/payout-fixtures.js';
import { Journal } from '../../src/payouts/journal.js';
import { checkBatch, identifiedRows, openBatch } from '../../src/payouts/batch-load.js';
import { payoutBody } from '../../src/payouts/request.js';
import { repeatKey } from '../../src/payouts/identity.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

/**
 * Journals row 2 of `file` (batch default) as a run stopped before sending it leaves it:
 * claimed, then recorded not made; or, `killed`, as a killed run leaves it: claimed, no outcome.
 */
async function journalNotMade(file: string, killed = false): Promise<string> {
  const src = openBatch(file, 'default');
  const journal = new Journal(setup.dir);
  for await (const r of identifiedRows(src, [], await checkBatch(src))) {
    const origin = { batch: { id: 'default', file: src.file, row: r.row }, fingerprint: r.fingerprint, repeatKey: repeatKey(r.request) };
    const entry = await journal.begin({
      baseUrl: ctx.sb.baseUrl,
      payoutId: r.request.payoutId,
      body: payoutBody(r.request),
      now: new Date(),
      origin,
      profile: 'default',
    });
    if (!killed) await journal.record(entry, { kind: 'not-made', at: new Date().toISOString() });
    return r.request.payoutId;
  }
  throw new Error('no row');
}

/** One row paying `account` 15.00 SLE from `wallet`, to `name`. */
const rowOf = (wallet: string, account: string, name: string): BatchRow => ({
  wallet_id: wallet,
  amount: '15.00',
  currency: 'SLE',
  type: 'bank',
  name,
  provider: 'ecobank',
  account_number: account,
});

describe('payout create after a batch paid the account and a copy journaled the row without sending it', () => {
  it('names the payout that paid first, says the unsent row as not sent, and checks the one that paid', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const account = `00${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
    const bare = account.replace(/^0+/, '');
    const pay = writeFile(setup.work.file('pay.csv'), toCsv([rowOf(wallet, account, 'Fatmata Bangura')]));
    const sent = await payctl(['payout', 'batch', pay, '--yes', '--report', setup.work.file('pay.report.csv')], { dir: setup.dir });
    expect(sent.code, sent.stderr).toBe(0);
    const paidId = readCsvReport(setup.work.file('pay.report.csv'))[0]!.payout_id;
    const unsentId = await journalNotMade(writeFile(setup.work.file('pay (1).csv'), toCsv([rowOf(wallet, bare, 'Fatmata Bangura-Kamara')])));

    const r = await payctl(bankPayoutArgs(wallet, bare, 'Fatmata Bangura-Kamara'), { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    const flat = r.stderr.replace(/\s+/g, ' ');
    expect(flat).toContain(`This payout repeats one sent from this config folder`);
    expect(flat).toContain(`payout id ${paidId} (row 2 of batch "default" from ${pay}), accepted, transaction TXN-BOK-`);
    expect(flat).toMatch(
      new RegExp(
        `and one journaled from this config folder .*payout id ${unsentId} \\(row 2 of batch "default" from .*pay \\(1\\)\\.csv\\), not sent: recorded not made`,
      ),
    );
    expect(flat).not.toContain('no answer recorded');
    expect(flat).toContain(`Check that one with: payctl payout get ${paidId}`);
    expect(flat).toContain('If it is meant to be paid again, add --allow-repeat, and take row 2 of ');
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });

  it('with only the unsent row: said as journaled and not paid, never "sent"', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const account = `00${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
    const unsentId = await journalNotMade(writeFile(setup.work.file('stopped.csv'), toCsv([rowOf(wallet, account, 'Rep4')])));
    const r = await payctl(bankPayoutArgs(wallet, account), { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    const flat = r.stderr.replace(/\s+/g, ' ');
    expect(flat).toContain(`This payout repeats one journaled from this config folder`);
    expect(flat).toContain(`payout id ${unsentId} (row 2 of batch "default" from ${setup.work.file('stopped.csv')}), not sent: recorded not made`);
    expect(flat).not.toMatch(/one sent|no answer recorded/);
    expect(flat).toContain('That one was not paid. If this payout is to pay it instead, add --allow-repeat, and take row 2 of ');
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(0);
  });
});

describe('a batch row its killed run journaled with no outcome recorded', () => {
  it('payout create and history reconcile say it in the same words: no outcome recorded, sent or not', async () => {
    // Before: payout create said "sent, no answer recorded" of a row that never left, and
    // reconcile "no attempt recorded (it may never have left)" of rows that had been paid.
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const account = `00${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
    const id = await journalNotMade(writeFile(setup.work.file('killed.csv'), toCsv([rowOf(wallet, account, 'Rep4')])), true);
    const words = 'no outcome recorded (its run ended before one was: it may or may not have been sent)';
    const typed = await payctl(bankPayoutArgs(wallet, account), { dir: setup.dir });
    expect(typed.code, typed.stderr).toBe(2);
    const flat = typed.stderr.replace(/\s+/g, ' ');
    expect(flat).toContain(`This payout repeats one journaled from this config folder`);
    expect(flat).toContain(`payout id ${id} (row 2 of batch "default" from ${setup.work.file('killed.csv')}), ${words}.`);
    const reconcile = await payctl(['history', 'reconcile'], { dir: setup.dir });
    expect(reconcile.code, reconcile.stderr).toBe(4);
    expect(reconcile.stdout).toContain(`${id}  not resent: row 2 of batch "default", ${words}; its batch's resume sends it under the same key`);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(0);
  });
});
