/**
 * A ledger's listing (Ledger.scan, asynchronous) collected into an array: for tests, whose
 * journals are small. payctl itself never holds a listing whole.
 */
import type { Ledger, ScanItem } from '../../src/payouts/ledger/ledger.js';

export async function scanned(ledger: Pick<Ledger, 'scan'>): Promise<ScanItem[]> {
  const items: ScanItem[] = [];
  for await (const it of ledger.scan()) items.push(it);
  return items;
}
