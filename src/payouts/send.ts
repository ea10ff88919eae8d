/**
 * Sends one journaled payout (GUIDE pattern 5): only ever with the journaled key and
 * the identical body. Connection errors, time-outs, 408, 429, 5xx and 409
 * IDEMPOTENCY_IN_PROGRESS are retried with backoff (Retry-After honoured), bounded in
 * attempts and time; any other 4xx is final. When no answer ever came, the outcome
 * is unknown: never reported as failure or success.
 */
import { ApiError, InterruptedError, NetworkError } from '../errors.js';
import { apiErrorFrom, parseEnvelope, type ApiClient, type HttpResponse } from '../api/client.js';
import { parseErrorBody, parseOrThrow, payoutTransactionSchema, type Envelope, type PayoutTransaction } from '../api/schemas.js';
import { backoffDelay, isRetryableStatus, parseRetryAfter, sleep, type RetryPolicy } from '../api/retry.js';
import { plainAmount } from '../money/amount.js';
import type { Journal, JournalEntry, Outcome } from './journal.js';

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
  | { kind: 'accepted'; replayed: boolean; res: HttpResponse; envelope: Envelope; transaction: PayoutTransaction; attempts: number }
  | { kind: 'rejected'; error: ApiError; attempts: number }
  | { kind: 'unknown'; error: NetworkError | InterruptedError; attempts: number; lastStatus: number | undefined };

export interface SendOptions {
  policy?: RetryPolicy;
  /** Interrupts the request in flight and the waits between attempts. */
  signal: AbortSignal;
  now: () => Date;
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
}

function retryReason(res: HttpResponse): string | undefined {
  if (res.status === 409) {
    const code = parseErrorBody(res.raw)?.code;
    return code === 'IDEMPOTENCY_IN_PROGRESS' ? 'the first request is still being processed (409)' : undefined;
  }
  if (isRetryableStatus(res.status)) return res.status === 429 ? 'rate limited (429)' : `HTTP ${res.status}`;
  return undefined;
}

export async function sendPayout(api: ApiClient, journal: Journal, entry: JournalEntry, opts: SendOptions): Promise<SendResult> {
  const policy = opts.policy ?? PAYOUT_RETRY;
  const started = Date.now();
  let lastFailure: NetworkError | undefined;
  let lastRes: HttpResponse | undefined;
  let attempt = 0;
  let rateLimited = 0;
  const record = async (outcome: Outcome) => {
    const written = journal.record(entry, outcome);
    if (opts.deferRecord) opts.deferRecord(written);
    else await written;
  };
  for (;;) {
    attempt++;
    if (opts.gate) await opts.gate.wait();
    let res: HttpResponse | undefined;
    try {
      res = await api.call('payoutCreate', {
        body: entry.body,
        headers: { 'idempotency-key': entry.idempotencyKey },
        retry: false,
        signal: opts.signal,
      });
    } catch (err) {
      if (err instanceof InterruptedError) {
        const result: SendResult = { kind: 'unknown', error: err, attempts: attempt, lastStatus: lastRes?.status };
        await record({ kind: 'unknown', reason: 'interrupted while the request was in flight', at: opts.now().toISOString() });
        return result;
      }
      if (!(err instanceof NetworkError)) throw err;
      lastFailure = err;
    }

    if (res) {
      lastRes = res;
      if (res.status >= 200 && res.status <= 299) {
        const envelope = parseEnvelope(res);
        const transaction = parseOrThrow(payoutTransactionSchema, envelope.data, 'a payout transaction', res.requestId);
        const replayed = (res.headers['idempotent-replayed'] ?? '').toLowerCase() === 'true';
        await record({
          kind: 'accepted',
          status: res.status,
          transactionId: transaction.transaction_id,
          fee: transaction.fee === undefined ? undefined : plainAmount(transaction.fee, transaction.currency),
          replayed,
          at: opts.now().toISOString(),
        });
        return { kind: 'accepted', replayed, res, envelope, transaction, attempts: attempt };
      }
      const reason = retryReason(res);
      if (!reason) {
        const error = apiErrorFrom(res);
        await record({ kind: 'rejected', status: res.status, code: error.code, message: error.message, at: opts.now().toISOString() });
        return { kind: 'rejected', error, attempts: attempt };
      }
      lastFailure = undefined;
    }

    const retryAfter = res ? parseRetryAfter(res.headers['retry-after'], opts.now()) : undefined;
    // A 429 alone never fails a payout: it waits (bounded by the deadline) without using up attempts.
    if (res?.status === 429) rateLimited++;
    const failures = attempt - rateLimited;
    const wait = backoffDelay(Math.max(1, failures), policy, retryAfter);
    const outOfTime = Date.now() - started + wait > policy.deadlineMs;
    if (failures >= policy.maxAttempts || rateLimited > MAX_RATE_LIMITED || outOfTime) {
      if (res && !lastFailure) {
        // The service answered, but only with retryable refusals: it did not take the payout
        // now, yet an earlier attempt may have been committed. Report unknown unless no attempt
        // could have reached the service.
        lastFailure = new NetworkError(`the service kept answering ${retryReason(res)}`);
      }
      const error = lastFailure!;
      await record({ kind: 'unknown', reason: error.message, at: opts.now().toISOString() });
      return { kind: 'unknown', error, attempts: attempt, lastStatus: lastRes?.status };
    }
    if (res?.status === 429 && retryAfter !== undefined) opts.gate?.pause(Math.min(retryAfter, policy.maxRetryAfterMs));
    opts.onRetry?.({ attempt, waitMs: wait, reason: lastFailure ? lastFailure.message : retryReason(res!)! });
    try {
      await sleep(wait, opts.signal);
    } catch (err) {
      await record({ kind: 'unknown', reason: 'interrupted while waiting to retry', at: opts.now().toISOString() });
      return { kind: 'unknown', error: err as InterruptedError, attempts: attempt, lastStatus: lastRes?.status };
    }
  }
}
