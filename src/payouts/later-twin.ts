/**
 * A "later twin" of a payout P of unknown outcome: a payout journaled after P that pays what P
 * pays (same base URL, same body but its payout id), typed again by someone, and that may have paid
 * the person (its outcome unknown; for a P a search that decides held, accepted too). While there is
 * one, P is neither recorded as made (`history reconcile --made-by`: the transaction named may be
 * the later one's) nor resent on request (`--resend`: if the later one was made and P was not, P
 * would pay the person a second time), and no advice prints either command (held-advice.ts
 * choiceCommands, create-used-before.ts): the later payout is resolved first, then P's reconcile
 * runs again (once it is recorded as made by the one record there is for the two, P is recorded as
 * not made, paid in its place: commands/history/reconcile-twin-pair.ts). The one rule, used by
 * every refusal and every piece of advice (README, "history reconcile").
 */
import { ApiError, UsageError } from '../errors.js';
import { commandLine, type Invocation } from '../config/command-line.js';
import { text } from '../output/text.js';
import type { JournalEntry, Ledger } from './journal.js';
import { findRecordCommand, isUnresolved } from './lookup.js';
import { describeOutcome } from './history-lines.js';
import { settleHint } from './reconcile-hint.js';

/**
 * A payout journaled after an entry that pays what it pays and may have paid it (laterTwin): what
 * the refusals say (`said`) and advise (`hint`: the later payout's reconcile, or where to see it;
 * `again`: the entry's own reconcile, to run after).
 */
export interface LaterTwin {
  payoutId: string;
  said: string;
  hint: string;
  again: string;
}

/**
 * Entries of `p`'s base URL that pay what `p` pays (its fingerprint), under other payout ids. Never
 * rows of `p`'s own batch run (its batch id and file): identical rows of one file, confirmed with
 * --allow-duplicates, are two payments intended, not one typed twice, and neither is closed as paid
 * by the other's record (probe R58a finding 3: row 2's --made-by recorded row 1, made, as not made).
 */
export async function samePayments(journal: Ledger, p: JournalEntry): Promise<JournalEntry[]> {
  if (!p.fingerprint) return [];
  const sameRun = (e: JournalEntry) => p.batch !== undefined && e.batch?.id === p.batch.id && e.batch.file === p.batch.file;
  return (await journal.find(p.baseUrl, 'fingerprint', p.fingerprint)).filter((e) => e.payoutId !== p.payoutId && !sameRun(e) && withoutId(e.body) === withoutId(p.body));
}

/** How every "sent instead" message ends, before the payout's id and ` instead` (create-replaces.ts recordSentInstead). */
export const AND_SENT = ', and it was sent as payout ';

/** The payout `p` was sent as instead, when it is recorded so (recordSentInstead: its id used for another, or its twin's record paid it). */
export function sentInsteadOf(p: JournalEntry): string | undefined {
  const o = p.outcome;
  if (o?.kind !== 'rejected' || !o.message.startsWith('not made: ') || !o.message.endsWith(' instead')) return undefined;
  const at = o.message.indexOf(AND_SENT);
  return at < 0 ? undefined : o.message.slice(at + AND_SENT.length, -' instead'.length);
}

/**
 * A payout recorded as sent as another instead (sentInsteadOf), met by a batch or plan resume (or
 * any send of its entry): never sent again, its journaled refusal its result. Before, a resume sent
 * it as any refused row is sent again under its key: a day later, a service that has forgotten the
 * key pays it a second time (probe R58a finding 3).
 */
export function paidInsteadError(p: JournalEntry): ApiError | undefined {
  const instead = sentInsteadOf(p);
  const o = p.outcome;
  if (!instead || o?.kind !== 'rejected') return undefined;
  return new ApiError(`${o.message}; it is not sent again (payout ${instead} paid it)`, { status: o.status, ...(o.code ? { code: o.code } : {}) });
}

/**
 * For payout `p` (held by its lock), its outcome unknown (or none recorded): a payout journaled
 * after it that pays what it pays, under another id, and may have paid it (its outcome unknown,
 * none yet, or accepted; for a P not held by a search that decides, accepted only without a
 * transaction id): its printed P-2, that one's own P-2-2, or any id a person chose to send it under
 * (README, "history reconcile"). Before, only a P held by a search that decides (`anyTime`: its id
 * used before) was checked, and a P lost as any answer is lost was recorded as made by the
 * transaction its later twin made (probe 54-H finding 3). No payout of the same details is sent
 * after an unknown one but under an id given (payout create's repeat guard refuses the retype,
 * --allow-repeat or not; a batch row is refused whatever its batch id).
 */
export async function replacementOf(journal: Ledger, p: JournalEntry): Promise<JournalEntry | undefined> {
  if (!isUnresolved(p)) return undefined;
  const held = p.outcome?.kind === 'unknown' && p.outcome.anyTime === true;
  const after = (e: JournalEntry) => Date.parse(e.createdAt) >= Date.parse(p.createdAt);
  // Sent in P's place (P held), any that may have paid it; else only one whose own transaction is not
  // known (unknown, or made under another key): one accepted with its transaction is that payout, and
  // P's --made-by naming that transaction is refused as recorded for it (P is not stranded for good).
  const mayHavePaid = (e: JournalEntry) =>
    held ? e.outcome?.kind !== 'rejected' && e.outcome?.kind !== 'not-made' : isUnresolved(e) || (e.outcome?.kind === 'accepted' && !e.outcome.transactionId);
  return (await samePayments(journal, p)).find((e) => after(e) && mayHavePaid(e));
}

/** The later twin of `entry` (replacementOf), in the words every refusal and piece of advice says it; undefined when there is none. */
export async function laterTwin(journal: Ledger, entry: JournalEntry, now: Date, inv: Invocation): Promise<LaterTwin | undefined> {
  const instead = await replacementOf(journal, entry);
  if (!instead) return undefined;
  const p = text(entry.payoutId);
  return {
    payoutId: instead.payoutId,
    said: `Payout ${text(instead.payoutId)}, journaled after payout ${p}, pays what it pays (its outcome: ${describeOutcome(instead)}): sent in its place, it may have paid it, so ${p} is neither recorded as made as well nor resent (that would pay it twice).`,
    hint: becameOfHint(instead, now, inv),
    again: commandLine(inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId]),
  };
}

/**
 * `--made-by` or `--resend` of `entry` while a later twin may have paid it: refused (exit 2), in
 * the same words for both, `nothing` saying what was not done (`Nothing was recorded.`, `Nothing was
 * sent.`), with what resolves the later payout first and the entry's reconcile to run after.
 */
export async function refuseLaterTwin(journal: Ledger, entry: JournalEntry, now: Date, inv: Invocation, nothing: string): Promise<void> {
  const later = await laterTwin(journal, entry, now, inv);
  if (later) throw new UsageError(`${later.said} ${nothing}`, [], `${later.hint}\nThen reconcile payout ${text(entry.payoutId)} again: ${later.again}`);
}

/** The command that shows what became of `entry` (a payout sent in place of another), by its journaled state. */
function becameOfHint(entry: JournalEntry, now: Date, inv: Invocation): string {
  const name = `payout ${text(entry.payoutId)}`;
  if (isUnresolved(entry)) return `Its outcome is unknown: ${settleHint(entry, now, inv, name)}`;
  const o = entry.outcome;
  if (o?.kind === 'accepted' && o.transactionId) return `See what became of it with: ${commandLine(inv, ['payout', 'get', entry.payoutId])}`;
  // Made before under another key, its answer naming no transaction: its record is in the payout list.
  if (o?.kind === 'accepted') return `It was made before under another key and its answer named no transaction; its record is among: ${findRecordCommand(entry, inv)}`;
  return `See it with: ${commandLine(inv, ['history'])}`;
}

/** A request body without its payout id, to compare two payouts' bodies (undefined when it is not JSON). */
function withoutId(body: string): string | undefined {
  try {
    const o = JSON.parse(body) as Record<string, unknown>;
    delete o.payoutId;
    return JSON.stringify(o);
  } catch {
    return undefined;
  }
}
