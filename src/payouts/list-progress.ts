/**
 * What tells that a payout list read page by page makes no progress, for every reader of it:
 * `payouts list` and a computed `summary` (commands/payouts/pages.ts), and the candidate search
 * of `history reconcile` (lookup.ts). A page that holds the same records as a page before, in
 * any order, is a repeated page; STALE_PAGES pages in a row that bring no record not read
 * before, while the service says more follow, are no progress either.
 */

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
