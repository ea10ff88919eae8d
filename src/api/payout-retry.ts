/**
 * Which attempts of POST /payout are tried again, which are final and which leave the outcome
 * unknown (docs/architecture.md, "Retries" and "Idempotency journal"): the payout's half of the
 * one retry engine (retry.ts), beside it. A retry is only ever made with the journaled
 * Idempotency-Key and the identical body (payouts/send.ts sends them): connection errors, 408,
 * 429, 5xx and 409 IDEMPOTENCY_IN_PROGRESS are tried again with back-off; any other 4xx is
 * final; an answer that could not be read, or an interruption with the request in flight, is
 * unknown (the payout may have been made). Verdicts are constant strings: deciding allocates
 * nothing on a batch's path.
 */
import { AuthError, InterruptedError, NetworkError } from '../errors.js';
import { parseErrorBody } from '../service/schemas.js';
import { DEADLINE_CODE, type HttpResponse } from './client.js';
import { isRetryableStatus, parseRetryAfter, type RetryPolicy, type RetryStep } from './retry.js';

/** The bounds of one payout's attempts: fewer reads' worth of patience would leave more outcomes unknown. */
export const PAYOUT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxRetryAfterMs: 20_000,
  deadlineMs: 120_000,
};

/** 429 answers tolerated for one payout before giving up (the deadline bounds them too). */
export const MAX_RATE_LIMITED = 50;

/**
 * What an answer of POST /payout is: `answered` (2xx: the payout taken; its answer is read and
 * checked next), `retry` (the same key and body again after a wait), `final` (any other 4xx,
 * a 409 other than in progress included: the service's last word on this key) or `unknown` (a
 * redirect: no refusal, since what answered, a proxy or a moved service, may have passed the
 * payout on first, a 303 says it was processed, and payctl follows none: the key goes only to
 * the base URL's origin).
 */
export type PayoutAnswerVerdict = 'answered' | 'retry' | 'final' | 'unknown';

export function classifyPayoutAnswer(res: HttpResponse): PayoutAnswerVerdict {
  if (res.status >= 200 && res.status <= 299) return 'answered';
  if (res.status >= 300 && res.status <= 399) return 'unknown';
  return payoutRetryReason(res) === undefined ? 'final' : 'retry';
}

/** Why an answer of POST /payout is tried again, as said to a person; undefined when it is not. */
export function payoutRetryReason(res: HttpResponse): string | undefined {
  if (res.status === 409) {
    const code = parseErrorBody(res.raw)?.code;
    return code === 'IDEMPOTENCY_IN_PROGRESS' ? 'the first request is still being processed (409)' : undefined;
  }
  if (isRetryableStatus(res.status)) return res.status === 429 ? 'rate limited (429)' : `HTTP ${res.status}`;
  return undefined;
}

/** A retryable answer as the engine's next step: its reason, its Retry-After, whether it was a 429. */
export function retryOfAnswer(res: HttpResponse, now: Date): RetryStep {
  return { retry: payoutRetryReason(res)!, retryAfterMs: parseRetryAfter(res.headers['retry-after'], now), rateLimited: res.status === 429 };
}

/**
 * What a POST /payout that threw is: `interrupted` (Ctrl-C with the request in flight: unknown),
 * `credentials` (an AuthError: the service refused the key, so this attempt took nothing),
 * `retry` (a connection error or time-out: the same key and body again) or `unknown` (an answer
 * that could not be read, too large or still dripping at the deadline: the payout may have been made).
 */
export type PayoutFailureVerdict = 'interrupted' | 'credentials' | 'retry' | 'unknown';

export function classifyPayoutFailure(err: unknown): PayoutFailureVerdict {
  if (err instanceof InterruptedError) return 'interrupted';
  if (err instanceof AuthError) return 'credentials';
  if (err instanceof NetworkError && err.causeCode !== DEADLINE_CODE) return 'retry';
  return 'unknown';
}
