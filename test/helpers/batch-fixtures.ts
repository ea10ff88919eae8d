/**
 * Shared fixtures for the in-process batch and hostile-machine tests: a login done in
 * process, Node process warnings caught while a run goes on (what the spawned tests see
 * on the child's stderr), and virtual time: a TestClock that also moves `Date` for the
 * in-process sandbox, so its rate limiter and request times (receivedAt) follow the time
 * payctl waits on instead of the wall clock.
 */
import { expect, vi } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { TestClock } from './clock.js';
import { payctl } from './in-process.js';

/** `payctl login --api-key-stdin --base-url <sandbox>` in process, checked. */
export async function loginInProcess(sb: Sandbox, dir: string): Promise<void> {
  const r = await payctl(['login', '--api-key-stdin', '--base-url', sb.baseUrl], { dir, input: sb.apiKey + '\n' });
  expect(r.stderr).toContain('Logged in');
  expect(r.code).toBe(0);
}

/**
 * Collects every Node.js process warning (MaxListenersExceededWarning, ...) emitted from
 * now until `stop()`, which returns them as "Name: message" lines. In process, payctl's
 * warnings are this process's: a spawned payctl would print them on its stderr.
 */
export function watchWarnings(): { stop(): string[] } {
  const seen: string[] = [];
  const onWarning = (w: Error) => void seen.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  return {
    stop: () => {
      process.off('warning', onWarning);
      return seen;
    },
  };
}

/** Runs `fn` and fails if Node emitted any process warning meanwhile. */
export async function withoutWarnings<T>(fn: () => Promise<T>): Promise<T> {
  const w = watchWarnings();
  let out: T;
  try {
    out = await fn();
  } finally {
    // Warnings are emitted on the next tick: let them arrive before looking.
    await new Promise((r) => setImmediate(r));
  }
  expect(w.stop(), 'Node.js process warnings').toEqual([]);
  return out;
}

/**
 * Virtual time for a test whose sandbox runs in this process: a TestClock (payctl waits
 * without real waiting) that also sets `Date` (faked; timers stay real) to its own time,
 * so the sandbox's rate limiter and the times it records move exactly when payctl waits.
 * Call `restore()` when done (afterEach).
 */
export class VirtualClock extends TestClock {
  constructor() {
    super(new Date());
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(this.now());
  }

  override async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    await super.sleep(ms, signal);
    vi.setSystemTime(this.now());
  }

  override advance(ms: number): void {
    super.advance(ms);
    vi.setSystemTime(this.now());
  }

  restore(): void {
    vi.useRealTimers();
  }
}
