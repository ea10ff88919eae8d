/**
 * The repeat guard (docs/architecture.md, "Identity"): a payout that pays what one sent before
 * under another payout id paid is said before it is paid again. One rule, for `payout create`
 * and for `payout batch`:
 * - which earlier payouts count: those journaled in this config folder for the same service, and
 *   not refused by it (accepted, outcome unknown, journaled with no outcome recorded, or a row
 *   recorded not made, which its batch run again sends): a refused payout paid nobody;
 * - what is the same payout: a single payout typed again (without --payout-id) has the same
 *   wallet, recipient account (as compared: identity.ts comparedAccount, `4410-0012-34` is
 *   `4410001234`; an all-digit one also in its other forms of leading zeros: its zero
 *   key, identity.ts zeroKey), amount and currency (identity.ts, repeatKey; looked up by repeatKeys, so an
 *   entry of an earlier version is found too) and was sent within REPEAT_WINDOW_MS, or at any
 *   time while its outcome is unknown (it may have been made: recentRepeats); a batch row
 *   pays all the same (identity.ts, payoutFingerprint, with the account as compared:
 *   comparedFingerprint, whichever form each side wrote), at any time, its own batch's entries
 *   aside (those are duplicates, said as such);
 * - how earlier payouts are described: one by one (describeRepeat, true to each entry's state;
 *   those that paid named first: paidFirst) or by the batch run or kind of payout that sent them
 *   (RunTally, describeRun).
 * What is done about a repeat (asked at a terminal, refused without one) is the command's.
 */
import type { JournalEntry, Ledger, RunOptions } from './journal.js';
import { batchIdSlipKey, comparedFingerprint, DEFAULT_BATCH_ID, repeatKeys, zeroKey } from './identity.js';
import { comparedFingerprintOfBody, sentFields } from './sent-body.js';
import type { PayoutRequest } from './request.js';
import { idsAndMore, text } from '../output/text.js';
import { capitalized } from '../words.js';
import { futureDate, lastSentMs, span } from './entry-age.js';
import { isUnresolved } from './unresolved.js';

/** How far back a payout typed again (without --payout-id) is caught. */
export const REPEAT_WINDOW_MS = 24 * 60 * 60 * 1000;

/** An earlier payout counts as sent unless the service refused it (one found not made counts: its run, resumed, sends it). */
export function countsAsSent(e: JournalEntry): boolean {
  return e.outcome?.kind !== 'rejected';
}

/**
 * An earlier payout counts for another batch's rows (changed-rows.ts, paid-meanwhile.ts) as it
 * counts as sent, but for a row of a run without --batch-id found not made (the run stopped
 * before sending it): resumed, that row is compared with every batch run since it was
 * journaled (changed-rows.ts stillUnpaid), and refused if another paid it meanwhile. A named
 * batch's row is compared with its own batch only, and a single payout typed again is never
 * compared with batches: theirs still count.
 */
export function countsForOtherBatches(e: JournalEntry): boolean {
  return countsAsSent(e) && !(e.outcome?.kind === 'not-made' && e.batch?.id === DEFAULT_BATCH_ID);
}

/** A payout accepted and known to have settled Failed (the journal has its status, noted by a read): it paid nobody. */
export function settledFailed(e: JournalEntry): boolean {
  return e.outcome?.kind === 'accepted' && e.outcome.payoutStatus?.toLowerCase() === 'failed';
}

/**
 * `payout create`: payouts with this one's repeat key (same wallet, account as compared, amount
 * and currency), or with its account in another form of leading zeros, under another payout id,
 * not refused, oldest first: those sent in the 24 hours before `now` (the ledger's:
 * Ledger.now, the clock that dated them; by the last request that left, entry-age.ts lastSentMs:
 * a --resend of an old one starts its 24 hours again), and those of unknown outcome (lookup.ts isUnresolved:
 * journaled with no answer recorded, or unknown) however old, as long as the ledger holds their
 * entry. Such a payout may have been made, and a new payout id would pay it again: before, one
 * over 24 hours old was forgotten, and a payout typed again the next day was paid twice (probe
 * 53-H). An older one whose entry is gone (found by its look-up markers only, its outcome not
 * known here) is left to the guard of missing entries (blindRepeatGuard), as before. The
 * entries are those the repeat keys' look-up gives (their markers, or the shared ledger's
 * repeat_key column): never every entry of the journal.
 */
export async function recentRepeats(journal: Ledger, baseUrl: string, r: PayoutRequest, now: Date): Promise<JournalEntry[]> {
  const since = now.getTime() - REPEAT_WINDOW_MS;
  // The account in its other forms of leading zeros too (identity.ts zeroKey, one key for them
  // all): a batch row whose account a spreadsheet saved as a number paid the same account as one
  // typed with its zeros. Its repeat keys too: an earlier version's entry keyed by the account as
  // written (repeatKeys) has a zero key made from its body, which its own key may not be.
  const byZero = await journal.find(baseUrl, 'zero', zeroKey(r));
  const byRepeat = await byRepeatKeys(repeatKeys(r), (k) => journal.find(baseUrl, 'repeat', k));
  const seen = new Set(byZero.map((e) => e.payoutId));
  const all = byRepeat.some((e) => !seen.has(e.payoutId)) ? oldestFirst([...byZero, ...byRepeat.filter((e) => !seen.has(e.payoutId))]) : byZero;
  const found = all.filter((e) => e.payoutId !== r.payoutId && countsAsSent(e));
  const out: JournalEntry[] = [];
  for (const e of found) {
    if (lastSentMs(e) >= since) out.push(e);
    else if (isUnresolved(e) && (await journal.get(baseUrl, e.payoutId)) !== undefined) out.push(e);
  }
  return out;
}

/** What is said of a journal lost whole (journalGaps' `journalLost`), after its name: limits.ts, history.ts and the repeat guard say it alike. */
export const LOST_WHOLE =
  'was deleted whole or rolled back to an older backup, its index journal.index with it, while its key journal.key remains: entries of unknown number are missing';

/**
 * Why the repeat guard of a payout typed without --payout-id cannot see every payout this folder
 * sent to `baseUrl` (undefined when it can): the ledger's record of its entries (journalGaps)
 * names entries of that base URL that are gone (deleted, moved aside after a "damaged" refusal, a
 * folder restored from an older backup) and were not acknowledged (a payout sent with
 * --allow-repeat since), or could not be read; or the journal was lost whole or rolled back
 * (`journalLost`: entries of unknown number, of any base URL). One of them may be this very payout, and a new
 * payout id would pay it again: payout create refuses (exit 2) unless --allow-repeat says to send
 * it all the same. Entries of other base URLs, and of other profiles of this one, are not told
 * apart by the record's lines but by the name of their file: only the base URL is.
 */
export async function blindRepeatGuard(journal: Ledger, baseUrl: string): Promise<{ said: string; missing: boolean; lostWhole?: true } | undefined> {
  const gaps = await journal.journalGaps(baseUrl, { unacknowledged: 'repeat' });
  if (!gaps) return undefined;
  if (gaps.journalLost)
    return {
      said: `${capitalized(journal.called)} ${LOST_WHOLE}. ` + 'So payctl cannot tell whether this payout repeats one of them, and a new payout id would pay it again',
      missing: true,
      lostWhole: true,
    };
  if (!gaps.missing) return gaps.unread ? { said: `${gaps.unread} So payctl cannot tell whether this payout repeats one sent before.`, missing: false } : undefined;
  const one = gaps.missing === 1;
  return {
    said:
      `${gaps.missing} entr${one ? 'y' : 'ies'} of ${journal.called} for ${text(baseUrl)} ${one ? 'is' : 'are'} missing: ${idsAndMore(gaps.payoutIds, gaps.missing)} ` +
      `(deleted, moved aside or replaced by an older backup; its signed index, journal.index, names ${one ? 'it' : 'them'}). ` +
      `So payctl cannot tell whether this payout repeats ${one ? 'that one' : 'one of them'}, and a new payout id would pay it again`,
    missing: true,
  };
}

/**
 * The entries `find` gives for each of a payout's repeat keys (identity.ts repeatKeys: its own,
 * and the one an earlier version journaled for its account as written), oldest first as the
 * ledger orders them (by time journaled, then payout id). An entry carries one key: none comes twice.
 */
export async function byRepeatKeys(keys: readonly string[], find: (key: string) => Promise<JournalEntry[]>): Promise<JournalEntry[]> {
  if (keys.length === 1) return find(keys[0]!);
  return oldestFirst((await Promise.all(keys.map(find))).flat());
}

/**
 * `payout batch`, `plan create|show|send`: payouts that pay all that a row pays, sent at any time
 * under another payout id (other batches, plan rows, single payouts), not refused, oldest first.
 * `own` tells the batch's own entries (an identical row's other occurrence), which are not
 * repeats. Found by the row's `fingerprint` (what it pays, the account as written), and with its
 * `request` by what it pays with the account as compared (identity.ts comparedFingerprint), in
 * whatever form each side wrote the account (`0066-001-140` in one, `0066001140` in the other):
 * the entries of its repeat keys (identity.ts repeatKeys: the same wallet, account as compared,
 * amount and currency) whose journaled body pays that (sent-body.ts): a batch or plan row is
 * journaled with its fingerprint as written (its payout id is made from it). An entry of a
 * version before the repeat key compared accounts, keyed by its account as it wrote it, is found
 * by a row that writes it the same way.
 */
export async function samePayoutsSent(
  journal: Ledger,
  baseUrl: string,
  fingerprint: string,
  own: (e: JournalEntry) => boolean,
  request?: PayoutRequest,
): Promise<JournalEntry[]> {
  const counts = (e: JournalEntry) => countsAsSent(e) && !own(e);
  const sent = (await journal.find(baseUrl, 'fingerprint', fingerprint)).filter(counts);
  if (request === undefined) return sent;
  const found = new Set(sent.map((e) => e.payoutId));
  const pays = comparedFingerprint(request);
  // A single payout is journaled with what it pays as compared: its fingerprint says it, no body read.
  const alike = (await byRepeatKeys(repeatKeys(request), (k) => journal.find(baseUrl, 'repeat', k))).filter(
    (e) => !found.has(e.payoutId) && counts(e) && (e.fingerprint === pays || comparedFingerprintOfBody(e.body) === pays),
  );
  return alike.length ? oldestFirst([...sent, ...alike]) : sent;
}

/** A payout sent by payout create: no batch row, of this payctl or of payctl 0.1 (`batch-` ids). */
function isSingle(e: JournalEntry): boolean {
  return !e.batch && !e.payoutId.startsWith('batch-');
}

/** Entries in the ledger's order: by time journaled, then payout id. */
function oldestFirst(entries: JournalEntry[]): JournalEntry[] {
  return entries.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.payoutId < b.payoutId ? -1 : 1));
}

/**
 * The rows of a batch that repeat payouts sent before (samePayoutsSent): how many, and the runs
 * that sent them; and of those, the rows a named batch other than this one sent (most likely a
 * resume typed without its --batch-id).
 */
export class BatchRepeats {
  rows = 0;
  otherBatchRows = 0;
  readonly matched = new RunTally(true);
  readonly otherBatches = new RunTally(true);
  /** Rows that pay what a single payout (payout create) paid since `recentSince` (the first few by number), and those payouts. */
  recentSingleRows = 0;
  readonly recentSingleRowNumbers: number[] = [];
  readonly recentSingles = new RunTally(true);
  readonly #batchId: string;
  readonly #recentSince: number | undefined;

  /** `recentSince`: a run without --batch-id (changed-rows.ts comparedSince), whose rows single payouts of the last day refuse. */
  constructor(batchId: string, recentSince?: Date) {
    this.#batchId = batchId;
    this.#recentSince = recentSince?.getTime();
  }

  /** A row still to send (`row`: its number), with the payouts it repeats (none: not a repeat). */
  add(same: JournalEntry[], row?: number): void {
    if (!same.length) return;
    this.rows++;
    for (const e of same) this.matched.add(e);
    const others = same.filter((e) => e.batch && e.batch.id !== this.#batchId);
    if (others.length) {
      this.otherBatchRows++;
      for (const e of others) this.otherBatches.add(e);
    }
    const since = this.#recentSince;
    const singles = since === undefined ? [] : same.filter((e) => isSingle(e) && lastSentMs(e) >= since);
    if (singles.length) {
      this.recentSingleRows++;
      if (row !== undefined && this.recentSingleRowNumbers.length < 10) this.recentSingleRowNumbers.push(row);
      for (const e of singles) this.recentSingles.add(e);
    }
  }
}

/**
 * Rows of a run without --batch-id that pay all that a single payout typed in the last day
 * paid (`recentSingleRows`): `payout create` refuses that payout typed again after a batch row
 * (recentRepeats), and a payroll sent just after a colleague paid one of its people by hand
 * paid them twice. Refused alike, with how to pay them as new payouts; undefined when none.
 */
export function recentSinglesSaid(r: BatchRepeats): { rows: number; rowNumbers: number[]; runs: string } | undefined {
  if (!r.recentSingleRows) return undefined;
  return { rows: r.recentSingleRows, rowNumbers: r.recentSingleRowNumbers, runs: r.recentSingles.runs().map(describeRun).join('; ') };
}

/**
 * Rows a named batch already sent (`sent`: how many, and the runs; BatchPlan's or BatchRepeats'),
 * run again with no --batch-id (`given` undefined) or with that
 * name typed with a slip (other letter case, other separators: identity.ts batchIdSlipKey): most
 * likely a resume typed without its name or with a slip, which would pay them again as new
 * payouts. Which run it is (`named`), how many rows, and the runs as said; undefined otherwise.
 * payout batch and plan create refuse such a run alike.
 */
export function slippedBatch(
  sent: { otherBatchRows: number; otherBatches: EarlierRun[] },
  given: string | undefined,
): { named: string; run: EarlierRun; rows: number; runs: string } | undefined {
  const others = sent.otherBatches;
  if (!sent.otherBatchRows) return undefined;
  if (given === undefined) return { named: others[0]!.batchId!, run: others[0]!, rows: sent.otherBatchRows, runs: others.map(describeRun).join('; ') };
  const twin = others.find((o) => o.batchId !== undefined && o.batchId !== given && batchIdSlipKey(o.batchId) === batchIdSlipKey(given));
  if (!twin) return undefined;
  const how = twin.batchId!.toLowerCase() === given.toLowerCase() ? 'only in letter case' : 'only in letter case or in the separators - _ . :';
  return { named: twin.batchId!, run: twin, rows: twin.rows, runs: `${describeRun(twin)}, a batch id that differs from "${given}" ${how}` };
}

/**
 * "3 minutes ago (2026-11-22 20:10 UTC)", "5 hours ago (…)"; for a time after `now` (a clock that
 * was ahead dated it: entry-age.ts), "and dated in the future (2026-11-30 12:33 UTC, 2 days from now)".
 */
export function ago(from: string, now: Date): string {
  const ms = now.getTime() - Date.parse(from);
  if (!(ms >= 0)) return `and ${futureDate({ createdAt: from }, now)}`;
  return `${span(ms)} ago (${shortTime(from)})`;
}

/**
 * What a journal entry with no outcome is, said alike by payout create's repeat guard and
 * history reconcile: a claim journaled before its request was to leave, its run ended before an
 * outcome was recorded (killed, or stopped with Ctrl-C twice). The journal does not tell a claim
 * never sent (a batch journals rows ahead of its senders) from a request in flight: before,
 * payout create said "sent" and reconcile "no attempt recorded (it may never have left)" of the
 * same kind of entry, rows paid among them.
 */
export const NO_OUTCOME = 'no outcome recorded (its run ended before one was: it may or may not have been sent)';

/** An entry's state as the repeat guard says it, by its outcome. */
function stateSaid(e: JournalEntry): string {
  const o = e.outcome;
  if (o?.kind === 'accepted') return `accepted${o.transactionId ? `, transaction ${text(o.transactionId)}` : ''}`;
  if (o?.kind === 'unknown') return 'sent, outcome unknown';
  if (o?.kind === 'not-made')
    return e.batch
      ? `not sent: recorded not made ${shortTime(o.at)} (its run stopped before sending it), and its batch, run again, sends it`
      : `not made: recorded so ${shortTime(o.at)}`;
  if (o?.kind === 'rejected') return 'refused by the service';
  return NO_OUTCOME;
}

/**
 * "one sent from this config folder 3 minutes ago (same wallet, account, amount and currency): payout
 * id …, transaction …"; `sentFrom` is the ledger's (Ledger.sentFrom). `account`: the account as
 * typed now; one the earlier payout wrote otherwise (`4410001234` for `4410-0012-34`) is said.
 * `gone`: the entry was found by its look-up markers only, as first written (its outcome not
 * known here). Said as journaled, never "sent", when the entry has no outcome or was recorded not made: a
 * row its run never sent was said "sent, no answer recorded", and an operator whose check then
 * read "found not made" added --allow-repeat over the payout that had paid.
 */
export function describeRepeat(e: JournalEntry, now: Date, sentFrom = 'from this config folder', account?: string, gone = false): string {
  const verb = !gone && (e.outcome?.kind === 'accepted' || e.outcome?.kind === 'unknown') ? 'sent' : 'journaled';
  const batch = e.batch ? ` (row ${e.batch.row} of batch "${text(e.batch.id)}"${e.batch.file ? ` from ${text(e.batch.file)}` : ''})` : '';
  const then = account === undefined ? undefined : sentFields(e.body)?.fields.account || undefined;
  const written = then !== undefined && then !== account ? ` (written "${text(then)}" there)` : '';
  const again = lastSentMs(e) - Date.parse(e.createdAt) >= 3_600_000 ? ` and sent again ${ago(new Date(lastSentMs(e)).toISOString(), now)}` : '';
  return `one ${verb} ${sentFrom} ${ago(e.createdAt, now)}${again} with the same wallet, account${written}, amount and currency: payout id ${e.payoutId}${batch}, ${gone ? 'its outcome not known here' : stateSaid(e)}`;
}

/** The order the repeat guard names earlier payouts in: accepted (and not known failed) first, then those that may have been made, then the rest; newest first within each. */
export function paidFirst(entries: readonly JournalEntry[]): JournalEntry[] {
  const rank = (e: JournalEntry) => (e.outcome?.kind === 'accepted' ? (settledFailed(e) ? 3 : 0) : e.outcome === undefined || e.outcome.kind === 'unknown' ? 1 : 2);
  return [...entries].reverse().sort((a, b) => rank(a) - rank(b));
}

/** Where earlier payouts came from: one line per batch run or kind of payout. */
export interface EarlierRun {
  /** A batch run (with its id), a batch sent by payctl 0.1 (no id), or single payouts. */
  kind: 'batch' | 'legacy batch' | 'single';
  batchId: string | undefined;
  file: string | undefined;
  rows: number;
  first: string;
  last: string;
  /** A batch run's report and --concurrency, as its latest entry journaled them (its resume repeats them: batch-commands.ts). */
  options?: RunOptions;
}

/** The report and --concurrency an entry's batch run was given, when it journaled any (none for a single payout). */
function runOptionsOf(e: JournalEntry): RunOptions | undefined {
  const { report, concurrency } = e.batch ?? {};
  if (report === undefined && concurrency === undefined) return undefined;
  return { ...(report !== undefined ? { report } : {}), ...(concurrency !== undefined ? { concurrency } : {}) };
}

/** Journal entries tallied by the batch run that sent them (id and file). */
export class RunTally {
  readonly #runs = new Map<string, EarlierRun>();
  /** Only when one entry may come more than once (several rows matching one payout). */
  readonly #seen: Set<string> | undefined;

  constructor(dedupe = false) {
    this.#seen = dedupe ? new Set() : undefined;
  }

  add(e: JournalEntry): void {
    if (this.#seen?.has(e.payoutId)) return;
    this.#seen?.add(e.payoutId);
    const at = e.outcome?.at ?? e.createdAt;
    const kind = e.batch ? 'batch' : e.payoutId.startsWith('batch-') ? 'legacy batch' : 'single';
    const key = `${kind}\n${e.batch?.id ?? ''}\n${e.batch?.file ?? ''}`;
    const run = this.#runs.get(key);
    const options = runOptionsOf(e);
    if (!run) this.#runs.set(key, { kind, batchId: e.batch?.id, file: e.batch?.file, rows: 1, first: at, last: at, ...(options ? { options } : {}) });
    else {
      run.rows++;
      if (at < run.first) run.first = at;
      if (at >= run.last) {
        run.last = at;
        if (options) run.options = options;
        else delete run.options;
      }
    }
  }

  /** Oldest first. */
  runs(): EarlierRun[] {
    return [...this.#runs.values()].sort((a, b) => a.first.localeCompare(b.first));
  }
}

/** Where one earlier payout was sent, as describeRun says a run (`in batch "nov" from pay.csv on ...`). */
export function describeSentIn(e: JournalEntry): string {
  const run = new RunTally();
  run.add(e);
  return describeRun(run.runs()[0]!);
}

/**
 * What an earlier payout did with `what` ("the same", "this account"), as a refusal says it by
 * its outcome: `paid the same` when accepted; `may have paid the same (its outcome is unknown)`;
 * journaled with no answer recorded (its request may have left before a killed run recorded one:
 * the journal does not tell a claim never sent from one in flight): `was journaled for the same,
 * its outcome unknown (it may have been paid)`; found not made (a run stopped before sending it
 * records that, as does a search of the payout list): `was journaled for the same, not sent
 * yet`, never "paid" (an operator told so takes the row out, and nobody pays it). Before, a row
 * in flight at a SIGKILL was said "not sent yet", and sent again in a file of its own.
 */
export function paidWording(e: JournalEntry, what: string): string {
  const o = e.outcome;
  if (o === undefined) return `was journaled for ${what}, its outcome unknown (it may have been paid)`;
  if (o.kind === 'not-made') return `was journaled for ${what}, not sent yet`;
  if (o.kind === 'unknown') return `may have paid ${what} (its outcome is unknown)`;
  return `paid ${what}`;
}

/** "2026-11-22 20:10 UTC" */
export function shortTime(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
}

/** `in batch "march" from pay.csv on 2026-11-22 20:10 UTC`, `as single payouts (payout create) between ... and ...`. */
export function describeRun(r: EarlierRun): string {
  const when = r.first.slice(0, 16) === r.last.slice(0, 16) ? `on ${shortTime(r.first)}` : `between ${shortTime(r.first)} and ${shortTime(r.last)}`;
  if (r.kind === 'legacy batch') return `in a batch sent by an earlier payctl ${when}`;
  if (r.kind === 'single') return `as single payouts (payout create) ${when}`;
  return `in batch "${r.batchId}"${r.file ? ` from ${text(r.file)}` : ''} ${when}`;
}
