/**
 * The PostgreSQL store's look-ahead (Ledger.prefetch): a batch's plan looks every row up by
 * payout id (and earlier versions' ids) and by fingerprint, one row after another; against a
 * database each look-up is a round trip. `prefetch` asks for a group of rows in one statement
 * and keeps the answers for the look-ups that follow, found or not, until the next group or
 * any write of this store. Only a hint for reads that decide nothing alone: a claim is still the
 * database's INSERT, and the store's own reads around its writes never use it.
 */
import type { JournalEntry, LookupKind } from '../ledger.js';

/** A row as looked ahead: its entry, or why it does not verify (thrown when it is asked for). */
type Found = JournalEntry | Error;

export class LookAhead {
  #base: string | undefined;
  readonly #byId = new Map<string, Found | null>();
  readonly #byKey: Record<LookupKind, Map<string, Found[]>> = { fingerprint: new Map(), repeat: new Map() };

  /** The answers for these payout ids, fingerprints and repeat keys under `base` (rows already read and checked). */
  fill(
    base: string,
    asked: { payoutIds: string[]; fingerprints: string[]; repeatKeys: string[] },
    rows: Array<{ payoutId: string; fingerprint: string | null; repeatKey: string | null; found: Found }>,
  ): void {
    this.clear();
    this.#base = base;
    for (const id of asked.payoutIds) this.#byId.set(id, null);
    for (const f of asked.fingerprints) this.#byKey.fingerprint.set(f, []);
    for (const k of asked.repeatKeys) this.#byKey.repeat.set(k, []);
    for (const r of rows) {
      if (this.#byId.has(r.payoutId)) this.#byId.set(r.payoutId, r.found);
      if (r.fingerprint !== null) this.#byKey.fingerprint.get(r.fingerprint)?.push(r.found);
      if (r.repeatKey !== null) this.#byKey.repeat.get(r.repeatKey)?.push(r.found);
    }
  }

  clear(): void {
    this.#base = undefined;
    this.#byId.clear();
    this.#byKey.fingerprint.clear();
    this.#byKey.repeat.clear();
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
    const found = this.#byKey[kind].get(key);
    if (!found) return undefined;
    const bad = found.find((f) => f instanceof Error);
    if (bad) throw bad;
    return (found as JournalEntry[]).slice().sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.payoutId < b.payoutId ? -1 : 1));
  }
}
