/**
 * The PostgreSQL ledger's rows read a page at a time (store.ts): every row in key order (a
 * listing, `ledger verify`), or a base URL's rows created since a time (the daily total, the
 * last day's transactions). A listing of 100,000 rows never holds more than one page. The rows
 * come as stored, unchecked: the store checks each before its entry is used.
 */
import { journalBase } from '../base-url.js';
import type { StoredRow } from './rows.js';
import * as q from './queries.js';

/** The store's query: what it was doing (for its error), the statement, its parameters and its prepared name. */
export type Query = <R extends object>(doing: string, sql: string, params: unknown[], name?: string) => Promise<R[]>;

/**
 * The rows of `baseUrl` created at or after `since` (by their created_at), a page at a time;
 * with a transaction id, only the rows accepted with it (one statement, by the index of transaction ids).
 */
export async function* rowsSince(query: Query, baseUrl: string, since: Date, only?: { transactionId?: string }): AsyncGenerator<StoredRow> {
  const base = journalBase(baseUrl);
  if (only?.transactionId !== undefined) {
    yield* await query<StoredRow>('read', q.SINCE_TRANSACTION, [base, only.transactionId, since], 'payctl_scan_since_transaction');
    return;
  }
  for (let after = ''; ;) {
    const rows = await query<StoredRow>('read', q.SINCE_PAGE, [base, since, after], 'payctl_scan_since');
    yield* rows;
    if (rows.length < q.PAGE) return;
    after = rows[rows.length - 1]!.payout_id;
  }
}

/** Every row, a page at a time in key order (base URL, payout id). */
export async function* allRows(query: Query): AsyncGenerator<StoredRow> {
  let after: [string, string] | undefined;
  for (;;) {
    const rows = await query<StoredRow>('read', after ? q.PAGE_AFTER : q.FIRST_PAGE, after ?? []);
    yield* rows;
    if (rows.length < q.PAGE) return;
    const last = rows[rows.length - 1]!;
    after = [last.base, last.payout_id];
  }
}

/** The key (base URL, payout id) a listing names a row by (its key as JSON), or undefined when the name is not one. */
export function keyOfName(name: string): [string, string] | undefined {
  let key: unknown;
  try {
    key = JSON.parse(name);
  } catch {
    return undefined;
  }
  return Array.isArray(key) && key.length === 2 && typeof key[0] === 'string' && typeof key[1] === 'string' ? [key[0], key[1]] : undefined;
}
