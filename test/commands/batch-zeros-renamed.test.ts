/**
 * A copy of a paid file with the account's zeros dropped and the payee's name edited, sent
 * without --batch-id the same day (probe A53, finding 1), in process against the sandbox over real
 * HTTP: refused by the plan before anything is journaled (changed-rows.ts: the account compared
 * in every form of its leading zeros, as the repeat guard compares it, whatever other cells
 * changed). Before, the name kept it from the zeros look-up and only the check made while
 * sending stopped it, after journaling, with an untrue "at the same time" message.
 */
import { describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import type { Run } from '../helpers/e2e.js';
import { payoutPosts, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { Journal } from '../../src/payouts/journal.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

const batch = (args: string[]): Promise<Run> => payctl(['payout', 'batch', ...args], { dir: setup.dir });

/** A row to a fresh account of `zeros` leading zeros. */
function row(wallet: string, name: string, zeros = 2, amount = '100.00'): BatchRow {
  const account = `${'0'.repeat(zeros)}${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
  return { wallet_id: wallet, amount, currency: 'SLE', type: 'bank', name, provider: 'ecobank', account_number: account, note: 'Nov' };
}

/** How many entries the journal holds. */
async function entries(): Promise<number> {
  let n = 0;
  for await (const _ of new Journal(setup.dir).scan()) n++;
  return n;
}

describe('a copy of a paid file, its zeros dropped and its payee renamed, sent without --batch-id the same day', () => {
  it('is refused by the plan (exit 2, nothing journaled or sent), naming the account and the name', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const paid = row(wallet, 'Fatmata Bangura');
    const file = writeFile(setup.work.file('pay.csv'), toCsv([paid]));
    expect((await batch([file, '--yes'])).code).toBe(0);
    const before = await entries();
    const from = ctx.sb.requests().length;

    const bare = paid.account_number!.replace(/^0+/, '');
    const copy = writeFile(setup.work.file('pay (1).csv'), toCsv([{ ...paid, name: 'Fatmata Bangura-Kamara', account_number: bare }]));
    const r = await batch([copy, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Error: ${copy}: 1 row pays what batch "default" paid before, its other cells changed since. Nothing was sent.`);
    expect(r.stderr).toMatch(new RegExp(`row 2: .*name "Fatmata Bangura-Kamara" was "Fatmata Bangura"`));
    expect(r.stderr).toMatch(new RegExp(`row 2: .*account_number "${bare}" was "${paid.account_number}"`));
    expect(r.stderr).not.toContain('at the same time');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(await entries()).toBe(before);
  });
});
