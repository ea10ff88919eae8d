/**
 * A payout read Successful before that now reads otherwise (Pending, Failed, a word payctl does
 * not know, or no status): a contradiction, not a settlement. A payout counts as having paid once
 * its status is known Successful, so whether it was paid cannot be told (exit 4, never Failed's 1:
 * sent again, it may be paid twice). And the other way round, a payout read Failed before that
 * now reads Successful: between the two reads it was known Failed (--wait exited 1, --failed-out
 * wrote it to a retry file), so a payout sent in its place may have paid the person twice (exit
 * 4, with the command that lists what may be that retry). So is one read Failed before that now
 * reads unsettled (Pending, a word payctl does not know): Failed is final, and should it settle
 * Successful, a payout sent in its place may pay the person twice; the journal keeps Failed (an
 * unsettled read is no settlement). Said in the same words by `payout
 * batch status` for each row (commands/payout/batch-contradicted.ts) and by `payout get`, with or
 * without --wait (commands/payout/read-held.ts).
 */
import { isUnknownStatus } from '../service/status-words.js';
import { commandLine, type Invocation } from '../config/command-line.js';
import { plainAmount } from '../money/amount.js';
import { sanitizeInline } from '../output/sanitize.js';
import { utcTime } from '../output/text.js';
import { askedOf } from './candidate-fields.js';
import type { JournalEntry } from './journal.js';

/** Whether `status` (as normalizeStatus writes it) contradicts an earlier read of Successful. */
export function contradicts(status: string, readSuccessfulBefore: boolean): boolean {
  return readSuccessfulBefore && status !== 'Successful';
}

/**
 * "`who` was read Successful (`before`), now `status``reason`: whether it was paid cannot be
 * told." `status` printable (sanitized); a word payctl does not know is quoted, none said so.
 */
export function contradictionSaid(who: string, before: string, status: string, reason = ''): string {
  return `${who} was read Successful (${before}), now ${statusSaid(status)}${reason}: whether it was paid cannot be told.`;
}

/** Whether `status` (as normalizeStatus writes it) contradicts an earlier read of Failed without settling: neither Failed nor Successful (a Successful one is noted: failedBeforeSaid). */
export function unsettledAfterFailed(status: string, readFailedBefore: boolean): boolean {
  return readFailedBefore && status !== 'Failed' && status !== 'Successful';
}

/**
 * "`who` was read Failed (`before`), now Pending: ... may pay the person twice." `status`
 * printable (sanitized); a word payctl does not know is quoted, none said so.
 */
export function failedThenUnsettledSaid(who: string, before: string, status: string): string {
  return `${who} was read Failed (${before}), now ${statusSaid(status)}: Failed is final, so what it will come to cannot be told; if it was sent again since it was read Failed (a retry, a --failed-out file) and this one settles Successful, the person may be paid twice.`;
}

/**
 * "`who` was read Failed (`before`), now Successful: ... may have paid the person twice." A
 * payout read Failed was, from then on, one to send again.
 */
export function failedBeforeSaid(who: string, before: string): string {
  return `${who} was read Failed (${before}), now Successful: it may have paid after all, and if it was sent again since it was read Failed (a retry, a --failed-out file), the person may have been paid twice.`;
}

/**
 * What to check after a payout read Failed reads Successful: payouts of what `entry` pays made
 * since it was sent (a retry of it among them), with the `payouts list` command that lists them,
 * narrowed by every filter it has for what is named (the wallet, the currency, from when it was
 * sent; it has none for the amount or the account), every page, as CSV, whose amount and
 * account_number columns tell which paid that person (its table shows neither account nor
 * payout id: probe R62 finding 5). A record that names no wallet never matches --wallet: the list
 * counts those it leaves out on stderr, and the sentence says to run it without --wallet then.
 * Carries the run's options (`inv`).
 */
export function paidTwiceCheck(entry: JournalEntry, inv: Invocation): string {
  const a = askedOf(entry.body);
  let amount = a?.amount;
  try {
    if (a?.amount !== undefined && a.currency !== undefined) amount = plainAmount(a.amount, a.currency);
  } catch {
    // as written in the body
  }
  const what = a
    ? `${sanitizeInline(`${amount ?? '?'} ${a.currency ?? ''}`.trim())}${a.walletId ? ` from wallet ${sanitizeInline(a.walletId)}` : ''}${a.account ? ` to account ${sanitizeInline(a.account)}` : ''}`
    : 'the same amount to the same person';
  const filters = [...(a?.walletId ? ['--wallet', a.walletId] : []), ...(a?.currency ? ['--currency', a.currency] : [])];
  const list = commandLine(inv, ['payouts', 'list'], [...filters, '--from', entry.createdAt, '--all', '--csv']);
  const columns = a?.account ? 'amount and account_number columns' : 'amount and recipient columns';
  const walletless = a?.walletId ? '; records that name no wallet are left out by --wallet, counted on stderr: if any are, run it without --wallet too' : '';
  return `Check for payouts of ${what} made since it was sent (${utcTime(entry.createdAt)}), a retry of it among them (the CSV's ${columns} tell which paid that person${walletless}): ${list}`;
}

/** A status read now as said after "now": a word payctl does not know quoted, none said so. */
function statusSaid(status: string): string {
  return status === '' ? 'without a status' : isUnknownStatus(status) ? `"${status}"` : status;
}
