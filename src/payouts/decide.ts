/**
 * The search of `GET /payout/list` that DECIDES a payout was not made (used-before.ts: its
 * payout id used before; resend-refused.ts: a resend of an unknown outcome refused). Deciding
 * "not made" records the payout refused, after which a retype passes the repeat guard and pays
 * again: so this search is conservative, and any doubt is unknown (exit 4, the safe answer).
 * - No time bound: records of any time are judged (no clock, this machine's or the Date headers
 *   the service sends, is trusted to say when the earlier payout was made).
 * - A record could be the payout on the hard facts only (candidate-fields.ts JudgeHow.hardFacts):
 *   the same amount (by value; one payctl cannot read exactly is unchecked, never another) and
 *   currency. Its account, note, name, provider, type, and the wallet or payout id it names are
 *   marks on the candidate, never a reason to leave it out (a service that masks accounts or
 *   writes them with a country code, or names the payout `""`, hid its own record: paid twice);
 *   nor is a record left out because the journal has its transaction id for another payout (a
 *   placeholder id such as `PENDING` given to many).
 * - Complete only when the list's end is certain (listEnded): an empty page after records that
 *   says nothing more follows, after a page that said nothing more follows either (saysMore: no
 *   next link, no "more", no page number before the last, no total above the records read), or
 *   a page whose every sign of paging says it is the last. Signs that disagree: read on. An empty
 *   page after one that said more (a service with a paging window), or that says more itself, a
 *   page that repeats an earlier one, pages that bring nothing new (list-progress.ts), or
 *   MAX_PAGES: the search stops incomplete (`stopped` says why), never complete.
 * - Every record is judged: one whose transaction id was read before (a placeholder, `""` or
 *   `PENDING`, shared by two payouts) too; the ids read only count the records and tell pages
 *   that bring nothing new.
 * Not made (verdict) only when no record could be it and the search is complete. Otherwise the
 * outcome is unknown, journaled marked `anyTime` (leftUnknown) so that `history reconcile
 * --made-by TXN` judges a record as this search did, and each printed `--made-by` runs as printed.
 * `payouts list` (commands/payouts/pages.ts) and history reconcile's search for a person to
 * choose from (lookup.ts findCandidates) page as they did: they show, they do not decide.
 */
import { createHash } from 'node:crypto';
import { InterruptedError, type NetworkError } from '../errors.js';
import type { ApiClient } from '../api/client.js';
import type { Clock } from '../clock.js';
import type { PayoutPage, PayoutRecord } from '../service/schemas.js';
import { askedOf, judgeCandidate, type Judgement } from './candidate-fields.js';
import { judgeInto, listPage, MAX_PAGES, PER_PAGE, type CandidateSearch, type ListSearch } from './candidate-search.js';
import { pageIds, STALE_PAGES, StalePages } from './list-progress.js';
import { ListedIds } from './listed-ids.js';
import type { JournalEntry, Outcome } from './journal.js';
import { recordFailure, type SendResult } from './send-result.js';

/**
 * Whether page `page`, which brought records, is certainly the list's last after `read` records
 * read in all: every sign it gives agrees (no next link, "more" not said, its page number at
 * least the last page when that is given, the total when given no more than the records read).
 * A page that says nothing of paging (an array alone) never is: only an empty next page ends
 * the list, whether it was shorter than asked (the service may cap its pages) or not.
 */
export function listEnded(p: PayoutPage, page: number, read: number): boolean {
  if (p.hasMore === undefined && p.nextUrl === undefined && p.lastPage === undefined && p.total === undefined) return false;
  if (p.nextUrl !== undefined || p.hasMore === true) return false;
  if (p.lastPage !== undefined && (p.currentPage ?? page) < p.lastPage) return false;
  return p.total === undefined || p.total <= read;
}

/**
 * Whether page `page` says more records follow after `read` read in all: a next link, "more",
 * its page number before the last page, or a total above the records read. An empty page ends
 * the list only when neither it nor the page before says so (decidingSearch).
 */
export function saysMore(p: PayoutPage, page: number, read: number): boolean {
  if (p.nextUrl !== undefined || p.hasMore === true) return true;
  if (p.lastPage !== undefined && (p.currentPage ?? page) < p.lastPage) return true;
  return p.total !== undefined && p.total > read;
}

/** Why an empty page `page` after records does not end the list (saysMore of it or of the page before), or undefined when it does. */
function emptyPageStop(p: PayoutPage, page: number, before: PayoutPage | undefined, read: number): string | undefined {
  if (saysMore(p, page, read)) return `page ${page} was empty, though it says more records follow`;
  if (before && saysMore(before, page - 1, read)) return `page ${page} was empty, though page ${page - 1} said more records follow`;
  return undefined;
}

/**
 * The records of a page whose transaction id was read before, judged too (a placeholder id, `""`
 * or `PENDING`, shared by two payouts never hides the second); one already a candidate as it is,
 * the same record on two pages, is not listed twice, nor counted again.
 */
function judgeAgain(out: CandidateSearch, again: PayoutRecord[], entry: JournalEntry, judge: (r: PayoutRecord) => Judgement): void {
  if (!again.length) return;
  const more: CandidateSearch = { ...out, candidates: [], claimed: 0, marks: new Map(), unchecked: new Map(), leftOut: new Map() };
  judgeInto(more, again, entry, judge);
  const known = new Set(out.candidates.map((c) => JSON.stringify(c)));
  for (const c of more.candidates) {
    if (known.has(JSON.stringify(c))) continue;
    known.add(JSON.stringify(c));
    out.candidates.push(c);
    if (more.marks.has(c)) out.marks.set(c, more.marks.get(c)!);
    if (more.unchecked.has(c)) out.unchecked.set(c, more.unchecked.get(c)!);
  }
}

/**
 * The payout list read for `entry`'s payout as the module comment says. No record is left out as
 * another payout's (the journal's transaction ids): a placeholder id the service gave many
 * payouts ("PENDING") hid this payout's own record, and it was paid again.
 */
export async function decidingSearch(api: ApiClient, entry: JournalEntry, opts: { signal?: AbortSignal }): Promise<CandidateSearch> {
  const asked = askedOf(entry.body);
  const out: CandidateSearch = { candidates: [], read: 0, complete: false, anyTime: true, claimed: 0, marks: new Map(), unchecked: new Map(), leftOut: new Map() };
  // Each page's records (as one digest), for the page that repeats an earlier one (a service that ignores `page`).
  const pages = new Map<string, number>();
  const read = new ListedIds();
  const stale = new StalePages();
  const judge = (r: PayoutRecord) => judgeCandidate(r, entry, asked, { hardFacts: true });
  let before: PayoutPage | undefined;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { p, records } = await listPage(api, page, opts.signal);
    if (records.length === 0) {
      out.stopped = page > 1 ? emptyPageStop(p, page, before, out.read) : listEnded(p, page, 0) ? undefined : 'its first page was empty and said nothing of paging';
      out.complete = out.stopped === undefined;
      return out;
    }
    before = p;
    const digest = createHash('sha256').update(pageIds(p.items)).digest('base64');
    const earlier = pages.get(digest);
    if (earlier !== undefined) {
      out.stopped = `page ${page} repeats page ${earlier}: the service's paging does not progress`;
      return out;
    }
    pages.set(digest, page);
    const fresh: PayoutRecord[] = [];
    const again: PayoutRecord[] = [];
    for (const r of records) (r.transaction_id === undefined || !read.addSeen(r.transaction_id) ? fresh : again).push(r);
    out.read += fresh.length;
    judgeInto(out, fresh, entry, judge);
    judgeAgain(out, again, entry, judge);
    if (listEnded(p, page, out.read)) {
      out.complete = true;
      return out;
    }
    if (stale.page(records.length, fresh.length)) {
      out.stopped = `pages ${page - STALE_PAGES + 1}-${page} brought no record not read before: the service's paging does not progress`;
      return out;
    }
  }
  out.stopped = `at most ${MAX_PAGES * PER_PAGE} records are read`;
  return out;
}

/**
 * The payout list searched (decidingSearch) for what could be `entry`'s payout. Any failure (an
 * answer that cannot be read, credentials refused for the list, the network) is returned as
 * `{ error }`: the caller was answered, only the search failed. An interruption is thrown.
 */
export async function searchList(api: ApiClient, entry: JournalEntry, opts: { signal: AbortSignal }): Promise<ListSearch> {
  try {
    return await decidingSearch(api, entry, { signal: opts.signal });
  } catch (err) {
    if (err instanceof InterruptedError) throw err;
    return { error: (err as Error).message.replace(/\.$/, '') };
  }
}

/** What the search compares, as its messages say it (the hard facts: candidate-fields.ts JudgeHow.hardFacts). */
export const COMPARED = 'same amount and currency, any account, created at any time';

/** What the search says of the payout: not made (complete, and no record could be it), or unknown (a candidate: never proof; or a search that could not tell). */
export function verdict(s: ListSearch): 'not-made' | 'unknown' {
  if ('error' in s || !s.complete || s.candidates.length) return 'unknown';
  return 'not-made';
}

/** Why an incomplete search stopped, in words ("the search stopped after N records of the payout list (…)"). */
export function stoppedAfter(s: CandidateSearch): string {
  return `the search stopped after ${s.read} record${s.read === 1 ? '' : 's'} of the payout list, before a certain end of it (${s.stopped ?? 'the list did not end'})`;
}

/**
 * The unknown outcome a search that decides leaves (`error`), journaled marked `anyTime`
 * (candidate-fields.ts searchesAnyTime): `--made-by` and later searches judge records as this
 * one did. A journal that cannot take it is said (recordFailure), never hidden.
 */
export async function leftUnknown(
  record: (o: Outcome) => Promise<unknown> | undefined,
  clock: Clock,
  error: NetworkError,
  attempts: number,
  lastStatus: number,
): Promise<Extract<SendResult, { kind: 'unknown' }>> {
  try {
    await record({ kind: 'unknown', reason: error.message, at: clock.now().toISOString(), anyTime: true });
  } catch (err) {
    return { kind: 'unknown', error: recordFailure(err, undefined, error), attempts, lastStatus };
  }
  return { kind: 'unknown', error, attempts, lastStatus };
}
