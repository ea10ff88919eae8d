/**
 * Retry policy shared by reads and payouts: exponential backoff with full jitter,
 * Retry-After honoured (capped), bounded attempts and an overall deadline.
 */
import { InterruptedError } from '../errors.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is cut to it. */
  maxRetryAfterMs: number;
  /** No new attempt starts after this much time since the first. */
  deadlineMs: number;
}

export const READ_RETRY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxRetryAfterMs: 20_000,
  deadlineMs: 60_000,
};

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** Seconds or an HTTP date, as milliseconds from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  if (!HTTP_DATE.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/** Delay before retry number `retry` (1 = first retry). */
export function backoffDelay(
  retry: number,
  policy: RetryPolicy,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  // Retry-After: 0 (or a date in the past) still waits a little: 52 requests in 308 ms otherwise.
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, policy.baseDelayMs), policy.maxRetryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  // Full jitter, but never less than half the step, so retries do not bunch at 0.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Waits `ms`, or rejects with InterruptedError when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new InterruptedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new InterruptedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
