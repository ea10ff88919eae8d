/**
 * `payctl webhooks listen` in the in-process tier (in-process.ts): payctl's main runs
 * the listener inside the test process on a free port; the test reads its port from the
 * Ready line, posts to it over real HTTP (listener.ts: postRaw, sign, forwardTarget) and
 * stops it with Ctrl-C (`interrupt()`), as the spawned listener is stopped with SIGINT.
 */
import { afterEach } from 'vitest';
import { tempConfigDir } from './cli.js';
import type { Run } from './e2e.js';
import { forwardTarget } from './listener.js';
import { startPayctl, type InProcessOptions, type Started } from './in-process.js';

const READY = /Ready: listening for webhook events on (http:\/\/127\.0\.0\.1:(\d+)(\/[^\s,"]*))/;

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

export interface InProcessListener {
  run: Started;
  /** http://127.0.0.1:<port><path>, read from the Ready line. */
  url: string;
  port: number;
  /** The path from the Ready line (/webhooks unless --path). */
  path: string;
  stdout(): string;
  stderr(): string;
  /** Non-empty stdout lines so far. */
  lines(): string[];
  /** Polls until `check()` is truthy; fails with both streams after `timeoutMs`. */
  waitFor<T>(check: () => T, what: string, timeoutMs?: number): Promise<Truthy<T>>;
  /** Ctrl-C, then the run's result (fails after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<Run>;
  exited(): boolean;
}

const running = new Set<Started>();

/** Interrupts any listener a failed test left running. For afterEach. */
export async function stopLeftoverListeners(): Promise<void> {
  const left = [...running];
  running.clear();
  for (const r of left) r.interrupt();
  await Promise.allSettled(left.map((r) => r.done));
}

async function poll<T>(check: () => T, timeoutMs: number, fail: () => string): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v as Truthy<T>;
    if (Date.now() > deadline) throw new Error(fail());
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Starts `payctl webhooks listen --port 0 ...args` in process and waits for its start-up lines. */
export async function listenInProcess(args: string[], opts: InProcessOptions): Promise<InProcessListener> {
  const run = startPayctl(['webhooks', 'listen', '--port', '0', ...args], opts);
  running.add(run);
  let result: Run | undefined;
  let failure: unknown;
  const finished = run.done.then(
    (r) => {
      result = r;
      running.delete(run);
      return r;
    },
    (err: unknown) => {
      failure = err;
      running.delete(run);
      throw err;
    },
  );
  finished.catch(() => {});
  const streams = () =>
    `\n--- stdout ---\n${run.stdout()}\n--- stderr ---\n${run.stderr()}${failure instanceof Error ? `\n--- threw ---\n${failure.stack ?? failure.message}` : ''}`;
  const ended = () => result !== undefined || failure !== undefined;
  const waitFor: InProcessListener['waitFor'] = (check, what, timeoutMs = 5000) =>
    poll(check, timeoutMs, () => `listener: ${what} not seen within ${timeoutMs} ms${result ? ` (exited ${result.code})` : ''}${streams()}`);

  const m = await poll(
    () => READY.exec(run.stderr()) ?? (ended() ? 'ended' : null),
    10_000,
    () => `no Ready line within 10 s${streams()}`,
  );
  if (m === 'ended') throw new Error(`listener ended before it was ready (${result?.code})${streams()}`);
  const ready = m;
  await waitFor(() => run.stderr().includes('Press Ctrl-C to stop.'), 'the end of the start-up lines');

  return {
    run,
    url: ready[1]!,
    port: Number(ready[2]),
    path: ready[3]!,
    stdout: () => run.stdout(),
    stderr: () => run.stderr(),
    lines: () =>
      run
        .stdout()
        .split('\n')
        .filter((l) => l.trim() !== ''),
    waitFor,
    exited: ended,
    async stop(timeoutMs = 5000) {
      if (!ended()) run.interrupt();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`listener did not stop within ${timeoutMs} ms${streams()}`)), timeoutMs);
      });
      try {
        return await Promise.race([finished, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * The scope of a listener test file: after each test, leftover listeners are stopped and what
 * the test registered is undone, newest first; `configDir()` a temp config folder and
 * `target()` a forwarding target (listener.ts), both undone the same way.
 */
export function useListenerScope(): {
  cleanups: Array<() => unknown>;
  configDir: () => string;
  target: (answer?: (n: number) => number) => ReturnType<typeof forwardTarget>;
} {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    await stopLeftoverListeners();
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return {
    cleanups,
    configDir: () => {
      const { dir, cleanup } = tempConfigDir();
      cleanups.push(cleanup);
      return dir;
    },
    target: async (answer) => {
      const t = await forwardTarget(answer);
      cleanups.push(() => t.close());
      return t;
    },
  };
}
