/**
 * A local ledger copied into a shared PostgreSQL one (issue #30: a team moving to one ledger
 * keeps what each machine journaled): every entry the local store lists, without ever
 * duplicating or overwriting one. An entry whose payout id the shared ledger lacks is copied as
 * it is; one it holds with the same key and body is already there (its outcome merged: the
 * stronger stands, an accepted one is never weakened); one it holds with another key or body is
 * a conflict, reported and left as the shared ledger has it. Run twice, the second run copies
 * nothing. Every entry keeps its own time; those the shared ledger now holds dated after `ahead`
 * (the ledger's clock and a tolerance: a machine's fast clock dated them) are listed for the
 * command to say (commands/ledger/import.ts).
 */
import { conflictOf } from '../entries.js';
import type { JournalEntry, Ledger, Outcome } from '../ledger.js';
import { journalBase } from '../base-url.js';
import type { PostgresLedger } from './store.js';

/** Entries written together. */
const CHUNK = 200;

/** An entry of the local ledger that the shared one holds otherwise. */
export interface ImportConflict {
  baseUrl: string;
  payoutId: string;
  /** Another body, another key, or a shared row that is not an entry payctl can read (or does not verify). */
  what: 'details' | 'key' | 'unreadable';
  /** The same, in words: "the shared ledger holds it with another body". */
  reason: string;
  /** The key the shared ledger holds (when it can be read): what a rerun sends under. */
  sharedKey: string | undefined;
  localKey: string;
}

export interface ImportCounts {
  /** Entries copied. */
  imported: number;
  /** Entries the shared ledger already held, with the same key and body. */
  already: number;
  /** Of those, how many took the local entry's outcome (it was stronger). */
  outcomes: number;
  conflicts: ImportConflict[];
  /** Local entries that could not be read or did not verify: not copied. */
  unreadable: number;
  /** Entries copied or already there that the shared ledger holds dated after `ahead` (at most MAX_AHEAD_LISTED), and how many in all. */
  datedAhead: JournalEntry[];
  datedAheadTotal: number;
}

/** Entries dated ahead kept to be listed; the rest are counted. */
export const MAX_AHEAD_LISTED = 20;

/** Every entry of `from` copied into `to` (see above); what came of it, with the entries it holds dated after `ahead`. */
export async function importEntries(from: Pick<Ledger, 'scan'>, to: PostgresLedger, ahead: Date): Promise<ImportCounts> {
  const counts: ImportCounts = { imported: 0, already: 0, outcomes: 0, conflicts: [], unreadable: 0, datedAhead: [], datedAheadTotal: 0 };
  const seeAhead = (e: JournalEntry) => {
    if (!(Date.parse(e.createdAt) > ahead.getTime())) return;
    if (counts.datedAhead.length < MAX_AHEAD_LISTED) counts.datedAhead.push(e);
    counts.datedAheadTotal++;
  };
  let chunk: JournalEntry[] = [];
  const keys = new Set<string>();
  for await (const it of from.scan()) {
    if ('error' in it) {
      counts.unreadable++;
      continue;
    }
    const key = `${journalBase(it.entry.baseUrl)}\n${it.entry.payoutId}`;
    // One row per payout id a statement (an old payctl's entry filed under another spelling of the base URL may repeat one).
    if (chunk.length >= CHUNK || keys.has(key)) {
      await importChunk(chunk, to, counts, seeAhead);
      chunk = [];
      keys.clear();
    }
    chunk.push(it.entry);
    keys.add(key);
  }
  if (chunk.length) await importChunk(chunk, to, counts, seeAhead);
  return counts;
}

async function importChunk(entries: JournalEntry[], to: PostgresLedger, counts: ImportCounts, seeAhead: (e: JournalEntry) => void): Promise<void> {
  const results = await to.insertEntries(entries);
  for (const [i, local] of entries.entries()) {
    const r = results[i]!;
    if (r.inserted) {
      counts.imported++;
      seeAhead(local);
      continue;
    }
    let shared: JournalEntry | undefined;
    try {
      shared = r.existing !== undefined ? to.entryOf(r.existing) : await to.get(local.baseUrl, local.payoutId);
    } catch {
      shared = undefined;
    }
    if (!shared) {
      counts.conflicts.push({
        baseUrl: local.baseUrl,
        payoutId: local.payoutId,
        what: 'unreadable',
        reason: REASONS.unreadable,
        sharedKey: undefined,
        localKey: local.idempotencyKey,
      });
      continue;
    }
    const conflict = conflictOf(shared, local.body, local.idempotencyKey);
    if (conflict) {
      counts.conflicts.push({
        baseUrl: local.baseUrl,
        payoutId: local.payoutId,
        what: conflict.what,
        reason: REASONS[conflict.what],
        sharedKey: shared.idempotencyKey,
        localKey: local.idempotencyKey,
      });
      continue;
    }
    counts.already++;
    if (local.outcome && strength(local.outcome) > strength(shared.outcome)) {
      shared = await to.record(shared, local.outcome);
      counts.outcomes++;
    }
    seeAhead(shared);
  }
}

const REASONS: Record<ImportConflict['what'], string> = {
  details: 'the shared ledger holds this payout id with another body (other details)',
  key: 'the shared ledger holds this payout id with another idempotency key',
  unreadable: "the shared ledger's entry of this payout id cannot be read",
};

/** How much an outcome says: none, unknown, refused or not made, accepted. */
function strength(o: Outcome | undefined): number {
  if (!o) return 0;
  return o.kind === 'accepted' ? 3 : o.kind === 'unknown' ? 1 : 2;
}
