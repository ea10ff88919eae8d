/**
 * The comparison of changed-rows.ts made again while a run without --batch-id sends
 * (docs/architecture.md, "Identity"). Its plan compares its rows with every batch run of the
 * last day; two versions of one payroll that pay different sets of rows (the copy has a row
 * added, or one amount changed) lock different things (batch-lock.ts), so sent at the same
 * moment each planned before the other had journaled a row, and each paid the rows they share.
 *
 * So a group of rows, once journaled by the run (batch-feed.ts RowFeed) and before any of them
 * is sent, is looked for among the rows other batch runs journaled since the plan's window
 * began (Ledger.otherBatchRowsSince, read fresh): a row another run pays too stops this run.
 * Of two runs, at least one sees the other's row: each journals its row before it looks, and
 * the one that looks last sees the other's. Both may stop on the same row; neither then sends
 * it. The run takes no new rows; its rows journaled and not sent are recorded as not made
 * (never resent by history reconcile), and the rows it sent are paid once.
 */
import { LocalError } from '../errors.js';
import { text } from '../output/text.js';
import { comparedRun, stillUnpaid } from './changed-rows.js';
import { repeatKeys, zeroKey } from './identity.js';
import { entryZeroKey } from './sent-body.js';
import type { BatchRun, JournalEntry, Ledger } from './journal.js';
import { ago, countsForOtherBatches } from './repeats.js';
import type { PayoutRequest } from './request.js';

/** What a run without --batch-id is compared with while it sends, and the stop it is told through. */
export interface Contest {
  /** The run, as it is compared (changed-rows.ts comparedRun): its own rows never count. */
  own: BatchRun;
  /** The start of the plan's window: rows of other runs journaled since count. */
  since: Date;
  /** Whether a payout id is one of the run's own payouts (its file's or its plan's): that row is the same payout, not another's. */
  holds(payoutId: string): boolean;
  /** When the run began, by the ledger's clock: a row it journaled since, with no outcome yet, is its own claim (runBatch's `since`). */
  began: Date;
  /** Aborted with a PaidMeanwhile (or the failure of the look-up) when a row is found: the run takes no new rows. */
  stop: AbortController;
}

/**
 * The contest of a run of batch `batchId` from `path` that began at `began`, whose plan also
 * compared its rows with other runs' since `since` (changed-rows.ts comparedSince); none for a
 * named run, which its plan compared with its own batch only.
 */
export function contestOf(batchId: string, path: string, o: { since: Date | undefined; began: Date; holds: (payoutId: string) => boolean }): Contest | undefined {
  return o.since && { own: comparedRun(batchId, path), since: o.since, holds: o.holds, began: o.began, stop: new AbortController() };
}

/**
 * A row this run was about to send that another run journaled, said by what that run's entry
 * is now: paid, maybe paid, journaled with no outcome yet (that run may still be sending it, or
 * was killed), or not sent yet. Before, every case was "began paying at the same time ... two
 * versions of one payroll were being sent at once", also of a run that had finished minutes
 * before, and the same file run again stopped the same way, told the same.
 */
export class PaidMeanwhile extends LocalError {
  constructor(
    readonly row: number,
    readonly other: JournalEntry,
    now: Date,
  ) {
    const b = other.batch!;
    const o = other.outcome;
    const its = `its row ${b.row}, journaled ${ago(other.createdAt, now)}`;
    const head = `Row ${row} pays what batch "${text(b.id)}" of ${text(b.file)}`;
    super(
      o?.kind === 'accepted'
        ? `${head} paid (${its}, accepted): this row repeats a payout made.`
        : o?.kind === 'unknown'
          ? `${head} may have paid (${its}, outcome unknown): this row may repeat a payout made.`
          : o?.kind === 'not-made'
            ? `${head} journaled and has not sent (${its}; that batch, run again, sends it).`
            : `${head} journaled too (${its}, no outcome recorded yet): that run may still be sending it, or was killed.`,
    );
  }

  /**
   * What resolves the stop (`reconcile`: the history reconcile command, as printed for the run):
   * the same file run again stops the same way while that row is in it and the other's payout stands.
   */
  advice(reconcile: string): string {
    const o = this.other.outcome;
    if (o?.kind === 'accepted')
      return `If row ${this.row} is that payment, take it out of this file (and any other row that run paid), then run the file again; if it is a second payment meant, send it in a file of its own with a --batch-id of its own.`;
    if (o?.kind === 'unknown' || o === undefined)
      return `Once that run has ended, settle what it left unknown with ${reconcile}; then run again the file you mean to pay. A row the other run paid stops it again: take that row out of this file.`;
    return `Run again the file you mean to pay; a row that other batch is to pay stops this one again: take it out of this file, or send it with that batch.`;
  }
}

/**
 * Looks for the rows of a group this run journaled among what other batch runs journaled since
 * the contest's window began; stops the run with the first found. Passed over, as the plan
 * passes them over: rows whose payout_id the file gives (`derivedId` false), the same payout
 * wherever they are sent; and rows an earlier run may have paid (an unknown outcome resumed
 * under its key), their payout's own. Looked at: this run's claims, and rows an earlier run
 * journaled and never sent (changed-rows.ts stillUnpaid).
 */
export async function checkMeanwhile(
  journal: Ledger,
  baseUrl: string,
  c: Contest,
  rows: Array<{ row: number; request: PayoutRequest; derivedId?: boolean; entry: JournalEntry }>,
): Promise<void> {
  const claimed = (e: JournalEntry) => (e.outcome === undefined && Date.parse(e.createdAt) >= c.began.getTime()) || stillUnpaid(e);
  // Each row's repeat keys (identity.ts repeatKeys): a run of an earlier version journals its account as
  // written; and its zero key: its account in any other form of leading zeros (a copy a spreadsheet saved as numbers).
  const keyed = rows.filter((r) => r.derivedId !== false && claimed(r.entry)).map((r) => ({ r, keys: repeatKeys(r.request), zero: zeroKey(r.request) }));
  if (!keyed.length) return;
  const found = await journal.otherBatchRowsSince(baseUrl, [...new Set(keyed.flatMap((k) => k.keys))], c.since, c.own, [...new Set(keyed.map((k) => k.zero))]);
  // Rows refused, or not made by a run without --batch-id that stopped (resumed, they are compared again), pay nothing.
  const paying = found.filter((e) => countsForOtherBatches(e) && !c.holds(e.payoutId));
  for (const { r, keys, zero } of keyed) {
    const pays = (e: JournalEntry) => (e.repeatKey !== undefined && keys.includes(e.repeatKey)) || entryZeroKey(e) === zero;
    const other = paying.filter((e) => pays(e) && e.payoutId !== r.request.payoutId).at(-1);
    if (other) {
      c.stop.abort(new PaidMeanwhile(r.row, other, await journal.now()));
      return;
    }
  }
}
