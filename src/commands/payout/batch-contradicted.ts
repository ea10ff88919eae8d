/**
 * `payout batch status`: a payout read Successful before (the report's status cell, written by
 * an earlier run, or this config folder's journal) that now reads otherwise (Pending, Failed, a
 * word payctl does not know). A payout counts as having paid once its status is known
 * Successful, so a status that moves back is a contradiction, not a settlement: whether it was
 * paid cannot be told. The row is held back (exit 4): its report cells and the journal keep
 * Successful, it is not counted Failed and never written to --failed-out (sent again, it may be
 * paid twice), and it is named with what was read before and now (payouts/contradiction.ts, the
 * words payout get says it in too) and the command that checks it. So is a row this config
 * folder's journal has as read Failed that now reads Successful (notedRow): between the two reads
 * it was one to send again (--failed-out wrote it), so a retry may have paid the person twice; the
 * journal now holds Successful (noteSettled: the repeat guard counts it paid), the report's cells
 * are left as they were, and it is named with the command that lists what may be the retry. And a
 * row the journal has as read Failed that now reads unsettled (Pending, a word payctl does not
 * know): Failed is final, and should it settle Successful a retry may pay the person twice; held
 * back the same, the journal keeping Failed, named with that command and the one that checks it.
 */
import type { JournalEntry } from '../../payouts/journal.js';
import type { ReportEntry, RowState } from '../../payouts/batch-status.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { commandLine, type Invocation } from '../../config/command-line.js';
import { earlierSaid, journaledSuccessful, noteSettled, type EarlierRead, type SettledStatus } from '../../payouts/settle.js';
import { contradictionSaid, failedBeforeSaid, failedThenUnsettledSaid, paidTwiceCheck } from '../../payouts/contradiction.js';
import type { Ledger } from '../../payouts/journal.js';
import { rowState } from '../../payouts/batch-status.js';
import type { PayoutRecord } from '../../service/schemas.js';

/** A row read Successful before and otherwise now: what was read before (said), and the state read now. */
export interface Contradicted {
  e: ReportEntry;
  s: RowState;
  before: string;
  transactionId: string;
  /** Read Failed before (the journal), Successful or unsettled now (`s`): when, and the entry (what it pays). */
  failedBefore?: EarlierRead;
}

/** What a row read `contradicted` was read before: Successful (`successful`, how), else Failed (`failed`, the journal's read). */
export function beforeOf(successful: string | undefined, failed: EarlierRead | undefined): Pick<Contradicted, 'before' | 'failedBefore'> {
  if (successful !== undefined || failed === undefined) return { before: successful ?? '' };
  return { before: earlierSaid(failed), failedBefore: failed };
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

/**
 * A settled read of row `e` (transaction `transactionId`) noted in the journal (noteSettled, at
 * `now`); the row as contradicted when the journal held the other settled status when noted (read
 * Failed before, or Successful noted by another run since the row's entry was read), else undefined.
 */
export async function notedRow(
  journal: Ledger,
  baseUrl: string,
  read: { e: ReportEntry; transactionId: string; record: PayoutRecord; status: SettledStatus },
  now: Date,
): Promise<Contradicted | undefined> {
  const { e, transactionId, record, status } = read;
  const earlier = await noteSettled(journal, baseUrl, e.payoutId || undefined, status, undefined, now);
  if (earlier === undefined) return undefined;
  return { e, s: rowState(record, status), before: earlierSaid(earlier), transactionId, ...(earlier.status === 'Failed' ? { failedBefore: earlier } : {}) };
}

/** What a contradicted row says on stderr, with the command that checks it. */
export function contradictedSaid(c: Contradicted, failedOut: string | undefined, inv: Invocation): string {
  const who = `Row ${sanitizeInline(c.e.row)} (payout ${sanitizeInline(c.e.payoutId)})`;
  if (c.failedBefore && c.s.status !== 'Successful') {
    return (
      `${failedThenUnsettledSaid(who, c.before, c.s.status)} The journal keeps Failed; the report's cells are left as they were.\n  ${paidTwiceCheck(c.failedBefore.entry, inv)}\n` +
      `Check it with:\n  ${commandLine(inv, ['payout', 'get'], [c.transactionId, '--wait'])}`
    );
  }
  if (c.failedBefore) {
    return `${failedBeforeSaid(who, c.before)} The journal now holds it Successful; the report's cells are left as they were.\n  ${paidTwiceCheck(c.failedBefore.entry, inv)}`;
  }
  const reason = c.s.bucket === 'Failed' && c.s.failureReason ? ` (${c.s.failureReason})` : '';
  const left = failedOut !== undefined ? ` It is not written to ${failedOut}: sent again, it may be paid twice.` : '';
  return (
    `${contradictionSaid(who, c.before, c.s.status, reason)} ` +
    `The report and the journal keep Successful.${left} Check it with:\n` +
    `  ${commandLine(inv, ['payout', 'get'], [c.transactionId, '--wait'])}`
  );
}
