/**
 * A two-row batch whose rows this payctl journaled and left of unknown outcome (every answer
 * lost), on the first account of useTwoAccounts (two-accounts.ts): the setup of the tests of a
 * batch resumed while its wallets read fails or lists none of them
 * (batch-wallets-unread.test.ts, batch-wallets-unlisted.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { freshWallet } from './sandbox.js';
import type { TwoAccounts } from './two-accounts.js';
import { Journal, type JournalEntry } from '../../src/payouts/journal.js';

const HEADER = 'wallet_id,amount,currency,type,name,provider,account_number\n';

/** A two-row batch file without payout ids (they come from --batch-id w2), its wallet and its command. */
export function twoRows(t: TwoAccounts): { file: string; wallet: string; batch: string[] } {
  const wallet = freshWallet(t.a.sb, '10000.00');
  const file = join(t.dir, 'b.csv');
  writeFileSync(file, HEADER + [1, 2].map((i) => `${wallet},4${i}.00,SLE,bank,Ann Bee,rokel_commercial_bank,00440${i}`).join('\n') + '\n');
  return { file, wallet, batch: ['payout', 'batch', file, '--batch-id', 'w2', '--profile', 'teama', '--yes', '--no-input'] };
}

/** The batch sent with every answer lost: exit 4, both rows of unknown outcome, journaled with the key's id; their payout ids. */
export async function sentUnknown(t: TwoAccounts, batch: string[]): Promise<string[]> {
  t.a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
  expect((await t.run(batch)).code).toBe(4);
  t.a.sb.faults.clear();
  const entries: JournalEntry[] = [];
  for await (const item of new Journal(t.dir).scan()) if ('entry' in item && item.entry.baseUrl === t.base) entries.push(item.entry);
  entries.sort((x, y) => x.batch!.row - y.batch!.row);
  expect(entries.map((e) => e.outcome?.kind)).toEqual(['unknown', 'unknown']);
  expect(entries.every((e) => e.keyId !== undefined)).toBe(true);
  return entries.map((e) => e.payoutId);
}
