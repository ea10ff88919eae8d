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

/** Waits `ms` of real time, or rejects with InterruptedError when `signal` aborts. */
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

export const systemClock: Clock = { now: () => new Date(), sleep };
