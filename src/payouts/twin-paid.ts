/**
 * A payout P of unknown outcome whose payment may be a record the journal has for another payout
 * that pays what P pays (a twin: later-twin.ts samePayments, never a row of P's own batch run),
 * recorded as made by it. The service's records carry no payout id: a twin's record could be P's
 * own. So P is never resent while one is (`--resend` refused, exit 2; its advice prints none), and
 * `history reconcile --payout-id P --made-by TXN` of that record closes P as not made, TXN having
 * paid the person in its place (commands/history/reconcile-made-by.ts). Before, P "matched
 * nothing", was offered `--resend` (a second payment once its key is forgotten) and its
 * `--made-by` of TXN was refused as taken (probe R58a findings 1 and 2).
 */
import { UsageError } from '../errors.js';
import { commandLine, type Invocation } from '../config/command-line.js';
import { text } from '../output/text.js';
import type { JournalEntry, Ledger } from './journal.js';
import { samePayments } from './later-twin.js';
import { claimedTransactions, findCandidates, type CandidateSearch } from './candidate-search.js';
import type { ApiClient } from '../api/client.js';

/** A twin's transaction that may have paid an entry: the transaction id and the payout it is recorded as. */
export interface TwinPaid {
  txn: string;
  owner: string;
}

/** The twins of `p` recorded as made by a transaction, each with it. */
export async function madeTwins(journal: Ledger, p: JournalEntry): Promise<TwinPaid[]> {
  return (await samePayments(journal, p)).flatMap((e) =>
    e.outcome?.kind === 'accepted' && e.outcome.transactionId ? [{ txn: e.outcome.transactionId, owner: e.payoutId }] : [],
  );
}

/** Of the records `search` found for `p` and left out as recorded for other payouts, the first recorded for a twin of it. */
export async function twinPaid(journal: Ledger, p: JournalEntry, search: CandidateSearch | { error: string }): Promise<TwinPaid | undefined> {
  // A record of its own could be it (each was made, each by its record): the twin's is not taken for it.
  if ('error' in search || search.candidates.length || !search.claimedBy?.length) return undefined;
  const twins = await madeTwins(journal, p);
  return search.claimedBy.find((c) => twins.some((t) => t.txn === c.txn && t.owner === c.owner));
}

/**
 * `--resend` of `p` while a twin is recorded as made (madeTwins): refused (exit 2), nothing sent,
 * with the `--made-by` of that twin's record, which closes `p` as paid by it in its place.
 */
export async function refuseTwinPaidResend(api: ApiClient, journal: Ledger, p: JournalEntry, o: { inv: Invocation; now: Date; signal?: AbortSignal }): Promise<void> {
  const t = await onlyTwinPaid(api, journal, p, o);
  if (!t) return;
  const inv = o.inv;
  const id = text(p.payoutId);
  throw new UsageError(
    `Payout ${text(t.owner)}, of the same details as payout ${id}, is recorded as made by transaction ${text(t.txn)}: the service's records carry no payout id, so that record could be ${id}'s payment, and a resend could pay the person twice. Nothing was sent.`,
    [],
    `If that record paid it, record ${id} as paid by it in its place: ${commandLine(inv, ['history', 'reconcile'], ['--payout-id', p.payoutId, '--made-by', t.txn])}`,
  );
}

/**
 * The twin's transaction that may have paid `p` when `p` has a made twin (madeTwins) and its own
 * search of the payout list finds no record of its own, only that one (twinPaid); else undefined.
 */
export async function onlyTwinPaid(api: ApiClient, journal: Ledger, p: JournalEntry, o: { now: Date; signal?: AbortSignal }): Promise<TwinPaid | undefined> {
  if (!(await madeTwins(journal, p)).length) return undefined;
  const search = await findCandidates(api, p, { now: o.now, ...(o.signal ? { signal: o.signal } : {}), claimed: await claimedTransactions(journal, p.baseUrl) });
  return twinPaid(journal, p, search);
}
