/**
 * How the candidate search for a person (payouts/lookup.ts findCandidates) reads a payout list
 * answered as an array alone (no page size, no "more", no last page): a page shorter than asked
 * is not the end until the next page says so (empty, or the same records: a service that ignores
 * `page`), and a service that pages without progress is still stopped (list-progress.ts). And how
 * the search that decides "not made" (payouts/decide.ts) reads lists: complete only at a certain
 * end, every sign of paging agreeing; a repeated page, pages with nothing new or MAX_PAGES leave
 * it incomplete (so unknown), and records of any time are judged.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { findCandidates, MAX_PAGES } from '../../src/payouts/candidate-search.js';
import { decidingSearch, verdict } from '../../src/payouts/decide.js';
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

/** An API whose list answers page n with the envelope `answer(n)`; the pages asked, in order. */
function listApi(answer: (n: number) => unknown): { api: ApiClient; asked: number[] } {
  const asked: number[] = [];
  const api = {
    callEnvelope: async (_route: string, o: { query: { page: number } }) => {
      asked.push(o.query.page);
      return { envelope: answer(o.query.page), res: { status: 200, headers: {}, raw: '', requestId: undefined } };
    },
  } as unknown as ApiClient;
  return { api, asked };
}

/** An API whose list answers `page(n)` as an array alone; the pages asked, in order. */
const arrayList = (page: (n: number) => unknown[]) => listApi((n) => ({ data: page(n) }));

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => other(from + i));
// The ledger's clock an hour before the entry's date: dated in the future, so records of any time are judged (entry-age.ts ageUnknown).
const search = (api: ApiClient) => findCandidates(api, entry, { now: new Date('2026-11-27T09:00:00Z') });

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

describe('the search that decides "not made" (decide.ts)', () => {
  const decide = (api: ApiClient) => decidingSearch(api, entry, {});
  /** 150 records, 50 a page, `mine` the 150th (the oldest, newest first), as a Laravel resource collection with `change` applied to each page. */
  const resource = (change: (n: number, page: Record<string, unknown>) => void = () => undefined) =>
    listApi((n) => {
      const all = [...range(0, 149), mine];
      const page = {
        data: all.slice((n - 1) * 50, n * 50),
        links: { next: n < 3 ? `http://127.0.0.1:1/v2/payout/list?page=${n + 1}` : null },
        meta: { current_page: n, last_page: 3, per_page: 50, total: 150 },
      };
      change(n, page);
      return page;
    });

  it('a list served oldest first (a record older than the first attempt on page 1): read to its end, the payout found', async () => {
    const old = { ...other(7), created_at: '2020-01-01 00:00:00' };
    const { api, asked } = listApi((n) =>
      n === 1
        ? { data: { current_page: 1, data: [old], next_page_url: 'p2', last_page: 2, total: 2 } }
        : { data: { current_page: 2, data: [mine], next_page_url: null, last_page: 2, total: 2 } },
    );
    const s = await decide(api);
    expect(s.candidates.map((c) => c.transaction_id)).toEqual([mine.transaction_id]);
    expect(s).toMatchObject({ complete: true, read: 2, anyTime: true });
    expect(asked).toEqual([1, 2]);
  });

  it('a service that ignores `page` (the same 50 records for page 2): incomplete, unknown, never "not made"', async () => {
    const { api, asked } = arrayList(() => range(0, 50));
    const s = await decide(api);
    expect(s).toMatchObject({ complete: false, read: 50, candidates: [], stopped: "page 2 repeats page 1: the service's paging does not progress" });
    expect(verdict(s)).toBe('unknown');
    expect(asked).toEqual([1, 2]);
  });

  it('an array alone: a short page is read past; the empty page after it ends the list (not made)', async () => {
    const { api, asked } = arrayList((n) => (n === 1 ? range(0, 50) : []));
    const s = await decide(api);
    expect(s).toMatchObject({ complete: true, read: 50 });
    expect(verdict(s)).toBe('not-made');
    expect(asked).toEqual([1, 2]);
  });

  it('`last_page` 2 while `links.next` names page 3 and `total` is 150: read on to page 3, the payout found', async () => {
    const { api, asked } = resource((_n, p) => ((p.meta as { last_page: number }).last_page = 2));
    const s = await decide(api);
    expect(s.candidates.map((c) => c.transaction_id)).toEqual([mine.transaction_id]);
    expect(s).toMatchObject({ complete: true, read: 150 });
    expect(asked).toEqual([1, 2, 3]);
  });

  it('`has_more: false` with `total: 150` after 100 read: read on, the payout found', async () => {
    const all = [...range(0, 149), mine];
    const { api, asked } = listApi((n) => ({ data: { items: all.slice((n - 1) * 100, n * 100), has_more: false, total: 150, page: n } }));
    const s = await decide(api);
    expect(s.candidates.map((c) => c.transaction_id)).toEqual([mine.transaction_id]);
    expect(s).toMatchObject({ complete: true, read: 150 });
    expect(asked).toEqual([1, 2]);
  });

  it('the last page by every sign, its total more than were read: read on; the empty page after it, its total still more, is no certain end: unknown', async () => {
    const { api, asked } = listApi((n) => ({ data: { current_page: n, data: n === 1 ? range(0, 10) : [], next_page_url: null, last_page: 1, total: 12 } }));
    const s = await decide(api);
    expect(s).toMatchObject({ complete: false, read: 10, stopped: 'page 2 was empty, though it says more records follow' });
    expect(verdict(s)).toBe('unknown');
    expect(asked).toEqual([1, 2]);
  });

  /** Page 1: 100 records of others (`mine` the 151st, never served); page 2 empty, as a service with a paging window serves it (probe 51 r4). */
  const windowed = (page2: Record<string, unknown>) =>
    listApi((n) =>
      n === 1
        ? { data: { current_page: 1, data: range(0, 100), next_page_url: 'p2', last_page: 2, per_page: 100, total: 151 } }
        : { data: { current_page: 2, data: [], per_page: 100, ...page2 } },
    );

  it.each([
    {
      how: 'total 151, a next link, last_page 2',
      page2: { next_page_url: 'p3', last_page: 2, total: 151 },
      said: 'page 2 was empty, though it says more records follow',
    },
    { how: 'nothing of paging', page2: {}, said: 'page 2 was empty, though page 1 said more records follow' },
    {
      how: 'no next link, last_page 2, total 100',
      page2: { next_page_url: null, last_page: 2, total: 100 },
      said: 'page 2 was empty, though page 1 said more records follow',
    },
    { how: 'no next link, last_page 2, no total', page2: { next_page_url: null, last_page: 2 }, said: 'page 2 was empty, though page 1 said more records follow' },
  ])(
    'an empty page 2 after page 1 said more (total 151, 100 read, a next link), page 2 saying $how: incomplete, unknown (before: the end, not made)',
    async ({ page2, said }) => {
      const { api, asked } = windowed(page2);
      const s = await decide(api);
      expect(s).toMatchObject({ complete: false, read: 100, candidates: [], stopped: said });
      expect(verdict(s)).toBe('unknown');
      expect(asked).toEqual([1, 2]);
    },
  );

  it('an empty page that itself says more (has_more true) after an array alone: incomplete', async () => {
    const { api } = listApi((n) => ({ data: n === 1 ? { items: range(0, 5) } : { items: [], has_more: true } }));
    const s = await decide(api);
    expect(s).toMatchObject({ complete: false, read: 5, stopped: 'page 2 was empty, though it says more records follow' });
    expect(verdict(s)).toBe('unknown');
  });

  it.each(['', 'PENDING'])(
    'two records share the transaction id %j, the payout the second: both judged, the payout a candidate (before: hidden as read before, not made)',
    async (tx) => {
      const { api } = arrayList((n) =>
        n === 1
          ? [
              { ...other(1), transaction_id: tx },
              { ...mine, transaction_id: tx },
            ]
          : [],
      );
      const s = await decide(api);
      expect(s.candidates).toHaveLength(1);
      expect(s.candidates[0]!.amount).toBe('500.00');
      expect(verdict(s)).toBe('unknown');
    },
  );

  it('the same record on two pages (a payout made while the list is read): judged, listed once', async () => {
    const { api } = arrayList((n) => (n === 1 ? [other(1), mine] : n === 2 ? [mine, other(2)] : []));
    const s = await decide(api);
    expect(s.candidates).toHaveLength(1);
    expect(s).toMatchObject({ complete: true, read: 3 });
  });

  it('an empty first page that says nothing of paging: incomplete; one that says the list is empty: not made', async () => {
    expect(await decide(arrayList(() => []).api)).toMatchObject({ complete: false, stopped: 'its first page was empty and said nothing of paging' });
    const empty = await decide(listApi(() => ({ data: { current_page: 1, data: [], next_page_url: null, last_page: 1, total: 0 } })).api);
    expect(verdict(empty)).toBe('not-made');
  });

  it('a service that sends two pages in turn forever: incomplete at the repeated page, never complete', async () => {
    const { api, asked } = arrayList((n) => (n % 2 ? range(0, 50) : range(50, 50)));
    const s = await decide(api);
    expect(s).toMatchObject({ complete: false, stopped: "page 3 repeats page 1: the service's paging does not progress" });
    expect(asked).toEqual([1, 2, 3]);
  });

  it('"more" said on every page of new records: incomplete at MAX_PAGES', async () => {
    const { api, asked } = listApi((n) => ({ data: { items: range(n * 100, 100), has_more: true } }));
    const s = await decide(api);
    expect(s).toMatchObject({ complete: false, read: MAX_PAGES * 100 });
    expect(verdict(s)).toBe('unknown');
    expect(asked).toHaveLength(MAX_PAGES);
  });
});
