/**
 * How long ago a journaled payout was first sent, by the ledger's clock (ledgerNow, Ledger.now:
 * the clock that dated it), and the 24-hour rule that goes by it (README "The 24-hour rule"): a
 * service may forget an idempotency key after KEY_MEMORY_MS, so an entry of unknown outcome older
 * than that is never resent on its own. An entry dated after the ledger's clock by more than
 * FUTURE_TOLERANCE_MS was dated by a clock that was ahead: a machine's fast clock, its journal
 * imported into a shared ledger (`ledger import` keeps an entry's own time), or a machine whose
 * clock was set back since. How long ago it was sent cannot be told, so the rule takes it as it
 * takes an old one (held, its candidates listed, a person decides), and it is said to be dated
 * in the future, never "sent less than a minute ago".
 */
import { utcTime } from '../output/text.js';
import type { JournalEntry, Outcome } from './journal.js';

/** How long a service is trusted to remember an idempotency key (not documented: docs/service.md assumes a day). */
export const KEY_MEMORY_MS = 24 * 60 * 60 * 1000;

/**
 * How far after the ledger's clock an entry may be dated and still be taken at its time. The
 * ledger's clock read without asking it (ledgerNow: the run's clock moved by the skew last
 * measured) is off by up to a round trip, and by what the machine's clock was stepped since (a
 * clock kept by NTP is within a second): a payout this run journaled a moment ago must never
 * look dated in the future. Five minutes, as CLOCK_SKEW_MS (candidate-fields.ts): a candidate
 * search from an entry's time still reaches the first attempt of one this far ahead. Small
 * beside the 24 hours the rule keeps.
 */
export const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

type Dated = Pick<JournalEntry, 'createdAt'>;

/** How far after `now` the entry is dated (ms): 0 when it is not after, NaN when its time cannot be read. */
export function aheadOf(entry: Dated, now: Date): number {
  const t = Date.parse(entry.createdAt);
  return Number.isFinite(t) ? Math.max(0, t - now.getTime()) : NaN;
}

/** How long ago the entry was sent cannot be told: it is dated more than FUTURE_TOLERANCE_MS after `now`, or its time cannot be read. */
export function ageUnknown(entry: Dated, now: Date): boolean {
  return !(aheadOf(entry, now) <= FUTURE_TOLERANCE_MS);
}

/**
 * The 24-hour rule: may the service have forgotten the entry's idempotency key? Its first attempt
 * was more than KEY_MEMORY_MS before `now`, or how long ago it was cannot be told (ageUnknown).
 * Every resend that goes by the key alone asks this first (send.ts, history reconcile).
 */
export function keyMayBeForgotten(entry: Dated, now: Date): boolean {
  return ageUnknown(entry, now) || now.getTime() - Date.parse(entry.createdAt) > KEY_MEMORY_MS;
}

/**
 * When a request for the payout last left, as far as the journal tells (ms since the epoch): its
 * first attempt (createdAt), or later the answer to a send recorded since (an accepted outcome not
 * looked up, or an unknown one): `history reconcile --resend` of an entry over 24 hours old sends
 * it again, and if the service had forgotten its key that is a payout made now. The repeat
 * guard's 24 hours run from here (repeats.ts recentRepeats): before, they ran from the first
 * attempt, and a payout typed again just after such a resend was sent as a second payout (probe
 * 54-H finding 2). A look-up (`--made-by`, a read back) sends nothing: its time does not count,
 * and it keeps the time of the send before it (keepLastSent, `lastSent`): before, a `payout create
 * --payout-id X` rerun after such a resend ("Already submitted", read back) put the window back to
 * the first attempt, and the payout typed again was paid twice (probe 55-R finding 4).
 * The outcome is dated by the clock of the run that recorded it (a shared ledger's entry by the
 * database's, its outcome by the machine's).
 */
export function lastSentMs(entry: Pick<JournalEntry, 'createdAt' | 'outcome'>): number {
  const first = Date.parse(entry.createdAt);
  const o = entry.outcome;
  const at = o && ((o.kind === 'accepted' && !o.lookedUp) || o.kind === 'unknown') ? o.at : o?.kind === 'accepted' ? o.lastSent : undefined;
  const sent = at === undefined ? NaN : Date.parse(at);
  return Number.isFinite(sent) && !(sent <= first) ? sent : first;
}

/**
 * `outcome` as recorded over `entry`'s: a look-up (accepted, lookedUp) keeps, as `lastSent`, when a
 * request for the payout last left after its first attempt (lastSentMs), which it would otherwise
 * replace. Every store records through here (entries.ts withOutcome).
 */
export function keepLastSent(entry: Pick<JournalEntry, 'createdAt' | 'outcome'>, outcome: Outcome): Outcome {
  if (outcome.kind !== 'accepted' || !outcome.lookedUp || outcome.lastSent !== undefined) return outcome;
  const ms = lastSentMs(entry);
  return ms > Date.parse(entry.createdAt) ? { ...outcome, lastSent: new Date(ms).toISOString() } : outcome;
}

/** "25 h", "3 days": how long ago the entry's first attempt was (one not dated in the future). */
export function ageOf(entry: Dated, now: Date): string {
  const h = Math.floor((now.getTime() - Date.parse(entry.createdAt)) / 3_600_000);
  return h < 48 ? `${h} h` : `${Math.floor(h / 24)} days`;
}

/** "less than a minute", "3 minutes", "5 hours", "2 days": about how long. */
export function span(ms: number): string {
  if (ms < 60_000) return 'less than a minute';
  const min = Math.round(ms / 60_000);
  const [n, unit] = min < 90 ? [min, 'minute'] : min < 48 * 60 ? [Math.round(min / 60), 'hour'] : [Math.round(min / 1440), 'day'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** Whether the entry is dated after `now` at all, or at no time that can be read (texts: never "sent ... ago" about a time to come). */
function inFuture(entry: Dated, now: Date): boolean {
  return !(aheadOf(entry, now) <= 0);
}

/** "dated in the future (2026-11-30 12:33:47 UTC, 2 days from now)" (or "dated at a time that cannot be read (…)"). */
export function futureDate(entry: Dated, now: Date): string {
  const ahead = aheadOf(entry, now);
  if (Number.isNaN(ahead)) return `dated at a time that cannot be read (${utcTime(entry.createdAt)})`;
  return `dated in the future (${utcTime(entry.createdAt)}, ${span(ahead)} from now)`;
}

/**
 * What follows "Payout X" in a sentence ending "and no answer was read": "was first sent 25 h ago
 * (2026-11-27 10:00:00 UTC)", or "is dated in the future (…, 2 days from now), so when it was
 * first sent cannot be told,".
 */
export function sentClause(entry: Dated, now: Date): string {
  if (inFuture(entry, now)) return `is ${futureDate(entry, now)}, so when it was first sent cannot be told,`;
  return `was first sent ${ageOf(entry, now)} ago (${utcTime(entry.createdAt)})`;
}

/** For one line: "first sent 25 h ago", or "dated in the future (2 days from now)". */
export function sentShort(entry: Dated, now: Date): string {
  if (!inFuture(entry, now)) return `first sent ${ageOf(entry, now)} ago`;
  const ahead = aheadOf(entry, now);
  return Number.isNaN(ahead) ? 'dated at a time that cannot be read' : `dated in the future (${span(ahead)} from now)`;
}

/**
 * Why an entry the 24-hour rule holds is not resent: "its first attempt was more than 24 hours
 * ago", or "it is dated in the future (…), so when its first attempt was cannot be told".
 */
export function heldReason(entry: Dated, now: Date): string {
  return ageUnknown(entry, now) ? `it is ${futureDate(entry, now)}, so when its first attempt was cannot be told` : 'its first attempt was more than 24 hours ago';
}
