/**
 * What a person is told to do about a payout whose outcome payctl cannot settle by itself (an
 * entry the 24-hour rule holds, a refused resend, a payout id the service says was used before):
 * the records of the payout list that could be it, and the commands to choose from, each of which
 * runs as printed.
 */
import { commandLine, type Invocation } from '../config/command-line.js';
import { text } from '../output/text.js';
import type { JournalEntry } from './journal.js';
import { askedOf, candidateLine, leftOutLine, searchesAnyTime } from './candidate-fields.js';
import { sentClause } from './entry-age.js';
import type { CandidateSearch } from './lookup.js';

/** The two commands a person chooses from for an entry payctl will not resend on its own: one `--made-by` per candidate it can check, and `--resend`. */
export function choiceCommands(entry: JournalEntry, search: CandidateSearch | { error: string }, inv: Invocation): { madeBy: string[]; resend: string } {
  const found = 'error' in search ? undefined : search;
  const madeBy = (found?.candidates ?? [])
    .filter((c) => c.transaction_id && !found?.unchecked.has(c))
    .map((c) => commandLine(inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId, '--made-by', c.transaction_id!]));
  return { madeBy, resend: commandLine(inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId, '--resend']) };
}

/**
 * What a person reads for an entry of unknown outcome the 24-hour rule holds (older than a day, or
 * dated in the future: entry-age.ts): why it was not resent, the candidates, and the commands to
 * choose from (each runs as printed).
 */
export function heldAdvice(entry: JournalEntry, search: CandidateSearch | { error: string }, inv: Invocation, now: Date): string {
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
  const { madeBy, resend } = choiceCommands(entry, search, inv);
  if (madeBy.length) {
    out += `If ${madeBy.length === 1 ? 'it is' : 'one of them is'} this payout, record it as made:\n`;
    for (const c of madeBy) out += `  ${c}\n`;
  }
  out += `If ${madeBy.length ? 'none is' : 'it was not made'}, resend it with its journaled key and body (asks to confirm):\n  ${resend}\n`;
  return out;
}
