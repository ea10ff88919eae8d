import { afterEach, describe, expect, it, vi } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { READ_RETRY, backoffDelay, isRetryableStatus, parseRetryAfter, withRetries, type RetryPolicy } from '../../src/api/retry.js';
import { sleep } from '../../src/clock.js';
import { TestClock } from '../helpers/clock.js';

const NOW = new Date('2026-11-21T10:15:30.000Z');

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['1', 1000],
    ['120', 120_000],
    [' 5 ', 5000],
    ['1.5', 1500],
  ])('seconds %j -> %i ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:16:00 GMT', NOW)).toBe(30_000);
  });

  it('gives 0 for an HTTP date in the past', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:00 GMT', NOW)).toBe(0);
  });

  it.each([[undefined], [''], ['soon'], ['abc'], ['later please']])('gives undefined for %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('parseRetryAfter on values V8 half-reads as dates', () => {
  // Regression (src/api/retry.ts, fixed): anything that is not seconds goes to Date.parse, whose legacy
  // parser reads "-1" and "next 5" as dates in 2001, so garbage gives 0 (retry at once,
  // no backoff) instead of undefined (use the backoff).
  it.each([['-1'], ['next 5'], ['1 2']])('gives undefined for %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  const policy: RetryPolicy = { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000, deadlineMs: 60_000 };

  it('grows exponentially with full jitter above half the step', () => {
    expect(backoffDelay(1, policy, undefined, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, undefined, () => 0.5)).toBe(75);
    expect(backoffDelay(1, policy, undefined, () => 0.999999)).toBe(100);
    expect(backoffDelay(2, policy, undefined, () => 0)).toBe(100);
    expect(backoffDelay(2, policy, undefined, () => 0.999999)).toBe(200);
    expect(backoffDelay(3, policy, undefined, () => 0.5)).toBe(300);
    expect(backoffDelay(4, policy, undefined, () => 0.999999)).toBe(800);
  });

  it('is capped by maxDelayMs', () => {
    expect(backoffDelay(5, policy, undefined, () => 0.999999)).toBe(1000);
    expect(backoffDelay(20, policy, undefined, () => 0.999999)).toBe(1000);
    expect(backoffDelay(20, policy, undefined, () => 0)).toBe(500);
  });

  it('never decreases from one retry to the next for the same random value', () => {
    let prev = 0;
    for (let retry = 1; retry <= 10; retry++) {
      const d = backoffDelay(retry, policy, undefined, () => 0.3);
      expect(d).toBeGreaterThanOrEqual(prev);
      expect(d).toBeLessThanOrEqual(policy.maxDelayMs);
      prev = d;
    }
  });

  it('uses Retry-After as given, capped by maxRetryAfterMs, and never less than the base delay', () => {
    const random = () => {
      throw new Error('random must not be used with Retry-After');
    };
    expect(backoffDelay(1, policy, 2000, random)).toBe(2000);
    // Retry-After: 0 once made 52 requests in 308 ms.
    expect(backoffDelay(1, policy, 0, random)).toBe(policy.baseDelayMs);
    expect(backoffDelay(1, policy, 1, random)).toBe(policy.baseDelayMs);
    expect(backoffDelay(3, policy, 60_000, random)).toBe(5000);
  });

  it('the read policy caps Retry-After at 20 s and backoff at 4 s', () => {
    expect(backoffDelay(1, READ_RETRY, 3_600_000)).toBe(20_000);
    expect(backoffDelay(30, READ_RETRY, undefined, () => 0.999999)).toBe(4000);
    expect(backoffDelay(1, READ_RETRY, undefined, () => 0)).toBe(125);
  });
});

describe('isRetryableStatus', () => {
  it.each([408, 429, 500, 502, 503, 504, 599])('%i is retryable', (s) => {
    expect(isRetryableStatus(s)).toBe(true);
  });
  it.each([200, 201, 301, 400, 401, 403, 404, 409, 422, 499])('%i is not retryable', (s) => {
    expect(isRetryableStatus(s)).toBe(false);
  });
});

describe('sleep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after the delay', async () => {
    vi.useFakeTimers();
    let done = false;
    const p = sleep(1000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
  });

  it('rejects with InterruptedError when the signal aborts while waiting', async () => {
    vi.useFakeTimers();
    const ac = new AbortController();
    const p = sleep(60_000, ac.signal);
    const assertion = expect(p).rejects.toBeInstanceOf(InterruptedError);
    await vi.advanceTimersByTimeAsync(10);
    ac.abort();
    await assertion;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(sleep(60_000, ac.signal)).rejects.toBeInstanceOf(InterruptedError);
  });

  it('the rejection has exit code 130', async () => {
    const ac = new AbortController();
    ac.abort();
    const err = await sleep(1, ac.signal).catch((e: unknown) => e);
    expect((err as InterruptedError).exitCode).toBe(130);
  });
});

describe('withRetries: the one engine for reads and payouts', () => {
  const fast: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 5, deadlineMs: 5_000 };

  it('returns the first final answer; gives up after maxAttempts retryable ones', async () => {
    let n = 0;
    const done = await withRetries<string>(fast, async () => (++n < 2 ? { retry: 'HTTP 503' } : { done: 'ok' }), { giveUp: () => 'gave up' });
    expect([done, n]).toEqual(['ok', 2]);
    n = 0;
    const seen: string[] = [];
    const out = await withRetries<string>(fast, async () => (n++, { retry: 'HTTP 503' }), {
      onRetry: (i) => seen.push(`${i.attempt}:${i.reason}`),
      giveUp: (last, attempts) => `gave up after ${attempts} (${last.retry})`,
    });
    expect(out).toBe('gave up after 3 (HTTP 503)');
    expect(seen).toEqual(['1:HTTP 503', '2:HTTP 503']);
  });

  it('with maxRateLimited, 429s do not use up attempts (but are bounded) and pause the shared gate', async () => {
    const pauses: number[] = [];
    const gate = { wait: async () => {}, pause: (ms: number) => pauses.push(ms) };
    let n = 0;
    const out = await withRetries<string>(fast, async () => (++n <= 5 ? { retry: 'rate limited (429)', rateLimited: true, retryAfterMs: 3 } : { done: `after ${n}` }), {
      gate,
      maxRateLimited: 10,
      giveUp: () => 'gave up',
    });
    expect(out).toBe('after 6');
    expect(pauses).toEqual([3, 3, 3, 3, 3]);
    n = 0;
    expect(await withRetries<string>(fast, async () => (n++, { retry: '429', rateLimited: true }), { maxRateLimited: 4, giveUp: (_l, a) => `gave up after ${a}` })).toBe(
      'gave up after 5',
    );
    // Without it a 429 counts like any failure.
    n = 0;
    expect(await withRetries<string>(fast, async () => (n++, { retry: '429', rateLimited: true }), { giveUp: (_l, a) => `gave up after ${a}` })).toBe('gave up after 3');
  });

  it('429s without Retry-After back off, doubling, and pause the whole batch for as long (not the first step every time)', async () => {
    const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_600, maxRetryAfterMs: 20_000, deadlineMs: 60_000 };
    const clock = new TestClock();
    const pauses: number[] = [];
    const gate = { wait: async () => {}, pause: (ms: number) => pauses.push(ms) };
    let n = 0;
    const out = await withRetries<string>(policy, async () => (++n <= 6 ? { retry: 'rate limited (429)', rateLimited: true } : { done: `after ${n}` }), {
      gate,
      clock,
      maxRateLimited: 10,
      giveUp: () => 'gave up',
    });
    expect(out).toBe('after 7');
    // Full jitter within each step: 50-100, 100-200, ... 800-1600, then capped.
    const steps = [100, 200, 400, 800, 1_600, 1_600];
    clock.waits.forEach((w, i) => {
      expect(w, `wait ${i + 1}`).toBeGreaterThanOrEqual(steps[i]! / 2);
      expect(w, `wait ${i + 1}`).toBeLessThanOrEqual(steps[i]!);
    });
    expect(pauses).toEqual(clock.waits);
  });

  it('never starts a wait that would end past the deadline', async () => {
    // Waits of 20 to 40 ms (jitter) against a 100 ms deadline, on a clock that moves only when
    // waited on (real timers made this 4 or 5 attempts depending on the machine's load).
    const slow: RetryPolicy = { ...fast, maxAttempts: 100, baseDelayMs: 40, maxDelayMs: 40, deadlineMs: 100 };
    const clock = new TestClock();
    const t0 = clock.now().getTime();
    let n = 0;
    const out = await withRetries<string>(slow, async () => (n++, { retry: 'x' }), { giveUp: () => 'out of time', clock });
    expect(out).toBe('out of time');
    const waited = clock.waits.reduce((a, b) => a + b, 0);
    expect(clock.now().getTime() - t0).toBe(waited);
    expect(waited).toBeLessThanOrEqual(100);
    expect(clock.waits.every((w) => w >= 20 && w <= 40)).toBe(true);
    expect(n).toBe(clock.waits.length + 1);
    // Stopped only when one more wait (at least 20 ms) could have ended past the deadline.
    expect(waited + 40).toBeGreaterThan(100);
  });

  it('an interrupted wait goes to the interrupted hook, or throws without one', async () => {
    const ac = new AbortController();
    const slow: RetryPolicy = { ...fast, baseDelayMs: 10_000, maxDelayMs: 10_000, deadlineMs: 60_000 };
    setTimeout(() => ac.abort(), 20);
    expect(
      await withRetries<string>(slow, async () => ({ retry: 'x' }), { signal: ac.signal, giveUp: () => 'g', interrupted: (_e, a) => `interrupted after ${a}` }),
    ).toBe('interrupted after 1');
    await expect(withRetries<string>(slow, async () => ({ retry: 'x' }), { signal: ac.signal, giveUp: () => 'g' })).rejects.toBeInstanceOf(InterruptedError);
  });
});
