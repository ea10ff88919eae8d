/**
 * A payout read Successful before that now reads otherwise (Pending, Failed, a word payctl does
 * not know, or no status): a contradiction, not a settlement. A payout counts as having paid once
 * its status is known Successful, so whether it was paid cannot be told (exit 4, never Failed's 1:
 * sent again, it may be paid twice). Said in the same words by `payout batch status` for each
 * row (commands/payout/batch-contradicted.ts) and by `payout get`, with or without --wait
 * (commands/payout/wait.ts).
 */
import { isUnknownStatus } from '../service/status-words.js';

/** Whether `status` (as normalizeStatus writes it) contradicts an earlier read of Successful. */
export function contradicts(status: string, readSuccessfulBefore: boolean): boolean {
  return readSuccessfulBefore && status !== 'Successful';
}

/**
 * "`who` was read Successful (`before`), now `status``reason`: whether it was paid cannot be
 * told." `status` printable (sanitized); a word payctl does not know is quoted, none said so.
 */
export function contradictionSaid(who: string, before: string, status: string, reason = ''): string {
  const now = status === '' ? 'without a status' : isUnknownStatus(status) ? `"${status}"` : status;
  return `${who} was read Successful (${before}), now ${now}${reason}: whether it was paid cannot be told.`;
}
