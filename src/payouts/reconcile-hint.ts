/**
 * The `history reconcile --payout-id` of a payout whose outcome is unknown, worded by what it will
 * do (probe 53-H finding 4: "See the candidates" resent it), for the refusals and advice that print it.
 */
import { commandLine, type Invocation } from '../config/command-line.js';
import type { JournalEntry } from './journal.js';
import { keyMayBeForgotten } from './entry-age.js';

/**
 * Within 24 hours of its first attempt reconcile resends it under its own key (one payout either
 * way); a batch row with no outcome recorded, its batch's resume printed; older, or dated in the
 * future, its candidates listed, nothing sent. `name`: the payout named, when it is not the one asked about.
 */
export function settleHint(entry: JournalEntry, now: Date, inv: Invocation, name?: string): string {
  const cmd = commandLine(inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId]);
  const it = name ?? 'it';
  if (keyMayBeForgotten(entry, now)) return `See the candidates${name ? ` of ${name}` : ''} (listed; nothing is sent) with: ${cmd}`;
  if (entry.outcome === undefined && entry.batch) return `See how to finish ${it} (a batch row with no outcome recorded: its batch's resume is printed) with: ${cmd}`;
  return `Settle ${it} (within 24 hours of its first attempt it is resent under its own idempotency key: one payout either way) with: ${cmd}`;
}
