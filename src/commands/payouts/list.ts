/**
 * `payctl payouts list`: payouts, newest first. `--all` follows every page, streaming
 * (one page in memory at a time) as a table, CSV, or one JSON envelope.
 */
import { write, type Deps } from '../../deps.js';
import { ApiError, UsageError } from '../../errors.js';
import { parseOrThrow, payoutPageSchema, payoutRecordSchema, type Envelope, type PayoutRecord } from '../../api/schemas.js';
import { outsideFilter, parseTimeRange, statusFilter } from '../../payouts/filters.js';
import { currencyFilter } from '../../money/currencies.js';
import { CSV_HEADER, LIST_COLUMNS, payoutCsvValues, payoutRow } from '../../output/payout.js';
import { csvRow } from '../../output/csv.js';
import type { StreamedTable } from '../../output/table.js';
import { makeStyle } from '../../output/style.js';
import type { ApiClient } from '../../api/client.js';

export interface PayoutsListOptions {
  status?: string;
  wallet?: string;
  currency?: string;
  from?: string;
  to?: string;
  limit?: number;
  page?: number;
  all?: boolean;
  csv?: boolean;
}

interface Query {
  page: number;
  limit: number;
  status?: string;
  walletId?: string;
  currency?: string;
  from?: string;
  to?: string;
}

export function parseListOptions(opts: PayoutsListOptions, json: boolean): Query {
  const problems: string[] = [];
  const range = parseTimeRange(opts, problems);
  const limit = opts.limit ?? (opts.all ? 100 : 20);
  if (limit < 1 || limit > 100) problems.push('--limit must be between 1 and 100');
  const page = opts.page ?? 1;
  if (page < 1) problems.push('--page must be 1 or more');
  if (opts.all && opts.page !== undefined) problems.push('--all and --page cannot be used together');
  if (opts.csv && json) problems.push('--csv and --json cannot be used together');
  const currency = currencyFilter(opts.currency, problems);
  // Checked here, like the currency: a status the service does not have is refused before anything is sent.
  const status = statusFilter(opts.status, problems);
  if (problems.length) throw new UsageError('Invalid options for payouts list.', problems);
  return { page, limit, status, walletId: opts.wallet, currency, ...range };
}

interface Page {
  envelope: Envelope;
  raw: string;
  items: unknown[];
  records: PayoutRecord[];
  last: boolean;
}

async function fetchPage(api: ApiClient, q: Query): Promise<Page> {
  const { envelope, res } = await api.callEnvelope('payoutsList', { query: { ...q } });
  const page = parseOrThrow(payoutPageSchema, envelope.data, 'a list of payouts', res.requestId);
  const last = page.hasMore !== undefined ? !page.hasMore : page.items.length < q.limit;
  const records = page.items.map((it, i) => parseOrThrow(payoutRecordSchema, it, `payout ${i + 1} of page ${q.page}`, res.requestId));
  // A page must hold what was asked for: a record outside the filters is an error, never listed as a match.
  records.forEach((r, i) => {
    const outside = outsideFilter(r, q);
    if (outside === undefined) return;
    throw new ApiError(
      `Asked for a filtered list, the service answered with a payout outside it: payout ${i + 1} of page ${q.page} (${r.payout_id ?? r.transaction_id ?? 'no id'}) has ${outside}.`,
      {
        status: res.status,
        requestId: res.requestId,
        hint: 'The service ignored a filter. Check the base URL and the payoutsList route (payctl config get routes.payoutsList).',
      },
    );
  });
  return { envelope, raw: res.raw, items: page.items, records, last };
}

export async function run(opts: PayoutsListOptions, deps: Deps): Promise<number> {
  const q = parseListOptions(opts, deps.globals.json);
  const api = await deps.api();
  const out = deps.io.stdout;
  const style = makeStyle(deps.io.color);
  // Table drawing is loaded only for people: --json and --csv never pay for it.
  const table = async () => await import('../../output/table.js');

  if (!opts.all) {
    const page = await fetchPage(api, q);
    const records = page.records;
    if (deps.globals.json) await write(out, page.raw.trim() + '\n');
    else if (opts.csv) await write(out, csvRow(CSV_HEADER) + records.map((r) => csvRow(payoutCsvValues(r))).join(''));
    else if (records.length === 0) deps.log.info(q.page > 1 ? `No payouts on page ${q.page}.` : 'No payouts match.');
    else {
      await write(
        out,
        (await table()).renderTable(
          LIST_COLUMNS,
          records.map((r) => payoutRow(r, style)),
          style,
          // Fitted to a terminal (long text cut with …); a pipe gets every character.
          { width: deps.io.stdoutColumns },
        ),
      );
      if (!page.last) deps.log.info(`Page ${q.page}. More: --page ${q.page + 1}, or --all for every page.`);
    }
    return 0;
  }

  // --all: stream page by page.
  let count = 0;
  let streamed: StreamedTable | undefined;
  let tail = '';
  // The next page is requested as soon as a full page arrives, so the service works on it
  // while this one is written: two pages in memory at most.
  let next: Promise<Page> | undefined = fetchPage(api, q);
  let previousIds: string | undefined;
  for (let n = q.page; next; n++) {
    const page: Page = await next;
    // A service that always says there is more must not keep payctl paging forever.
    const ids = pageIds(page.items);
    if (!page.last && page.items.length === 0) throw noProgress(`page ${n} is empty but the service says there are more`, count);
    if (previousIds !== undefined && ids === previousIds && page.items.length > 0) throw noProgress(`page ${n} repeats page ${n - 1}`, count);
    previousIds = ids;
    next = page.last ? undefined : fetchPage(api, { ...q, page: n + 1 });
    // A failed prefetch is reported when its turn comes, not as an unhandled rejection.
    next?.catch(() => {});
    const records = page.records;
    if (deps.globals.json) {
      if (n === q.page) {
        // One envelope whose data holds every record: the first page's envelope, data streamed.
        const { data: _data, ...rest } = page.envelope;
        const { timestamp, ...head } = rest;
        const headJson = JSON.stringify(head);
        await write(out, headJson.slice(0, -1) + (headJson.length > 2 ? ',' : '') + '"data":[');
        tail = ']' + (timestamp !== undefined ? `,"timestamp":${JSON.stringify(timestamp)}` : '') + '}\n';
      }
      // One write per page: the records as the service sent them, comma-separated.
      if (page.items.length) {
        await write(out, (count > 0 ? ',' : '') + page.items.map((item) => JSON.stringify(item)).join(','));
        count += page.items.length;
      }
    } else if (opts.csv) {
      await write(out, (n === q.page ? csvRow(CSV_HEADER) : '') + records.map((r) => csvRow(payoutCsvValues(r))).join(''));
      count += records.length;
    } else {
      const rows = records.map((r) => payoutRow(r, style));
      if (rows.length) {
        // At a terminal the first page fixes the layout so that later pages line up; a pipe is never cut.
        streamed ??= new (await table()).StreamedTable(LIST_COLUMNS, style, deps.io.stdoutColumns);
        await write(out, streamed.page(rows));
      }
      count += records.length;
    }
  }
  if (deps.globals.json) await write(out, tail);
  else if (!opts.csv) deps.log.info(count === 0 ? 'No payouts match.' : `${count} payout${count === 1 ? '' : 's'}.`);
  return 0;
}

/** The ids of a page's records, in order, as one string (to tell a repeated page). */
function pageIds(items: unknown[]): string {
  return JSON.stringify(
    items.map((it) => {
      const r = it as { transaction_id?: unknown; payout_id?: unknown } | null;
      return r && typeof r === 'object' && (r.transaction_id !== undefined || r.payout_id !== undefined)
        ? [r.transaction_id ?? null, r.payout_id ?? null]
        : JSON.stringify(it);
    }),
  );
}

function noProgress(what: string, count: number): ApiError {
  return new ApiError(`Stopped following pages: ${what} (${count} payout${count === 1 ? '' : 's'} read before).`, {
    hint: 'The service does not page as expected; use --page to read pages one at a time.',
  });
}
