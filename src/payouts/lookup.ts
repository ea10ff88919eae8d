/**
 * What became of a journaled payout, asked of the service. The service looks a payout up by
 * its transaction id only (`GET /payout/{transactionId}`, docs/service.md): there is no
 * look-up by the client's payout id. So a payout id is mapped to a transaction id through the
 * journal, which records the transaction id of every create answer; a payout whose answer was
 * lost has none, and is found by resending it with its journaled key (history reconcile) or,
 * once that key may be forgotten (entry-age.ts, the 24-hour rule), by searching `GET /payout/list` for records
 * that could be it (candidates), for a person to choose from.
 */
import { ApiError, NotAskedError, OutcomeUnknownError, StillPendingError } from '../errors.js';
import type { ApiClient, HttpResponse } from '../api/client.js';
import {
  parseOrThrow,
  payoutPageSchema,
  payoutRecordSchema,
  recordStatus,
  isTransactionId,
  TRANSACTION_ID_FORM,
  type Envelope,
  type Money,
  type PayoutPage,
  type PayoutRecord,
} from '../service/schemas.js';
import { plainAmount, sameAmount } from '../money/amount.js';
import { commandLine, type Invocation } from '../config/command-line.js';
import { text, utcTime } from '../output/text.js';
import { journalBase, type JournalEntry, type Ledger, type Outcome } from './journal.js';
import { askedOf, CLOCK_DOUBT_MS, earliestCreatedNs, judgeCandidate, searchesAnyTime, type Judgement, type LeftOutReason } from './candidate-fields.js';
import { instantNs } from './filters.js';
import { pageEnd, pageIds, STALE_PAGES, StalePages } from './list-progress.js';
import { ListedIds } from './listed-ids.js';
import { ageUnknown } from './entry-age.js';
import { comparedAccount } from './identity.js';
import { senderInvocation, type Profiles } from './sender-profile.js';

export { isUnresolved } from './unresolved.js';

/** The error of an answer about another payout than the one sent: never taken for it. */
export class AnswerMismatch extends Error {}

/**
 * A look-up answered 2xx with nothing payctl can take for the payout asked for: its status was
 * not read (`payout get` exits 5 on it, with or without --wait; never 1, which --wait says for
 * Failed). Itself: a record payctl does not understand (an amount "7.02 ").
 */
export class UnusableAnswer extends ApiError {}

/**
 * A look-up answered with a record that is not the payout asked for (another transaction id,
 * none, or what the journal sent paid otherwise): not an answer about it (an UnusableAnswer).
 */
export class OtherPayoutAnswer extends UnusableAnswer {}

/**
 * The answer must be about the payout that was asked for: the payout id, amount, currency,
 * wallet and account that were sent, wherever the answer carries them (the account as compared:
 * identity.ts comparedAccount, so a form of it the service wrote without dashes, spaces or in
 * upper case is the same account). A mismatch names each value sent and answered.
 */
export function checkAnswer(
  entry: Pick<JournalEntry, 'body'>,
  t: {
    payout_id?: string | undefined;
    currency?: string;
    amount?: Money;
    wallet_id?: string | undefined;
    recipient?: { accountNumber?: string | undefined } | undefined;
  },
): void {
  const asked = askedOf(entry.body);
  if (!asked) return;
  const problems: string[] = [];
  const differs = (what: string, sent: unknown, answered: string) => problems.push(`${what}: sent ${String(sent)}, answered ${answered}`);
  if (t.payout_id !== undefined && t.payout_id !== asked.payoutId) differs('payout id', asked.payoutId, t.payout_id);
  if (t.currency !== undefined && asked.currency !== undefined && t.currency.toUpperCase() !== asked.currency) differs('currency', asked.currency, t.currency);
  if (t.amount !== undefined && asked.amount !== undefined && asked.currency !== undefined) {
    if (!sameAmount(t.amount, asked.amount, asked.currency)) differs('amount', plainAmount(asked.amount, asked.currency), plainAmount(t.amount, asked.currency));
  }
  if (t.wallet_id !== undefined && t.wallet_id !== asked.walletId) differs('wallet', asked.walletId, t.wallet_id);
  // Compared as the repeat guard and reconcile compare accounts: `4410-0012-34` sent is `4410001234` answered.
  const account = t.recipient?.accountNumber;
  if (account !== undefined && asked.account !== undefined && comparedAccount(account) !== comparedAccount(asked.account)) differs('account', asked.account, account);
  if (problems.length) throw new AnswerMismatch(`the service answered about a different payout (${problems.join('; ')})`);
}

/** A payout as payctl asks the service for it: its transaction id, and what the journal knows of it. */
export interface PayoutRef {
  transactionId: string;
  /** The payout id the journal has for it (shown on the card; the look-up has none). */
  payoutId?: string | undefined;
  /** The journaled entry: its body is what the answer is checked against. */
  entry?: JournalEntry | undefined;
}

/**
 * `id` as `payout get` takes it: a payout id the journal has a transaction id for, or a
 * transaction id (the journal's payout id for it found when it has one; typed in lower case, it
 * is asked in the documented upper case). A journaled payout id without a transaction id comes
 * back as `known`, and anything else as `unknown`: there is nothing to ask the service.
 */
export async function resolvePayoutRef(journal: Ledger, baseUrl: string, id: string): Promise<{ ref: PayoutRef } | { known: JournalEntry } | { unknown: string }> {
  const entry = await journal.get(baseUrl, id);
  if (entry) {
    const o = entry.outcome;
    if (o?.kind === 'accepted' && o.transactionId) return { ref: { transactionId: o.transactionId, payoutId: entry.payoutId, entry } };
    return { known: entry };
  }
  const byTxn = await journal.byTransactionId(baseUrl, id);
  if (byTxn) return { ref: { transactionId: id, payoutId: byTxn.payoutId, entry: byTxn } };
  const upper = id.toUpperCase();
  if (!isTransactionId(upper)) return { unknown: id };
  const journaled = upper === id ? undefined : await journal.byTransactionId(baseUrl, upper);
  return { ref: { transactionId: upper, ...(journaled ? { payoutId: journaled.payoutId, entry: journaled } : {}) } };
}

/**
 * Why `payout get <id>` has nothing to ask for an id that is neither a transaction id nor a
 * journaled payout id (NOT_FOUND, exit 1; `payout get --wait` makes it 2); `meant`: the id without
 * what was copied with it, when that one is either (copiedId), with the command that looks it up.
 */
export function unknownIdError(id: string, inv: Invocation, ledger: Pick<Ledger, 'called'>, meant?: string): NotAskedError {
  const lists = `Payouts sent from this config folder, with their transaction ids: ${commandLine(inv, ['history'])}\nAll payouts at the service: ${commandLine(inv, ['payouts', 'list'])}`;
  const why = `it is not a transaction id (${TRANSACTION_ID_FORM}; the service looks payouts up by transaction id only), and ${ledger.called} has no payout id ${text(id)}`;
  return new NotAskedError(
    meant
      ? `Not looked up: ${text(id)} as typed is not an id payctl can look up (${why}); without the characters copied with it, it reads ${text(meant)}. Nothing was asked of the service.`
      : `No payout ${text(id)}: ${why}. Nothing was asked of the service.`,
    {
      hint: meant ? `Did you mean ${meant} (without the characters copied with it)? Look it up with: ${commandLine(inv, ['payout', 'get'], [meant])}` : lists,
    },
  );
}

/** The `--json` code of a payout whose outcome is unknown from an earlier attempt (`payout get`, exit 4). */
export const OUTCOME_UNKNOWN = 'OUTCOME_UNKNOWN';

/**
 * Why `payout get <id>` has nothing to ask for a journaled payout id without a transaction id,
 * and what to do, saying what the journal knows: refused or found not made, a NotAskedError
 * (exit 1); made before under another key, a StillPendingError of a status not read (exit 5, as
 * payout create --wait says it: the payout was made, its settlement cannot be known; never 1,
 * which --wait says for Failed); of unknown outcome, an OutcomeUnknownError (exit 4, `--wait`
 * too) with the reconcile command.
 */
export function notLookedUpError(
  entry: JournalEntry,
  runInv: Invocation,
  ledger: Pick<Ledger, 'called'>,
  config: Profiles,
): NotAskedError | OutcomeUnknownError | StillPendingError {
  // Its commands carry the profile that sent it, when another: its key, its account (sender-profile.ts).
  const inv = senderInvocation(entry, runInv, config);
  const id = text(entry.payoutId);
  const head = `No transaction id for payout ${id}: the service looks payouts up by transaction id only, and ${ledger.called} has none for it`;
  const o = entry.outcome;
  if (o?.kind === 'rejected') {
    return new NotAskedError(`${head}: the service refused it (${text([o.code, o.message].filter(Boolean).join(': '))}), so no payout was made.`);
  }
  if (o?.kind === 'not-made') return new NotAskedError(`${head}: it was found not made (${utcTime(o.at)}).`);
  if (o?.kind === 'accepted' && o.alreadyMade) {
    return new StillPendingError(
      `${head}: the service already had this payout id when it was sent (${utcTime(o.at)}: ${text(o.alreadyMade.message)}), so it was made before under another idempotency key, and its answer named no transaction: its status cannot be read. Nothing was asked of the service.`,
      { payoutId: entry.payoutId, notRead: true, hint: `If it is this payout, its record is among: ${findRecordCommand(entry, inv)}` },
    );
  }
  // Unknown: exit 4 as the create's was, never 1 (which --wait says for Failed, and a script may
  // take for "send it again"), nor NOT_FOUND (read as "no such payout").
  return new OutcomeUnknownError(
    `${head}: its outcome is unknown (it may or may not have been made; no answer was read${o?.kind === 'unknown' ? `: ${text(o.reason).replace(/\.$/, '')}` : ''}). Nothing was asked of the service.`,
    {
      payoutId: entry.payoutId,
      causeCode: OUTCOME_UNKNOWN,
      hint: `Find out what became of it with: ${commandLine(inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId])}`,
    },
  );
}

/**
 * The `payouts list` command that finds the record of a journaled payout payctl has no
 * transaction id for (made before under another key, perhaps days before): its currency, as the
 * journaled body sent it (documented records name no wallet, so `--wallet` would leave out every
 * one), every page (`--all`: it may be anywhere in the list).
 */
export function findRecordCommand(entry: JournalEntry, inv: Invocation): string {
  const a = askedOf(entry.body);
  return commandLine(inv, ['payouts', 'list'], [...(a?.currency ? ['--currency', a.currency] : []), '--all']);
}

/**
 * The payout record of an answer to a look-up by `ref.transactionId`, checked to be that payout
 * (its transaction id, which it must name; with a journaled body, also its payout id, amount,
 * currency and account): an answer about another one, or about none it names, is an
 * OtherPayoutAnswer, never taken for it. The journal's payout id is set on the record (the look-up has none) so
 * the card shows it.
 */
export function payoutAnswer(data: unknown, ref: PayoutRef, res: HttpResponse, api: Pick<ApiClient, 'command'>): PayoutRecord {
  const record = readRecord(data, res);
  const hint = `Check the profile's base URL and its payoutGet route (when not set, the documented path): ${api.command(['config', 'list'])}`;
  // A record that names no transaction id may be any payout's: it is not taken for this one.
  if (record.transaction_id === undefined) {
    throw new OtherPayoutAnswer(
      `Asked for payout ${ref.transactionId}, the service answered with a payout that names no transaction id: it is not taken for ${ref.transactionId}.`,
      {
        status: res.status,
        requestId: res.requestId,
        hint,
      },
    );
  }
  if (record.transaction_id !== ref.transactionId) {
    throw new OtherPayoutAnswer(`Asked for payout ${ref.transactionId}, the service answered about a different payout: ${record.transaction_id}.`, {
      status: res.status,
      requestId: res.requestId,
      hint,
    });
  }
  if (ref.entry) {
    try {
      checkAnswer({ body: ref.entry.body }, { ...record, payout_id: record.payout_id });
    } catch (err) {
      if (!(err instanceof AnswerMismatch)) throw err;
      throw new OtherPayoutAnswer(`Asked for payout ${ref.transactionId} (payout id ${ref.entry.payoutId}), ${err.message}.`, {
        status: res.status,
        requestId: res.requestId,
        hint,
      });
    }
  }
  if (record.payout_id === undefined && ref.payoutId !== undefined) record.payout_id = ref.payoutId;
  return record;
}

/** The record of a look-up's answer, or an UnusableAnswer saying why payctl does not understand it. */
function readRecord(data: unknown, res: HttpResponse): PayoutRecord {
  try {
    return parseOrThrow(payoutRecordSchema, data, 'a payout', res.requestId);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    throw new UnusableAnswer(err.message, { ...(err.requestId ? { requestId: err.requestId } : {}), ...(err.hint ? { hint: err.hint } : {}) });
  }
}

/** One payout read by its transaction id, checked (payoutAnswer); a 404 is the ApiError it is. */
export async function getPayout(api: ApiClient, ref: PayoutRef, signal?: AbortSignal): Promise<{ record: PayoutRecord; envelope: Envelope; res: HttpResponse }> {
  const got = await api.callEnvelope('payoutGet', { params: { transactionId: ref.transactionId }, ...(signal ? { signal } : {}) });
  return { record: payoutAnswer(got.envelope.data, ref, got.res, api), ...got };
}

/** The accepted outcome a record read at the service shows (marked looked up: nothing was sent). */
export function lookedUpOutcome(record: PayoutRecord, status: number, now: Date): Outcome {
  const s = recordStatus(record);
  return {
    kind: 'accepted',
    status,
    transactionId: record.transaction_id,
    fee: record.fee === undefined || record.fee === null ? undefined : plainAmount(record.fee, record.currency),
    replayed: true,
    at: now.toISOString(),
    lookedUp: true,
    ...(s ? { payoutStatus: s } : {}),
  };
}

// ---- candidates: records of the list that could be a payout whose answer was lost ----

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
    if (owner !== undefined && owner !== entry.payoutId) out.claimed++;
    else {
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
