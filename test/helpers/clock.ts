/**
 * A clock for the in-process tier: it starts at the real time it was made and moves only
 * when something waits on it, by exactly the time waited. Retries and back-off run
 * without real waits, and every wait is recorded for the test to check.
 */
import type { Clock } from '../../src/clock.js';
import { InterruptedError } from '../../src/errors.js';

export class TestClock implements Clock {
  readonly #start: number;
  #offset = 0;
  /** Every wait asked for, in order (ms). */
  readonly waits: number[] = [];

  constructor(start: Date = new Date()) {
    this.#start = start.getTime();
  }

  now(): Date {
    return new Date(this.#start + this.#offset);
  }

  /** Moves the clock on, as if `ms` had passed. */
  advance(ms: number): void {
    this.#offset += ms;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new InterruptedError();
    this.waits.push(ms);
    const wake = this.#offset + ms;
    // Let I/O and other waiters run, then wake at the time asked (concurrent waits overlap).
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw new InterruptedError();
    this.#offset = Math.max(this.#offset, wake);
  }
}
