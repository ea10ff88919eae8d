/**
 * Sends one journaled payout (docs/architecture.md, "Retries"): only ever with the journaled key and
 * the identical body. Connection errors, time-outs, 408, 429, 5xx and 409
 * IDEMPOTENCY_IN_PROGRESS are retried with backoff (Retry-After honoured), bounded in
 * attempts and time; any other 4xx is final. When no answer ever came, the outcome
 * is unknown: never reported as failure or success. An entry whose outcome is unknown and
 * whose first attempt is more than 24 hours old is not resent at all (lookup.ts, KEY_MEMORY_MS).
 */
import { ApiError, AuthError, InterruptedError, NetworkError } from '../errors.js';
import { apiErrorFrom, DEADLINE_CODE, parseEnvelope, type ApiClient, type HttpResponse } from '../api/client.js';
import { DUPLICATE_PAYOUT_ID, parseErrorBody, parseOrThrow, payoutTransactionSchema, type Envelope, type PayoutTransaction } from '../service/schemas.js';
import type { Clock } from '../clock.js';
import { isRetryableStatus, parseRetryAfter, withRetries, type Attempt, type RetryPolicy } from '../api/retry.js';
import { plainAmount } from '../money/amount.js';
import { fsFault, type Journal, type JournalEntry, type Outcome } from './journal.js';
import {
  AnswerMismatch,
  askedOf,
  checkAnswer,
  claimedTransactions,
  findCandidates,
  getPayout,
  isUnresolved,
  lookedUpOutcome,
  olderThanKeyMemory,
  type CandidateSearch,
} from './lookup.js';

export const PAYOUT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxRetryAfterMs: 20_000,
  deadlineMs: 120_000,
};

/** 429 answers tolerated for one payout before giving up (the deadline bounds them too). */
const MAX_RATE_LIMITED = 50;

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
      /**
       * "Already made": the service refused it because its payout id was used before (a 422
       * DUPLICATE_PAYOUT_ID), so that payout exists, made by an earlier attempt under another key.
       * Reported as already submitted, never as a failure. `transaction` then holds what was sent,
       * with an empty transaction id (the refusal names none); `res` is the refusal.
       */
      alreadyMade?: { code: string; message: string };
    }
  | { kind: 'rejected'; error: ApiError; attempts: number }
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
    };

export interface SendOptions {
  policy?: RetryPolicy;
  /** Interrupts the request in flight and the waits between attempts. */
  signal: AbortSignal;
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
  gate?: { wait(): Promise<void>; pause(ms: number): void };
  /**
   * A person chose to resend an entry older than 24 hours whose outcome is unknown
   * (`history reconcile --resend`): sent with its journaled key and body, not held.
   */
  resendOld?: boolean;
  /**
   * An earlier attempt of this entry may have reached the service (a resend of an unknown
   * outcome): a refusal naming the payout id as used before then means that attempt was
   * probably made, and the outcome stays unknown instead of "refused".
   */
  earlierAttempt?: boolean;
  /**
   * The entry was journaled by this run, just now: no attempt of it was made before. Credentials
   * refused (401, or 403) on the first attempt then mean nothing was sent, and the journal records
   * it as refused before the AuthError is thrown. Without it, such an entry is left as it was (an
   * earlier run's attempt may have reached the service) and the AuthError thrown.
   */
  journaledNow?: boolean;
}

function retryReason(res: HttpResponse): string | undefined {
  if (res.status === 409) {
    const code = parseErrorBody(res.raw)?.code;
    return code === 'IDEMPOTENCY_IN_PROGRESS' ? 'the first request is still being processed (409)' : undefined;
  }
  if (isRetryableStatus(res.status)) return res.status === 429 ? 'rate limited (429)' : `HTTP ${res.status}`;
  return undefined;
}

/** The answer checks live with the look-ups (lookup.ts); re-exported for callers of sendPayout. */
export { AnswerMismatch, checkAnswer } from './lookup.js';

/** What a local file-system failure means to a person: "no space left on device (ENOSPC): the disk is full". */
export function localFault(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code === 'ENOSPC' ? `${fsFault(err)}: the disk is full` : fsFault(err);
}

/** The already-made result: what was sent stands in for the transaction (its id empty: the refusal names none). */
function alreadyMadeResult(entry: JournalEntry, res: HttpResponse, error: { code: string; message: string }, attempts: number): SendResult {
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
function recordFailure(err: unknown, transactionId: string | undefined, after?: NetworkError | InterruptedError): NetworkError {
  const e = err as NodeJS.ErrnoException;
  const what = localFault(err);
  const said = transactionId
    ? `the service accepted it (transaction ${transactionId})`
    : after
      ? `no answer was read (${after.message.replace(/\.$/, '')})`
      : 'the service may have taken it';
  return new NetworkError(`${said}, but payctl could not record that in its journal: ${what}`, { causeCode: e.code });
}

export async function sendPayout(api: ApiClient, journal: Journal, entry: JournalEntry, opts: SendOptions): Promise<SendResult> {
  const policy = opts.policy ?? PAYOUT_RETRY;
  let lastFailure: NetworkError | undefined;
  let lastRes: HttpResponse | undefined;
  let attempt = 0;
  const record = async (outcome: Outcome) => {
    const written = journal.record(entry, outcome);
    if (opts.deferRecord) opts.deferRecord(written);
    else await written;
  };
  /** An unknown outcome, journaled when the journal can take it (a failing disk is said, not hidden). */
  const unknown = async (error: NetworkError | InterruptedError, reason: string, lastStatus = lastRes?.status): Promise<SendResult> => {
    try {
      await record({ kind: 'unknown', reason, at: opts.clock.now().toISOString() });
    } catch (err) {
      return { kind: 'unknown', error: recordFailure(err, undefined, error), attempts: attempt, lastStatus };
    }
    return { kind: 'unknown', error, attempts: attempt, lastStatus };
  };

  // The 24-hour rule: a service may forget an idempotency key after a day (docs/service.md), and it
  // has no look-up by payout id. So an older entry is never resent on its own: accepted before,
  // it is read back by its journaled transaction id; unknown, it is held, with the records of
  // the payout list that could be it, for a person to choose (history reconcile).
  if (!opts.resendOld && olderThanKeyMemory(entry, opts.clock.now())) {
    const prior = entry.outcome;
    // Already made (its payout id known to the service): nothing to resend, no transaction to read back.
    if (prior?.kind === 'accepted' && prior.alreadyMade) {
      const res: HttpResponse = { status: prior.status, headers: {}, raw: '', requestId: undefined } as unknown as HttpResponse;
      return alreadyMadeResult(entry, res, prior.alreadyMade, 0);
    }
    if (prior?.kind === 'accepted' && prior.transactionId) {
      const txn = prior.transactionId;
      try {
        const got = await getPayout(api, { transactionId: txn, payoutId: entry.payoutId, entry }, opts.signal);
        const transaction = parseOrThrow(payoutTransactionSchema, got.envelope.data, 'a payout transaction', got.res.requestId);
        try {
          await record(lookedUpOutcome(got.record, got.res.status, opts.clock.now()));
        } catch (err) {
          return { kind: 'unknown', error: recordFailure(err, txn), attempts: 0, lastStatus: got.res.status };
        }
        return { kind: 'accepted', replayed: true, res: got.res, envelope: got.envelope, transaction, attempts: 0, lookedUp: true };
      } catch (err) {
        if (err instanceof AuthError) throw err;
        if (err instanceof InterruptedError) return { kind: 'unknown', error: err, attempts: 0, lastStatus: undefined };
        // Accepted before, so never resent; only reading it back failed. Not recorded: the journal keeps "accepted".
        const error = new NetworkError(
          `it was accepted earlier (transaction ${txn}), and reading it back failed (${(err as Error).message.replace(/\.$/, '')}); it was not resent`,
          err instanceof NetworkError ? { causeCode: err.causeCode } : {},
        );
        return { kind: 'unknown', error, attempts: 0, lastStatus: undefined };
      }
    }
    if (isUnresolved(entry)) {
      let held: CandidateSearch | { error: string };
      try {
        held = await findCandidates(api, entry, { signal: opts.signal, claimed: claimedTransactions(journal, entry.baseUrl) });
      } catch (err) {
        if (err instanceof AuthError) throw err;
        if (err instanceof InterruptedError) return { kind: 'unknown', error: err, attempts: 0, lastStatus: undefined };
        held = { error: (err as Error).message.replace(/\.$/, '') };
      }
      const found =
        'error' in held
          ? 'the payout list could not be searched'
          : `${held.candidates.length} record${held.candidates.length === 1 ? '' : 's'} of the payout list could be it`;
      const error = new NetworkError(
        `its first attempt was more than 24 hours ago and its outcome is unknown; the service may have forgotten its idempotency key, so payctl does not resend it on its own (${found}; see payctl history reconcile --payout-id ${entry.payoutId})`,
      );
      // Left as it was in the journal: still unknown, with its first attempt's reason.
      return { kind: 'unknown', error, attempts: 0, lastStatus: undefined, held };
    }
  }

  /**
   * The credentials refused (a 401, or a 403 to POST /payout: client.ts), or none: this attempt
   * took nothing. After an attempt of this run that may have reached the service, the payout's
   * outcome is still unknown. On the first attempt of an entry journaled just now, the service's
   * refusal means nothing was sent at all: recorded as refused (a rerun after login sends it,
   * with the same key). Otherwise thrown, the entry left as it was.
   */
  const credentialsRefused = async (err: AuthError, n: number): Promise<Attempt<SendResult>> => {
    if (n > 1) {
      const error = new NetworkError(`an earlier attempt may have reached the service, then the credentials were refused (${err.message.replace(/\.$/, '')})`);
      return { done: await unknown(error, error.message) };
    }
    if (opts.journaledNow && err.status !== undefined) {
      const code = err.status === 403 ? 'FORBIDDEN' : 'UNAUTHORIZED';
      try {
        await record({ kind: 'rejected', status: err.status, code, message: err.message, at: opts.clock.now().toISOString() });
      } catch {
        // Refused is refused: nothing was sent, whether or not the journal heard of it.
      }
    }
    throw err;
  };

  /** One attempt, classified: a final result, or why it may be tried again (same key, same body). */
  const once = async (n: number): Promise<Attempt<SendResult>> => {
    attempt = n;
    let res: HttpResponse;
    try {
      res = await api.call('payoutCreate', {
        body: entry.body,
        headers: { 'idempotency-key': entry.idempotencyKey },
        retry: false,
        signal: opts.signal,
      });
    } catch (err) {
      if (err instanceof InterruptedError) return { done: await unknown(err, 'interrupted while the request was in flight') };
      // Credentials refused (or none): this attempt took nothing.
      if (err instanceof AuthError) return credentialsRefused(err, n);
      if (err instanceof NetworkError && err.causeCode !== DEADLINE_CODE) {
        lastFailure = err;
        return { retry: err.message };
      }
      // An answer that could not be read (too large, still dripping at the deadline): the
      // payout may have been made. Unknown, with the same key for the retry.
      const error = err instanceof NetworkError ? err : new NetworkError(`the answer could not be read: ${(err as Error).message.replace(/\.$/, '')}`);
      return { done: await unknown(error, error.message) };
    }

    lastRes = res;
    if (res.status >= 200 && res.status <= 299) {
      let envelope: Envelope;
      let transaction: PayoutTransaction;
      try {
        envelope = parseEnvelope(res);
        transaction = parseOrThrow(payoutTransactionSchema, envelope.data, 'a payout transaction', res.requestId);
        checkAnswer(entry, transaction);
        // An answer that resolves an unknown outcome (a replay, a resend by reconcile, a rerun of an
        // entry left unknown) must not be another payout's: a transaction id the journal already has
        // for another payout id is a conflict, and the outcome stays unknown.
        const resolving = opts.earlierAttempt || entry.outcome?.kind === 'unknown' || (res.headers['idempotent-replayed'] ?? '').toLowerCase() === 'true';
        const owner = resolving ? journal.transactionOwner(entry.baseUrl, transaction.transaction_id) : undefined;
        if (owner !== undefined && owner !== entry.payoutId) {
          throw new AnswerMismatch(
            `the service answered with transaction ${transaction.transaction_id}, which the journal already has for another payout (${owner}); it is not taken for this one`,
          );
        }
      } catch (err) {
        // The service said yes in a way payctl cannot read, or about another payout: it may well
        // have paid this one. Never "refused", never taken for success.
        const error =
          err instanceof AnswerMismatch
            ? new NetworkError(err.message)
            : new NetworkError(`the service answered HTTP ${res.status} but payctl could not read the answer (${(err as Error).message.replace(/\.$/, '')})`);
        return { done: await unknown(error, error.message, res.status) };
      }
      const replayed = (res.headers['idempotent-replayed'] ?? '').toLowerCase() === 'true';
      const accepted: Outcome = {
        kind: 'accepted',
        status: res.status,
        transactionId: transaction.transaction_id,
        fee: transaction.fee === undefined ? undefined : plainAmount(transaction.fee, transaction.currency),
        replayed,
        at: opts.clock.now().toISOString(),
      };
      try {
        await record(accepted);
      } catch (err) {
        return { done: { kind: 'unknown', error: recordFailure(err, transaction.transaction_id), attempts: n, lastStatus: res.status } };
      }
      return { done: { kind: 'accepted', replayed, res, envelope, transaction, attempts: n } };
    }
    const reason = retryReason(res);
    if (!reason) {
      const error = apiErrorFrom(res);
      if (error.code === DUPLICATE_PAYOUT_ID) {
        // The service has a payout with this id already: made by an earlier attempt, under another
        // key (a lost journal, another config folder, an earlier payctl, a key the service forgot).
        // Recorded as already made: never refused, never sent again, counted as paid.
        const made = { code: DUPLICATE_PAYOUT_ID, message: error.message };
        const outcome: Outcome = {
          kind: 'accepted',
          status: res.status,
          transactionId: undefined,
          fee: undefined,
          replayed: true,
          at: opts.clock.now().toISOString(),
          alreadyMade: made,
        };
        try {
          await record(outcome);
        } catch (err) {
          return { done: { kind: 'unknown', error: recordFailure(err, undefined), attempts: n, lastStatus: res.status } };
        }
        return { done: alreadyMadeResult(entry, res, made, n) };
      }
      try {
        await record({ kind: 'rejected', status: res.status, code: error.code, message: error.message, at: opts.clock.now().toISOString() });
      } catch {
        // Refused is refused: the service took nothing, whether or not the journal heard of it.
      }
      return { done: { kind: 'rejected', error, attempts: n } };
    }
    lastFailure = undefined;
    return { retry: reason, retryAfterMs: parseRetryAfter(res.headers['retry-after'], opts.clock.now()), rateLimited: res.status === 429 };
  };

  return withRetries<SendResult>(policy, once, {
    signal: opts.signal,
    clock: opts.clock,
    gate: opts.gate,
    onRetry: opts.onRetry,
    maxRateLimited: MAX_RATE_LIMITED,
    giveUp: () => {
      if (lastRes && !lastFailure) {
        // The service answered, but only with retryable refusals: it did not take the payout
        // now, yet an earlier attempt may have been committed. Report unknown unless no attempt
        // could have reached the service.
        lastFailure = new NetworkError(`the service kept answering ${retryReason(lastRes)}`);
      }
      return unknown(lastFailure!, lastFailure!.message);
    },
    interrupted: (err) => unknown(err, 'interrupted while waiting to retry'),
  });
}
