/**
 * `payctl payouts list`: payouts, newest first, from `GET /payout/list` (docs/service.md
 * "Payout list"). The service is never trusted to filter: every record is judged here
 * (--status, --wallet, --currency, --from, --to), and nothing of the filters is sent.
 * `--limit N` is the number of matching payouts shown, whatever page size the service uses:
 * pages are read from `--page` on until N match, the list ends, or MAX_PAGES_WITHOUT_ALL pages
 * were read (then what was found is shown, and how to read on), with a progress line at a
 * terminal. `--all` follows every page, streaming (at most two pages in memory) as a table, CSV,
 * or one JSON envelope.
 */
import { write, type Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { normalizeStatus, recordStatus } from '../../service/schemas.js';
import {
  hasFilter,
  parseTimeRange,
  recordFilter,
  statusFilter,
  undated,
  statuslessNote,
  undatedNote,
  walletFilter,
  walletless,
  walletlessNote,
  type ListFilter,
} from '../../payouts/filters.js';
import { currencyFilter } from '../../money/currencies.js';
import { CSV_HEADER, LIST_COLUMNS, digitsWarning, payoutCsvValues, payoutRow, totalWarning } from '../../output/payout.js';
import { csvRow } from '../../output/csv.js';
import type { Column, StreamedTable } from '../../output/table.js';
import { makeStyle } from '../../output/style.js';
import { LiveLine } from '../../output/progress.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { memberTexts, spanAt } from '../../service/raw-json.js';
import { differingCopyText, listPages, MAX_PER_PAGE, repeatNotes, withRecords, type ListedPage } from './pages.js';

/**
 * The list's table (LIST_COLUMNS) at a terminal too narrow for every column with the
 * recipient cut to its minimum: the created time is left out first, then the wallet id, then
 * the recipient. The transaction id (what `payout get` takes), the amount and the status
 * always stay, whole; at 80 columns a 34-character transaction id, the amount and the status
 * fit with the recipient cut. A pipe, --csv and --json have every column (README "Payouts").
 */
const GIVE_WAY: Readonly<Record<string, Column['giveWay']>> = { 'CREATED (UTC)': { step: 1 }, WALLET: { step: 2 }, RECIPIENT: { step: 3 } };
export const LIST_TABLE: Column[] = LIST_COLUMNS.map((c) => (GIVE_WAY[c.header] ? { ...c, giveWay: GIVE_WAY[c.header] } : c));

/**
 * A list without --all reads at most this many pages (10,000 payouts at 100 a page), so that
 * a filter nothing matches, against a service that always has another page, ends; the
 * payouts found are shown with the commands to read on (--page, --all). README "Payouts".
 */
export const MAX_PAGES_WITHOUT_ALL = 100;

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
  /** Payouts to show (without --all). */
  limit: number;
  /** `per_page` asked of the service. */
  perPage: number;
  filter: ListFilter;
}

export function parseListOptions(opts: PayoutsListOptions, json: boolean): Query {
  const problems: string[] = [];
  const range = parseTimeRange(opts, problems);
  const limit = opts.limit ?? (opts.all ? MAX_PER_PAGE : 20);
  if (limit < 1 || limit > MAX_PER_PAGE) problems.push(`--limit must be between 1 and ${MAX_PER_PAGE}`);
  const page = opts.page ?? 1;
  if (page < 1) problems.push('--page must be 1 or more');
  if (opts.all && opts.page !== undefined) problems.push('--all and --page cannot be used together');
  if (opts.csv && json) problems.push('--csv and --json cannot be used together');
  const currency = currencyFilter(opts.currency, problems);
  // Checked before anything is sent, like the currency: a status payctl does not know matches nothing.
  const status = statusFilter(opts.status, problems);
  const wallet = walletFilter(opts.wallet, problems);
  if (problems.length) throw new UsageError('Invalid options for payouts list.', problems);
  const filter: ListFilter = { ...range };
  if (status !== undefined) filter.status = status;
  if (wallet !== undefined) filter.walletId = wallet;
  if (currency !== undefined) filter.currency = currency;
  // Unfiltered, the page size asked is the number to show: one request when the service honours
  // it. Filtered, most records may not match: pages as large as the service gives, fewer requests.
  return { page, limit, perPage: !opts.all && hasFilter(filter) ? MAX_PER_PAGE : limit, filter };
}

export async function run(opts: PayoutsListOptions, deps: Deps): Promise<number> {
  const q = parseListOptions(opts, deps.globals.json);
  const api = await deps.api();
  const pages = listPages(api, {
    startPage: q.page,
    perPage: q.perPage,
    prefetch: opts.all === true,
    texts: deps.globals.json,
    onForeignLink: (link) =>
      deps.log.warn(
        `The service's next-page link points at another origin (${sanitizeInline(link)}); payctl asked ${api.baseUrl} for the next page number instead (the API key goes only there).`,
      ),
  });
  const matches = new Matches(q.filter);
  if (opts.all) await printAll(pages, matches, opts, deps);
  else await printShown(await shownWithProgress(pages, matches, q, deps), q, opts, deps);
  if (matches.walletless > 0) deps.log.warn(walletlessNote(matches.walletless));
  if (matches.undated > 0) deps.log.warn(undatedNote(matches.undated));
  for (const note of repeatNotes(matches.shifted, matches.repeated)) deps.log.info(`Note: ${note}`);
  for (const d of matches.differing) deps.log.warn(`The service listed a payout twice, differently: ${differingCopyText(d)}; the copy read first is listed.`);
  if (matches.differingCount > TOTALS_SAID) deps.log.warn(`${matches.differingCount - TOTALS_SAID} more payouts came again with another amount, currency or status.`);
  for (const w of matches.totals) deps.log.warn(w);
  if (matches.statuslessCount > 0) deps.log.warn(statuslessNote(matches.statusless, matches.statuslessCount, invocationOf(deps.globals, deps.env)));
  if (matches.wrongTotals > TOTALS_SAID)
    deps.log.warn(`${matches.wrongTotals - TOTALS_SAID} more payouts listed have a total_amount that is not their amount plus their fee.`);
  if (matches.wrongDigits > TOTALS_SAID)
    deps.log.warn(`${matches.wrongDigits - TOTALS_SAID} more payouts listed have amounts of more decimal places than their currency has.`);
  return 0;
}

/** Payouts listed whose total is not amount + fee, each said on stderr; past this many, one line counts the rest. */
const TOTALS_SAID = 10;

/** A record of a page that passes the filters and, for --json, its text as the service wrote it. */
interface Match {
  record: ListedPage['records'][number];
  text: string | undefined;
}

/**
 * The records of each page that pass the filters, judged here (payouts/filters.ts); `walletless`
 * and `undated` count those left out for want of a wallet or a readable time, `shifted` and
 * `repeated` those listPages left out as already listed (on a page before, on the same page).
 */
class Matches {
  walletless = 0;
  undated = 0;
  shifted = 0;
  repeated = 0;
  /** Payouts the list gave again with another amount, currency or status (listPages' `differing`). */
  readonly differing: ListedPage['differing'] = [];
  differingCount = 0;
  /** Listed records whose total_amount is not their amount plus their fee: the first warnings, and how many in all. */
  readonly totals: string[] = [];
  wrongTotals = 0;
  /** Records with an amount of more decimal places than their currency (their warnings go with `totals`). */
  wrongDigits = 0;
  /** Listed records without a status: the first transaction ids, and how many in all. */
  readonly statusless: string[] = [];
  statuslessCount = 0;
  /** Records read (each payout once), matching or not. */
  read = 0;
  readonly #filter: ListFilter;
  readonly #keep: ReturnType<typeof recordFilter>;

  constructor(filter: ListFilter) {
    this.#filter = filter;
    this.#keep = recordFilter(filter, normalizeStatus);
  }

  of(page: ListedPage): Match[] {
    this.shifted += page.shifted;
    this.repeated += page.repeated;
    this.read += page.records.length;
    // Kept only as many as are said: a service that lies on every record costs no memory.
    for (const d of page.differing) if (this.differingCount++ < TOTALS_SAID) this.differing.push(d);
    const kept: Match[] = [];
    page.records.forEach((record, i) => {
      if (this.#keep(record)) {
        kept.push({ record, text: page.texts?.[i] });
        const warning = totalWarning(page.items[i]);
        if (warning && this.wrongTotals++ < TOTALS_SAID) this.totals.push(warning);
        const digits = digitsWarning(record, page.items[i]);
        if (digits && this.wrongDigits++ < TOTALS_SAID) this.totals.push(digits);
        if (recordStatus(record) === '' && this.statuslessCount++ < TOTALS_SAID) this.statusless.push(record.transaction_id ?? '');
      } else if (walletless(this.#filter, record)) this.walletless++;
      else if (undated(this.#filter, record)) this.undated++;
    });
    return kept;
  }
}

/** Table drawing is loaded only for people: --json and --csv never pay for it. */
async function tables(): Promise<typeof import('../../output/table.js')> {
  return await import('../../output/table.js');
}

/** What a list without --all read: the payouts to show, the first and last page read, and whether more follow. */
interface Shown {
  shown: Match[];
  first: ListedPage | undefined;
  lastRead: number;
  /** The last page read is not the list's last. */
  more: boolean;
  /** Matching payouts of the last page read that are not shown, and how many it holds in all. */
  rest: number;
  onLast: number;
  /** Pages read, and whether the reading stopped at MAX_PAGES_WITHOUT_ALL with pages left. */
  pages: number;
  stopped: boolean;
  /** Records read in all. */
  read: number;
}

/** firstMatches with a progress line at a terminal (stderr, not under --json), as summary has. */
async function shownWithProgress(pages: AsyncIterable<ListedPage>, matches: Matches, q: Query, deps: Deps): Promise<Shown> {
  const progress = new LiveLine(deps.io.stderr, deps.io.stderrIsTTY && !deps.globals.json, () => deps.io.stderrColumns);
  try {
    return await firstMatches(pages, matches, q, (s) =>
      progress.set(`Reading payouts: page ${s.lastRead}, ${s.read} read, ${Math.min(s.shown.length + s.rest, q.limit)} of ${q.limit} found`),
    );
  } finally {
    progress.clear();
  }
}

/** Without --all: pages read from --page on until --limit payouts match, the list ends, or MAX_PAGES_WITHOUT_ALL pages. */
async function firstMatches(pages: AsyncIterable<ListedPage>, matches: Matches, q: Query, onPage: (s: Shown) => void): Promise<Shown> {
  const s: Shown = { shown: [], first: undefined, lastRead: q.page, more: false, rest: 0, onLast: 0, pages: 0, stopped: false, read: 0 };
  const it = pages[Symbol.asyncIterator]();
  try {
    for (let r = await it.next(); !r.done; r = await it.next()) {
      const page = r.value;
      s.first ??= page;
      s.lastRead = page.number;
      const kept = matches.of(page);
      s.onLast = kept.length;
      for (const m of kept) {
        if (s.shown.length < q.limit) s.shown.push(m);
        else s.rest++;
      }
      s.more = !page.last;
      s.pages++;
      s.read = matches.read;
      onPage(s);
      // Enough pages read for one run without --all: what was found is shown, with how to read on.
      if (s.shown.length < q.limit && s.more && s.pages >= MAX_PAGES_WITHOUT_ALL) s.stopped = true;
      if (s.shown.length < q.limit && !s.stopped) continue;
      // Enough shown on a short first page: whether a page follows it is what its probe tells (read, not shown).
      if (page.probe) s.more = (await it.next()).done !== true;
      return s;
    }
  } finally {
    await it.return?.();
  }
  // The pages ran out: a page said to be followed may have been followed by nothing (a short
  // first page's probe found no page after it, or the same page again: listPages).
  s.more = false;
  return s;
}

/** The payouts without --all, as JSON, CSV or a table, and where more are. */
async function printShown(s: Shown, q: Query, opts: PayoutsListOptions, deps: Deps): Promise<void> {
  const out = deps.io.stdout;
  const records = s.shown.map((m) => m.record);
  if (deps.globals.json) {
    // The page as the service sent it, byte for byte, when it is exactly what is shown (no
    // payout of it left out: a repeat is not); else the first page's envelope, byte for byte,
    // with the payouts shown, each as the service wrote it, in the place of its records.
    const first = s.first!;
    const untouched = s.first !== undefined && s.lastRead === first.number && first.shifted + first.repeated === 0 && s.shown.length === first.items.length;
    await write(
      out,
      (untouched
        ? first.raw.trim()
        : withRecords(
            first.raw,
            first.envelope,
            s.shown.map((m) => m.text!),
          )) + '\n',
    );
  } else if (opts.csv) await write(out, csvRow(CSV_HEADER) + records.map((r) => csvRow(payoutCsvValues(r))).join(''));
  else if (records.length === 0) {
    if (!s.stopped) deps.log.info(q.page > 1 && !hasFilter(q.filter) ? `No payouts on page ${q.page}.` : 'No payouts match.');
  } else {
    const style = makeStyle(deps.io.color);
    await write(
      out,
      (await tables()).renderTable(
        LIST_TABLE,
        records.map((r) => payoutRow(r, style)),
        style,
        // Fitted to a terminal (long text cut with …, columns left out: LIST_TABLE); a pipe gets every character.
        { width: deps.io.stdoutColumns },
      ),
    );
    const list = (more: string[]) => listCommand(opts, deps, more);
    if (s.rest) deps.log.info(restOfPage(s, list, givenLimit(opts)));
    else if (s.more && !s.stopped)
      deps.log.info(
        `${s.lastRead > q.page ? `Pages ${q.page}-${s.lastRead}` : `Page ${q.page}`}. Next page: ${list([...givenLimit(opts), '--page', String(s.lastRead + 1)])}\nEvery page: ${list(['--all'])}`,
      );
  }
  if (s.stopped) stoppedNote(s, q, opts, deps);
}

/**
 * Why a list without --all showed fewer than --limit payouts though the service has more
 * pages: it read MAX_PAGES_WITHOUT_ALL of them (a warning in every format: what was written is
 * not all that matches), then the commands that read on.
 */
function stoppedNote(s: Shown, q: Query, opts: PayoutsListOptions, deps: Deps): void {
  const n = s.shown.length;
  const found = n === 0 ? 'none matches' : `${n} match${n === 1 ? 'es' : ''}, fewer than the ${q.limit} asked (--limit)`;
  deps.log.warn(
    `Stopped after ${s.pages} pages (pages ${q.page}-${s.lastRead}, ${s.read} payouts read): ${found}. A list without --all reads at most ${MAX_PAGES_WITHOUT_ALL} pages, and the service has more.`,
  );
  const list = (more: string[]) => listCommand(opts, deps, more);
  deps.log.info(`Next pages: ${list([...givenLimit(opts), '--page', String(s.lastRead + 1)])}\nEvery page: ${list(['--all'])}`);
}

/**
 * `payctl payouts list` with this run's filters and environment (profile, base URL, time limit:
 * commandLine), then `more`: a command printed for a person, which runs as printed.
 */
function listCommand(opts: PayoutsListOptions, deps: Deps, more: string[]): string {
  const given: Array<[string, string | undefined]> = [
    ['--status', opts.status],
    ['--wallet', opts.wallet],
    ['--currency', opts.currency],
    ['--from', opts.from],
    ['--to', opts.to],
  ];
  const filters = given.flatMap(([flag, value]) => (value === undefined ? [] : [flag, value]));
  return commandLine(invocationOf(deps.globals, deps.env), ['payouts', 'list'], [...filters, ...more]);
}

/** `--limit N` as given: without a filter it is the size of the pages --page counts, and it is the number shown. */
function givenLimit(opts: PayoutsListOptions): string[] {
  return opts.limit === undefined ? [] : ['--limit', String(opts.limit)];
}

/**
 * Where the payouts not shown are when the service's pages hold more than --limit (it may
 * ignore per_page): the rest of the last page read is not on --page N+1, and --page N alone
 * would show the same payouts again; --page N with a --limit of its whole count shows them.
 * Each way is a command on a line of its own (`list`: listCommand; `limit`: givenLimit).
 */
function restOfPage(s: Shown, list: (more: string[]) => string, limit: string[]): string {
  const n = s.lastRead;
  const ways = [
    ...(s.onLast <= MAX_PER_PAGE ? [`All of page ${n}: ${list(['--limit', String(s.onLast), '--page', String(n)])}`] : []),
    ...(s.more ? [`Next page: ${list([...limit, '--page', String(n + 1)])}`] : []),
    `Every page: ${list(['--all'])}`,
  ];
  return [`Page ${n} holds ${s.rest} more matching payout${s.rest === 1 ? '' : 's'} than shown.`, ...ways].join('\n');
}

/** --all: every page, streamed as it comes (at most two pages in memory), as one JSON envelope, CSV or a table. */
async function printAll(pages: AsyncIterable<ListedPage>, matches: Matches, opts: PayoutsListOptions, deps: Deps): Promise<void> {
  const out = deps.io.stdout;
  const style = makeStyle(deps.io.color);
  let count = 0;
  let streamed: StreamedTable | undefined;
  let tail = '';
  let firstPage = true;
  for await (const page of pages) {
    const kept = matches.of(page);
    if (deps.globals.json) {
      if (firstPage) tail = await openEnvelope(page, deps);
      // One write per page: the records as the service wrote them, comma-separated.
      if (kept.length) await write(out, (count > 0 ? ',' : '') + kept.map((k) => k.text!).join(','));
    } else if (opts.csv) {
      await write(out, (firstPage ? csvRow(CSV_HEADER) : '') + kept.map((k) => csvRow(payoutCsvValues(k.record))).join(''));
    } else if (kept.length) {
      // At a terminal the first page fixes the layout so that later pages line up; a pipe is never cut.
      streamed ??= new (await tables()).StreamedTable(LIST_TABLE, style, deps.io.stdoutColumns);
      await write(out, streamed.page(kept.map((k) => payoutRow(k.record, style))));
    }
    count += kept.length;
    firstPage = false;
  }
  if (deps.globals.json) await write(out, tail);
  else if (!opts.csv) deps.log.info(count === 0 ? 'No payouts match.' : `${count} payout${count === 1 ? '' : 's'}.`);
}

/**
 * --all --json: one envelope whose data holds every matching record: the first page's envelope
 * (its paging members dropped: they describe one page), each member as the service wrote it,
 * written up to its data; what closes it (the timestamp, as written) is returned, to write after
 * the last page.
 */
async function openEnvelope(page: ListedPage, deps: Deps): Promise<string> {
  const members = memberTexts(page.raw, spanAt(page.raw, [])!);
  const head = members.filter((m) => !['data', 'timestamp', 'links', 'meta'].includes(m.key)).map((m) => m.text);
  const timestamp = members.findLast((m) => m.key === 'timestamp');
  await write(deps.io.stdout, `{${head.join(',')}${head.length ? ',' : ''}"data":[`);
  return ']' + (timestamp ? `,${timestamp.text}` : '') + '}\n';
}
