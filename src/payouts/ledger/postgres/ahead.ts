/**
 * The PostgreSQL store's look-ahead (Ledger.prefetch): a batch's plan looks every row up by
 * payout id (and earlier versions' ids), by fingerprint and by repeat key, one row after
 * another; against a database each look-up is a round trip. `prefetch` asks for a group of rows
 * in one statement and keeps the answers for the look-ups that follow, found or not, until the
 * next group or any write of this store. Only a hint for reads that decide nothing alone: a
 * claim is still the database's INSERT, and the store's own reads around its writes never use it.
 */
import type { BatchRun, InBatchLookups, JournalEntry, LookupKind } from '../ledger.js';
import type { StoredRow } from './rows.js';

/** A row as looked ahead: its entry, or why it does not verify (thrown when it is asked for). */
type Found = JournalEntry | Error;

export class LookAhead {
  #base: string | undefined;
  readonly #byId = new Map<string, Found | null>();
  readonly #byFingerprint = new Map<string, Found[]>();
  /** Entries of any run, or none, by repeat key (find: repeats.ts samePayoutsSent's candidates). */
  readonly #byRepeat = new Map<string, Found[]>();
  /** Entries of any run, or none, by zero key (find: repeats.ts recentRepeats), and of any batch run since a time (findRecentBatchRows). */
  readonly #byZero = new Map<string, Found[]>();
  readonly #byZeroRecent = new Map<string, Found[]>();
  /**
   * Rows of one batch run by repeat key (findInBatch), and of any batch run since a time
   * (findRecentBatchRows) when one was asked: candidates, each compared exactly by the store.
   */
  #batch: BatchRun | undefined;
  #recentSince: number | undefined;
  readonly #byRepeatInBatch = new Map<string, Found[]>();

  /** The answers for these payout ids, fingerprints, repeat and zero keys of a batch run under `base` (each row checked by `entryOf`: one that does not verify is thrown when asked for). */
  fill(
    base: string,
    asked: { payoutIds: string[]; fingerprints: string[]; repeatKeys?: string[]; zeroKeys?: string[]; inBatch?: InBatchLookups },
    stored: StoredRow[],
    entryOf: (r: StoredRow) => JournalEntry,
  ): void {
    const rows = stored.map((r) => {
      let found: Found;
      try {
        found = entryOf(r);
      } catch (err) {
        found = err as Error;
      }
      const createdAt = r.created_at instanceof Date ? r.created_at.getTime() : Date.parse(String(r.created_at));
      return { payoutId: r.payout_id, fingerprint: r.fingerprint, repeatKey: r.repeat_key, zeroKey: r.zero_key, createdAt, found };
    });
    this.clear();
    this.#base = base;
    this.#batch = asked.inBatch?.batch;
    this.#recentSince = asked.inBatch?.recentSince?.getTime();
    for (const id of asked.payoutIds) this.#byId.set(id, null);
    for (const f of asked.fingerprints) this.#byFingerprint.set(f, []);
    for (const k of asked.inBatch?.repeatKeys ?? []) this.#byRepeatInBatch.set(k, []);
    for (const k of asked.repeatKeys ?? []) this.#byRepeat.set(k, []);
    for (const k of asked.zeroKeys ?? []) this.#byZero.set(k, []);
    for (const k of this.#recentSince === undefined ? [] : (asked.inBatch?.zeroKeys ?? [])) this.#byZeroRecent.set(k, []);
    for (const r of rows) {
      if (this.#byId.has(r.payoutId)) this.#byId.set(r.payoutId, r.found);
      if (r.fingerprint !== null) this.#byFingerprint.get(r.fingerprint)?.push(r.found);
      if (r.repeatKey !== null) {
        this.#byRepeatInBatch.get(r.repeatKey)?.push(r.found);
        this.#byRepeat.get(r.repeatKey)?.push(r.found);
      }
      if (r.zeroKey !== null) {
        this.#byZero.get(r.zeroKey)?.push(r.found);
        if (r.createdAt >= this.#recentSince!) this.#byZeroRecent.get(r.zeroKey)?.push(r.found);
      }
    }
  }

  clear(): void {
    this.#base = undefined;
    this.#batch = undefined;
    this.#recentSince = undefined;
    this.#byId.clear();
    this.#byFingerprint.clear();
    this.#byRepeat.clear();
    this.#byZero.clear();
    this.#byZeroRecent.clear();
    this.#byRepeatInBatch.clear();
  }

  /** The rows of this batch run with this repeat key, oldest first, when they were looked ahead; undefined when not. */
  findInBatch(base: string, batch: BatchRun, repeatKey: string): JournalEntry[] | undefined {
    if (base !== this.#base || this.#batch?.id !== batch.id || this.#batch.file !== batch.file) return undefined;
    return sorted(this.#byRepeatInBatch.get(repeatKey));
  }

  /** The rows of any batch run since `since` with this repeat key, or zero key (and maybe others: candidates), when looked ahead; undefined when not. */
  findRecent(base: string, since: Date, key: string, kind: 'repeat' | 'zero' = 'repeat'): JournalEntry[] | undefined {
    if (base !== this.#base || this.#recentSince !== since.getTime()) return undefined;
    return sorted((kind === 'zero' ? this.#byZeroRecent : this.#byRepeatInBatch).get(key));
  }

  /** The entry of a payout id looked ahead: `null` when it was looked for and is not there; undefined when not looked for. */
  get(base: string, payoutId: string): JournalEntry | null | undefined {
    if (base !== this.#base) return undefined;
    const found = this.#byId.get(payoutId);
    if (found instanceof Error) throw found;
    return found;
  }

  /** The entries with this fingerprint or repeat key, oldest first, when it was looked ahead; undefined when not. */
  find(base: string, kind: LookupKind, key: string): JournalEntry[] | undefined {
    if (base !== this.#base) return undefined;
    return sorted((kind === 'fingerprint' ? this.#byFingerprint : kind === 'repeat' ? this.#byRepeat : this.#byZero).get(key));
  }
}

/** Entries looked ahead, oldest first (a row that does not verify throws); undefined stays undefined. */
function sorted(found: Found[] | undefined): JournalEntry[] | undefined {
  if (!found) return undefined;
  const bad = found.find((f) => f instanceof Error);
  if (bad) throw bad;
  return (found as JournalEntry[]).slice().sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.payoutId < b.payoutId ? -1 : 1));
}
