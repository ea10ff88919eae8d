/**
 * Transaction ids already recorded, and the payout each was recorded for (docs/architecture.md,
 * "The ledger"): for answers that resolve an unknown outcome (a replay, a reconcile), a
 * transaction id already given to another payout means the answer is not this one's. Read with
 * one scan of the ledger the first time it is asked, kept up to date by what this process
 * records. And the entry of a transaction id, found by a scan.
 */
import { journalBase } from './base-url.js';
import type { JournalEntry, ScanItem } from './ledger.js';

export class TransactionOwners {
  readonly #scan: () => Iterable<ScanItem>;
  /** Normalized base URL -> transaction id -> payout id; undefined until first asked. */
  #owners: Map<string, Map<string, string>> | undefined;

  constructor(scan: () => Iterable<ScanItem>) {
    this.#scan = scan;
  }

  /** The payout id the ledger has recorded transaction `transactionId` for under this base URL (an accepted outcome), if any. */
  owner(baseUrl: string, transactionId: string): string | undefined {
    if (!this.#owners) {
      this.#owners = new Map();
      for (const it of this.#scan()) if (!('error' in it)) this.recorded(it.entry);
    }
    return this.#owners.get(journalBase(baseUrl))?.get(transactionId);
  }

  /**
   * The entry of this base URL whose accepted outcome has this transaction id (the service has
   * no look-up by payout id, so this is how a transaction is known to be a journaled payout).
   * A scan of the journal: entries that cannot be read or verified are passed over.
   */
  entry(baseUrl: string, transactionId: string): JournalEntry | undefined {
    const base = journalBase(baseUrl);
    for (const it of this.#scan()) {
      if ('error' in it) continue;
      const o = it.entry.outcome;
      if (o?.kind === 'accepted' && o.transactionId === transactionId && journalBase(it.entry.baseUrl) === base) return it.entry;
    }
    return undefined;
  }

  /** Notes an entry as recorded (once the owners were read): its transaction id, if accepted with one, is its payout's. */
  recorded(entry: JournalEntry): void {
    const o = entry.outcome;
    if (!this.#owners || o?.kind !== 'accepted' || !o.transactionId) return;
    const base = journalBase(entry.baseUrl);
    let m = this.#owners.get(base);
    if (!m) this.#owners.set(base, (m = new Map<string, string>()));
    if (!m.has(o.transactionId)) m.set(o.transactionId, entry.payoutId);
  }
}
