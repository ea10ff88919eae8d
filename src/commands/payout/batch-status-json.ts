/**
 * `payout batch status`'s findings (what the rows came to, batch-status.ts) and its `--json`
 * document: the counts, the totals, the Failed, unread and contradicted rows, and the commands to
 * run next (`retry_command` once --failed-out wrote a file; `failed_out_command`, without
 * --failed-out, the one that writes the Failed rows: batch-failed-out-hint.ts).
 */
import { batchFileRow, jsonRow, statusTotals, type ReportEntry, type RowState } from '../../payouts/batch-status.js';
import type { Contradicted } from './batch-contradicted.js';

/** What the rows came to, for the output and the exit code. */
export interface Found {
  all: RowState[];
  failed: Array<{ e: ReportEntry; i: number; s: RowState }>;
  pendingRows: number;
  oddWords: Array<{ e: ReportEntry; s: RowState }>;
  contradicted: Contradicted[];
  unread: Array<{ row: string; payout_id: string; transaction_id: string | null; problem: string }>;
}

/** What the document says of the run besides its findings. */
export interface StatusFacts {
  batchId: string | undefined;
  rows: number;
  accepted: number;
  /** Rows the report has as unknown, still unknown. */
  unknown: number;
  failedOut: string | undefined;
  /** The command that sends the --failed-out file, when one was written. */
  retry: string | undefined;
  /** What --failed-out wrote. */
  written: { failed: number; rejected: number };
  /** Without --failed-out, rows Failed: the run again with a --failed-out (batch-failed-out-hint.ts). */
  failedOutCommand: string | undefined;
}

/** The --json document. */
export function statusJson(path: string, f: Found, r: StatusFacts): object {
  return {
    report: path,
    batch_id: r.batchId ?? null,
    rows: r.rows,
    accepted: r.accepted,
    successful: f.all.filter((s) => s.bucket === 'Successful').length,
    failed: f.failed.length,
    pending: f.pendingRows,
    unknown_status: f.oddWords.length,
    contradicted: f.contradicted.length,
    unread: f.unread.length,
    unknown: r.unknown,
    totals: statusTotals(f.all),
    failed_rows: f.failed.map(({ e, s }) => ({
      row: jsonRow(e.row),
      payout_id: e.payoutId,
      transaction_id: s.record.transaction_id ?? null,
      amount: batchFileRow(s.record).amount,
      currency: s.record.currency,
      failure_reason: s.failureReason || null,
    })),
    unread_rows: f.unread.map((u) => ({ ...u, row: jsonRow(u.row) })),
    contradicted_rows: f.contradicted.map((c) => ({
      row: jsonRow(c.e.row),
      payout_id: c.e.payoutId,
      transaction_id: c.transactionId,
      read_before: c.failedBefore ? 'Failed' : 'Successful',
      status: c.s.status,
    })),
    failed_out: r.retry !== undefined ? r.failedOut : null,
    retry_command: r.retry ?? null,
    // What --failed-out wrote: Failed rows (those a retry paid since left out) and rejected ones.
    failed_out_rows: r.retry !== undefined ? r.written : null,
    failed_out_command: r.failedOutCommand ?? null,
  };
}
