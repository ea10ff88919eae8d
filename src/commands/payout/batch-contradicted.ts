/**
 * `payout batch status`: a payout read Successful before (the report's status cell, written by
 * an earlier run, or this config folder's journal) that now reads otherwise (Pending, Failed, a
 * word payctl does not know). A payout counts as having paid once its status is known
 * Successful, so a status that moves back is a contradiction, not a settlement: whether it was
 * paid cannot be told. The row is held back (exit 4): its report cells and the journal keep
 * Successful, it is not counted Failed and never written to --failed-out (sent again, it may be
 * paid twice), and it is named with what was read before and now (payouts/contradiction.ts, the
 * words payout get says it in too) and the command that checks it.
 */
import type { JournalEntry } from '../../payouts/journal.js';
import type { ReportEntry, RowState } from '../../payouts/batch-status.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { commandLine, type Invocation } from '../../config/command-line.js';
import { journaledSuccessful } from '../../payouts/settle.js';
import { contradictionSaid } from '../../payouts/contradiction.js';

/** A row read Successful before and otherwise now: what was read before (said), and the state read now. */
export interface Contradicted {
  e: ReportEntry;
  s: RowState;
  before: string;
  transactionId: string;
}

/**
 * How the row was read Successful before ("settled at 2026-11-28T20:48:13Z", from the report's
 * cells; "in this config folder's journal"), or undefined when it was not.
 */
export function readSuccessfulBefore(e: ReportEntry, entry: JournalEntry | undefined): string | undefined {
  const cell = (c: string): string => {
    const v = e.values[c];
    return typeof v === 'string' ? v : '';
  };
  if (cell('status').toLowerCase() === 'successful') {
    const at = cell('settled_at');
    return at ? `settled at ${sanitizeInline(at)}` : 'in the report';
  }
  if (journaledSuccessful(entry)) return "in this config folder's journal";
  return undefined;
}

/** What a contradicted row says on stderr, with the command that checks it. */
export function contradictedSaid(c: Contradicted, failedOut: string | undefined, inv: Invocation): string {
  const reason = c.s.bucket === 'Failed' && c.s.failureReason ? ` (${c.s.failureReason})` : '';
  const left = failedOut !== undefined ? ` It is not written to ${failedOut}: sent again, it may be paid twice.` : '';
  return (
    `${contradictionSaid(`Row ${sanitizeInline(c.e.row)} (payout ${sanitizeInline(c.e.payoutId)})`, c.before, c.s.status, reason)} ` +
    `The report and the journal keep Successful.${left} Check it with:\n` +
    `  ${commandLine(inv, ['payout', 'get'], [c.transactionId, '--wait'])}`
  );
}
