/**
 * What tells that a payout list read page by page makes no progress, for every reader of it:
 * `payouts list` and a computed `summary` (commands/payouts/pages.ts), and the candidate search
 * of `history reconcile` (lookup.ts). A page that holds the same records as a page before, in
 * any order, is a repeated page; STALE_PAGES pages in a row that bring no record not read
 * before, while the service says more follow, are no progress either.
 */
import type { PayoutPage } from '../service/schemas.js';

/**
 * Pages in a row that bring no payout not read before, while the service says more follow,
 * after which paging stops with an error. One such page is what payouts made while the list is
 * read do when more than a page of them comes between two requests (a burst: the next page
 * brings new ones again); this many in a row means the service sends what it sent before, or
 * payouts are made at least as fast as the list is read: either way the read does not end.
 */
export const STALE_PAGES = 3;

/** Pages in a row that brought nothing new, for one read of the list (STALE_PAGES). */
export class StalePages {
  private run = 0;
  /** After a page of `records` records, `fresh` of them not read before: whether STALE_PAGES such pages have come in a row. */
  page(records: number, fresh: number): boolean {
    this.run = records > 0 && fresh === 0 ? this.run + 1 : 0;
    return this.run >= STALE_PAGES;
  }
}

/**
 * The ids of a page's records as one string, in any order (to tell a repeated page): the same
 * payouts sent again in another order are the same page, not progress. A record without an id
 * counts by its whole text.
 */
export function pageIds(items: unknown[]): string {
  return JSON.stringify(
    items
      .map((it) => {
        const r = it as { transaction_id?: unknown; payout_id?: unknown } | null;
        return JSON.stringify(
          r && typeof r === 'object' && (r.transaction_id !== undefined || r.payout_id !== undefined) ? [r.transaction_id ?? null, r.payout_id ?? null] : it,
        );
      })
      .sort(),
  );
}

/**
 * Whether a page of `records` records, asked `perPage` at a time, ends the list: `last` (empty,
 * "no more", or the last page the service numbers), `short` (shorter than asked, with no word on
 * paging: an array alone. The service may cap its pages below what was asked, 50 of 100, so it
 * is not the end until the next page says so: empty, or the same records again, from a service
 * that ignores `page`), or undefined (more follow).
 */
export function pageEnd(p: Pick<PayoutPage, 'hasMore' | 'currentPage' | 'lastPage' | 'perPage'>, records: number, perPage: number): 'last' | 'short' | undefined {
  if (records === 0 || p.hasMore === false) return 'last';
  if (p.currentPage !== undefined && p.lastPage !== undefined) return p.currentPage >= p.lastPage ? 'last' : undefined;
  if (p.hasMore === true || records >= (p.perPage ?? perPage)) return undefined;
  return p.perPage === undefined ? 'short' : 'last';
}
