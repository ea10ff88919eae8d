/**
 * What `payctl history reconcile` says of each payout it resolved (reconcile.ts) or recorded as
 * made by a transaction (reconcile-made-by.ts): a line for a person, a document for --json.
 */
import type { Invocation } from '../../config/command-line.js';
import { text } from '../../output/text.js';
import { plainAmount } from '../../money/amount.js';
import type { JournalEntry } from '../../payouts/journal.js';
import { findRecordCommand } from '../../payouts/lookup.js';
import { type CandidateSearch } from '../../payouts/candidate-search.js';
import { heldAdvice, type Choices } from '../../payouts/held-advice.js';
import { sentShort } from '../../payouts/entry-age.js';
import { refusedAdvice } from '../../payouts/resend-refused.js';
import { NO_OUTCOME } from '../../payouts/repeats.js';
import type { PayoutRecord } from '../../service/schemas.js';

/** A result's error when the run was interrupted (Ctrl-C) while it was being resolved. */
export const INTERRUPTED = 'interrupted';

export interface ReconcileResult {
  payoutId: string;
  /**
   * resent: sent again with its journaled key; held: older than 24 h or dated in the future
   * (`ageUnknown`), not resent; made-by:
   * recorded from a transaction a person named; batch: a batch row with no outcome recorded, left
   * to that batch's resume (`resume`); busy: its lock held past the wait by another payctl
   * resolving it (resolve-lock.ts), left as it was (`error` says who); other-profile: sent with
   * another profile (`sender`) or none journaled, left unknown with `command` (reconcile-sender.ts);
   * unchecked: journaled without its key's id, and the run's wallets, which tell whether the run's
   * key sent it, could not be read (payouts/unkeyed-wallet.ts readFault): left unknown, code
   * OUTCOME_UNKNOWN, the read's `cause`, its `error`, and `command` to run again.
   */
  action: 'resent' | 'held' | 'made-by' | 'batch' | 'busy' | 'other-profile' | 'unchecked';
  /** The profile that sent it (action other-profile; absent when the journal has none). */
  sender?: string;
  /** The login that brings the profile that sent it back, when it is gone (action other-profile). */
  login?: string;
  /** Sent with another key than this run's (action other-profile: sender-profile.ts `key`): what its line says before `command`. */
  otherKey?: string;
  /** The command that resolves it with the profile that sent it (action other-profile). */
  command?: string;
  resume?: string;
  outcome: 'accepted' | 'rejected' | 'unknown';
  transactionId?: string;
  status?: string;
  /** The service answered with the first attempt's answer (Idempotent-Replayed): that attempt had been made. */
  replayed?: boolean;
  code?: string;
  /** What left it unknown, as a documented code (TIMEOUT, SERVICE_ERROR, ...: action unchecked). */
  cause?: string;
  message?: string;
  error?: string;
  /** Still unknown because this machine could not record the answer (a full disk, a read-only journal), not for want of one. */
  unrecorded?: true;
  /** Still unknown because the resend was answered with a redirect, which payctl follows nowhere (its `error` says where to). */
  redirected?: true;
  /** Still unknown because the resend was answered about another payout (its `error` says which): not taken for this one. */
  otherPayout?: true;
  /** Its resend refused as from a wallet this key's account does not have (resend-refused.ts walletRefused): another account's key. */
  walletRefused?: true;
  /** `later`: a payout journaled after it blocks `--made-by` and `--resend` (held-advice.ts choiceCommands): no `madeBy`, no `resend`, what resolves that one first. */
  held?: Choices & { search: CandidateSearch | { error: string } };
  /**
   * Resent, refused (not as a duplicate), and still unknown: an earlier attempt may have been
   * made. The payout list's records that could be it, and the commands recording one as made (payouts/resend-refused.ts).
   */
  refused?: Pick<Choices, 'madeBy' | 'later'> & { search: CandidateSearch | { error: string }; notOffered?: ReadonlyMap<PayoutRecord, string> };
  /** Held because it is dated in the future by the ledger's clock: how long ago it was sent cannot be told (payouts/entry-age.ts). */
  ageUnknown?: true;
}

function candidateJson(r: PayoutRecord, marks: string[] | undefined, unchecked: string[] | undefined, notOffered: string | undefined): Record<string, unknown> {
  return {
    transaction_id: r.transaction_id ?? null,
    created_at: r.created_at ?? null,
    amount: plainAmount(r.amount, r.currency),
    currency: r.currency,
    account_number: r.recipient?.accountNumber ?? null,
    name: r.recipient?.name ?? null,
    status: r.status ?? null,
    description: r.note ?? null,
    // What the service wrote oddly in a record that could be the payout (candidate-fields.ts).
    marks: marks ?? [],
    // What payctl cannot check in it: never offered as made (`--made-by` refuses it).
    unchecked: unchecked ?? [],
    // Why `--made-by` would not take it (held-advice.ts madeByOffers): no command is printed for it.
    not_offered: notOffered ?? null,
  };
}

/** `damaged`: what is said of each entry passed over (unreadable or missing); `more`: entries passed over beyond those said. */
export function document(baseUrl: string, results: ReconcileResult[], damaged: readonly string[] = [], more = 0): Record<string, unknown> {
  const count = (k: ReconcileResult['outcome']) => results.filter((r) => r.outcome === k).length;
  return {
    base_url: baseUrl,
    results: results.map((r) => {
      const searched = r.held?.search ?? r.refused?.search;
      const search = searched && !('error' in searched) ? searched : undefined;
      return {
        payout_id: r.payoutId,
        action: r.action,
        outcome: r.outcome,
        transaction_id: r.transactionId ?? null,
        status: r.status ?? null,
        replayed: r.replayed ?? null,
        code: r.code ?? null,
        message: r.message ?? null,
        error: r.error ?? (searched && 'error' in searched ? searched.error : null),
        candidates: search
          ? search.candidates.map((c) => candidateJson(c, search.marks.get(c), search.unchecked.get(c), (r.held ?? r.refused)?.notOffered?.get(c)))
          : null,
        left_out: search ? Object.fromEntries(search.leftOut) : null,
        commands: r.held
          ? {
              made_by: r.held.madeBy,
              resend: r.held.resend ?? null,
              ...laterJson(r.held.later),
              ...(r.held.paidBy ? { paid_by: { payout_id: r.held.paidBy.owner, transaction_id: r.held.paidBy.txn, command: r.held.paidBy.command } } : {}),
            }
          : r.refused
            ? { made_by: r.refused.madeBy, ...laterJson(r.refused.later) }
            : r.resume
              ? { resume: r.resume }
              : r.command
                ? { ...(r.login ? { login: r.login } : {}), reconcile: r.command }
                : null,
        ...(r.action === 'other-profile' ? { sent_with_profile: r.sender ?? null } : {}),
        ...(r.cause !== undefined ? { cause: r.cause } : {}),
      };
    }),
    counts: { accepted: count('accepted'), rejected: count('rejected'), unknown: count('unknown'), damaged: damaged.length + more },
    // Entries that could not be read or verified, or are missing: their outcomes cannot be told (exit 2 when none is unknown).
    damaged,
  };
}

/** --json's `made_by_blocked`: the later payout that blocks `--made-by` and `--resend` (no made_by commands then, `resend` null), what to run about it first, and this reconcile after. */
function laterJson(later: Choices['later']): Record<string, unknown> {
  return later ? { made_by_blocked: { later_payout_id: later.payoutId, reason: later.said, advice: later.hint, then: later.again } } : {};
}

/** What a person reads for one entry (stdout: the result, with the commands to choose from). */
export function lines(r: ReconcileResult, entry: JournalEntry, inv: Invocation, now: Date): string {
  const id = text(r.payoutId);
  if (r.action === 'batch')
    return `unknown   ${id}  not resent: row ${entry.batch?.row ?? '?'} of batch "${text(entry.batch?.id)}", ${NO_OUTCOME}; its batch's resume sends it under the same key\n`;
  if (r.action === 'made-by') return `accepted  ${id}  recorded as made by transaction ${text(r.transactionId)}${r.status ? ` (${text(r.status)})` : ''}\n`;
  if (r.action === 'held') {
    if (r.error === INTERRUPTED) return `unknown   ${id}  interrupted while searching the payout list\n`;
    return `unknown   ${id}  not resent: ${sentShort(entry, now)}\n${indented(heldAdvice(entry, r.held!.search, inv, now, r.held))}\n`;
  }
  const how = 'resent with its journaled idempotency key';
  if (r.outcome === 'accepted') {
    // Only a replay says which attempt made it (the service marks it); otherwise either may have.
    const first = r.replayed === true ? '; the service gave its first answer again: the first attempt had been made' : '';
    return `accepted  ${id}  ${how}: transaction ${text(r.transactionId ?? '(none given)')}${r.status ? `, ${text(r.status)}` : ''}${first}\n`;
  }
  if (r.outcome === 'rejected') return `refused   ${id}  ${how}: ${text([r.code, r.message].filter(Boolean).join(': '))}; no payout was made\n`;
  if (r.error === INTERRUPTED) return `unknown   ${id}  ${how}: interrupted while the request was in flight\n`;
  if (r.refused) return `unknown   ${id}  ${how}: ${text(r.error)}\n${indented(refusedAdvice(entry, r.refused.search, inv, r.refused))}\n`;
  if (r.unrecorded) return `unknown   ${id}  ${how}: its answer could not be recorded (${text(r.error)})\n`;
  if (r.redirected) return `unknown   ${id}  ${how}: ${text(r.error)}\n`;
  if (r.walletRefused) return `unknown   ${id}  ${how}: ${text(r.error)}\n`;
  if (r.otherPayout) return `unknown   ${id}  ${how}: answered, but not about this payout (${text(r.error)})\n${indented(otherPayoutAdvice(entry, inv))}\n`;
  return `unknown   ${id}  ${how}: still no answer (${text(r.error)})\n`;
}

/**
 * What to do about a payout whose resend the service answered about another payout: running
 * reconcile again is likely to get the same answer (the same key), so its record is looked for in
 * the payout list, and recorded as made by its transaction id if one is it.
 */
function otherPayoutAdvice(entry: JournalEntry, inv: Invocation): string {
  return (
    `Its outcome is still unknown. The service was reached, and running reconcile again is likely to get the same answer (the service answers one key alike).\n` +
    `Look for its record among: ${findRecordCommand(entry, inv)}\n` +
    `If one is this payout, record it as made: run history reconcile with --payout-id ${text(entry.payoutId)} and --made-by followed by that record's transaction id.`
  );
}

/** The line of a payout another payctl was resolving (action `busy`): left unknown here. */
export function busyLine(r: ReconcileResult): string {
  return `unknown   ${text(r.payoutId)}  not resolved here: ${text(r.error)}; run reconcile again once it has finished\n`;
}

/** Advice under a result's line, indented to its message. */
function indented(advice: string): string {
  return advice
    .trimEnd()
    .split('\n')
    .map((l) => `          ${l}`)
    .join('\n');
}
