/**
 * Loading a batch before anything is sent, in three passes over the file's bytes, each
 * streaming its rows with their identity (batch-source.ts): check (no credentials needed),
 * plan (with the journal and the live balances) and send (rows handed to the batch runner
 * one at a time). Each row is looked up in the journal (under its id, else under the id an
 * earlier payctl derived for it): accepted in an earlier run of this batch (skipped), sent
 * before with other details (a conflict), or the same payout under another id (another batch,
 * a single payout) that a person should hear about before it is paid again (repeats.ts, the
 * repeat guard). Rows of one file that pay the same are grouped for the duplicate guard
 * (batch-duplicates.ts: accounts compared as the repeat guard compares them). Bounded:
 * problems are listed up to MAX_LISTED, the rest counted (batch-problems.ts); the check and
 * the plan stop when the run's signal is aborted.
 */
import type { Wallet } from '../service/schemas.js';
import { fieldProblem, LocalError, rowProblem, UsageError, type Problem } from '../errors.js';
import { COLUMN_LABELS } from './batch-columns.js';
import { fileProblems, listed, MAX_LISTED, ProblemList, ProblemsInOrder } from './batch-problems.js';
import { ALSO_USED, hash64, identifiedRows, rowsKey, type BatchCheck, type BatchSource, type IdentifiedRow } from './batch-source.js';
import { DEFAULT_BATCH_ID, DERIVED_ID, legacyDerivedPayoutId, repeatKey } from './identity.js';
import { groupsOf, lookAhead, lookAheadEntries, LOOKAHEAD } from './batch-lookahead.js';
import type { JournalEntry, Ledger } from './journal.js';
import { PlanBuilder, type PlanGroup } from './batch-plan.js';
import { BatchRepeats, recentSinglesSaid, RunTally, samePayoutsSent, type EarlierRun } from './repeats.js';
import { walletProblem } from './wallet-check.js';
import { isUnresolved } from './unresolved.js';
import { DigitColumns, restoredForms, restoredRefusal, RestoredRows, restoredSent, type RestoredForm } from './lost-digits.js';
import { ChangedRows, comparedSince, FilePayouts, stillUnpaid } from './changed-rows.js';
import { sentWithOtherDetails } from './changed-cells.js';
import { plural } from '../output/text.js';
import { payoutBody, type PayoutRequest } from './request.js';
import { DuplicateGroups, sameKey, type DuplicateGroup } from './batch-duplicates.js';
import { fingerprint64, Hashes } from './batch-hashes.js';
import { openAlike, PLAIN_SETTLE, UnsettledRepeats, type SettleCommands } from './unsettled-repeats.js';

// What the modules of a batch's loading offer, from the one module their callers know.
export { MAX_LISTED } from './batch-problems.js';
export { identifiedRows, openBatch, type BatchCheck, type BatchSource, type IdentifiedRow } from './batch-source.js';
export { describeRun, RunTally, type EarlierRun } from './repeats.js';
export { describeGroup, type DuplicateGroup } from './batch-duplicates.js';

export interface LoadedRow extends IdentifiedRow {
  /** This payout id's journal entry, from an earlier run. */
  earlier?: JournalEntry;
}

/**
 * Pass 1: every row checked; a UsageError lists every problem, saying `nothing` (what was not
 * done: "Nothing was sent.", for plan create "No plan was written."). Memory: 16
 * bytes a row (two 64-bit hashes: what it pays as compared, batch-duplicates.ts sameKey, and its
 * payout id), 24 with a payout_id given, whatever the file's size; what repeats is then
 * confirmed exactly on a second read of just those rows: rows identical as written (`duplicated`,
 * their occurrence part of their ids) and rows that pay the same as compared (`alike`).
 */
export async function checkBatch(src: BatchSource, nothing = 'Nothing was sent.'): Promise<BatchCheck> {
  const problems = new ProblemList(MAX_LISTED);
  const fingerprints = new Hashes();
  // The payout_ids the file gives, and every row's payout id (given, or made: the first of identical rows').
  const ids = new Hashes();
  const payouts = new Hashes();
  // What its rows without a payout_id pay to whom: locked by a run without --batch-id only (batch-source.ts rowsKey).
  const repeats = new Hashes();
  const columns = new DigitColumns();
  let rows = 0;
  for await (const r of identifiedRows(src, problems, undefined, false)) {
    rows++;
    columns.see(r.request);
    fingerprints.push(fingerprint64(sameKey(r)));
    const id = hash64(r.request.payoutId);
    payouts.push(id);
    if (!r.derivedId) ids.push(id);
    else if (src.batchId === DEFAULT_BATCH_ID) repeats.push(hash64(repeatKey(r.request)));
  }
  const idsTwice = ids.repeated();
  const candidates = fingerprints.repeated();
  const duplicated = new Set<string>();
  const alike = new Set<string>();
  let again: ProblemList | undefined;
  if (candidates.size || idsTwice.size) {
    const [written, compared] = [new Set<string>(), new Set<string>()];
    // Only the second pass's news: a payout_id used again (its other problems were counted above).
    again = new ProblemList(MAX_LISTED, (p) => p.message.includes(ALSO_USED));
    for await (const r of identifiedRows(src, again, { rows, duplicated: new Set(), alike: new Set(), idsTwice }, false)) {
      const same = sameKey(r);
      if (!candidates.has(fingerprint64(same))) continue;
      if (written.has(r.fingerprint)) duplicated.add(r.fingerprint);
      else written.add(r.fingerprint);
      if (compared.has(same)) alike.add(same);
      else compared.add(same);
    }
  }
  // In row order, as a person reads the file (problems of the file itself first): the first
  // MAX_LISTED of each pass hold the first MAX_LISTED of both.
  if (problems.total || again?.total) throw again ? fileProblems(src.path, nothing, problems, again) : fileProblems(src.path, nothing, problems);
  return { rows, duplicated, alike, idsTwice, lost: columns.lost(), payouts: new FilePayouts(payouts.sorted()), rowsKey: rowsKey(repeats.sorted()) };
}

/**
 * The journal entry of a row's payout id, if any. A row with a derived id that has none is
 * looked up under the ids earlier versions derived for it, and switched to the id it has
 * there, so that the batch they sent resumes under its entries (their keys, their bodies):
 * - `b-<32 hex>` (legacyDerivedPayoutId), from the same inputs as the UUID: the same payout
 *   by construction, so an entry there with other details is a conflict (nothing sent),
 *   never a reason to pay it again under the new id;
 * - payctl 0.1's file-and-row id, which another payout may have had: used only when its
 *   entry has this row's very details.
 */
async function lookUpRow(r: IdentifiedRow, journal: Ledger, baseUrl: string, batchId: string): Promise<LoadedRow> {
  const earlier = await journal.get(baseUrl, r.request.payoutId);
  if (earlier) return loaded(r, r.request, r.body || payoutBody(r.request), earlier);
  if (!r.derivedId) return r;
  const priorId = legacyDerivedPayoutId(batchId, r.fingerprint, r.occurrence);
  const prior = await journal.get(baseUrl, priorId);
  if (prior) {
    const request = { ...r.request, payoutId: priorId };
    return loaded(r, request, payoutBody(request), prior);
  }
  if (!r.legacyId) return r;
  const legacy = await journal.get(baseUrl, r.legacyId);
  if (!legacy) return r;
  const request = { ...r.request, payoutId: r.legacyId };
  const body = payoutBody(request);
  return journal.conflict(legacy, body) ? r : loaded(r, request, body, legacy);
}

/** A row with its earlier entry: one literal, not `{ ...r, earlier }`, whose every result has a shape of its own in Node 20's V8. */
function loaded(r: IdentifiedRow, request: PayoutRequest, body: string, earlier: JournalEntry): LoadedRow {
  return { row: r.row, request, body, fingerprint: r.fingerprint, derivedId: r.derivedId, occurrence: r.occurrence, legacyId: r.legacyId, earlier };
}

export interface BatchPlan {
  rows: number;
  toSend: number;
  alreadyAccepted: number;
  groups: PlanGroup[];
  /** Runs that accepted this batch's rows before (skipped now). */
  earlier: EarlierRun[];
  /** Rows still to send that pay the same as payouts sent under other ids. */
  matchRows: number;
  matched: EarlierRun[];
  /** Of those, the rows sent as new payouts, and the runs they pay the same as; the rest are resent under their own entry of unknown outcome (unsettled-repeats.ts). */
  newMatch: { rows: number; runs: EarlierRun[] };
  resentMatch: { rows: number; runs: EarlierRun[] };
  /** Rows still to send that a named batch other than this one already sent. */
  otherBatchRows: number;
  otherBatches: EarlierRun[];
  /** Rows of a run without --batch-id that pay what single payouts of the last day paid (repeats.ts). */
  recentSingles: { rows: number; rowNumbers: number[]; runs: string } | undefined;
  duplicates: DuplicateGroup[];
  /**
   * Batch ids under which rows accepted earlier were paid again (found for the first rows):
   * a name for paying the file again must be none of them, or it would pay nothing.
   */
  paidAgainAs: string[];
  /** Since when its rows were also compared with other runs' (changed-rows.ts comparedSince): a run without --batch-id. */
  recentSince: Date | undefined;
}

/** How many accepted rows are looked up by what they pay, for the batch ids that paid them again. */
const PAID_AGAIN_LOOKUPS = 20;

/** A row of unknown outcome this run's key sent whose wallet the run's wallets, as read, do not list: not a row to fix. */
export interface UnlistedRow {
  row: number;
  payoutId: string;
  walletId: string;
}

/** What planBatch is told of the run: `held`, a row another sender may have paid; `unlisted`, the error that stops the plan at UnlistedRows. */
export interface PlanRules {
  held?: (e: JournalEntry) => boolean;
  unlisted?: (rows: UnlistedRow[]) => Error;
}

/**
 * Pass 2: each row looked up in the journal and against the live balances; the plan. Throws a
 * UsageError (nothing sent) for rows sent before with other details, unknown wallets and currency
 * mismatches; first `rules.unlisted`'s error for rows of unknown outcome whose wallet is not listed.
 */
export async function planBatch(
  src: BatchSource,
  checked: BatchCheck,
  journal: Ledger,
  baseUrl: string,
  wallets: Wallet[],
  balancesCommand?: string,
  settle: SettleCommands = PLAIN_SETTLE,
  rules: PlanRules = {},
): Promise<BatchPlan> {
  const now = await journal.now();
  const recentSince = comparedSince(src.batchId, now);
  const p = new Planning(src, checked, journal, baseUrl, wallets, recentSince, now, balancesCommand);
  p.held = rules.held;
  p.unlisted = rules.unlisted ? [] : undefined;
  // The rows in groups: a ledger on a server looks a group up at once (Ledger.prefetch). What
  // the file's reading found is said in the order it would have been without the groups.
  const read = new ProblemsInOrder();
  async function* counted(): AsyncGenerator<IdentifiedRow> {
    for await (const identified of identifiedRows(src, read, checked, false)) {
      read.rows++;
      yield identified;
    }
  }
  for await (const group of groupsOf(counted(), LOOKAHEAD)) await p.group(group, read);
  read.flushTo(p.problems, Infinity);
  checked.absent = p.absent;
  // Rows that may have been paid are never said to be fixed: the run stops, of unknown outcome, first (probe R62 finding 3).
  if (p.unlisted?.length) throw rules.unlisted!(p.unlisted);
  if (p.conflicts.total) throw new UsageError(`${src.path}: ${plural(p.conflicts.total, 'row')} conflict with earlier payouts. Nothing was sent.`, listed(p.conflicts));
  if (p.restored.total) throw restoredRefusal(src.path, p.restored, 'Nothing was sent.', src.batchId);
  const changed = p.changed.refusal(src.path, 'Nothing was sent.', settle.ownBatch);
  if (changed) throw changed;
  const unsettled = p.unsettled.refusal(src.path, 'Nothing was sent.', settle, now);
  if (unsettled) throw unsettled;
  if (p.problems.total) throw fileProblems(src.path, 'Nothing was sent.', p.problems);
  return p.plan();
}

/** Pass 2's state: what the rows looked up so far make of the plan. */
class Planning {
  readonly problems = new ProblemList(MAX_LISTED);
  readonly conflicts = new ProblemList(MAX_LISTED);
  /** Rows that are payouts sent before, as a spreadsheet re-saved them (lost-digits.ts). */
  readonly restored = new RestoredRows();
  /** Rows this batch (or, without --batch-id, the last day's batches) sent before, changed since in cells that make no other payment (changed-rows.ts). */
  readonly changed: ChangedRows;
  /** Rows that pay what a payout of unknown outcome paid (refused), and rows resent under their own such entry. */
  readonly unsettled = new UnsettledRepeats();
  readonly absent = new Set<number>();
  readonly #byId: Map<string, Wallet>;
  readonly #plan: PlanBuilder;
  readonly #earlier = new RunTally();
  readonly #paidAgainAs = new Set<string>();
  #paidAgainLooked = 0;
  readonly #repeats: BatchRepeats;
  readonly #dups: DuplicateGroups;
  #rows = 0;
  #toSend = 0;
  /** Whether a journaled row was sent by another profile or key, or without its key's id (planBatch's `held`). */
  held: ((e: JournalEntry) => boolean) | undefined;
  /** Rows of unknown outcome whose wallet is not listed, when planBatch is to stop at them (PlanRules.unlisted). */
  unlisted: UnlistedRow[] | undefined;

  constructor(
    readonly src: BatchSource,
    readonly checked: BatchCheck,
    readonly journal: Ledger,
    readonly baseUrl: string,
    wallets: Wallet[],
    recentSince: Date | undefined,
    readonly now: Date,
    readonly balancesCommand?: string,
  ) {
    this.changed = new ChangedRows(journal, baseUrl, { batchId: src.batchId, path: src.file, recentSince });
    this.#byId = new Map(wallets.map((w) => [w.wallet_id, w]));
    this.#plan = new PlanBuilder(wallets);
    this.#repeats = new BatchRepeats(src.batchId, recentSince);
    this.#dups = new DuplicateGroups(checked.alike);
  }

  /** A group of rows: looked up at once where the ledger can, then each as before. */
  async group(rows: IdentifiedRow[], read: ProblemsInOrder): Promise<void> {
    if (!rows.length) return;
    const lost = this.checked.lost;
    const forms = lost ? rows.map((r) => restoredForms(r.request, lost)) : undefined;
    await lookAhead(this.journal, this.baseUrl, this.src, rows, forms, this.changed.run.recentSince);
    const first = read.rows - rows.length;
    for (const [i, r] of rows.entries()) {
      read.flushTo(this.problems, first + i);
      await this.row(r, forms?.[i]);
    }
  }

  async row(identified: IdentifiedRow, forms?: RestoredForm[]): Promise<void> {
    const { src, checked, journal } = this;
    this.#rows++;
    const r = await lookUpRow(identified, journal, this.baseUrl, src.batchId);
    if (!r.earlier) this.absent.add(r.row);
    const conflict = r.earlier && journal.conflict(r.earlier, r.body) ? r.earlier : undefined;
    // Still to send unless in conflict or accepted earlier: a group with such a row needs the duplicate guard.
    this.#dups.add(r, conflict === undefined && r.earlier?.outcome?.kind !== 'accepted');
    if (conflict) {
      this.conflicts.push(rowProblem(r.row, fieldProblem(COLUMN_LABELS.payoutId, `"${r.request.payoutId}" ${sentWithOtherDetails(conflict, r.request, r.body)}`, ' ')));
      return;
    }
    if (r.earlier?.outcome?.kind === 'accepted') {
      this.#earlier.add(r.earlier);
      if (this.#paidAgainLooked++ < PAID_AGAIN_LOOKUPS)
        for (const e of await journal.find(this.baseUrl, 'fingerprint', r.fingerprint)) if (e.batch && e.batch.id !== src.batchId) this.#paidAgainAs.add(e.batch.id);
      return;
    }
    this.#toSend++;
    // A row of unknown outcome another sender may have paid is left to it (its send says so, exit 4), never to be edited (probe 56-K finding 5).
    const unknown = r.earlier && isUnresolved(r.earlier) ? r.earlier : undefined;
    const bad = unknown && this.held?.(unknown) ? undefined : walletProblem(r.row, r.request, this.#byId, this.balancesCommand);
    // One this run's key may have paid, from a wallet the read does not list: not a row to fix (a new wallet id would pay it again).
    if (bad && unknown && this.unlisted && !this.#byId.has(r.request.walletId))
      this.unlisted.push({ row: r.row, payoutId: unknown.payoutId, walletId: r.request.walletId });
    else if (bad) this.problems.push(bad);
    this.#plan.add(r.request);
    // The same payout sent under another id (other batches, single payouts): the repeat guard.
    const own = (e: JournalEntry) => isOwnId(e, src, r);
    const same = await samePayoutsSent(journal, this.baseUrl, r.fingerprint, own, r.request);
    this.#repeats.add(same, r.row);
    this.unsettled.add(r.row, same, r.earlier, await openAlike(journal, this.baseUrl, r.request, this.now, own));
    // Its account or phone with the leading zeros or "+" a spreadsheet drops put back: a payout sent before is refused.
    if (forms?.length) await restoredSent(journal, this.baseUrl, r.row, r.request, forms, this.restored);
    // A row this batch sent before, its note, metadata or payout_id reformatted since: not paid again.
    if (stillUnpaid(r.earlier)) await this.changed.check(r, checked.payouts);
  }

  plan(): BatchPlan {
    return {
      rows: this.#rows,
      toSend: this.#toSend,
      alreadyAccepted: this.#rows - this.#toSend,
      groups: this.#plan.groups(),
      earlier: this.#earlier.runs(),
      matchRows: this.#repeats.rows,
      matched: this.#repeats.matched.runs(),
      newMatch: { rows: this.unsettled.newRows, runs: this.unsettled.again.runs() },
      resentMatch: { rows: this.unsettled.resentRows, runs: this.unsettled.resent.runs() },
      otherBatchRows: this.#repeats.otherBatchRows,
      otherBatches: this.#repeats.otherBatches.runs(),
      recentSingles: recentSinglesSaid(this.#repeats),
      duplicates: this.#dups.groups(),
      paidAgainAs: [...this.#paidAgainAs],
      recentSince: this.changed.run.recentSince,
    };
  }
}

/**
 * An entry of this very batch (same batch id and file, an identical row's other
 * occurrence, under a derived id of this version or an earlier one): not "the same payout
 * sent before" but a duplicate, reported as such.
 */
export function isOwnId(e: JournalEntry, src: BatchSource, r: IdentifiedRow): boolean {
  return e.payoutId === r.request.payoutId || (e.batch?.id === src.batchId && r.derivedId && e.batch.file === src.file && DERIVED_ID.test(e.payoutId));
}

/**
 * Pass 3: the rows to hand to the batch runner, one at a time, each with its earlier entry.
 * Not stopped by the run's signal (the runner stops taking rows and lets those in flight
 * finish) unless `interruptible`: a caller that only reads them (a plan made, a policy
 * checked) stops with InterruptedError, nothing sent. A ledger on a server is asked a group
 * of rows at a time: for the rows' entries, or with `ahead` (a caller that only reads), for
 * every look-up of the plan's checks (`recentSince`: changed-rows.ts comparedSince).
 */
export async function* batchRows(
  src: BatchSource,
  checked: BatchCheck,
  journal: Ledger,
  baseUrl: string,
  interruptible = false,
  ahead?: { recentSince: Date | undefined },
): AsyncGenerator<LoadedRow> {
  const problems: Problem[] = [];
  const rows = identifiedRows(src, problems, checked, true, interruptible);
  const present = (r: IdentifiedRow) => !checked.absent?.has(r.row);
  if (journal.prefetch) {
    const lost = checked.lost;
    for await (const group of groupsOf(rows, LOOKAHEAD)) {
      if (ahead) await lookAhead(journal, baseUrl, src, group, lost ? group.map((r) => restoredForms(r.request, lost)) : undefined, ahead.recentSince);
      else await lookAheadEntries(journal, baseUrl, src, group.filter(present));
      for (const r of group) yield present(r) ? await lookUpRow(r, journal, baseUrl, src.batchId) : r;
    }
  } else for await (const r of rows) yield present(r) ? await lookUpRow(r, journal, baseUrl, src.batchId) : r;
  // The file is read again while sending: a problem now means it was changed meanwhile.
  if (problems.length) {
    throw new LocalError(
      `${src.file} changed while payctl was sending it: ${problems[0]!.text}`,
      'Rows sent so far are in the journal and the report. Put the file back as it was and run the same command again: nothing is paid twice.',
    );
  }
}
