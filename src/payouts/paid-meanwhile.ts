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
import { repeatKeysAnyZeros } from './identity.js';
import type { BatchRun, JournalEntry, Ledger } from './journal.js';
import { countsForOtherBatches, shortTime } from './repeats.js';
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

/** A row this run was about to send that another run journaled meanwhile. */
export class PaidMeanwhile extends LocalError {
  constructor(
    readonly row: number,
    readonly other: JournalEntry,
  ) {
    const b = other.batch!;
    super(
      `Row ${row} pays what batch "${text(b.id)}" of ${text(b.file)} began paying at the same time (its row ${b.row}, journaled ${shortTime(other.createdAt)}): two versions of one payroll were being sent at once.`,
    );
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
  // written; with its account's other forms of leading zeros (a copy a spreadsheet saved as numbers).
  const keyed = rows.filter((r) => r.derivedId !== false && claimed(r.entry)).map((r) => ({ r, keys: repeatKeysAnyZeros(r.request) }));
  if (!keyed.length) return;
  const found = await journal.otherBatchRowsSince(baseUrl, [...new Set(keyed.flatMap((k) => k.keys))], c.since, c.own);
  // Rows refused, or not made by a run without --batch-id that stopped (resumed, they are compared again), pay nothing.
  const paying = found.filter((e) => countsForOtherBatches(e) && !c.holds(e.payoutId));
  for (const { r, keys } of keyed) {
    const other = paying.filter((e) => e.repeatKey !== undefined && keys.includes(e.repeatKey) && e.payoutId !== r.request.payoutId).at(-1);
    if (other) {
      c.stop.abort(new PaidMeanwhile(r.row, other));
      return;
    }
  }
}
