/**
 * Sends one journaled payout (docs/architecture.md, "Retries"): only ever with the journaled key and
 * the identical body. Connection errors, time-outs, 408, 429, 5xx and 409 IDEMPOTENCY_IN_PROGRESS
 * are retried with backoff (Retry-After honoured), bounded in attempts and time; any other 4xx is
 * final. When no answer ever came, or a redirect, the outcome is unknown: never reported as
 * failure or success. An entry whose outcome is unknown and whose first attempt is more than 24
 * hours old, or dated in the future, is not resent at all (entry-age.ts).
 * Which answers are retried, final or unknown is decided in one place, api/payout-retry.ts; this
 * module says what each means for the payout, in named steps: attempt (PayoutSend.once),
 * classify (answered, refused, failed) and record (the journal's outcome, or unknown).
 */
import { AuthError, InterruptedError, NetworkError, NotSentError } from '../errors.js';
import { apiErrorFrom, parseEnvelope, type ApiClient, type HttpResponse } from '../api/client.js';
import { DUPLICATE_PAYOUT_ID, parseOrThrow, payoutTransactionSchema, type Envelope, type PayoutTransaction } from '../service/schemas.js';
import { withRetries, type Attempt } from '../api/retry.js';
import { classifyPayoutAnswer, classifyPayoutFailure, MAX_RATE_LIMITED, PAYOUT_RETRY, payoutRetryReason, retryOfAnswer } from '../api/payout-retry.js';
import { plainAmount } from '../money/amount.js';
import { ledgerNow, type JournalEntry, type Ledger, type Outcome } from './journal.js';
import { AnswerMismatch, checkAnswer, getPayout, isUnresolved, lookedUpOutcome } from './lookup.js';
import { claimedTransactions, findCandidates, type CandidateSearch } from './candidate-search.js';
import { heldReason, keyMayBeForgotten } from './entry-age.js';
import { usedBeforeResult } from './used-before.js';
import { refusedResend } from './resend-refused.js';
import { paidInsteadError } from './later-twin.js';
import { alreadyMadeResult, claimSeen, inner, ownerTurn, recentOwner, recordFailure, saysDuplicate, type SendOptions, type SendResult } from './send-result.js';

/** The answer checks live with the look-ups (lookup.ts); re-exported for callers of sendPayout. */
export { AnswerMismatch, checkAnswer } from './lookup.js';
export { localFault, type SendOptions, type SendResult } from './send-result.js';

export function sendPayout(api: ApiClient, journal: Ledger, entry: JournalEntry, opts: SendOptions): Promise<SendResult> {
  return new PayoutSend(api, journal, entry, opts).run();
}

/**
 * One sendPayout: the entry, its options, and what its attempts have seen so far, in one object
 * whose steps are its methods (one allocation a payout, where closures were one a step).
 */
class PayoutSend {
  /** The number of the attempt made last (0: none). */
  attempt = 0;
  /** Why the last attempt got no answer (a connection error), when it got none. */
  lastFailure: NetworkError | undefined = undefined;
  /** The last answer read, retryable ones included. */
  lastRes: HttpResponse | undefined = undefined;
  /**
   * An earlier attempt of this run may have reached the service and been taken: it got no
   * answer, or a 5xx, 408 or 409 (in progress) rather than a 429. A final refusal after it
   * does not prove that nothing was made (a proxy's 404 page, a gateway's 400).
   */
  mayHaveLanded = false;

  constructor(
    readonly api: ApiClient,
    readonly journal: Ledger,
    readonly entry: JournalEntry,
    readonly opts: SendOptions,
  ) {}

  async run(): Promise<SendResult> {
    const { opts } = this;
    // The 24-hour rule: a service may forget an idempotency key after a day (docs/service.md), and it
    // has no look-up by payout id. So an older entry is never resent on its own: accepted before,
    // it is read back by its journaled transaction id; unknown, it is held, with the records of
    // the payout list that could be it, for a person to choose (history reconcile). Its age by the
    // ledger's clock, which dated it: a machine whose clock is a day ahead does not hold what it
    // journaled a moment ago; an entry dated in the future by it (a fast clock's) is held as old.
    const instead = paidInsteadError(this.entry); // recorded as paid by another payout: never sent again
    if (instead) return { kind: 'rejected', error: instead, attempts: 0 };
    const now = ledgerNow(this.journal, opts.clock);
    if (!opts.resendOld && keyMayBeForgotten(this.entry, now)) {
      const old = await this.old(now);
      if (old) return old;
    }
    // Recorded as not made (a stopped batch's row, a look-up that found nothing), now about to
    // leave: unknown until an answer is recorded, so that a run killed mid-request does not
    // leave a payout the service made reading as never made (reconcile passes those over).
    if (this.entry.outcome?.kind === 'not-made') {
      await this.journal.record(this.entry, {
        kind: 'unknown',
        reason: 'sent again after it was recorded as not made; no answer recorded yet',
        at: opts.clock.now().toISOString(),
      });
    }
    return withRetries<SendResult>(opts.policy ?? PAYOUT_RETRY, (n) => this.once(n), {
      // A batch's first stop ends the waits between attempts (its requests in flight go on).
      signal: opts.unsentStop ?? opts.signal,
      clock: opts.clock,
      gate: opts.gate,
      onRetry: opts.onRetry,
      maxRateLimited: MAX_RATE_LIMITED,
      giveUp: () => this.giveUp(),
      interrupted: (err) => (opts.unsentStop?.aborted ? this.stopped() : this.unknown(err, 'interrupted while waiting to retry')),
    });
  }

  // ---- attempt ------------------------------------------------------------------------------

  /** One attempt (the journaled key, the identical body), classified: a final result, or why it may be tried again. */
  async once(n: number): Promise<Attempt<SendResult>> {
    if (n > 1 && this.opts.unsentStop?.aborted) return { done: await this.stopped() };
    this.attempt = n;
    let res: HttpResponse;
    try {
      res = await this.api.call('payoutCreate', {
        body: this.entry.body,
        headers: { 'idempotency-key': this.entry.idempotencyKey },
        retry: false,
        signal: this.opts.signal,
        unsentStop: n === 1 ? this.opts.unsentStop : undefined, // the first attempt only: nothing of it left before
      });
    } catch (err) {
      return this.failed(err, n);
    }
    this.lastRes = res;
    const verdict = classifyPayoutAnswer(res);
    if (verdict === 'answered') return { done: await this.answered(res, n) };
    if (verdict === 'final') return { done: await this.refused(res, n) };
    const redirect = verdict === 'unknown' && new NetworkError(`${apiErrorFrom(res).message} Whether the payout was made cannot be told`, { causeCode: 'SERVICE_ERROR' });
    if (redirect) return { done: await this.unknown(redirect, redirect.message) };
    this.lastFailure = undefined;
    if (res.status !== 429) this.mayHaveLanded = true;
    return retryOfAnswer(res, this.opts.clock.now());
  }

  /** Attempts or time ran out (payout-retry.ts bounds them): the outcome is unknown. */
  giveUp(): Promise<SendResult> {
    if (this.lastRes && !this.lastFailure) {
      // The service answered, but only with retryable refusals: it did not take the payout
      // now, yet an earlier attempt may have been committed. Report unknown unless no attempt
      // could have reached the service.
      this.lastFailure = new NetworkError(`the service kept answering ${payoutRetryReason(this.lastRes)}`, { causeCode: 'SERVICE_ERROR' });
    }
    return this.unknown(this.lastFailure!, this.lastFailure!.message);
  }

  /** A batch stopped after an attempt that got no final answer: no new attempt starts; unknown, its key journaled for the rerun. */
  stopped(): Promise<SendResult> {
    const last = this.lastFailure?.message ?? (this.lastRes && payoutRetryReason(this.lastRes)) ?? 'no answer';
    const error = new InterruptedError(`stopped before it was tried again; attempt ${this.attempt} got no final answer (${last.replace(/\.$/, '')})`);
    return this.unknown(error, 'stopped before it was tried again; no final answer recorded');
  }

  // ---- classify -----------------------------------------------------------------------------

  /** An attempt that threw (no answer read): retried, or final as payout-retry.ts classifies it. */
  async failed(err: unknown, n: number): Promise<Attempt<SendResult>> {
    switch (classifyPayoutFailure(err)) {
      case 'interrupted':
        if (err instanceof NotSentError) throw err; // a batch's first stop before this first attempt left: the batch records it
        return { done: await this.unknown(err as InterruptedError, 'interrupted while the request was in flight') };
      case 'credentials': // Credentials refused (or none): this attempt took nothing.
        return this.credentialsRefused(err as AuthError, n);
      case 'retry':
        this.lastFailure = err as NetworkError;
        this.mayHaveLanded = true;
        return { retry: (err as NetworkError).message };
      case 'unknown': {
        // An answer not read (too large, still dripping at the deadline): maybe made; unknown, the same key for a retry.
        const error = err instanceof NetworkError ? err : new NetworkError(`the answer could not be read: ${inner(err)}`);
        return { done: await this.unknown(error, error.message) };
      }
    }
  }

  /** A 2xx: the answer read and checked against what was asked, then journaled as accepted. */
  async answered(res: HttpResponse, n: number): Promise<SendResult> {
    const replayed = (res.headers['idempotent-replayed'] ?? '').toLowerCase() === 'true';
    let envelope: Envelope;
    let transaction: PayoutTransaction;
    let turn: (() => void) | undefined;
    try {
      envelope = parseEnvelope(res);
      transaction = parseOrThrow(payoutTransactionSchema, envelope.data, 'a payout transaction', res.requestId);
      checkAnswer(this.entry, transaction);
      if (this.opts.seen) claimSeen(this.opts.seen, transaction.transaction_id, this.entry.payoutId);
      const resolving = this.resolving(replayed);
      if (resolving || this.opts.ownerCheck) turn = await this.checkOwner(transaction, !resolving);
    } catch (err) {
      // The service said yes in a way payctl cannot read, or about another payout: it may well
      // have paid this one. Never "refused", never taken for success.
      if (!(err instanceof AnswerMismatch)) {
        const error = new NetworkError(`the service answered HTTP ${res.status} but payctl could not read the answer (${inner(err)})`);
        return this.unknown(error, error.message, res.status);
      }
      const r = await this.unknown(new NetworkError(err.message), err.message, res.status);
      return r.kind === 'unknown' ? { ...r, otherPayout: true } : r;
    }
    try {
      const accepted: Outcome = {
        kind: 'accepted',
        status: res.status,
        transactionId: transaction.transaction_id,
        fee: transaction.fee === undefined ? undefined : plainAmount(transaction.fee, transaction.currency),
        replayed,
        at: this.opts.clock.now().toISOString(),
      };
      try {
        await this.record(accepted);
      } catch (err) {
        return { kind: 'unknown', error: recordFailure(err, transaction.transaction_id), attempts: n, lastStatus: res.status };
      }
    } finally {
      // Recorded (or left unknown): the next answer's turn.
      turn?.();
    }
    return { kind: 'accepted', replayed, res, envelope, transaction, attempts: n };
  }

  /** Does an answer resolve an unknown outcome (a replay, reconcile's resend, a rerun of an entry left unknown or with no outcome: a run killed)? */
  resolving(replayed: boolean): boolean {
    const killed = this.entry.outcome === undefined && this.opts.journaledNow === false;
    return this.opts.earlierAttempt || this.entry.outcome?.kind === 'unknown' || killed || replayed;
  }

  /**
   * An answer that resolves an unknown outcome (or any, with ownerCheck: `recent` entries only)
   * must not be another payout's: a transaction id the journal already has for another payout id
   * is a conflict (AnswerMismatch), and the outcome stays unknown. Checked in its turn
   * (ownerTurn); returns the function that ends the turn, to call once the outcome is recorded.
   */
  async checkOwner(transaction: PayoutTransaction, recent: boolean): Promise<() => void> {
    const { entry } = this;
    const end = await ownerTurn(this.journal);
    let owner: string | undefined;
    try {
      const txn = transaction.transaction_id;
      owner = recent
        ? await recentOwner(this.journal, entry.baseUrl, txn, ledgerNow(this.journal, this.opts.clock))
        : await this.journal.transactionOwner(entry.baseUrl, txn);
    } catch (err) {
      end();
      throw err;
    }
    if (owner !== undefined && owner !== entry.payoutId) {
      end();
      throw new AnswerMismatch(
        `the service answered with transaction ${transaction.transaction_id}, which the journal already has for another payout (${owner}); it is not taken for this one`,
      );
    }
    return end;
  }

  /** A final refusal (payout-retry.ts): refused, or already made when it names the payout id as used before. */
  async refused(res: HttpResponse, n: number): Promise<SendResult> {
    const error = apiErrorFrom(res);
    if (error.code === DUPLICATE_PAYOUT_ID) {
      // The service has a payout with this id: made by an earlier attempt under another key (a lost
      // journal, another folder, a key it forgot), or, for a single payout, perhaps another payout
      // (used-before.ts searches the list). A batch's is already made: never sent again, paid.
      const made = { code: DUPLICATE_PAYOUT_ID, message: error.message };
      return this.opts.checkAlreadyMade ? usedBeforeResult(this, res, made, n) : this.alreadyMade(res, made, n);
    }
    // A resend of an entry an earlier run left unknown, refused as a duplicate in words payctl does not read as its
    // payout id's ("Duplicate payout"): most likely that attempt, made; unknown. Refused otherwise (a proxy's 404
    // page, a 400): not taken on its word, the payout list searched (resend-refused.ts). Never "no payout was made".
    if (this.mayHaveLanded || (this.resolving(false) && saysDuplicate(error))) {
      const unsure = new NetworkError(`an earlier attempt may have reached the service, then it answered ${inner(error)}`);
      return this.unknown(unsure, unsure.message, res.status);
    }
    if (this.resolving(false)) return refusedResend(this, res, error, n);
    try {
      await this.record({ kind: 'rejected', status: res.status, code: error.code, message: error.message, at: this.opts.clock.now().toISOString() });
    } catch {
      // Refused is refused: the service took nothing, whether or not the journal heard of it.
    }
    return { kind: 'rejected', error, attempts: n };
  }

  /**
   * The credentials refused (a 401, or a 403 to POST /payout: client.ts), or none: this attempt
   * took nothing. After an attempt of this run that may have reached the service, the payout's
   * outcome is still unknown. On the first attempt of an entry journaled just now, the service's
   * refusal means nothing was sent at all: recorded as refused (a rerun after login sends it,
   * with the same key). Otherwise thrown, the entry left as it was.
   */
  async credentialsRefused(err: AuthError, n: number): Promise<Attempt<SendResult>> {
    if (n > 1) {
      const error = new NetworkError(`an earlier attempt may have reached the service, then the credentials were refused (${inner(err)})`);
      return { done: await this.unknown(error, error.message) };
    }
    if (this.opts.journaledNow && err.status !== undefined) {
      const code = err.status === 403 ? 'FORBIDDEN' : 'UNAUTHORIZED';
      try {
        await this.record({ kind: 'rejected', status: err.status, code, message: err.message, at: this.opts.clock.now().toISOString() });
      } catch {
        // Refused is refused: nothing was sent, whether or not the journal heard of it.
      }
    }
    throw err;
  }

  /** Already made: recorded as accepted with no transaction id (counted as paid, never sent again). */
  async alreadyMade(res: HttpResponse, made: { code: string; message: string }, n: number): Promise<SendResult> {
    const outcome: Outcome = {
      kind: 'accepted',
      status: res.status,
      transactionId: undefined,
      fee: undefined,
      replayed: true,
      at: this.opts.clock.now().toISOString(),
      alreadyMade: made,
    };
    try {
      await this.record(outcome);
    } catch (err) {
      return { kind: 'unknown', error: recordFailure(err, undefined), attempts: n, lastStatus: res.status };
    }
    return alreadyMadeResult(this.entry, res, made, n);
  }

  // ---- record -------------------------------------------------------------------------------

  /**
   * The outcome journaled: the write to await, or nothing when a batch took it (deferRecord).
   * Not an async function: no promise of its own on a batch's path.
   */
  record(outcome: Outcome): Promise<unknown> | undefined {
    const written = this.journal.record(this.entry, outcome);
    if (!this.opts.deferRecord) return written;
    this.opts.deferRecord(written);
    return undefined;
  }

  /** An unknown outcome, journaled when the journal can take it (a failing disk is said, not hidden). */
  async unknown(error: NetworkError | InterruptedError, reason: string, lastStatus = this.lastRes?.status): Promise<SendResult> {
    try {
      await this.record({ kind: 'unknown', reason, at: this.opts.clock.now().toISOString() });
    } catch (err) {
      return { kind: 'unknown', error: recordFailure(err, undefined, error), attempts: this.attempt, lastStatus };
    }
    return { kind: 'unknown', error, attempts: this.attempt, lastStatus };
  }

  // ---- the 24-hour rule ---------------------------------------------------------------------

  /** An entry past the key memory (or of unknown age): its result without sending, or undefined when it is sent as any other. */
  async old(now: Date): Promise<SendResult | undefined> {
    const prior = this.entry.outcome;
    // Already made (its payout id known to the service): nothing to resend, no transaction to read back.
    if (prior?.kind === 'accepted' && prior.alreadyMade) {
      const res: HttpResponse = { status: prior.status, headers: {}, raw: '', requestId: undefined };
      if (this.opts.checkAlreadyMade) return usedBeforeResult(this, res, prior.alreadyMade, 0);
      return alreadyMadeResult(this.entry, res, prior.alreadyMade, 0);
    }
    if (prior?.kind === 'accepted' && prior.transactionId) return this.readBack(prior.transactionId);
    if (isUnresolved(this.entry)) return this.hold(now);
    return undefined;
  }

  /** Accepted before: read back by its journaled transaction id, never resent. */
  async readBack(txn: string): Promise<SendResult> {
    const { api, entry, opts } = this;
    try {
      const got = await getPayout(api, { transactionId: txn, payoutId: entry.payoutId, entry }, opts.signal);
      const transaction = parseOrThrow(payoutTransactionSchema, got.envelope.data, 'a payout transaction', got.res.requestId);
      try {
        await this.record(lookedUpOutcome(got.record, got.res.status, opts.clock.now()));
      } catch (err) {
        return { kind: 'unknown', error: recordFailure(err, txn), attempts: 0, lastStatus: got.res.status };
      }
      return { kind: 'accepted', replayed: true, res: got.res, envelope: got.envelope, transaction, attempts: 0, lookedUp: true, record: got.record };
    } catch (err) {
      if (err instanceof AuthError) throw err;
      if (err instanceof InterruptedError) return { kind: 'unknown', error: err, attempts: 0, lastStatus: undefined };
      // Accepted before, so never resent; only reading it back failed. Not recorded: the journal keeps "accepted".
      const error = new NetworkError(
        `it was accepted earlier (transaction ${txn}), and reading it back failed (${inner(err)}); it was not resent`,
        err instanceof NetworkError ? { causeCode: err.causeCode } : {},
      );
      return { kind: 'unknown', error, attempts: 0, lastStatus: undefined };
    }
  }

  /** Unknown before: held, not sent, with the records of the payout list that could be it. */
  async hold(now: Date): Promise<SendResult> {
    const { entry } = this;
    let held: CandidateSearch | { error: string };
    try {
      held = await findCandidates(this.api, entry, { now, signal: this.opts.signal, claimed: await claimedTransactions(this.journal, entry.baseUrl) });
    } catch (err) {
      if (err instanceof AuthError) throw err;
      if (err instanceof InterruptedError) return { kind: 'unknown', error: err, attempts: 0, lastStatus: undefined };
      held = { error: inner(err) };
    }
    const found =
      'error' in held
        ? 'the payout list could not be searched'
        : `${held.candidates.length} record${held.candidates.length === 1 ? '' : 's'} of the payout list could be it`;
    const error = new NetworkError(
      `${heldReason(entry, now)} and its outcome is unknown; the service may have forgotten its idempotency key, so payctl does not resend it on its own (${found})`,
    );
    // Left as it was in the journal: still unknown, with its first attempt's reason.
    return { kind: 'unknown', error, attempts: 0, lastStatus: undefined, held };
  }
}
