/**
 * A status read of one payout (`payout get`, with or without --wait, and `payout create --wait`)
 * held against what this config folder's journal read of it before: the one place that notes a
 * settled read (payouts/settle.ts noteSettled) and says what contradicts an earlier one, exit 4
 * (StatusUnknownError, `--json` code STATUS_UNKNOWN), never Failed's 1 nor a plain 0:
 * - read Successful before (the entry the run resolved, or the journal as noted since), anything
 *   else now (Pending, Failed, a word payctl does not know): which is true cannot be told; the
 *   journal keeps Successful;
 * - read Failed before, Successful now: between the two reads it was one to send again, so a
 *   payout sent in its place may have paid the person twice: said with when it was read Failed
 *   and the command that lists the payouts that may be that retry; the journal now holds
 *   Successful (so the repeat guard counts it paid);
 * - read Failed before (the entry the run resolved), unsettled now (Pending, a word payctl does not
 *   know): Failed is final, and should it settle Successful, a payout sent in its place may pay
 *   the person twice: said with when it was read Failed, that check, and the command that reads
 *   it again; the journal keeps Failed (an unsettled read is no settlement);
 * - a transaction id the run's base URL does not journal, read settled, that the journal holds
 *   settled the other way under another base URL (another front of the same service:
 *   transaction ids are the service's): the same, naming the base URL and profile it was sent
 *   with and the ones that read it now. Looked for only for a settled read (every entry is read).
 * The words are payouts/contradiction.ts's, as payout batch status says them for its rows.
 */
import type { Deps } from '../../deps.js';
import { StatusUnknownError } from '../../errors.js';
import type { Invocation } from '../../config/command-line.js';
import { maskBaseUrl } from '../../config/mask.js';
import { recordStatus, type PayoutRecord } from '../../service/schemas.js';
import { contradictionSaid, contradicts, failedBeforeSaid, failedThenUnsettledSaid, paidTwiceCheck, unsettledAfterFailed } from '../../payouts/contradiction.js';
import { settledElsewhere, where } from '../../payouts/lookup-elsewhere.js';
import { earlierSaid, isSettled, journaledFailed, journaledSuccessful, noteSettled, type EarlierRead } from '../../payouts/settle.js';
import type { PayoutRef } from '../../payouts/lookup.js';
import type { Ledger } from '../../payouts/journal.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { text } from '../../output/text.js';

/** The run a read was made by: its journal, its base URL and the options its printed commands carry. */
export interface ReadRun {
  deps: Deps;
  ledger: Ledger;
  baseUrl: string;
  inv: Invocation;
}

/** A payout as messages name it: its payout id and transaction id when the journal has both, else the transaction id. */
export function shownIdOf(ref: PayoutRef): string {
  const asked = ref.transactionId;
  return sanitizeInline(ref.payoutId && ref.payoutId !== asked ? `${ref.payoutId} (transaction ${asked})` : asked);
}

/**
 * Notes `record`, read now, in the journal when it settled, and returns the error of what
 * contradicts an earlier read of it (the file's comment), or undefined. `checkAgain`: the command
 * that reads it again (`payout get <transaction id> --wait`).
 */
export async function heldRead(run: ReadRun, ref: PayoutRef, record: PayoutRecord, checkAgain: string): Promise<StatusUnknownError | undefined> {
  const status = recordStatus(record);
  const { deps } = run;
  const warn = (line: string) => deps.log.warn(line);
  const noted = isSettled(status) ? await noteSettled(run.ledger, run.baseUrl, ref.payoutId, status, warn, deps.clock.now()) : undefined;
  const shownId = shownIdOf(ref);
  const hint = `Check it again with: ${checkAgain}`;
  const reason = status === 'Failed' && record.failure_reason ? ` (${sanitizeInline(record.failure_reason)})` : '';
  if (contradicts(status, journaledSuccessful(ref.entry) || noted?.status === 'Successful')) {
    return new StatusUnknownError(
      `${contradictionSaid(`Payout ${shownId}`, "in this config folder's journal", sanitizeInline(status), reason)} The journal keeps Successful; do not send it again before the service says which is true.`,
      { payoutId: ref.payoutId, hint },
    );
  }
  const failed = journaledFailed(ref.entry);
  if (failed && unsettledAfterFailed(status, true)) {
    return new StatusUnknownError(`${failedThenUnsettledSaid(`Payout ${shownId}`, earlierSaid(failed), sanitizeInline(status))} The journal keeps Failed.`, {
      payoutId: ref.payoutId,
      hint: `${paidTwiceCheck(failed.entry, run.inv)}\n${hint}`,
    });
  }
  if (noted?.status === 'Failed')
    return failedThenSuccessful(run, ref, noted, `Payout ${shownId}`, "in this config folder's journal", ' The journal now holds it Successful.');
  // Not journaled under the run's base URL: the journal may have the transaction under another.
  if (ref.entry !== undefined || !isSettled(status)) return undefined;
  const elsewhere = await settledElsewhere(run.ledger, run.baseUrl, ref.transactionId, status).catch(() => undefined);
  if (elsewhere === undefined) return undefined;
  const who = `Transaction ${shownId}`;
  const before = `in this config folder's journal as payout ${text(elsewhere.entry.payoutId)} ${where(elsewhere.entry)}`;
  const now = `read now from ${text(maskBaseUrl(run.baseUrl))} with profile ${text(deps.globals.profile)}`;
  if (elsewhere.status === 'Failed') return failedThenSuccessful(run, ref, elsewhere, who, `${before}; ${now}`, '');
  return new StatusUnknownError(
    `${contradictionSaid(who, before, sanitizeInline(status), `${reason}, ${now}`)} Do not send it again before the service says which is true.`,
    { payoutId: elsewhere.entry.payoutId, hint },
  );
}

/** A payout read Failed before (`earlier`, `before` saying where; `held`: what the journal holds now) and Successful now: it may have paid twice (exit 4). */
function failedThenSuccessful(run: ReadRun, ref: PayoutRef, earlier: EarlierRead, who: string, before: string, held: string): StatusUnknownError {
  return new StatusUnknownError(`${failedBeforeSaid(who, earlierSaid(earlier, before))}${held}`, {
    payoutId: ref.payoutId ?? earlier.entry.payoutId,
    hint: paidTwiceCheck(earlier.entry, run.inv),
  });
}
