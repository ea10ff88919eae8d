/**
 * What a person is told to do about a payout whose outcome payctl cannot settle by itself (an
 * entry the 24-hour rule holds, a refused resend, a payout id the service says was used before):
 * the records of the payout list that could be it, and the commands to choose from, each of which
 * runs as printed: no `--made-by` and no `--resend` while a later payout of the same details blocks
 * them (later-twin.ts), what resolves that one first instead, as the refusals say it.
 */
import { commandLine, type Invocation } from '../config/command-line.js';
import { text } from '../output/text.js';
import type { JournalEntry } from './journal.js';
import { askedOf, candidateLine, judgeCandidate, leftOutLine, refusals, searchesAnyTime } from './candidate-fields.js';
import { accountForm, maskedWords } from './identity.js';
import type { PayoutRecord } from '../service/schemas.js';
import { sentClause } from './entry-age.js';
import type { CandidateSearch } from './candidate-search.js';
import type { LaterTwin } from './later-twin.js';
import type { TwinPaid } from './twin-paid.js';

/**
 * The candidates `--made-by` would take (offered), and those it would not, with why (notOffered):
 * judged by its own rule (candidate-fields.ts judgeCandidate, accountMustMatch: another account
 * than was sent, `AB11223344` for `0011223344`, is refused, though a search that decides keeps
 * it), and a masked account (`**3344`, only partly checked) while another candidate pays the
 * account as sent, and one the journal has as another payout's (`claimed`: --made-by refuses it).
 * Candidates payctl cannot check (`unchecked`) are neither: said apart.
 */
export function madeByOffers(
  entry: JournalEntry,
  search: CandidateSearch,
  claimed?: ReadonlyMap<string, string>,
): { offered: PayoutRecord[]; notOffered: Map<PayoutRecord, string> } {
  const asked = askedOf(entry.body);
  const notOffered = new Map<PayoutRecord, string>();
  const taken = search.candidates.filter((c) => {
    if (!c.transaction_id || search.unchecked.has(c)) return false;
    const problems = refusals(judgeCandidate(c, entry, asked, { anyTime: true, hardFacts: true, accountMustMatch: true }));
    if (problems.length) notOffered.set(c, `${problems.join('; ')}: --made-by takes only a record of the account sent`);
    // Already recorded as another payout (the journal's transaction ids): --made-by refuses it (probe D54, F6).
    const owner = claimed?.get(c.transaction_id);
    if (!problems.length && owner !== undefined && owner !== entry.payoutId) notOffered.set(c, `already recorded as payout ${text(owner)}`);
    return !notOffered.has(c);
  });
  const form = (c: PayoutRecord) => (asked?.account && c.recipient?.accountNumber ? accountForm(c.recipient.accountNumber, asked.account) : undefined);
  const exact = taken.find((c) => form(c) === 'same' || form(c) === 'form');
  const offered = taken.filter((c) => {
    if (!exact || form(c) !== 'masked') return true;
    const shown = maskedWords(c.recipient!.accountNumber!, text(c.recipient!.accountNumber!));
    notOffered.set(c, `${shown}, and ${text(exact.transaction_id)} pays the account as sent (${text(exact.recipient!.accountNumber!)})`);
    return false;
  });
  return { offered, notOffered };
}

/** What a person chooses from for an entry payctl will not resend on its own (choiceCommands). */
export interface Choices {
  madeBy: string[];
  /** The `--resend` command; absent while a later payout blocks it (`later`), or a twin's record may have paid it (`paidBy`). */
  resend?: string;
  /** A payout of the same details is recorded as made by a record that could be this one's (twin-paid.ts): its `--made-by` of that record, no `--resend`. */
  paidBy?: TwinPaid & { command: string };
  notOffered: Map<PayoutRecord, string>;
  /** A later payout blocks `--made-by` and `--resend` (neither printed): what resolves it first, then this reconcile again; `offered`: the candidates there are to record as made. */
  later?: LaterTwin & { offered: number };
}

/**
 * The two commands a person chooses from for an entry payctl will not resend on its own: one
 * `--made-by` per candidate it would take (madeByOffers), and `--resend`. While a later payout
 * blocks them (`later`: later-twin.ts laterTwin), neither is printed, as each would be refused:
 * what that refusal advises instead, and this reconcile again after it.
 */
export function choiceCommands(
  entry: JournalEntry,
  search: CandidateSearch | { error: string },
  inv: Invocation,
  claimed?: ReadonlyMap<string, string>,
  later?: LaterTwin,
  twin?: TwinPaid,
): Choices {
  const { offered, notOffered } = 'error' in search ? { offered: [], notOffered: new Map<PayoutRecord, string>() } : madeByOffers(entry, search, claimed);
  if (later) return { madeBy: [], notOffered, later: { ...later, offered: offered.length } };
  const madeBy = offered.map((c) => commandLine(inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId, '--made-by', c.transaction_id!]));
  // A twin's record may be its payment: recorded as paid by it in its place, never resent (probe R58a findings 1, 2).
  if (twin)
    return { madeBy, notOffered, paidBy: { ...twin, command: commandLine(inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId, '--made-by', twin.txn]) } };
  const resend = commandLine(inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId, '--resend']);
  return { madeBy, resend, notOffered };
}

/**
 * While a later payout blocks the entry's commands: `lead` (what cannot be done yet), why, what
 * resolves that one first (its reconcile, or where to see it), and the entry's reconcile after.
 */
export function laterLines(lead: string, later: LaterTwin): string {
  return `${lead} ${later.said}\n${later.hint}\nThen reconcile this payout again: ${later.again}\n`;
}

/** The `--made-by` commands offered (`If it is this payout, record it as made:`), or while a later payout blocks them, what resolves that one first; '' when neither. */
export function madeByLines(choices: Pick<Choices, 'madeBy' | 'later'>): string {
  const { madeBy, later } = choices;
  if (later) return later.offered ? laterLines(`If ${later.offered === 1 ? 'it is' : 'one of them is'} this payout, it cannot be recorded as made yet.`, later) : '';
  if (!madeBy.length) return '';
  return `If ${madeBy.length === 1 ? 'it is' : 'one of them is'} this payout, record it as made:\n${madeBy.map((c) => `  ${c}\n`).join('')}`;
}

/** The candidates not offered as made (madeByOffers), each with why; '' when none. */
export function notOfferedLines(notOffered: ReadonlyMap<PayoutRecord, string>): string {
  if (!notOffered.size) return '';
  let out = `Not offered as made (${notOffered.size === 1 ? 'this record' : 'these records'}):\n`;
  for (const [c, why] of notOffered) out += `  ${candidateLine(c)}\n    (${why})\n`;
  return out;
}

/**
 * What a person reads for an entry of unknown outcome the 24-hour rule holds (older than a day, or
 * dated in the future: entry-age.ts): why it was not resent, the candidates, and the commands to
 * choose from (each runs as printed).
 */
export function heldAdvice(
  entry: JournalEntry,
  search: CandidateSearch | { error: string },
  inv: Invocation,
  now: Date,
  choices: Choices = choiceCommands(entry, search, inv),
): string {
  const id = text(entry.payoutId);
  let out = `Payout ${id} ${sentClause(entry, now)} and no answer was read. The service may have forgotten its idempotency key after 24 hours, so payctl does not resend it on its own.\n`;
  const candidates = 'error' in search ? [] : search.candidates;
  if ('error' in search) out += `Searching the service's payout list for it failed: ${text(search.error)}\n`;
  else {
    const stopped = search.anyTime ? ', the search stopped before the end of the list' : ', the search stopped before a day before the first attempt was reached';
    const scope = `${search.read} record${search.read === 1 ? '' : 's'} of the payout list read${search.complete ? '' : stopped}`;
    const when = search.anyTime ? 'created at any time' : 'created since a day before the first attempt';
    // An entry a deciding search left unknown is judged as it judged (decide.ts): on amount and currency alone.
    const same = searchesAnyTime(entry) ? 'same amount and currency' : `same account, amount and currency${askedOf(entry.body)?.note ? ', same note' : ''}`;
    out += candidates.length
      ? `${candidates.length} payout${candidates.length === 1 ? '' : 's'} at the service could be it (${same}, ${when}; ${scope}):\n`
      : `No payout at the service matches it (${same}, ${when}; ${scope}).\n`;
    for (const c of candidates) {
      out += `  ${candidateLine(c)}\n`;
      const marks = search.marks.get(c);
      const unchecked = search.unchecked.get(c);
      if (marks) out += `    (could be it, though it differs: ${marks.join('; ')})\n`;
      if (unchecked) out += `    (cannot be checked, so not offered as made: ${unchecked.join('; ')})\n`;
    }
    const left = leftOutLine(search.leftOut);
    if (left) out += `  ${left}\n`;
    if (search.claimed) out += `  (${search.claimed} more matching record${search.claimed === 1 ? ' is' : 's are'} already recorded in the journal as other payouts.)\n`;
  }
  const { madeBy, resend, notOffered, later } = choices;
  // A later payout that may have paid it: neither --made-by nor --resend (both refused), but what resolves that one first.
  // Its words say it is not resent either.
  if (later) return out + (madeByLines(choices) || laterLines('It cannot be resent yet.', later)) + notOfferedLines(notOffered);
  out += madeByLines(choices);
  out += notOfferedLines(notOffered);
  if (choices.paidBy) return out + paidByLines(entry, choices.paidBy, madeBy.length > 0);
  out += `If ${madeBy.length ? 'none is' : 'it was not made'}, resend it with its journaled idempotency key and body (asks to confirm):\n  ${resend}\n`;
  return out;
}

/** A twin's record that may have paid the entry (Choices.paidBy): why it is not resent, and the command that closes it as paid by it. */
export function paidByLines(entry: JournalEntry, paidBy: NonNullable<Choices['paidBy']>, own: boolean): string {
  const id = text(entry.payoutId);
  return (
    `Payout ${text(paidBy.owner)}, of the same details, is recorded as made by transaction ${text(paidBy.txn)}, a record that could be this payout's: ${id} is not resent (that could pay the person twice).\n` +
    `If ${own ? 'none of the records above is' : 'it was not made on its own'}, record it as paid by that transaction in its place:\n  ${paidBy.command}\n`
  );
}
