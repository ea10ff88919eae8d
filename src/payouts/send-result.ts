/**
 * What sending one journaled payout comes to (docs/architecture.md, "Idempotency journal"): the
 * result (accepted, refused or unknown) and the options of payouts/send.ts, and the results and
 * messages its steps share: an already-made payout, a journal that could not take an outcome,
 * the turns of answers that resolve an unknown outcome.
 */
import type { ApiError, InterruptedError } from '../errors.js';
import { NetworkError } from '../errors.js';
import type { HttpResponse } from '../api/client.js';
import type { Envelope, PayoutRecord, PayoutTransaction } from '../service/schemas.js';
import type { Clock } from '../clock.js';
import type { RetryPolicy } from '../api/retry.js';
import type { JournalEntry, Ledger } from './journal.js';
import { journalBase } from './ledger/base-url.js';
import { fsFault } from '../config/fs-fault.js';
import { AnswerMismatch } from './lookup.js';
import { type CandidateSearch } from './candidate-search.js';
import { askedOf } from './candidate-fields.js';

export type SendResult =
  | {
      kind: 'accepted';
      replayed: boolean;
      res: HttpResponse;
      envelope: Envelope;
      transaction: PayoutTransaction;
      attempts: number;
      /** Accepted before and read back by its transaction id (the 24-hour rule): nothing was sent. */
      lookedUp?: true;
      /** The record read back (lookedUp), its journaled payout id set: the card shows it as payout get does. */
      record?: PayoutRecord;
      /**
       * "Already made": the service refused it because its payout id was used before (a 422
       * DUPLICATE_PAYOUT_ID), so that payout exists, made by an earlier attempt under another key.
       * Reported as already submitted, never as a failure. `transaction` then holds what was sent,
       * with an empty transaction id (the refusal names none); `res` is the refusal.
       */
      alreadyMade?: { code: string; message: string };
    }
  | {
      kind: 'rejected';
      error: ApiError;
      attempts: number;
      /** A single payout whose payout id was used before for another payout: the whole payout list read, no record pays it (used-before.ts). */
      usedBefore?: CandidateSearch;
    }
  | {
      kind: 'unknown';
      error: NetworkError | InterruptedError;
      attempts: number;
      lastStatus: number | undefined;
      /**
       * Not sent: the entry's outcome was unknown and its first attempt more than 24 hours old
       * (the service may have forgotten the key). What the payout list holds that could be it, or
       * why it could not be searched; lookup.ts heldAdvice says it to a person.
       */
      held?: CandidateSearch | { error: string };
      /** A single payout whose payout id was used before: the search of the payout list that could not tell whether it is this payout (candidates, never proof; or a search that failed or stopped: used-before.ts). */
      usedBefore?: CandidateSearch | { error: string };
      /** A resend resolving an unknown outcome, refused: the search of the payout list that could not rule out an earlier attempt (resend-refused.ts). */
      resendRefused?: CandidateSearch | { error: string };
      /** Answered (a 2xx), but about another payout (AnswerMismatch): the service was reached, and the same key gets the same answer. */
      otherPayout?: true;
      /** A resend refused as from a wallet this key's account does not have: another account's key (resend-refused.ts walletRefused). */
      walletRefused?: true;
    };

export interface SendOptions {
  policy?: RetryPolicy;
  /** Interrupts the request in flight and the waits between attempts. */
  signal: AbortSignal;
  /**
   * A batch's first stop: the first attempt, not started yet, ends with NotSentError, thrown
   * (nothing was sent; the entry left as it is). After an attempt that got no final answer, no
   * new one starts: the waits between attempts end on it (instead of on `signal`, which a batch
   * never aborts) and the outcome is unknown, its key journaled for the rerun.
   */
  unsentStop?: AbortSignal;
  /** The time, and the waits between retries. */
  clock: Clock;
  /** Told before each wait: why, and for how long. */
  onRetry?: (info: { attempt: number; waitMs: number; reason: string }) => void;
  /**
   * Takes the write of the outcome instead of waiting for it (a batch moves on to its next
   * row and waits for every write at the end). The request was journaled before it left,
   * so a crash before the outcome is written only means a rerun replays it.
   */
  deferRecord?: (write: Promise<unknown>) => void;
  /** A wait shared by many senders (a batch slows down as one on 429). */
  gate?: { wait(signal?: AbortSignal): Promise<void>; pause(ms: number): void };
  /**
   * A person chose to resend an entry older than 24 hours whose outcome is unknown
   * (`history reconcile --resend`): sent with its journaled key and body, not held.
   */
  resendOld?: boolean;
  /**
   * The run's profile and key are not known to be the ones that sent it (sender-profile.ts: an
   * unknown sender, named by --payout-id): a refusal of the resend may be another account's, whose
   * payout list has none of this one's records, so it is never taken for "not made" (resend-refused.ts).
   */
  senderUnconfirmed?: boolean;
  /**
   * An earlier attempt of this entry may have reached the service (a resend of an unknown
   * outcome): an accepted answer then resolves that outcome, so it must not be another
   * payout's (a transaction id the journal already has for another payout id stays unknown).
   */
  earlierAttempt?: boolean;
  /**
   * Every accepted answer's transaction id checked against the ledger's entries of the last 24
   * hours (recentOwner), not only one that resolves an unknown outcome: a service that answers a
   * new payout with a transaction id it gave another leaves this one unknown. One payout only: a
   * batch checks its rows' answers against each other with `seen`, at no cost a row.
   */
  ownerCheck?: boolean;
  /** Transaction ids answered in this run, with their payout ids (a batch's rows). */
  seen?: Map<string, string>;
  /**
   * The entry was journaled by this run, just now: no attempt of it was made before. Credentials
   * refused (401, or 403) on the first attempt then mean nothing was sent, and the journal records
   * it as refused before the AuthError is thrown. Without it, such an entry is left as it was (an
   * earlier run's attempt may have reached the service) and the AuthError thrown.
   */
  journaledNow?: boolean;
  /**
   * A single payout (`payout create`): a refusal of its payout id as used before
   * (DUPLICATE_PAYOUT_ID) is checked against the payout list (used-before.ts) before it is taken
   * for already made: none there pays it, it is refused; the search incomplete, unknown. A batch
   * takes it for already made as it is.
   */
  checkAlreadyMade?: boolean;
}

/** What a local file-system failure means to a person: "no space left on device (ENOSPC): the disk is full". */
export function localFault(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code === 'ENOSPC' ? `${fsFault(err)}: the disk is full` : fsFault(err);
}

/** The already-made result: what was sent stands in for the transaction (its id empty: the refusal names none). */
export function alreadyMadeResult(entry: JournalEntry, res: HttpResponse, error: { code: string; message: string }, attempts: number): SendResult {
  const asked = askedOf(entry.body);
  const transaction = {
    transaction_id: '',
    amount: asked?.amount ?? '0',
    currency: asked?.currency ?? '',
    payout_id: entry.payoutId,
  } as PayoutTransaction;
  return { kind: 'accepted', replayed: true, res, envelope: { status: 'Failed', message: error.message, data: null }, transaction, attempts, alreadyMade: error };
}

/** A local failure (disk full, no permission) after the service may have taken the payout. */
export function recordFailure(err: unknown, transactionId: string | undefined, after?: NetworkError | InterruptedError): NetworkError {
  const what = localFault(err);
  const said = transactionId
    ? `the service accepted it (transaction ${transactionId})`
    : after
      ? `no answer was read (${after.message.replace(/\.$/, '')})`
      : 'the service may have taken it';
  return new NetworkError(`${said}, but payctl could not record that in its journal: ${what}`, { causeCode: 'JOURNAL_ERROR' });
}

/** A message without its final full stop, to be said inside another sentence. */
export function inner(err: unknown): string {
  return (err as Error).message.replace(/\.$/, '');
}

/**
 * The payout id another entry of this base URL, journaled in the 24 hours before `now` (by the
 * ledger's clock, which dated it: ledgerNow), has
 * `transactionId` for (an accepted outcome), if any: the window within which a service could
 * answer a new payout with an old one's transaction (its idempotency keys' memory), read with
 * the ledger's day index rather than the whole-journal scan of transactionOwner, and only the
 * entries that can have this transaction id parsed and verified. Entries that cannot be read
 * are passed over: what they hold is checked where they are read for money.
 */
export async function recentOwner(journal: Ledger, baseUrl: string, transactionId: string, now: Date): Promise<string | undefined> {
  const base = journalBase(baseUrl);
  for await (const item of journal.scanSince(baseUrl, new Date(now.getTime() - 24 * 3_600_000), { transactionId })) {
    if ('error' in item) continue;
    const o = item.entry.outcome;
    if (o?.kind === 'accepted' && o.transactionId === transactionId && journalBase(item.entry.baseUrl) === base) return item.entry.payoutId;
  }
  return undefined;
}

/** A transaction id this run's answers gave another payout is a conflict (AnswerMismatch); else it is now `payoutId`'s. */
export function claimSeen(seen: Map<string, string>, transactionId: string, payoutId: string): void {
  const other = seen.get(transactionId) ?? payoutId;
  if (other !== payoutId)
    throw new AnswerMismatch(`the service answered with transaction ${transactionId}, which it gave payout ${other} of this run; it is not taken for this one`);
  seen.set(transactionId, payoutId);
}

/** A refusal whose code, message or field errors say duplicate, in any words ("DUPLICATE", "already exists", "has been used", "IDEMPOTENCY_KEY_REUSED"). */
export function saysDuplicate(error: ApiError): boolean {
  const words = /duplicate|already|been used|exists|taken|reused/i;
  return [error.code ?? '', error.message, ...error.errors.map((e) => e.message)].some((t) => words.test(t));
}

/**
 * Answers that resolve an unknown outcome take turns, per ledger, from reading the transaction
 * owners (checkOwner) until their outcome is recorded (a batch's write: once handed over, the
 * ledger having the transaction id from the call of `record` on): two answers naming one
 * transaction id at once cannot both pass the check while the reads are awaited (the last turn of each ledger).
 */
const ownerTurns = new WeakMap<Ledger, Promise<void>>();

/** A turn at the transaction owners of `ledger`: resolves when it is this one's, with the function that ends it. */
export async function ownerTurn(ledger: Ledger): Promise<() => void> {
  const before = ownerTurns.get(ledger);
  let end!: () => void;
  const mine = new Promise<void>((resolve) => (end = resolve));
  ownerTurns.set(ledger, before ? before.then(() => mine) : mine);
  if (before) await before;
  return end;
}
