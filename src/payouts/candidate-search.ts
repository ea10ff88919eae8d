/**
 * Records of `GET /payout/list` that could be a payout whose answer was lost (candidates): the
 * list read a page at a time, each record checked and judged against what the journal sent
 * (candidate-fields.ts), those the journal has as another payout's left out. history reconcile
 * lists them for a person to choose from once the payout's key may be forgotten (lookup.ts).
 */
import { ApiError } from '../errors.js';
import type { ApiClient } from '../api/client.js';
import { parseOrThrow, payoutPageSchema, payoutRecordSchema, type PayoutPage, type PayoutRecord } from '../service/schemas.js';
import { journalBase, type JournalEntry, type Ledger } from './journal.js';
import { askedOf, CLOCK_DOUBT_MS, earliestCreatedNs, judgeCandidate, searchesAnyTime, type Judgement, type LeftOutReason } from './candidate-fields.js';
import { instantNs } from './filters.js';
import { pageEnd, pageIds, STALE_PAGES, StalePages } from './list-progress.js';
import { ListedIds } from './listed-ids.js';
import { ageUnknown } from './entry-age.js';

/** The list's pages are read this many records at a time. */
export const PER_PAGE = 100;
/** At most this many pages are read for one search (10,000 records); beyond, the search says it stopped. */
export const MAX_PAGES = 100;
/** Page `page` of the payout list, PER_PAGE records asked, read and each record checked (the searches here and in decide.ts). */
export async function listPage(api: ApiClient, page: number, signal?: AbortSignal): Promise<{ p: PayoutPage; records: PayoutRecord[] }> {
  const { envelope, res } = await api.callEnvelope('payoutsList', { query: { page, per_page: PER_PAGE }, ...(signal ? { signal } : {}) });
  const p = parseOrThrow(payoutPageSchema, envelope, 'a list of payouts', res.requestId);
  return { p, records: p.items.map((it, i) => parseOrThrow(payoutRecordSchema, it, `payout ${i + 1} of page ${page}`, res.requestId)) };
}

export interface CandidateSearch {
  candidates: PayoutRecord[];
  /** Records read (each payout once), and whether the search reached records older than a day before the first attempt (or the end). */
  read: number;
  complete: boolean;
  /** Why a search that decides stopped before a certain end of the list (decide.ts), in words. */
  stopped?: string;
  /**
   * Records of any time were candidates, the search bounded only by the list's end and MAX_PAGES:
   * the entry's age cannot be told (entry-age.ts ageUnknown), or a search that decides judged it (decide.ts).
   */
  anyTime: boolean;
  /** Matching records left out because the journal has them as another payout's. */
  claimed: number;
  /** Those records' transaction ids, each with the payout the journal has it as (twin-paid.ts: one of the same details may have paid this one). */
  claimedBy?: Array<{ txn: string; owner: string }>;
  /** What the service wrote oddly in a candidate (only those with something odd). */
  marks: Map<PayoutRecord, string[]>;
  /** Candidates payctl cannot check (no account, no readable creation time), with why: listed, never offered as made. */
  unchecked: Map<PayoutRecord, string[]>;
  /** Records read that are not the payout, by why (candidate-fields.ts). */
  leftOut: Map<LeftOutReason, number>;
}

/**
 * Searches `GET /payout/list` (newest first, by page number: a `next_page_url` is never
 * followed, so the key never goes to another origin) for records that could be the entry's
 * payout, until a page reaches records older than a day before its first attempt (CLOCK_DOUBT_MS:
 * the clock that dated it may have been fast; every record read is judged, whatever its time), the list ends (a page
 * shorter than asked that says nothing of paging only when the next one is empty or the same:
 * list-progress.ts pageEnd), or MAX_PAGES. An entry dated in the future by the ledger's clock (`now`: entry-age.ts ageUnknown)
 * has no first attempt to go by: its payout was made at some time before, so records of any time
 * are judged, and only the list's end or MAX_PAGES stops the search; so for an entry a search
 * that decides left unknown (marked: candidate-fields.ts searchesAnyTime),
 * whose records are judged on the hard facts only, as that search judged them (decide.ts).
 * This search is for a person to choose from; searches that decide "not made" are decide.ts's.
 * Records whose transaction id the journal has for another payout (`claimed`) are
 * left out. The service's filters are not relied on: payctl filters every record itself. A
 * record that came on a page before (payouts made meanwhile push the older ones down) is read
 * once; a repeated page, or pages that bring nothing new (list-progress.ts), stop with an error.
 */
export async function findCandidates(
  api: ApiClient,
  entry: JournalEntry,
  opts: { now: Date; signal?: AbortSignal; claimed?: ReadonlyMap<string, string> },
): Promise<CandidateSearch> {
  const anyTime = ageUnknown(entry, opts.now) || searchesAnyTime(entry);
  // Read back a day before the first attempt: the clock that dated it may have been fast (candidate-fields.ts CLOCK_DOUBT_MS).
  const since = anyTime ? undefined : earliestCreatedNs(entry, CLOCK_DOUBT_MS);
  const asked = askedOf(entry.body);
  // Marked by a search that decides: judged as it judged them (decide.ts).
  const hardFacts = searchesAnyTime(entry);
  const out: CandidateSearch = { candidates: [], read: 0, complete: false, anyTime, claimed: 0, marks: new Map(), unchecked: new Map(), leftOut: new Map() };
  let previous: string | undefined;
  // The page before was shorter than asked, with no word on paging (list-progress.ts pageEnd): this one tells whether the list ended there.
  let probing = false;
  // Transaction ids read (a payout pushed down a page while the list is read comes again: one candidate), and pages in a row that brought none new.
  const read = new ListedIds();
  const stale = new StalePages();
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { p, records } = await listPage(api, page, opts.signal);
    const ids = pageIds(p.items);
    // Nothing after the short page, or the same records again (a service that ignores `page`): the list ended there.
    if (probing && (records.length === 0 || ids === previous)) {
      out.complete = true;
      return out;
    }
    // A service that answers every page with the same records would keep this going to MAX_PAGES.
    if (records.length && ids === previous)
      throw new ApiError(`Searching the payout list: page ${page} repeats page ${page - 1}; the service's paging does not progress.`);
    previous = ids;
    const fresh = records.filter((r) => r.transaction_id === undefined || !read.addSeen(r.transaction_id));
    out.read += fresh.length;
    const noProgress = stale.page(records.length, fresh.length);
    const older = since !== undefined && fresh.some((r) => (instantNs(r.created_at) ?? since) < since);
    judgeInto(out, fresh, entry, (r) => judgeCandidate(r, entry, asked, { anyTime, hardFacts }), opts.claimed);
    const end = pageEnd(p, records.length, PER_PAGE);
    probing = end === 'short';
    if (older || end === 'last') {
      out.complete = true;
      return out;
    }
    if (noProgress)
      throw new ApiError(
        `Searching the payout list: pages ${page - STALE_PAGES + 1}-${page} brought no record not read before, yet the service says there are more; the service's paging does not progress.`,
      );
  }
  return out;
}

/** A search of the payout list (findCandidates, decide.ts searchList), or why it failed. */
export type ListSearch = CandidateSearch | { error: string };

/**
 * Records read (each once) judged into `out`: left out by why, left out as another payout's
 * (`claimed`: the journal has its transaction id for another entry), or candidates, with what
 * is odd in them and what payctl cannot check.
 */
export function judgeInto(
  out: CandidateSearch,
  records: PayoutRecord[],
  entry: JournalEntry,
  judge: (r: PayoutRecord) => Judgement,
  claimed?: ReadonlyMap<string, string>,
): void {
  for (const r of records) {
    const j = judge(r);
    if (j.why) {
      out.leftOut.set(j.why, (out.leftOut.get(j.why) ?? 0) + 1);
      continue;
    }
    const owner = r.transaction_id ? claimed?.get(r.transaction_id) : undefined;
    if (owner !== undefined && owner !== entry.payoutId) {
      out.claimed++;
      (out.claimedBy ??= []).push({ txn: r.transaction_id!, owner });
    } else {
      out.candidates.push(r);
      if (j.marks.length) out.marks.set(r, j.marks);
      if (j.unchecked.length) out.unchecked.set(r, j.unchecked);
    }
  }
}

/** Transaction id -> payout id of every accepted entry of this base URL (what candidates belong to already). */
export async function claimedTransactions(journal: Ledger, baseUrl: string): Promise<Map<string, string>> {
  const base = journalBase(baseUrl);
  const out = new Map<string, string>();
  for await (const it of journal.scan()) {
    if ('error' in it || journalBase(it.entry.baseUrl) !== base) continue;
    const o = it.entry.outcome;
    if (o?.kind === 'accepted' && o.transactionId) out.set(o.transactionId, it.entry.payoutId);
  }
  return out;
}
