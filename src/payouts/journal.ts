/**
 * The payout journal (GUIDE pattern 10): before a payout request leaves, its payout
 * id, Idempotency-Key and exact body are written and fsynced, one file per payout
 * under <config>/journal/ (0600 in a 0700 folder). A rerun finds the entry and sends
 * the same key with the identical body, so a crash, time-out or lost connection can
 * never pay twice. The outcome is recorded when one arrives.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ConfigError } from '../errors.js';

export type Outcome =
  | { kind: 'accepted'; status: number; transactionId: string | undefined; fee: string | undefined; replayed: boolean; at: string }
  | { kind: 'rejected'; status: number; code: string | undefined; message: string; at: string }
  | { kind: 'unknown'; reason: string; at: string };

export interface JournalEntry {
  version: 1;
  payoutId: string;
  baseUrl: string;
  idempotencyKey: string;
  /** The exact request body, byte for byte. */
  body: string;
  createdAt: string;
  outcome?: Outcome;
}

export class Journal {
  readonly dir: string;

  constructor(configDir: string) {
    this.dir = join(configDir, 'journal');
  }

  #file(baseUrl: string, payoutId: string): string {
    const h = createHash('sha256').update(`${baseUrl}\n${payoutId}`).digest('hex').slice(0, 32);
    return join(this.dir, `${h}.json`);
  }

  get(baseUrl: string, payoutId: string): JournalEntry | undefined {
    const file = this.#file(baseUrl, payoutId);
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new ConfigError(`Cannot read the payout journal entry ${file}: ${(err as Error).message}`);
    }
    try {
      const entry = JSON.parse(raw) as JournalEntry;
      if (entry.payoutId !== payoutId || typeof entry.idempotencyKey !== 'string' || typeof entry.body !== 'string') {
        throw new Error('unexpected content');
      }
      return entry;
    } catch (err) {
      throw new ConfigError(
        `The payout journal entry ${file} is damaged (${(err as Error).message}).`,
        'It holds the idempotency key of an earlier payout; inspect it before removing it.',
      );
    }
  }

  /**
   * Writes the entry durably: temp file, fsync, rename, fsync of the folder. Asynchronous,
   * so the fsyncs of a batch's rows overlap instead of stalling every request in flight.
   */
  async put(entry: JournalEntry): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = this.#file(entry.baseUrl, entry.payoutId);
    const tmp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(JSON.stringify(entry, null, 2) + '\n');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /** Why `body` (and `idempotencyKey`, if given) cannot be sent under an existing entry; undefined when it can. */
  conflict(existing: JournalEntry, body: string, idempotencyKey?: string): JournalConflict | undefined {
    if (!sameBody(existing.body, body)) return new JournalConflict('details', existing);
    if (idempotencyKey && idempotencyKey.toLowerCase() !== existing.idempotencyKey.toLowerCase()) {
      return new JournalConflict('key', existing);
    }
    return undefined;
  }

  /**
   * The entry to send: the journaled one when this payout id was seen before (its key
   * and body reused), else a new one written before returning. Throws `Conflict` when
   * the same payout id was journaled with other details or another key.
   */
  async begin(opts: { baseUrl: string; payoutId: string; body: string; idempotencyKey?: string; now: Date }): Promise<JournalEntry> {
    const existing = this.get(opts.baseUrl, opts.payoutId);
    if (existing) {
      const conflict = this.conflict(existing, opts.body, opts.idempotencyKey);
      if (conflict) throw conflict;
      return existing;
    }
    const entry: JournalEntry = {
      version: 1,
      payoutId: opts.payoutId,
      baseUrl: opts.baseUrl,
      idempotencyKey: opts.idempotencyKey ?? randomUUID(),
      body: opts.body,
      createdAt: opts.now.toISOString(),
    };
    await this.put(entry);
    return entry;
  }

  async record(entry: JournalEntry, outcome: Outcome): Promise<JournalEntry> {
    const next = { ...entry, outcome };
    await this.put(next);
    return next;
  }
}

export class JournalConflict extends Error {
  constructor(
    readonly what: 'details' | 'key',
    readonly existing: JournalEntry,
  ) {
    super(what === 'details' ? 'payout id journaled with other details' : 'payout id journaled with another key');
  }
}

/** Same payout: equal as parsed JSON, and every number literal equal as written (JSON.parse rounds long ones). */
function sameBody(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return isDeepStrictEqual(JSON.parse(a), JSON.parse(b)) && numberLiterals(a) === numberLiterals(b);
  } catch {
    return false;
  }
}

/** The number literals of a JSON text, outside strings, in order. */
function numberLiterals(json: string): string {
  return (json.match(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []).filter((t) => !t.startsWith('"')).join(',');
}
