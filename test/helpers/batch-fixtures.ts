/**
 * Shared fixtures for the batch and hostile-machine tests (in process and spawned): a
 * login done in process, one key and one body per payout id across POSTs, Node process
 * warnings caught while a run goes on (what the spawned tests see on the child's
 * stderr), and virtual time: a TestClock that also moves `Date` for the in-process
 * sandbox, so its rate limiter and request times (receivedAt) follow the time payctl
 * waits on instead of the wall clock.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import type { RecordedRequest, Sandbox } from '../../src/sandbox/server.js';
import { fundDemoWallets, postedPayoutId, tempWorkDir, type BatchRow } from './batch.js';
import { tempConfigDir } from './cli.js';
import { TestClock } from './clock.js';
import { loginInProcess } from './payout-fixtures.js';
import { Journal } from '../../src/payouts/journal.js';
import { checkBatch, identifiedRows, openBatch } from '../../src/payouts/batch-load.js';
import { payoutBody } from '../../src/payouts/request.js';
import { repeatKey } from '../../src/payouts/identity.js';

// The login the batch files share (the one in payout-fixtures.ts).
export { loginInProcess };

/** The folders and wallet a batch test file works with (useBatchFolders). */
export interface BatchFolders {
  /** The config folder, logged in once for the file. */
  readonly dir: string;
  /** This test's own folder for batch files and reports. */
  readonly work: ReturnType<typeof tempWorkDir>;
  /** The sandbox's SLE wallet, funded for this test. */
  readonly sleWallet: string;
}

/**
 * What the batch test files share: one config folder logged in once for the file (`login`: in
 * process, or the profile written as `payctl login` leaves it, e2e/writeLoggedIn), and for each
 * test a work folder of its own (removed after it), the demo wallets funded again and the
 * sandbox's request log emptied. Registers its hooks where it is called.
 */
export function useBatchFolders(ctx: { readonly sb: Sandbox }, login: (sb: Sandbox, dir: string) => Promise<unknown> = loginInProcess): BatchFolders {
  let cfg: ReturnType<typeof tempConfigDir> | undefined;
  let work: ReturnType<typeof tempWorkDir> | undefined;
  let sle: string | undefined;
  beforeAll(async () => {
    cfg = tempConfigDir();
    await login(ctx.sb, cfg.dir);
  });
  afterAll(() => cfg?.cleanup());
  beforeEach(() => {
    work = tempWorkDir();
    fundDemoWallets(ctx.sb);
    sle = ctx.sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
    ctx.sb.clearRequests();
  });
  afterEach(() => work?.cleanup());
  return {
    get dir() {
      return cfg!.dir;
    },
    get work() {
      return work!;
    },
    get sleWallet() {
      return sle!;
    },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every payout id was always sent with one key (a UUID) and one body, byte for byte; returns id -> key. */
export function expectOneKeyPerPayoutId(posts: RecordedRequest[]): Map<string, string> {
  const keys = new Map<string, string>();
  const bodies = new Map<string, string>();
  for (const p of posts) {
    const id = postedPayoutId(p);
    const key = p.headers['idempotency-key']!;
    expect(key).toMatch(UUID);
    expect(keys.get(id) ?? key, `one key for ${id}`).toBe(key);
    expect(bodies.get(id) ?? p.body, `one body for ${id}`).toBe(p.body);
    keys.set(id, key);
    bodies.set(id, p.body);
  }
  expect(new Set(keys.values()).size).toBe(keys.size);
  return keys;
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
 * so the sandbox's request times (receivedAt), and the rate limiter of a sandbox started
 * after it, move exactly when payctl waits. `hold()` keeps every wait from ending until
 * `release()`, so a test can see who waits (`sleeping`) and that nothing is sent
 * meanwhile. Call `restore()` when done (afterEach).
 */
export class VirtualClock extends TestClock {
  #held: Array<() => void> | undefined;
  /** Waits started and not yet ended (held ones included). */
  sleeping = 0;

  constructor() {
    super(new Date());
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(this.now());
  }

  override async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeping++;
    try {
      if (this.#held) await new Promise<void>((resolve) => this.#held!.push(resolve));
      await super.sleep(ms, signal);
      vi.setSystemTime(this.now());
    } finally {
      this.sleeping--;
    }
  }

  override advance(ms: number): void {
    super.advance(ms);
    vi.setSystemTime(this.now());
  }

  /** From now on, waits do not end until release(). */
  hold(): void {
    this.#held ??= [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const wake of held) wake();
  }

  restore(): void {
    this.release();
    vi.useRealTimers();
  }
}

/**
 * A payroll export of `n` rows from `wallet`: each to a bank account of its own (random, so that
 * test files sharing a journal never meet), amounts from `amountFrom` SLE up, no payout_id (each
 * row's id made from what it pays and the batch id), a dated note and an employee number in
 * metadata, as a spreadsheet would re-save them differently.
 */
export function payrollRows(n: number, wallet: string, tag: string, amountFrom = 20): BatchRow[] {
  const base = 10_000_000 + Math.floor(Math.random() * 80_000_000);
  return Array.from({ length: n }, (_, i) => ({
    wallet_id: wallet,
    amount: `${amountFrom + i}.00`,
    currency: 'SLE',
    type: 'bank',
    name: `Employee ${tag} ${i + 1}`,
    provider: 'ecobank',
    account_number: `00${base + i}`,
    note: 'Salary 2026-11-30',
    'metadata.employee': String(i + 1).padStart(5, '0'),
  }));
}

/**
 * Journals the rows `inFlight` (numbers) of `file` under batch default in config folder `dir`, for
 * `baseUrl`, as a killed run leaves a request in flight: claimed with its key, no answer recorded.
 */
export async function journalInFlight(dir: string, baseUrl: string, file: string, inFlight: number[]): Promise<void> {
  const src = openBatch(file, 'default');
  const journal = new Journal(dir);
  for await (const r of identifiedRows(src, [], await checkBatch(src))) {
    if (!inFlight.includes(r.row)) continue;
    const origin = { batch: { id: 'default', file: src.file, row: r.row }, fingerprint: r.fingerprint, repeatKey: repeatKey(r.request) };
    await journal.begin({ baseUrl, payoutId: r.request.payoutId, body: payoutBody(r.request), now: new Date(), log: true, origin });
  }
  await journal.closeLog();
}
