/**
 * The one retry engine, for reads and payouts alike (docs/architecture.md, "Retries"; like stripe-node's
 * single _shouldRetry / _getSleepTimeInMS): exponential backoff with full jitter,
 * Retry-After honoured (capped, with a floor), bounded attempts and an overall deadline.
 * Each caller classifies its own attempts (what is final, what may be retried): reads with
 * isRetryableStatus here (client.ts, payouts/settle.ts), POST /payout in payout-retry.ts beside it.
 */
import { InterruptedError } from '../errors.js';
import { systemClock, type Clock } from '../clock.js';

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
export function backoffDelay(retry: number, policy: RetryPolicy, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  // Retry-After: 0 (or a date in the past) still waits a little: 52 requests in 308 ms otherwise.
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, policy.baseDelayMs), policy.maxRetryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  // Full jitter, but never less than half the step, so retries do not bunch at 0.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** A reason to try again: said to a person, with the answer's Retry-After, and whether it was a 429. */
export interface RetryStep {
  retry: string;
  retryAfterMs?: number;
  rateLimited?: boolean;
}

/** What one attempt came to: a final value, or a reason to try again. */
export type Attempt<T> = { done: T } | RetryStep;

export interface RetryHooks<T> {
  /** Interrupts the waits between attempts. */
  signal?: AbortSignal;
  /** What the waits and the deadline are measured with (default: the system clock). */
  clock?: Clock;
  /** Told before each wait: why, and for how long. */
  onRetry?: (info: { attempt: number; waitMs: number; reason: string }) => void;
  /** A wait shared by many senders: a 429 pauses them all (the wait ends early when `signal` aborts: the attempt sees it). */
  gate?: { wait(signal?: AbortSignal): Promise<void>; pause(ms: number): void };
  /**
   * Given, 429 answers do not use up attempts (at most this many are tolerated; the
   * deadline bounds them too): a payout is never failed for a 429 alone.
   */
  maxRateLimited?: number;
  /** The result when attempts or time run out, after the last retryable attempt. */
  giveUp: (last: { retry: string }, attempts: number) => T | Promise<T>;
  /** The result when interrupted while waiting; without it the InterruptedError is thrown. */
  interrupted?: (err: InterruptedError, attempts: number) => T | Promise<T>;
}

export async function withRetries<T>(policy: RetryPolicy, attempt: (n: number) => Promise<Attempt<T>>, hooks: RetryHooks<T>): Promise<T> {
  const clock = hooks.clock ?? systemClock;
  const started = clock.now().getTime();
  let rateLimited = 0;
  for (let n = 1; ; n++) {
    if (hooks.gate) await hooks.gate.wait(hooks.signal);
    const a = await attempt(n);
    if ('done' in a) return a.done;
    if (a.rateLimited) rateLimited++;
    const failures = hooks.maxRateLimited !== undefined ? n - rateLimited : n;
    // A 429 without Retry-After backs off like any failure, counted by the 429s in a row: when
    // they used up no attempt, the first step came back every time (51 posts in 9 s).
    const step = a.rateLimited && a.retryAfterMs === undefined ? rateLimited : failures;
    const wait = backoffDelay(Math.max(1, step), policy, a.retryAfterMs);
    if (failures >= policy.maxAttempts || rateLimited > (hooks.maxRateLimited ?? Infinity) || clock.now().getTime() - started + wait > policy.deadlineMs) {
      return hooks.giveUp(a, n);
    }
    // "Slow down" is said to the whole batch: every sender waits as long as this one, Retry-After
    // or not (without it, only the sender that was told waited, and the others kept the pace).
    if (a.rateLimited) hooks.gate?.pause(wait);
    hooks.onRetry?.({ attempt: n, waitMs: wait, reason: a.retry });
    try {
      await clock.sleep(wait, hooks.signal);
    } catch (err) {
      if (hooks.interrupted && err instanceof InterruptedError) return hooks.interrupted(err, n);
      throw err;
    }
  }
}
