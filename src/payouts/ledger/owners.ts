/**
 * Transaction ids already recorded, and the payout each was recorded for (docs/architecture.md,
 * "The ledger"): for answers that resolve an unknown outcome (a replay, a reconcile), a
 * transaction id already given to another payout means the answer is not this one's. Read with
 * one scan of the ledger the first time it is asked, kept up to date by what this process
 * records.
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
