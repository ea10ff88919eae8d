/**
 * The transaction ids of a whole list read (src/payouts/listed-ids.ts): ids of the
 * documented form kept packed (in any case, trimmed), any other id as its string, through growth.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ListedIds } from '../../src/payouts/listed-ids.js';

const txn = () => `TXN-BOK-${randomBytes(13).toString('hex').toUpperCase()}`;

describe('ListedIds', () => {
  it('20,000 documented ids: each new once, seen after, through many growths', () => {
    const ids = Array.from({ length: 20_000 }, txn);
    const set = new ListedIds();
    expect(ids.map((id) => set.addSeen(id))).toEqual(ids.map(() => false));
    expect(ids.map((id) => set.addSeen(id))).toEqual(ids.map(() => true));
  });

  it('ids one digit apart, in any of the four words, are different payouts', () => {
    const set = new ListedIds();
    const base = 'TXN-BOK-00000000000000000000000000';
    expect(set.addSeen(base)).toBe(false);
    for (const at of [8, 14, 15, 21, 22, 28, 29, 33]) {
      const other = base.slice(0, at) + 'F' + base.slice(at + 1);
      expect(set.addSeen(other), other).toBe(false);
      expect(set.addSeen(other), other).toBe(true);
    }
    expect(set.addSeen(base)).toBe(true);
  });

  it('ids of another form are kept as their text', () => {
    const set = new ListedIds();
    for (const id of ['po-1', 'PO-1', 'TXN-BOK-FF', ' TXN-BOK-FF', '']) {
      expect(set.addSeen(id), id).toBe(false);
      expect(set.addSeen(id), id).toBe(true);
    }
  });

  it('a documented id in lower case or with spaces around it is the same transaction (as payout get reads one)', () => {
    const set = new ListedIds();
    expect(set.addSeen('TXN-BOK-FF051A7F00A49EB6AF225D10EA')).toBe(false);
    for (const id of ['txn-bok-ff051a7f00a49eb6af225d10ea', ' TXN-BOK-FF051A7F00A49EB6AF225D10EA', 'Txn-Bok-FF051a7f00A49EB6AF225D10EA\t'])
      expect(set.addSeen(id), id).toBe(true);
  });
});
