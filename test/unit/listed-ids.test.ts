/**
 * The transaction ids of a whole list read (src/payouts/listed-ids.ts): ids of the
 * documented form kept packed (in any case, trimmed), any other id as its string, through growth;
 * with what each id's first copy said (amount by value, currency, status), told apart field by field.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { copyWords, differingFields, ListedIds } from '../../src/payouts/listed-ids.js';

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

  it("gives back what an id's first copy said, through growth; differingFields names what a later copy changed", () => {
    const set = new ListedIds();
    const ids = Array.from({ length: 5_000 }, txn);
    const copy = (i: number) => copyWords({ amount: `${i}.00`, currency: i % 2 ? 'SLE' : 'NGN', status: i % 3 ? 'successful' : 'pending' });
    ids.forEach((id, i) => expect(set.add(id, copy(i))).toBeUndefined());
    // Each id given again as the copy of the next: another amount and currency always, another status when one of the two is pending.
    ids.forEach((id, i) => {
      const first = set.add(id, copy(i + 1));
      expect(first).toEqual(copy(i));
      expect(differingFields(first!, copy(i + 1))).toEqual(i % 3 === 1 ? ['amount', 'currency'] : ['amount', 'currency', 'status']);
    });
    expect(set.add('po-1', copy(7))).toBeUndefined();
    expect(set.add('po-1', copy(8))).toEqual(copy(7));
  });

  it.each([
    [{ amount: '10.00', currency: 'SLE', status: 'successful' }, { amount: 10, currency: 'SLE', status: 'Paid' }, []],
    [{ amount: '10.000', currency: 'SLE', status: 'failed' }, { amount: '010.0', currency: 'SLE', status: 'DECLINED' }, []],
    [{ amount: '1000.00', currency: 'SLE', status: 'pending' }, { amount: '100.00', currency: 'SLE', status: 'pending' }, ['amount']],
    [{ amount: '10.00', currency: 'SLE', status: 'pending' }, { amount: '10.00', currency: 'SLL', status: 'pending' }, ['currency']],
    [{ amount: '10.00', currency: 'SLE', status: 'done' }, { amount: '10.00', currency: 'SLE', status: 'Done' }, ['status']],
    [{ amount: '10.00', currency: 'SLE', status: undefined }, { amount: '10.00', currency: 'SLE', status: 'pending' }, ['status']],
  ])('%j then %j differ in %j', (a, b, fields) => {
    expect(differingFields(copyWords(a), copyWords(b))).toEqual(fields);
  });
});
