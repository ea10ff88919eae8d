/**
 * The pages of `GET /payout/list`, one after another, whatever list shape the service answers
 * (docs/service.md "Payout list"): asked by `page` and `per_page`; the service's own next-page
 * link (`next_page_url`, `links.next`) followed only when it is on the base URL's origin and
 * path (the API key goes with every request, so it never goes to another origin), else the
 * next page number. Paging ends at a null link, `current_page >= last_page`, a short or empty
 * page (when an array alone comes back shorter than asked on the first page, one more page is
 * asked, since the service may use a smaller page size than asked); a page that repeats any
 * page read before (its payouts in any order), a link back to a page already read, a "more"
 * that never ends, or STALE_PAGES pages in a row that bring no payout not listed before,
 * stops with an error instead of paging forever. Payouts made while the list is read push the older
 * ones down (the service pages by offset, newest first): the next page then starts with the
 * last payouts of the page before, or a payout comes again further down. Each payout is yielded
 * once: a record whose transaction id was on any page read before is left out of its page, and
 * counted (the ids read are kept in little memory: payouts/listed-ids.ts); one whose amount,
 * currency or status is not what its first copy said is also given to the caller (`differing`),
 * which says it (payouts list) or refuses the list (a computed summary). Used by
 * `payouts list` and by `summary` when it computes its figures from the list.
 */
import type { ApiClient } from '../../api/client.js';
import { ApiError } from '../../errors.js';
import { joinUrl, ROUTES } from '../../service/routes.js';
import { elementTexts, spanAt } from '../../service/raw-json.js';
import { itemsPath } from '../../service/payout-page.js';
import { copyWords, differingFields, ListedIds } from '../../payouts/listed-ids.js';
import { pageIds, STALE_PAGES, StalePages } from '../../payouts/list-progress.js';
import { parseOrThrow, payoutPageSchema, payoutRecordSchema, recordStatus, type Envelope, type PayoutPage, type PayoutRecord } from '../../service/schemas.js';
import { formatAmount } from '../../money/amount.js';

/** The most `per_page` payctl asks for (docs/service.md: the sandbox, like Laravel apps, caps it at 100). */
export const MAX_PER_PAGE = 100;

export interface ListedPage {
  /** The page's number: the service's `current_page` when it says, else the one asked for. */
  number: number;
  /** The answer's envelope, and its text as received (for --json). */
  envelope: Envelope;
  raw: string;
  /** The records as the service sent them, and the same records normalized (same order). */
  items: unknown[];
  records: PayoutRecord[];
  /** With `texts` asked (--json): each record's JSON text exactly as the service wrote it (same order). */
  texts: string[] | undefined;
  /** No page follows this one. */
  last: boolean;
  /** Whether a page follows is not known: the next is asked to tell (a short first page, see listPages). */
  probe: boolean;
  /** Records of this page left out because a page before had them (see listPages). */
  shifted: number;
  /** Records of this page left out because they came earlier on this same page. */
  repeated: number;
  /** Of those left out, the ones whose amount, currency or status is not what their first copy said. */
  differing: DifferingCopy[];
}

/** A payout the list gave again, saying another amount, currency or status than its copy read first. */
export interface DifferingCopy {
  transactionId: string;
  /** "amount", "currency", "status": what differs. */
  fields: string[];
  /** The later copy, left out. */
  record: PayoutRecord;
}

export interface PagingOptions {
  /** The first page to ask for, from 1. */
  startPage: number;
  /** `per_page` asked for; the service may use another size. */
  perPage: number;
  /** Ask for the next page while the caller uses this one (--all): two pages in memory at most. */
  prefetch?: boolean;
  /** Give each record's text as written (ListedPage `texts`): for --json, which passes records on as the service wrote them. */
  texts?: boolean;
  /**
   * Told (once), as the next page is asked for, that the service's link to it points at another
   * origin and was not followed (the page asked of the base URL by number instead).
   */
  onForeignLink?: (link: string) => void;
}

interface Fetched {
  query: Record<string, string>;
  envelope: Envelope;
  raw: string;
  page: PayoutPage;
  records: PayoutRecord[];
  texts: string[] | undefined;
}

async function fetchPage(api: ApiClient, query: Record<string, string>, texts: boolean): Promise<Fetched> {
  const { envelope, res } = await api.callEnvelope('payoutsList', { query });
  const where = query.page !== undefined ? `page ${query.page}` : 'the page';
  // The whole envelope: a resource collection keeps its paging beside `data`.
  const page = parseOrThrow(payoutPageSchema, envelope, `${where} of the list of payouts`, res.requestId);
  const records = page.items.map((it, i) => parseOrThrow(payoutRecordSchema, it, `payout ${i + 1} of ${where}`, res.requestId));
  return { query, envelope, raw: res.raw, page, records, texts: texts ? recordTexts(res.raw, envelope, page.items.length) : undefined };
}

/**
 * Each record's JSON text in a list answer, exactly as the service wrote it: a record passed on
 * by --json keeps its numbers' type and digits (`12345678901234567.89`, `2.10`), which parsing
 * and writing it back would change (docs/service.md "Numbers").
 */
function recordTexts(raw: string, envelope: Envelope, count: number): string[] {
  const path = itemsPath(envelope);
  const span = path && spanAt(raw, path);
  const texts = span && raw[span.start] === '[' ? elementTexts(raw, span) : undefined;
  // The schema read `count` records from this very text: anything else is payctl's fault.
  if (texts?.length !== count) throw new Error(`payctl found ${texts?.length ?? 'no'} records in the text of a list answer of ${count}.`);
  return texts;
}

function noProgress(what: string, count: number, hint = 'The service does not page as expected; use --page to read pages one at a time.'): ApiError {
  return new ApiError(`Stopped following pages: ${what} (${count} payout${count === 1 ? '' : 's'} read before).`, { hint });
}

/** STALE_PAGES pages in a row, the last `n`, brought nothing new (`count` payouts read before page `n`). */
function nothingNew(n: number, count: number): ApiError {
  return noProgress(
    `pages ${n - STALE_PAGES + 1}-${n} brought no payout that was not listed before, yet the service says there are more`,
    count,
    'The service sends payouts it sent before, or payouts are being made as fast as the list is read (a batch running): read the list again when that is done, or use --page to read pages one at a time.',
  );
}

/** A query as one comparable string (parameter order does not matter). */
function queryKey(q: Record<string, string>): string {
  return JSON.stringify(Object.entries(q).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The query that asks for the page a link names, when the link may be followed: same origin
 * and same path as the list's own URL (a relative link is read against it). Undefined for a
 * link elsewhere; `foreign` tells whether that was another origin.
 */
function linkQuery(link: string, listUrl: URL): { query?: Record<string, string>; foreign: boolean } {
  let url: URL;
  try {
    url = new URL(link, listUrl);
  } catch {
    return { foreign: false };
  }
  if (url.origin !== listUrl.origin) return { foreign: true };
  if (url.pathname.replace(/\/+$/, '') !== listUrl.pathname.replace(/\/+$/, '')) return { foreign: false };
  return { query: Object.fromEntries(url.searchParams), foreign: false };
}

/**
 * Whether no page follows `p` (asked with `perPage`), by the signs docs/service.md lists;
 * `size` is the page size the service is known to use when it does not say (see listPages).
 */
function isLast(p: PayoutPage, perPage: number, size: number | undefined): boolean {
  if (p.items.length === 0) return true;
  if (p.hasMore === false) return true;
  if (p.currentPage !== undefined && p.lastPage !== undefined && p.currentPage >= p.lastPage) return true;
  // No word either way (data an array alone): a short page is the last.
  return p.hasMore === undefined && p.items.length < (p.perPage ?? size ?? perPage);
}

/**
 * The pages read, each by a SHA-256 of its records' ids with its number. The first page is kept
 * as it is and node:crypto is loaded for a second: a list of one page (the most common) does not
 * pay its 2-4 ms at start.
 */
class PageDigests {
  #first: { ids: string; n: number } | undefined;
  #digest: ((ids: string) => string) | undefined;
  readonly #pages = new Map<string, number>();

  /** Adds a page; the number of an earlier page with the same records, if there was one. */
  async add(ids: string, n: number): Promise<number | undefined> {
    if (!this.#first) {
      this.#first = { ids, n };
      return undefined;
    }
    if (!this.#digest) {
      const { createHash } = await import('node:crypto');
      this.#digest = (s) => createHash('sha256').update(s).digest('base64');
      this.#pages.set(this.#digest(this.#first.ids), this.#first.n);
    }
    const d = this.#digest(ids);
    const again = this.#pages.get(d);
    if (again === undefined) this.#pages.set(d, n);
    return again;
  }
}

/**
 * Asks for the next page; its link, when it points at another origin (`foreign`: the page is
 * asked of the base URL by number instead), is told once, as that page is asked for: a caller
 * that stops before it asked for nothing, and was told before that payctl had asked.
 */
class NextPage {
  foreign: string | undefined;
  #told = false;
  constructor(
    private readonly api: ApiClient,
    private readonly texts: boolean,
    private readonly tell?: (link: string) => void,
  ) {}

  fetch(query: Record<string, string>): Promise<Fetched> {
    if (this.foreign !== undefined && !this.#told) {
      this.#told = true;
      this.tell?.(this.foreign);
    }
    return fetchPage(this.api, query, this.texts);
  }
}

/**
 * The pages from `startPage` on, until the last. Throws an ApiError when the service pages
 * without progress (see the module comment); records are parsed, never filtered, here.
 */
export async function* listPages(api: ApiClient, o: PagingOptions): AsyncGenerator<ListedPage, void, undefined> {
  const listUrl = new URL(joinUrl(api.baseUrl, ROUTES.payoutsList.path));
  const asked = new Set<string>();
  // Each page read, by a digest of its records' ids, with its number.
  const seen = new PageDigests();
  const asking = new NextPage(api, o.texts === true, o.onForeignLink);
  const query: Record<string, string> = { page: String(o.startPage), per_page: String(o.perPage) };
  let number = o.startPage;
  let previous: { ids: string; number: number | undefined } | undefined;
  let count = 0;
  // The page size learned from a short first page, and whether the page after it is a probe.
  let size: number | undefined;
  let probing = false;
  let first = true;
  // The transaction ids of every page read before.
  const listed = new ListedIds();
  asked.add(queryKey(query));
  let next: Promise<Fetched> | undefined = fetchPage(api, query, o.texts === true);
  // Pages in a row, up to this one, that brought no payout not listed before (STALE_PAGES).
  const stale = new StalePages();
  while (next) {
    const f: Fetched = await next;
    next = undefined;
    const p = f.page;
    const n = p.currentPage ?? number;
    const ids = pageIds(p.items);
    if (probing) {
      probing = false;
      // The probe found the first page again (the service ignores `page`) or nothing: the list ended there.
      if (p.items.length === 0 || ids === previous?.ids) return;
    }
    if (p.items.length === 0 && p.hasMore === true) throw noProgress(`page ${n} is empty but the service says there are more`, count);
    if (previous && p.currentPage !== undefined && p.currentPage === previous.number) throw noProgress(`the service sent page ${n} again`, count);
    if (previous && p.items.length > 0 && ids === previous.ids) throw noProgress(`page ${n} repeats the page before it`, count);
    // Any page read before, not only the last one: pages A, B, A, B... would page forever.
    const again = p.items.length > 0 ? await seen.add(ids, n) : undefined;
    if (again !== undefined) throw noProgress(`page ${n} repeats page ${again}`, count);
    count += p.items.length;
    // A total the service states bounds the reading (one page of slack for payouts made meanwhile).
    if (p.total !== undefined && count > p.total + (p.perPage ?? o.perPage)) throw noProgress(`more payouts than the ${p.total} the service counts`, count);
    previous = { ids, number: p.currentPage };
    let last = isLast(p, o.perPage, size);
    // A first page shorter than asked, with no word on paging, may be all there is, or the
    // service's own page size (it may ignore per_page): the next page tells which.
    if (last && first && p.hasMore === undefined && p.perPage === undefined && p.items.length > 0 && p.items.length < o.perPage) {
      size = p.items.length;
      probing = true;
      last = false;
    }
    first = false;
    const kept = unshifted(p.items, f.records, f.texts, listed);
    // A page whose every payout was listed before: nothing new (records without a transaction id cannot be told, and count as new).
    if (stale.page(p.items.length, kept.records.length) && !last) throw nothingNew(n, count - p.items.length);

    let nextQuery: Record<string, string> | undefined;
    if (!last) {
      const followed = p.nextUrl ? linkQuery(p.nextUrl, listUrl) : { foreign: false };
      // Told only when the next page is asked for (a caller that stops here asked for none).
      asking.foreign = followed.foreign ? p.nextUrl : undefined;
      number = n + 1;
      nextQuery = followed.query ?? { page: String(number), per_page: String(o.perPage) };
      if (followed.query?.page !== undefined && /^\d+$/.test(followed.query.page)) number = Number(followed.query.page);
      const key = queryKey(nextQuery);
      if (asked.has(key)) throw noProgress(`the next page the service names (${number}) was read already`, count);
      asked.add(key);
      if (o.prefetch) {
        next = asking.fetch(nextQuery);
        // A failed prefetch is reported when its turn comes, not as an unhandled rejection.
        next.catch(() => {});
      }
    }
    yield { number: n, envelope: f.envelope, raw: f.raw, ...kept, last, probe: probing };
    if (nextQuery && !next) next = asking.fetch(nextQuery);
  }
}

/**
 * A page's items and records without those whose transaction id is in `listed` or came earlier
 * on the same page (same order), each id read added to `listed` with what its copy says;
 * `shifted` and `repeated`: how many left out, as on a page before or earlier on this page;
 * `differing`: those left out whose amount, currency or status is not their first copy's.
 */
function unshifted(
  items: unknown[],
  records: PayoutRecord[],
  texts: string[] | undefined,
  listed: ListedIds,
): Pick<ListedPage, 'items' | 'records' | 'texts' | 'shifted' | 'repeated' | 'differing'> {
  const differing: DifferingCopy[] = [];
  const keep = records.map((r) => {
    if (r.transaction_id === undefined) return true;
    const copy = copyWords(r);
    const first = listed.add(r.transaction_id, copy);
    if (first === undefined) return true;
    const fields = differingFields(first, copy);
    if (fields.length) differing.push({ transactionId: r.transaction_id, fields, record: r });
    return false;
  });
  if (keep.every(Boolean)) return { items, records, texts, shifted: 0, repeated: 0, differing };
  // Those left out that came earlier on this page (the ids of this page alone, in a memory of their own).
  const page = new ListedIds();
  let repeated = 0;
  records.forEach((r, i) => {
    if (r.transaction_id !== undefined && page.addSeen(r.transaction_id) && !keep[i]) repeated++;
  });
  const left = keep.filter((k) => !k).length;
  const kept = <T>(all: T[]) => all.filter((_, i) => keep[i]);
  return { items: kept(items), records: kept(records), texts: texts && kept(texts), shifted: left - repeated, repeated, differing };
}

/**
 * A differing copy in words: `payout TXN-… came again with another amount and status (999.00
 * SLE, Failed)`. The id is printable ASCII (service/schemas.ts); an unknown status word comes
 * written with escapes (recordStatus).
 */
export function differingCopyText(d: DifferingCopy): string {
  const r = d.record;
  const fields = d.fields.length > 1 ? `${d.fields.slice(0, -1).join(', ')} and ${d.fields.at(-1)}` : d.fields[0];
  return `payout ${d.transactionId} came again with another ${fields} (${formatAmount(r.amount, r.currency)} ${r.currency}, ${recordStatus(r) || 'no status'})`;
}

/**
 * What is said once on stderr of the records listPages left out (ListedPage's `shifted` and
 * `repeated`, added up over the pages read): a line for each kind, none when none was.
 */
export function repeatNotes(shifted: number, repeated: number): string[] {
  const notes: string[] = [];
  if (shifted > 0)
    notes.push(
      `${shifted} ${shifted === 1 ? 'payout was' : 'payouts were'} on two pages (payouts made while the list was read move the older ones down a page); each is listed once.`,
    );
  if (repeated > 0)
    notes.push(
      `${repeated} ${repeated === 1 ? 'payout came' : 'payouts came'} again on the same page of the service's answer; ${repeated === 1 ? 'it is' : 'each is'} listed once.`,
    );
  return notes;
}

/**
 * A list answer (`raw`, read as `envelope`) with its records replaced by `texts` (records' JSON
 * as the service wrote them), in the place the service put them (`data`, `data.data`,
 * `data.items` / `payouts` / `results`): every other byte of the envelope as sent, its paging
 * members (`per_page`, `to`, `total`, `meta`...) included, which describe the page the service
 * sent, not the records put in it (README "payouts list").
 */
export function withRecords(raw: string, envelope: Envelope, texts: string[]): string {
  const path = itemsPath(envelope);
  const span = path && spanAt(raw, path);
  if (!span) throw new Error('payctl found no records in the text of a list answer.');
  return (raw.slice(0, span.start) + '[' + texts.join(',') + ']' + raw.slice(span.end)).trim();
}
