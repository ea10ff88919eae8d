/**
 * The state file (`--state FILE`): wallets, payouts, stored idempotency answers and the
 * API key, so a restarted sandbox carries on where it stopped. (Files written when the
 * sandbox still issued tokens have a `tokens` list: it is ignored.) Writes
 * are atomic (a temp file beside it, then rename) and coalesced: changes mark the state
 * dirty and one write follows shortly; `flush()` writes what is pending (on close).
 * Amounts are kept as minor-unit digit strings, never as floats. A write that fails is never
 * dropped in silence: it is said (the sandbox's stderr, or its log when detached) and tried
 * again, and the changes stay in memory until a write succeeds.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { apiKeyProblem } from '../config/api-key.js';
import { checkStateFile } from './state-file.js';
import type { StoredAnswer } from './idempotency.js';
import type { Payout, Wallet } from './state.js';

export const STATE_VERSION = 1;

export interface PersistedState {
  version: number;
  apiKey: string;
  wallets: Wallet[];
  payouts: Payout[];
  idempotency: Array<{ key: string; body: string; createdMs: number; answer: StoredAnswer }>;
}

interface WalletJson extends Omit<Wallet, 'balance'> {
  balance: string;
}
interface PayoutJson extends Omit<Payout, 'amount' | 'fee'> {
  amount: string;
  fee: string;
}

export function serializeState(s: PersistedState): string {
  return JSON.stringify({
    version: s.version,
    apiKey: s.apiKey,
    wallets: s.wallets.map((w): WalletJson => ({ ...w, balance: w.balance.toString() })),
    payouts: s.payouts.map((p): PayoutJson => ({ ...p, amount: p.amount.toString(), fee: p.fee.toString() })),
    idempotency: s.idempotency,
  });
}

export class StateFileError extends Error {}

/** Reads a state file; undefined when there is none yet; StateFileError when damaged or not whole (state-file.ts). */
export async function loadState(file: string): Promise<PersistedState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`Cannot read the sandbox state file ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw damaged(file, text.trim() === '' ? 'it is empty' : 'it is not complete JSON: cut short or overwritten');
  }
  return fromJson(file, raw);
}

function damaged(file: string, why: string): StateFileError {
  return new StateFileError(`The sandbox state file ${file} is damaged (${why}). Move it away or delete it to start afresh.`);
}

/** The state of the file's JSON, checked whole first (state-file.ts): a StateFileError naming what is wrong. */
function fromJson(file: string, raw: unknown): PersistedState {
  const version = typeof raw === 'object' && raw !== null ? (raw as { version?: unknown }).version : undefined;
  if (version !== undefined && version !== STATE_VERSION) throw damaged(file, `unsupported version ${JSON.stringify(version)}`);
  const checked = checkStateFile(raw);
  if (!checked.ok) throw damaged(file, checked.problem);
  const s = checked.data;
  // The key is the bearer token and is printed at start: one no client can send is never served nor shown.
  const keyProblem = apiKeyProblem(s.apiKey);
  if (keyProblem !== undefined) throw damaged(file, `its API key contains ${keyProblem}`);
  return {
    version: STATE_VERSION,
    apiKey: s.apiKey,
    wallets: s.wallets.map((w) => ({ ...w, balance: BigInt(w.balance) })),
    payouts: s.payouts.map((p) => ({ ...p, amount: BigInt(p.amount), fee: BigInt(p.fee) })),
    idempotency: s.idempotency,
  };
}

export class StateWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  /** Writes fail since the last one that worked: said once, not again every 100 ms. */
  private failing = false;

  /** `report` is told of each write that fails (in words); default: nowhere, as in tests that do not ask. */
  constructor(
    private readonly file: string,
    private readonly snapshot: () => PersistedState,
    private readonly delayMs = 100,
    private readonly report: (message: string) => void = () => {},
  ) {}

  /** Marks the state changed; one write follows within `delayMs`. */
  changed(): void {
    this.dirty = true;
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.writeNow();
    }, this.delayMs);
    this.timer.unref();
  }

  /** Writes the state now; a failure is said and leaves the state dirty, to be written again shortly. */
  private async writeNow(): Promise<void> {
    if (this.writing) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    const job = this.write();
    this.writing = job;
    try {
      await job;
    } finally {
      this.writing = undefined;
      // Changed meanwhile, or failed: another write follows.
      if (this.dirty && !this.timer) this.changed();
    }
  }

  /** One atomic write of a fresh snapshot; says a failure instead of throwing it. */
  private async write(): Promise<void> {
    const tmp = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const text = serializeState(this.snapshot());
      await mkdir(dirname(this.file), { recursive: true });
      try {
        await writeFile(tmp, text, { mode: 0o600 });
        await rename(tmp, this.file);
      } catch (err) {
        await unlink(tmp).catch(() => {});
        throw err;
      }
      this.failing = false;
    } catch (err) {
      this.dirty = true;
      if (!this.failing) {
        this.report(
          `Could not write the sandbox state file ${this.file}: ${(err as Error).message}. The changes since its last write are only in memory; it is tried again.`,
        );
      }
      this.failing = true;
    }
  }

  /** Writes anything pending now and waits for it (and for writes already under way); failures are said, not thrown. */
  async flush(): Promise<void> {
    for (let i = 0; i < 10; i++) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      if (this.writing) await this.writing;
      else if (this.dirty) await this.writeNow();
      else return;
    }
    // Still failing: said already; no retry is left behind.
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
