/**
 * The statements the PostgreSQL store reads entries with (store.ts), each row of them checked
 * by the store before it is used.
 */
import type { BatchRun, LookupKind } from '../ledger.js';
import { ROW_COLUMNS } from './rows.js';
import { ENTRIES } from './schema.js';

export const GET = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND payout_id = $2`;
/**
 * Rows of a batch run, as a candidate filter on the entry's text (its batch object as
 * JSON.stringify writes entries: `"batch":{"id":…,"file":…`); every row found is verified and its
 * batch compared exactly before it counts. Not a jsonb cast: one damaged row would fail the query.
 */
// A run's rows by the text of their entry: its id then its file (any file when the file is NULL).
const inBatch = (id: string, file: string) => `position('"batch":{"id":' || ${id} || ',"file":' || coalesce(${file} || ',', '') in entry) > 0`;
/** A run's id and file as the entry's JSON text writes them, for inBatch; no file: NULL. */
export const runParams = (run: BatchRun): [string, string | null] => [JSON.stringify(run.id), run.file === undefined ? null : JSON.stringify(run.file)];
export const BATCH_SENT = `SELECT EXISTS (SELECT 1 FROM ${ENTRIES} WHERE base = $1 AND position('"batch":{"id":' || $2 || ',' in entry) > 0) AS sent`;
export const PREFETCH = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND (payout_id = ANY($2::text[]) OR fingerprint = ANY($3::text[]) OR (repeat_key = ANY($4::text[]) AND (${inBatch('$5', '$6')} OR created_at >= $7::timestamptz)) OR repeat_key = ANY($8::text[]) OR zero_key = ANY($9::text[]) OR (zero_key = ANY($10::text[]) AND created_at >= $7::timestamptz))`;
/** Rows by repeat key (by zero key) since a time (findRecentBatchRows). */
export const FIND_RECENT = {
  repeat: `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND repeat_key = $2 AND created_at >= $3 ORDER BY created_at, payout_id`,
  zero: `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND zero_key = $2 AND created_at >= $3 ORDER BY created_at, payout_id`,
};
/** Rows with any of these repeat keys or zero keys since a time, but a run's (otherBatchRowsSince): that run's rows are left out by the database, not paged to the client. */
export const OTHER_RECENT = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND (repeat_key = ANY($2::text[]) OR zero_key = ANY($6::text[])) AND created_at >= $3 AND NOT ${inBatch('$4', '$5')}`;
export const BATCH_ROWS = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND ${inBatch('$2', '$3')} ORDER BY created_at, payout_id`;
export const FIND_IN_BATCH = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND repeat_key = $2 AND ${inBatch('$3', '$4')} ORDER BY created_at, payout_id`;
/** Rows a listing reads at a time. */
export const PAGE = 500;
export const SINCE_PAGE = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND created_at >= $2 AND payout_id > $3 ORDER BY payout_id LIMIT ${PAGE}`;
/** The rows since a time accepted with one transaction id (scanSince with one): found by the index of transaction ids. */
export const SINCE_TRANSACTION = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND transaction_id = $2 AND outcome = 'accepted' AND created_at >= $3 ORDER BY created_at, payout_id`;
/** Entries by fingerprint, repeat key or zero key, oldest first (a zero key's rows checked by the store: store.ts find). */
export const FIND_BY: Record<LookupKind, string> = {
  fingerprint: `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND fingerprint = $2 ORDER BY created_at, payout_id`,
  repeat: `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND repeat_key = $2 ORDER BY created_at, payout_id`,
  zero: `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND zero_key = $2 ORDER BY created_at, payout_id`,
};
/** The rows of any base URL accepted with one transaction id (scan with one). */
export const ANY_TRANSACTION = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE transaction_id = $1 AND outcome = 'accepted' ORDER BY created_at, payout_id`;
export const BY_TRANSACTION = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE base = $1 AND transaction_id = $2 AND outcome = 'accepted' ORDER BY created_at, payout_id LIMIT 1`;
/** Every row, a page at a time in key order (scan). */
export const FIRST_PAGE = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} ORDER BY base, payout_id LIMIT ${PAGE}`;
export const PAGE_AFTER = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE (base, payout_id) > ($1, $2) ORDER BY base, payout_id LIMIT ${PAGE}`;
