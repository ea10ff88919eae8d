/**
 * Whether a journal entry's outcome is still to be found out: of unknown outcome, or journaled
 * with none recorded (its run ended with its request maybe in flight). Its own module, with no
 * imports but the entry's type, so that the repeat guard (repeats.ts) can ask it without a cycle
 * through lookup.ts and the ledger; lookup.ts exports it too.
 */
import type { JournalEntry } from './journal.js';

/** Does the entry still wait for an answer (unknown, or none recorded: the run ended with its request maybe in flight)? */
export function isUnresolved(entry: JournalEntry): boolean {
  return entry.outcome === undefined || entry.outcome.kind === 'unknown';
}
