/**
 * How the candidate search (payouts/lookup.ts findCandidates) reads a payout list answered as an
 * array alone (no page size, no "more", no last page): a page shorter than asked is not the end
 * until the next page says so (empty, or the same records: a service that ignores `page`), and a
 * service that pages without progress is still stopped (list-progress.ts), never read as complete.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { findCandidates } from '../../src/payouts/lookup.js';
import type { JournalEntry } from '../../src/payouts/journal.js';

const createdAt = '2026-11-27T10:00:00.000Z';
const body = JSON.stringify({
  payoutId: 'rent-nov',
  walletId: '6643665465',
  amount: 500,
  currency: 'SLE',
  recipient: { type: 'bank', accountDetails: { name: 'Ibrahim Koroma', provider: 'ecobank', accountNumber: '0011223344' } },
});
const entry = { payoutId: 'rent-nov', baseUrl: 'http://127.0.0.1:1/v2', body, createdAt } as JournalEntry;

const hex = (n: number) => n.toString(16).toUpperCase().padStart(26, '0');
/** A record of another payout (1 SLE to another account), number `n`. */
const other = (n: number) => ({
  transaction_id: `TXN-BOK-${hex(n)}`,
  amount: '1.00',
  currency: 'SLE',
  status: 'Pending',
  created_at: '2026-11-27 10:30:00',
  recipient: { transfer_type: 'bank', account_number: `5550${n}`, name: 'Later Payee', bank: 'ECOBANK' },
});
const mine = { ...other(999_999), amount: '500.00', recipient: { transfer_type: 'bank', account_number: '0011223344', name: 'Ibrahim Koroma', bank: 'ECOBANK' } };

/** An API whose list answers `page(n)` as an array alone; the pages asked, in order. */
function arrayList(page: (n: number) => unknown[]): { api: ApiClient; asked: number[] } {
  const asked: number[] = [];
  const api = {
    callEnvelope: async (_route: string, o: { query: { page: number } }) => {
      asked.push(o.query.page);
      return { envelope: { data: page(o.query.page) }, res: { status: 200, headers: {}, raw: '', requestId: undefined } };
    },
  } as unknown as ApiClient;
  return { api, asked };
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => other(from + i));
const search = (api: ApiClient) => findCandidates(api, entry, { now: new Date('2026-11-27T11:00:00Z'), anyTime: true });

describe('a payout list answered as an array alone, 50 records a page', () => {
  it('the payout on page 2: the short first page is not the end; found, complete at the empty page', async () => {
    const { api, asked } = arrayList((n) => (n === 1 ? range(0, 50) : n === 2 ? [...range(50, 10), mine] : []));
    const s = await search(api);
    expect(s.candidates.map((c) => c.transaction_id)).toEqual([mine.transaction_id]);
    expect(s).toMatchObject({ complete: true, read: 61 });
    expect(asked).toEqual([1, 2, 3]);
  });

  it('a service that ignores `page` (the same records again): the list ended there, complete', async () => {
    const { api, asked } = arrayList(() => range(0, 30));
    const s = await search(api);
    expect(s).toMatchObject({ complete: true, read: 30, candidates: [] });
    expect(asked).toEqual([1, 2]);
  });

  it('a service that sends two pages in turn forever: stopped with an error, never complete', async () => {
    const { api, asked } = arrayList((n) => (n % 2 ? range(0, 50) : range(50, 50)));
    await expect(search(api)).rejects.toThrow(/brought no record not read before/);
    expect(asked.length).toBeLessThan(10);
  });
});
