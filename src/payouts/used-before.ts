/**
 * A single payout (`payout create`, SendOptions.checkAlreadyMade) the service refused because its
 * payout id was used before (422 DUPLICATE_PAYOUT_ID). Its Idempotency-Key is derived from the
 * base URL, the payout id and the exact body (identity.ts): the same payout sent again from
 * another config folder gets the same key and is a replay, so this refusal means either that
 * the service forgot the key (the same payout, made more than 24 hours ago), or that the id was
 * used for another payout (another folder, another amount or recipient), and then this one was
 * NOT paid. The service looks payouts up by transaction id only, so its payout list is searched
 * by the search that decides (decide.ts: records of any time, ruled out on amount and currency
 * only, complete only at a certain end of the list) for records that could be this payout.
 * A record carries no payout id, so a candidate is never proof that the earlier payout is this
 * one: last month's payout of the same amount (a retainer, a rent) matches as well. What follows (decide.ts verdict):
 * - `not-made`: the whole list read and no record could be it: the service refused it and
 *   nothing pays it; journaled as refused, so `history` and a rerun (the same key: the service
 *   answers the same refusal, and the list is searched again) say the same (exit 1).
 * - `unknown`: candidates found (a person chooses: `history reconcile --payout-id ID --made-by
 *   TXN` records one as made, lookup.ts choiceCommands), or the search failed or stopped before a
 *   certain end of the list: the outcome is unknown (exit 4), never success. Journaled unknown
 *   and marked `anyTime` (decide.ts leftUnknown), so that `--made-by` and later searches judge
 *   records as this search did.
 * Batches and plans keep reporting "already made" without the search (report.ts).
 */
import { text } from '../output/text.js';
import type { CandidateSearch, ListSearch } from './candidate-search.js';
import { COMPARED, leftUnknown, searchList, stoppedAfter, verdict } from './decide.js';
import type { ApiClient, HttpResponse } from '../api/client.js';
import type { JournalEntry, Ledger, Outcome } from './journal.js';
import { ApiError, type InterruptedError, NetworkError } from '../errors.js';
import type { SendOptions, SendResult } from './send-result.js';

/** The search of the payout list, or why it failed. */
export type UsedBefore = ListSearch;

/** The transaction ids of the candidates payctl can check (a transaction id, an account and a creation time it can read). */
export function checkedCandidates(s: UsedBefore): string[] {
  if ('error' in s) return [];
  return s.candidates.filter((c) => c.transaction_id && !s.unchecked.has(c)).map((c) => c.transaction_id!);
}

/** "N records" of the payout list read. */
function recordsRead(s: CandidateSearch): string {
  return `${s.read} record${s.read === 1 ? '' : 's'} of the service's payout list`;
}

/** Why the payout id's earlier payout is not this one (verdict `not-made`): the refusal's message (exit 1), also journaled. */
export function notPaidMessage(entry: JournalEntry, s: CandidateSearch, said: string): string {
  return (
    `Payout id ${text(entry.payoutId)} was used before for a payout that does not pay what this one asks: the service refused it as a duplicate (${text(said).replace(/\.$/, '')}), ` +
    `and none of the ${recordsRead(s)} (the whole list, read to its end) pays this (${COMPARED}). Nothing was paid.`
  );
}

/** Why it cannot be told whether the earlier payout is this one (verdict `unknown`). */
export function unsureReason(entry: JournalEntry, s: UsedBefore, said: string): string {
  const head = `the service refused payout id ${text(entry.payoutId)} as used before (${text(said).replace(/\.$/, '')}), and whether that payout is this one could not be told`;
  if ('error' in s) return `${head}: searching the service's payout list failed (${text(s.error)})`;
  const ids = checkedCandidates(s);
  if (ids.length)
    return (
      `${head}: ${ids.length === 1 ? 'a record' : `${ids.length} records`} could be it (${COMPARED}; ${recordsRead(s)} read): ${ids.map((t) => text(t)).join(', ')}; ` +
      `a record names no payout id, so it may as well be an earlier payout of the same amount`
    );
  if (s.candidates.length)
    return `${head}: only ${s.candidates.length === 1 ? 'a record' : `${s.candidates.length} records`} payctl cannot check could be it (${COMPARED}; ${recordsRead(s)} read)`;
  return `${head}: ${stoppedAfter(s)}, without finding it`;
}

/** What of one sendPayout (send.ts PayoutSend) the search and its verdict use. */
export interface UsedBeforeSend {
  api: ApiClient;
  journal: Ledger;
  entry: JournalEntry;
  opts: SendOptions;
  /** Read back by its transaction id, never resent (accepted before). */
  readBack(txn: string): Promise<SendResult>;
  /** Recorded as unknown, and its result. */
  unknown(error: NetworkError | InterruptedError, reason: string, lastStatus?: number): Promise<SendResult>;
  record(outcome: Outcome): Promise<unknown> | undefined;
}

/**
 * The payout id used before, for a single payout (SendOptions.checkAlreadyMade): the payout list
 * searched for what could be this payout, and what that says recorded: refused (none in the
 * whole list: nothing pays it), or unknown (marked `anyTime`), with the search. `res`: the refusal.
 */
export async function usedBeforeResult(s: UsedBeforeSend, res: HttpResponse, made: { code: string; message: string }, n: number): Promise<SendResult> {
  // Recorded as made by a transaction already (a person chose it: `history reconcile --made-by`): that one, read back.
  const o = s.entry.outcome;
  if (o?.kind === 'accepted' && o.transactionId) return s.readBack(o.transactionId);
  let found: UsedBefore;
  try {
    found = await searchList(s.api, s.entry, { signal: s.opts.signal });
  } catch (err) {
    return s.unknown(err as InterruptedError, 'interrupted while the payout list was searched for the payout id used before', res.status);
  }
  if (verdict(found) === 'unknown') {
    const unsure = new NetworkError(unsureReason(s.entry, found, made.message));
    return { ...(await leftUnknown((o) => s.record(o), s.opts.clock, unsure, n, res.status)), usedBefore: found };
  }
  const search = found as CandidateSearch;
  const error = new ApiError(notPaidMessage(s.entry, search, made.message), { status: res.status, code: made.code, requestId: res.requestId });
  // Refused is refused: nothing pays it, whether or not the journal heard of it.
  await s.record({ kind: 'rejected', status: res.status, code: made.code, message: error.message, at: s.opts.clock.now().toISOString() })?.catch(() => undefined);
  return { kind: 'rejected', error, attempts: n, usedBefore: search };
}
