/**
 * The payout journal (docs/architecture.md, "Idempotency journal" and "The ledger"): what
 * callers import to journal payouts. The ledger's interface and its local store are in
 * ledger/ (ledger.ts the interface, local.ts the store in the config folder); `Journal` is the
 * local store, `new Journal(configDir)`. Commands get the ledger of their run from
 * `openLedger` (open-ledger.ts), and code that only uses it takes the interface, `Ledger`.
 */
export { LocalLedger as Journal } from './ledger/local.js';
export type {
  BatchRun,
  BeginOptions,
  EntryBatch,
  RunOptions,
  InBatchLookups,
  EntryOrigin,
  JournalEntry,
  JournalGaps,
  Ledger,
  LookupKind,
  Outcome,
  ScanItem,
} from './ledger/ledger.js';
export { claimedNow, JournalConflict } from './ledger/entries.js';
export { ledgerNow } from './ledger/entries.js';
export { journalBase } from './ledger/base-url.js';
