/**
 * Rows a batch sent before, changed since in cells that make no other payment (docs/architecture.md,
 * "Identity"). What a row pays is its identity, note and metadata included: a spreadsheet that
 * re-saves the file reformats a date in a note ("2026-11-30" to "11/30/2026") or drops the zeros
 * of an employee number in a metadata cell, and every such row gets a new identity, so a resume
 * of the batch would pay it again.
 *
 * Caught within one batch: a row still to send (no entry of its own) whose wallet, account (as
 * compared: identity.ts comparedAccount, so an account re-typed `4410-0012-34` is caught too),
 * amount and currency (identity.ts, repeatKey) are those of a payout the batch sent before
 * (accepted and not known to have settled Failed, or of unknown outcome: one refused or settled
 * Failed paid nobody) that no row of the file is any more is most likely that
 * payout, changed. A row is the payout of its payout_id when the file gives one, else of the
 * id made from what it pays: so a payout_id changed since is caught too (a spreadsheet that
 * saves "00451" as the number 451; ids made by a formula from the row's place, then the file
 * sorted; a payout_id column emptied). An amount corrected in the file after its row was paid
 * is found by the account the batch paid (wallet, account, currency: Ledger.batchRows), which
 * would otherwise be paid both amounts; an account corrected after its row was paid, by the
 * row's every other payment cell (wallet, amount, currency, type, name, provider, note), which
 * would otherwise pay the payee twice. A batch named with --batch-id is one payroll whatever
 * file it is sent from: a spreadsheet's "Save As" (`pay (1).csv`) or a copy moved to another
 * folder is still that batch. Runs not named share the batch id `default` month after month, so there
 * the same file (its path: a spreadsheet saves where it opened) is compared, and for rows
 * without a payout_id, every batch run of the last day (ChangedRows); another file a month on
 * is new payouts. The file is refused (exit 2, nothing sent), each such row named with the
 * cells that differ and the payout it would pay again (a cell that differs only in Unicode
 * normalization, as a Mac may re-save a name, said as such). The look-ups are the ledger's
 * findInBatch and findRecentBatchRows, which read nothing for a batch never sent (from that
 * file) or when no batch was sent that day. Payouts of other batches that pay all the same, or
 * single payouts, are the repeat guard's (repeats.ts); leading zeros of the account or phone,
 * lost-digits.ts's.
 */
import { fieldProblem, rowProblem, type UsageError } from '../errors.js';
import { changedRefusal, type ChangedSaid } from './changed-refusal.js';
import { text } from '../output/text.js';
import { COLUMN_LABELS } from './batch-columns.js';
import { MAX_LISTED, ProblemList } from './batch-problems.js';
import { comparedAccount, comparedName, DEFAULT_BATCH_ID, looseAccount, payoutFingerprint, payoutIdSlipKey, repeatKeys, zeroKey } from './identity.js';
import { hash64, type BatchCheck } from './batch-source.js';
import { inRun } from './ledger/ledger.js';
import type { BatchRun, JournalEntry, Ledger } from './journal.js';
import { byRepeatKeys, countsForOtherBatches, paidWording, REPEAT_WINDOW_MS, settledFailed, shortTime } from './repeats.js';
import { payoutBody, type PayoutRequest } from './request.js';
import { describeChange, differences, onlyNormalization, readBody, type BodyCells } from './changed-cells.js';
import { formatAmount } from '../money/amount.js';

/** Whether a sorted array holds `v`, searched by halves. */
function holds(sorted: BigUint64Array, v: bigint): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = sorted[mid]!;
    if (at === v) return true;
    if (at < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * The payouts a file's rows are, by payout id: a row's payout_id when the file gives one, else
 * the id made from what it pays and the batch id (the first of identical rows). Sorted 64-bit
 * hashes, 8 bytes a row; a hash that matches is as good as the payout being there (a collision
 * only spares a row this check).
 */
export class FilePayouts {
  readonly #ids: BigUint64Array;

  /** `sortedIds`: hash64 of each row's payout id, sorted. */
  constructor(sortedIds: BigUint64Array) {
    this.#ids = sortedIds;
  }

  has(payoutId: string): boolean {
    return holds(this.#ids, hash64(payoutId));
  }

  /** The payouts of a plan. */
  static ofIds(payoutIds: readonly string[]): FilePayouts {
    return new FilePayouts(BigUint64Array.from(payoutIds, hash64).sort());
  }
}

/** The rows a file's rows are compared with: the batch's from any file, or for `default`, from this file (`path`, absolute). */
export function comparedRun(batchId: string, path: string): BatchRun {
  return batchId === DEFAULT_BATCH_ID ? { id: batchId, file: path } : { id: batchId };
}

/**
 * Since when a run of batch `batchId` is also compared with the rows of other batch runs (see
 * ChangedRows): for a run without --batch-id, the last REPEAT_WINDOW_MS before `now` (the
 * ledger's clock); a named run, never.
 */
export function comparedSince(batchId: string, now: Date): Date | undefined {
  return batchId === DEFAULT_BATCH_ID ? new Date(now.getTime() - REPEAT_WINDOW_MS) : undefined;
}

/**
 * Whether a row whose payout has this entry (or none) is checked (ChangedRows.check): one with
 * no entry, or whose payout was refused or found not made (a stopped run's row, never sent), or
 * a run without --batch-id journaled and recorded no outcome for (noOutcomeUnnamed). A row whose
 * payout may have been paid (outcome unknown) is its own payout, resumed under its key.
 */
export function stillUnpaid(earlier: JournalEntry | undefined): boolean {
  return earlier === undefined || earlier.outcome?.kind === 'rejected' || earlier.outcome?.kind === 'not-made' || noOutcomeUnnamed(earlier);
}

/**
 * A row a run without --batch-id journaled and recorded no outcome for: that run stopped before
 * it sent the row (the check while sending found another run paying it: paid-meanwhile.ts)
 * and its end was not recorded, or it was killed. Compared like a new row, since it was
 * journaled: another run that paid the same is most likely that row paid, and resumed under its
 * own key it was paid again (probe D54, F1: every row the other run paid, paid twice). Refused
 * then, it pays nothing more whether or not it left (history reconcile settles it).
 */
function noOutcomeUnnamed(e: JournalEntry): boolean {
  return e.outcome === undefined && e.batch?.id === DEFAULT_BATCH_ID;
}

/** A row as the check reads it; see ChangedRows.check. */
export interface CheckedRow {
  row: number;
  request: PayoutRequest;
  /** What it pays (identity.ts payoutFingerprint), when already made. */
  fingerprint?: string;
  derivedId: boolean;
  planned?: boolean;
  /** Its payout's entry, refused, not made or with no outcome (stillUnpaid); one not made or with no outcome is compared with the batches since it was journaled too, however long ago. */
  earlier?: JournalEntry | undefined;
}

/**
 * The rows of one run (batch `batchId` from the file at `path`, its absolute path) that are most
 * likely payouts sent before, changed since (see above), kept as problems, with the batches
 * that sent those payouts. A run without --batch-id (`recentSince` given: REPEAT_WINDOW_MS
 * before now) also has its rows without a payout_id compared with every batch run that
 * journaled a row since then, from any file and under any batch id: a copy of the file a
 * spreadsheet re-saved ("pay (1).csv") sent again the same day without its --batch-id is its
 * own batch's payouts, not new ones, whereas the next month's payroll in a new file is a month
 * later. A run named with --batch-id is compared with its own batch only: naming a run is how
 * new payouts are said to be new.
 */
export class ChangedRows {
  readonly problems = new ProblemList(MAX_LISTED);
  /** The batch ids of the payouts the problems' rows would pay again. */
  readonly #batches = new Set<string>();
  /** What the refusal says beside the rows (changed-refusal.ts). */
  readonly #said: ChangedSaid = { recent: false, amount: false, moved: false, normalization: false, retried: false, unsettled: false };
  /** This run's batch's rows by the account they paid (wallet, account, currency), and by payee as a spreadsheet may re-save the row (looseKey), read on first need. */
  #byAccount: Promise<ByAccount> | undefined;
  readonly #own: BatchRun;

  constructor(
    readonly journal: Ledger,
    readonly baseUrl: string,
    readonly run: { batchId: string; path: string; recentSince?: Date },
  ) {
    this.#own = comparedRun(run.batchId, run.path);
  }

  /**
   * Row `r`'s problem, kept, when it is most likely a payout sent before, changed since.
   * `file`: the payouts the file's rows are. `r.derivedId`: the file gives the row no payout_id
   * (its id is made from what it pays); `r.planned`: the row is a plan's payout, whose id the
   * plan holds (shown as its payout_id when no other cell differs).
   */
  async check(r: CheckedRow, file: BatchCheck['payouts']): Promise<void> {
    if (!file) return;
    const { journal, baseUrl, run } = this;
    const keys = repeatKeys(r.request);
    const recent = (since: Date) => byRepeatKeys(keys, (k) => journal.findRecentBatchRows(baseUrl, k, since));
    // A payout refused, or known to have settled Failed, paid nobody: the row changed since pays once.
    const candidate = (e: JournalEntry) => countsForOtherBatches(e) && !settledFailed(e) && e.payoutId !== r.request.payoutId && !file.has(e.payoutId);
    let sent =
      (await byRepeatKeys(keys, (k) => journal.findInBatch(baseUrl, k, this.#own))).filter(candidate).at(-1) ??
      (await this.#amountChanged(r.request, candidate)) ??
      (await this.#movedOrResaved(r.request, candidate));
    let accountOnly = false;
    if (!sent) {
      sent = await this.#accountChanged(r.request, candidate);
      accountOnly = sent !== undefined;
    }
    if (!sent && run.recentSince && r.derivedId) {
      // Only rows whose id is made from what they pay: a payout_id the file gives says which
      // payout a row is (a copy keeps it, and is found by it). A payout of another run that pays
      // all the same is the repeat guard's (repeats.ts): a named batch's rows run without their
      // --batch-id, said with the command that resumes it.
      const pays = r.fingerprint ?? payoutFingerprint(r.request);
      // A row its run journaled and never sent (or left with no outcome), compared since then: another run may have paid it meanwhile, however long ago.
      const stopped = r.earlier && (r.earlier.outcome?.kind === 'not-made' || noOutcomeUnnamed(r.earlier)) ? Date.parse(r.earlier.createdAt) : NaN;
      const since = stopped < run.recentSince.getTime() ? new Date(stopped) : run.recentSince;
      const others = (await recent(since)).filter((e) => candidate(e) && !inRun(e, this.#own));
      // A batch that paid every cell of the row makes it that batch's payout as it is, whatever
      // another batch paid the payee since with another note: the repeat guard's, with that batch's resume.
      if (others.some((e) => e.fingerprint === pays)) return;
      sent = others.filter((e) => e.fingerprint !== pays).at(-1);
      // Its account saved as a number in a copy ("payroll (1).csv"), or the copy's payee paid
      // before and the file with the zeros back sent now: looked up in its other forms of zeros
      // (identity.ts zeroKey: any number of them), the one rule of the repeat guard
      // (repeats.ts recentRepeats): compared as the account as written is, other cells changed or not,
      // the name too. Before, only the same name was taken, and a copy with its zeros dropped and
      // its payee's name edited passed the plan, stopped only once journaled (probe A53).
      sent ??= (await journal.findRecentBatchRows(baseUrl, zeroKey(r.request), since, 'zero'))
        .filter((e) => candidate(e) && !inRun(e, this.#own) && !keys.includes(e.repeatKey ?? ''))
        .at(-1);
      if (sent) this.#said.recent = true;
    } else if (!sent && run.recentSince && !r.planned) {
      // A payout_id the file gives, that another run of the last day sent in all but case and the
      // zeros a spreadsheet drops ("000451" saved as 451, in a copy saved under another name).
      const slip = payoutIdSlipKey(r.request.payoutId);
      sent = (await recent(run.recentSince)).filter((e) => candidate(e) && !inRun(e, this.#own) && payoutIdSlipKey(e.payoutId) === slip).at(-1);
      if (sent) this.#said.recent = true;
    }
    if (!sent) return;
    if (await this.#retriedBy(r, sent)) this.#said.retried = true;
    // Journaled with no answer recorded, or of unknown outcome: it may have been paid.
    if (sent.outcome === undefined || sent.outcome.kind === 'unknown') this.#said.unsettled = true;
    const changes = differences(sent, r.request);
    // A payout_id the file gives: the one sent was another ("00451" saved as a number: "451"). A
    // row without one that pays all the same: the payout_id the payout was sent with is gone (a
    // plan's payout: the plan's id is another).
    if (!r.derivedId) changes.unshift({ column: COLUMN_LABELS.payoutId, now: r.request.payoutId, then: sent.payoutId });
    else if (!changes.length) changes.push({ column: COLUMN_LABELS.payoutId, now: r.planned ? r.request.payoutId : undefined, then: sent.payoutId });
    const batch = sent.batch!;
    this.#batches.add(batch.id);
    const from = batch.file === run.path ? '' : ` of ${text(batch.file)}`;
    const which = inRun(sent, this.#own) ? 'this batch' : `batch "${text(batch.id)}"`;
    const paid = paidWording(sent, accountOnly ? paidWhat(sent) : changes.some((c) => c.column === COLUMN_LABELS.amount) ? 'this account' : 'the same');
    const where = `when payout ${sent.payoutId} ${paid} in ${which} (its row ${batch.row}${from}, ${shortTime(sent.createdAt)})`;
    const first = changes[0];
    if (!first) {
      this.problems.push(rowProblem(r.row, `pays what it paid ${where}`));
      return;
    }
    const said = changes.map((c) => `${c.column} ${describeChange(c)}`).join(', ');
    if (changes.some(onlyNormalization)) this.#said.normalization = true;
    this.problems.push(rowProblem(r.row, fieldProblem(first.column, `${text(said).slice(first.column.length + 1)} ${where}`, ' ')));
  }

  /**
   * Whether the row's own payment (all it pays: its fingerprint) was journaled before `sent` and
   * paid nobody (refused, or settled Failed), and `sent` was paid: `sent` is most likely its
   * retry (a --failed-out file corrected in review), which paid the payee. A new batch id would
   * pay the row again, so the refusal does not offer one.
   */
  async #retriedBy(r: CheckedRow, sent: JournalEntry): Promise<boolean> {
    const failed = (e: JournalEntry) => e.outcome?.kind === 'rejected' || settledFailed(e);
    if (failed(sent)) return false;
    const own = await this.journal.find(this.baseUrl, 'fingerprint', r.fingerprint ?? payoutFingerprint(r.request));
    return own.some((e) => e.payoutId !== sent.payoutId && failed(e) && e.createdAt <= sent.createdAt);
  }

  /**
   * A payout this run's batch sent to the row's wallet, account and currency at another amount,
   * that no row of the file is any more: most likely the row, its amount corrected in the file
   * since (1,200.00 made 1,250.00), which would otherwise pay the account both. Read through
   * Ledger.batchRows once, on the first row that needs it, and only for a batch sent before.
   */
  async #amountChanged(r: PayoutRequest, candidate: (e: JournalEntry) => boolean): Promise<JournalEntry | undefined> {
    const found = (await this.#rowsByAccount()).exact
      .get(accountKey(r.walletId, r.account, r.currency)!)
      ?.filter(candidate)
      .at(-1);
    if (found) this.#said.amount = true;
    return found;
  }

  /**
   * A payout this run's batch sent to the row's payee as a spreadsheet may have re-saved the row:
   * the same name (as compared: comparedName), amount and currency, to the account without its
   * form, leading zeros or digits past 15 (identity.ts looseAccount), from any of the wallets,
   * that no row of the file is any more: most likely the row, moved to another wallet or its
   * account re-saved with other cells (a note's date) changed beside it. Before, such a row was
   * paid again: the exact look-ups above key on the wallet and the account as compared. The name
   * and amount keep other payees apart (two accounts that differ in their zeros are two people).
   */
  async #movedOrResaved(r: PayoutRequest, candidate: (e: JournalEntry) => boolean): Promise<JournalEntry | undefined> {
    const { loose } = await this.#rowsByAccount();
    // A batch never sent (from this file) has no rows: no body made and read again for each row.
    if (!loose.size) return undefined;
    const amount = readBody(payoutBody(r)).amount ?? r.amount; // as the journaled bodies write it
    const found = loose
      .get(looseKey(r.account, r.currency, amount, r.name))
      ?.filter(candidate)
      .at(-1);
    if (found) this.#said.moved = true;
    return found;
  }

  /**
   * A payout this run's batch sent that the row equals in every payment cell but the account
   * (wallet, amount, currency, type, name, provider, note), that no row of the file is any more:
   * most likely the row, its account corrected in the file after it was paid (the edit most often
   * made to a payroll row), which would otherwise pay the payee twice. Two payees of other
   * accounts both in the file are two rows whose payouts the file still has: never taken for this.
   */
  async #accountChanged(r: PayoutRequest, candidate: (e: JournalEntry) => boolean): Promise<JournalEntry | undefined> {
    const { payee } = await this.#rowsByAccount();
    if (!payee.size) return undefined;
    const found = payee
      .get(payeeKey(readBody(payoutBody(r))))
      ?.filter(candidate)
      .at(-1);
    if (found) this.#said.moved = true;
    return found;
  }

  /** This run's batch's rows by the account they paid, through Ledger.batchRows once, on the first row that needs it (a batch sent before only). */
  #rowsByAccount(): Promise<ByAccount> {
    this.#byAccount ??= this.journal.batchRows(this.baseUrl, this.#own).then((rows) => {
      const exact = new Map<string, JournalEntry[]>();
      const loose = new Map<string, JournalEntry[]>();
      const payee = new Map<string, JournalEntry[]>();
      const add = (by: Map<string, JournalEntry[]>, k: string, e: JournalEntry) => {
        const of = by.get(k);
        if (of) of.push(e);
        else by.set(k, [e]);
      };
      for (const e of rows) {
        const b = readBody(e.body);
        const k = accountKey(b.walletId, b.account, b.currency);
        if (!k) continue;
        add(exact, k, e);
        if (b.amount !== undefined && b.name !== undefined) add(loose, looseKey(b.account!, b.currency!, b.amount, b.name), e);
        add(payee, payeeKey(b), e);
      }
      return { exact, loose, payee };
    });
    return this.#byAccount;
  }

  /** The batch ids of the payouts found, in the order found. */
  get batches(): string[] {
    return [...this.#batches];
  }

  /** The batches that sent the payouts found: `batch "nov"`, `batches "default" and "nov"`. */
  paidBy(): string {
    const ids = this.batches.map((id) => `"${text(id)}"`);
    return ids.length === 1 ? `batch ${ids[0]}` : `batches ${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;
  }

  /** The refusal of a file with such rows (exit 2), when there are; `nothing`: "Nothing was sent.", "No plan was written."; `ownBatch`: changed-refusal.ts. */
  refusal(path: string, nothing: string, ownBatch: string): UsageError | undefined {
    return changedRefusal(path, nothing, this.problems, this.paidBy(), this.#said, ownBatch);
  }
}

/** A batch's rows by what they paid (ChangedRows #rowsByAccount): the account (accountKey), the payee as re-saved (looseKey), every cell but the account (payeeKey). */
interface ByAccount {
  exact: Map<string, JournalEntry[]>;
  loose: Map<string, JournalEntry[]>;
  payee: Map<string, JournalEntry[]>;
}

/** Every payment cell of a body but the account and phone (see ChangedRows #accountChanged). */
function payeeKey(b: BodyCells): string {
  return JSON.stringify([b.walletId, b.currency, b.amount, b.type, b.name, b.provider, b.note ?? null]);
}

/** Whom and what a payout paid, as a refusal names it: `Fatmata Bangura 1,000.00 SLE`. */
function paidWhat(e: JournalEntry): string {
  const b = readBody(e.body);
  const amount = b.amount !== undefined && b.currency !== undefined ? `${formatAmount(b.amount, b.currency)} ${b.currency}` : '';
  return text([b.name, amount].filter(Boolean).join(' '));
}

/** A payee as a spreadsheet may have re-saved the row (see ChangedRows #movedOrResaved): account (looseAccount), currency, amount as the body writes it, name (comparedName). */
function looseKey(account: string, currency: string, amount: string, name: string): string {
  return JSON.stringify([looseAccount(account), currency, amount, comparedName(name)]);
}

/** The account a payout paid: its wallet, the recipient's account (as compared) and the currency (undefined when one is missing). */
function accountKey(walletId: string | undefined, account: string | undefined, currency: string | undefined): string | undefined {
  return walletId !== undefined && account !== undefined && currency !== undefined ? JSON.stringify([walletId, comparedAccount(account), currency]) : undefined;
}
