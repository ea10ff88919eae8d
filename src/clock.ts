/**
 * Time, as every command sees it: the current time and a wait that Ctrl-C interrupts.
 * The entry gives the system clock; in-process tests give one that moves only when
 * something waits, so retry and back-off behaviour is tested without real waits.
 */
import { InterruptedError } from './errors.js';

export interface Clock {
  now(): Date;
  /** Waits `ms`, or rejects with InterruptedError when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Waits `ms` of real time, or rejects when `signal` aborts: with an InterruptedError, or with
 * what `interrupted` makes (a lock's wait says what it was waiting for).
 */
export function sleep(ms: number, signal?: AbortSignal, interrupted: () => Error = () => new InterruptedError()): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(interrupted());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(interrupted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const systemClock: Clock = { now: () => new Date(), sleep };
