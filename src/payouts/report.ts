/** The batch report: one line per row, CSV or JSON lines by the file's extension, written atomically. */
import { renameSync, writeFileSync } from 'node:fs';
import { dirname, extname, basename, join } from 'node:path';
import { csvRow } from '../output/csv.js';
import type { RowOutcome } from './batch.js';

export const REPORT_COLUMNS = ['row', 'payout_id', 'outcome', 'code', 'message', 'transaction_id', 'fee', 'earlier_run'];

/** Beside the input: payouts.csv -> payouts.report.csv; payouts.jsonl -> payouts.report.jsonl. */
export function defaultReportPath(input: string): string {
  const ext = extname(input);
  const reportExt = ext.toLowerCase() === '.csv' ? '.csv' : '.jsonl';
  return join(dirname(input), `${basename(input, ext)}.report${reportExt}`);
}

export function writeReport(path: string, outcomes: RowOutcome[]): void {
  const jsonl = /\.(jsonl|ndjson|json)$/i.test(path);
  let out = jsonl ? '' : csvRow(REPORT_COLUMNS);
  for (const o of outcomes) {
    const values = [o.row, o.payoutId, o.outcome, o.code ?? '', o.message ?? '', o.transactionId ?? '', o.fee ?? '', o.earlier ? 'yes' : ''];
    if (jsonl) {
      out +=
        JSON.stringify({
          row: o.row,
          payout_id: o.payoutId,
          outcome: o.outcome,
          code: o.code ?? null,
          message: o.message ?? null,
          transaction_id: o.transactionId ?? null,
          fee: o.fee ?? null,
          earlier_run: !!o.earlier,
        }) + '\n';
    } else out += csvRow(values);
  }
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, out);
  renameSync(tmp, path);
}
