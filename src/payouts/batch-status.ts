/**
 * `payout batch status`: a batch report (report.ts) read back, each accepted row's
 * current state found by its transaction id (the only look-up the service has:
 * docs/service.md) with payouts/settle.ts (the one polling loop), and the report
 * written again in place, atomically: same format, same rows in the same order (a row of separators only left out), every
 * existing column unchanged, with the columns `status`, `failure_reason` and `settled_at`
 * added (or updated, on a later run). Rows not accepted keep them empty.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { csvRow } from '../output/csv.js';
import { sanitizeInline } from '../output/sanitize.js';
import { minorToDecimal, plainAmount, sumMinor, toCommonMinor, toDecimal } from '../money/amount.js';
import { isUnknownStatus, unknownStatusWords, type PayoutRecord } from '../service/schemas.js';
import { COLUMN_LABELS, COLUMNS } from './batch-file.js';
import type { PayoutFields } from './request.js';
import { sentFields } from './sent-body.js';
import { isJsonl, openNoFollow, replaceAtomically, REPORT_COLUMNS } from './report.js';
import { csvFault } from './plain-csv.js';
import { formatAmount } from '../money/amount.js';
import type { FailedRow } from '../output/batch.js';

export const STATUS_COLUMNS = ['status', 'failure_reason', 'settled_at'] as const;
/** Unknown: a status word payctl does not know (docs/service.md "Status words"), neither settled nor Pending. */
export type StatusBucket = 'Successful' | 'Failed' | 'Pending' | 'Unknown';

/** One line of a report: its cells as read (CSV: strings by column; JSON lines: the object, key order kept). */
export interface ReportEntry {
  row: string;
  payoutId: string;
  outcome: string;
  batchId: string | undefined;
  /** The transaction id the report recorded (empty in reports of rows the service never answered). */
  transactionId: string | undefined;
  values: Record<string, unknown>;
}

export interface StatusReport {
  path: string;
  format: 'csv' | 'jsonl';
  /** CSV: the header as read. */
  columns: string[];
  entries: ReportEntry[];
}

/** What the service says of an accepted row now. */
export interface RowState {
  bucket: StatusBucket;
  /** The status as the service gave it (sanitized). */
  status: string;
  failureReason: string;
  settledAt: string;
  record: PayoutRecord;
}

/** An outcome of `payout batch` whose payout was made. */
export function isAccepted(e: ReportEntry): boolean {
  return e.outcome === 'accepted' || e.outcome === 'replayed';
}

/** Why a path cannot be read as a report ([] when it can be opened). */
function pathProblem(path: string): string | undefined {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return `${path} is a symbolic link; give the report's own path`;
    if (!st.isFile()) return `${path} is not a regular file`;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? `${path} does not exist` : `${path} cannot be read: ${(err as Error).message}`;
  }
  return undefined;
}

/**
 * The report at `path`, or the problems that make it no payctl batch report (a missing
 * file, a symlink, another CSV or JSON file). Read without following a symlink. `noRows`: a
 * report with its header and no row (CSV) or no line (JSON lines), as a run leaves it when it
 * stopped before any row finished, or while it has not finished one yet.
 */
export async function readStatusReport(path: string): Promise<{ report: StatusReport } | { problems: string[]; noRows?: true }> {
  const bad = pathProblem(path);
  if (bad) return { problems: [bad] };
  let text: string;
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if (!fstatSync(fd).isFile()) return { problems: [`${path} is not a regular file`] };
      text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(fd));
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problems: [code === 'ELOOP' ? `${path} is a symbolic link; give the report's own path` : `${path} cannot be read: ${(err as Error).message}`] };
  }
  const notReport = (why: string) => ({ problems: [`${path} is not a payctl batch report: ${why}`] });
  const entries: ReportEntry[] = [];
  if (!isJsonl(path)) {
    const { parse } = await import('csv-parse/sync');
    let records: string[][];
    try {
      // Any line ending, mixed in one file: a report re-saved by an editor or a spreadsheet.
      records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: false, record_delimiter: ['\r\n', '\n', '\r'] });
    } catch {
      // In words, never csv-parse's own ("Invalid Record Length: expect 9, got 1 on line 12").
      const fault = csvFault(new TextEncoder().encode(text));
      return notReport(`not valid CSV: ${fault ? fault.problem : 'its quotes or commas do not add up'}`);
    }
    const columns = records[0] ?? [];
    if (REPORT_COLUMNS.some((c, i) => columns[i] !== c)) return notReport(`its header row is not ${REPORT_COLUMNS.join(',')}`);
    for (const cells of records.slice(1)) {
      // A row of separators only (",,,,,,,,", what a spreadsheet saves below a re-saved report) is no row, as in a batch file.
      if (cells.every((c) => c.trim() === '')) continue;
      const values: Record<string, unknown> = {};
      columns.forEach((c, i) => (values[c] = cells[i] ?? ''));
      entries.push(entryOf(values));
    }
    if (!entries.length) return { problems: [`${path} holds only its header row`], noRows: true };
    return checked({ path, format: 'csv', columns, entries }, notReport);
  }
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch {
      return notReport(`line ${i + 1} is not JSON`);
    }
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return notReport(`line ${i + 1} is not a JSON object`);
    const values = obj as Record<string, unknown>;
    if (!REPORT_COLUMNS.slice(0, 3).every((k) => Object.hasOwn(values, k))) return notReport(`line ${i + 1} lacks ${REPORT_COLUMNS.slice(0, 3).join(', ')}`);
    entries.push(entryOf(values));
  }
  if (!entries.length) return { problems: [`${path} holds no line`], noRows: true };
  return checked({ path, format: 'jsonl', columns: [], entries }, notReport);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

/**
 * A report's row number as `--json` gives it: a number, as batch validation's `errors[].row`
 * is (the report's CSV cell is text); null for a cell that is no row number (an edited report).
 */
export function jsonRow(row: string): number | null {
  return /^\d{1,15}$/.test(row) ? Number(row) : null;
}

function entryOf(values: Record<string, unknown>): ReportEntry {
  const batchId = str(values.batch_id);
  const transactionId = str(values.transaction_id);
  return {
    row: str(values.row),
    payoutId: str(values.payout_id),
    outcome: str(values.outcome),
    batchId: batchId || undefined,
    transactionId: transactionId || undefined,
    values,
  };
}

function checked(report: StatusReport, notReport: (why: string) => { problems: string[] }): { report: StatusReport } | { problems: string[] } {
  const noId = report.entries.find((e) => isAccepted(e) && !e.payoutId);
  if (noId) return notReport(`row ${noId.row || '?'} was accepted but has no payout_id`);
  return { report };
}

/** What a row whose status is not one of the three says (its state: rowState). */
export function oddStatusWarning(e: ReportEntry, s: RowState): string {
  return `Row ${sanitizeInline(e.row)} (payout ${sanitizeInline(e.payoutId)}) has ${unknownStatusWords(s.status)}: whether it was paid cannot be told from it.`;
}

/** The state of a record: its bucket, and the cells written for it. */
export function rowState(record: PayoutRecord, status: string): RowState {
  const bucket: StatusBucket = status === 'Successful' || status === 'Failed' ? status : isUnknownStatus(status) ? 'Unknown' : 'Pending';
  return {
    bucket,
    status: sanitizeInline(status),
    failureReason: bucket === 'Failed' ? sanitizeInline(record.failure_reason ?? '') : '',
    settledAt: bucket === 'Successful' || bucket === 'Failed' ? sanitizeInline(record.updated_at ?? '') : '',
    record,
  };
}

/**
 * The report written again in place, atomically: every row in its order, the columns
 * it had unchanged, and the status columns set from `states` (by index; rows without a
 * state are left empty, or for an accepted row that could not be read, as an earlier run left them).
 */
export function rewriteReport(report: StatusReport, states: Map<number, RowState>): void {
  const cells = (i: number): [string, string, string] | undefined => {
    const s = states.get(i);
    return s ? [s.status, s.failureReason, s.settledAt] : undefined;
  };
  let out = '';
  if (report.format === 'csv') {
    const columns = [...report.columns];
    for (const c of STATUS_COLUMNS) if (!columns.includes(c)) columns.push(c);
    out += csvRow(columns);
    report.entries.forEach((e, i) => {
      const set = cells(i);
      const values = { ...e.values };
      STATUS_COLUMNS.forEach((c, k) => (values[c] = set ? set[k] : isAccepted(e) ? (values[c] ?? '') : ''));
      out += csvRow(columns.map((c) => values[c]));
    });
  } else {
    report.entries.forEach((e, i) => {
      const set = cells(i);
      const values = { ...e.values };
      STATUS_COLUMNS.forEach((c, k) => (values[c] = set ? set[k] || null : isAccepted(e) ? (values[c] ?? null) : null));
      out += JSON.stringify(values) + '\n';
    });
  }
  replaceAtomically(report.path, out);
}

/** Totals of one currency and status: rows and the exact sum (a plain decimal, "0.30"). */
export interface StatusTotal {
  currency: string;
  status: StatusBucket;
  count: number;
  amount: string;
}

const BUCKETS: readonly StatusBucket[] = ['Successful', 'Failed', 'Pending', 'Unknown'];

/** Counts and exact totals per currency and status (never through a float). */
export function statusTotals(states: RowState[]): StatusTotal[] {
  const byCurrency = new Map<string, RowState[]>();
  for (const s of states) {
    const c = sanitizeInline(s.record.currency);
    byCurrency.set(c, [...(byCurrency.get(c) ?? []), s]);
  }
  const out: StatusTotal[] = [];
  for (const [currency, list] of [...byCurrency].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const { digits } = toCommonMinor(
      list.map((s) => s.record.amount),
      currency,
    );
    for (const bucket of BUCKETS) {
      const rows = list.filter((s) => s.bucket === bucket);
      if (!rows.length) continue;
      out.push({
        currency,
        status: bucket,
        count: rows.length,
        amount: minorToDecimal(
          sumMinor(
            rows.map((s) => s.record.amount),
            digits,
          ),
          digits,
        ),
      });
    }
  }
  return out;
}

/**
 * The batch-file fields of a payout (no payout_id: a new batch id pays it anew): from the
 * journaled request body when there is one (exactly what was sent: the look-up record has no
 * wallet, provider, phone or metadata), else from the record.
 */
export function batchFileRow(record: PayoutRecord, body?: string): Record<string, string> {
  const sent = body === undefined ? undefined : sentFields(body);
  const r = record.recipient;
  const fields: Omit<Required<PayoutFields>, 'payoutId' | 'metadata'> = sent?.fields ?? {
    walletId: record.wallet_id ?? '',
    amount: plainAmount(toDecimal(record.amount), record.currency),
    currency: record.currency,
    type: r?.type ?? '',
    name: r?.name ?? '',
    provider: r?.provider ?? r?.bank?.toLowerCase() ?? '',
    account: r?.accountNumber ?? '',
    phone: r?.phoneNumber ?? '',
    note: record.note ?? '',
  };
  // Named as a batch file names them (batch-file.ts COLUMN_LABELS).
  const row: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields) as Array<[keyof typeof fields, string]>) row[COLUMN_LABELS[k]] = v;
  for (const [k, v] of Object.entries(sent?.metadata ?? record.metadata ?? {})) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') row[`metadata.${k}`] = String(v);
  }
  return row;
}

/**
 * A Failed row as a person recognises it (output/batch.ts renderFailedRows): whom it paid and how
 * much, from the journaled request when this config folder sent it (what was asked), else from the
 * service's record; and why it failed.
 */
export function failedRowOf(e: ReportEntry, s: RowState, body?: string): FailedRow {
  const f = batchFileRow(s.record, body);
  return {
    row: e.row,
    payoutId: e.payoutId,
    name: f[COLUMN_LABELS.name],
    provider: f[COLUMN_LABELS.provider],
    account: f[COLUMN_LABELS.account],
    amount: formatAmount(s.record.amount, s.record.currency),
    currency: s.record.currency,
    reason: s.failureReason || 'the service gave no reason',
  };
}

/** The columns of a batch file that the failed rows are written with (batch-file.ts COLUMNS, less payout_id). */
export const RETRY_COLUMNS = COLUMNS.filter((c) => c !== 'payout_id');

/**
 * Writes `rows` as a new batch file at `path` (CSV with a header row, or JSON lines),
 * exclusively: an existing file (or symlink) there is never overwritten (EEXIST). A batch file
 * is payctl's input, read back to pay the same payouts: each value is written as it was sent,
 * quoted as RFC 4180 asks and never neutralized like a report's cells (a name "@Kadiatu Ltd"
 * written as "'@Kadiatu Ltd" would pay someone named otherwise).
 */
export function writeBatchFile(path: string, format: 'csv' | 'jsonl', rows: Array<Record<string, string>>): void {
  let out = '';
  if (format === 'csv') {
    const columns: string[] = [...RETRY_COLUMNS];
    for (const r of rows) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
    const line = (values: string[]) => values.map((v) => (/[",\r\n]/.test(v) || v.trim() !== v ? `"${v.replace(/"/g, '""')}"` : v)).join(',') + '\r\n';
    out += line(columns);
    for (const r of rows) out += line(columns.map((c) => r[c] ?? ''));
  } else {
    for (const r of rows) {
      const obj: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) {
        if (k.startsWith('metadata.')) ((obj.metadata ??= {}) as Record<string, string>)[k.slice('metadata.'.length)] = v;
        else if (v !== '') obj[k] = v;
      }
      out += JSON.stringify(obj) + '\n';
    }
  }
  const fd = openNoFollow(path, true);
  try {
    writeSync(fd, out);
  } finally {
    closeSync(fd);
  }
}

/** A journaled body as a batch file's row (batchFileRow), or undefined when it cannot be read. */
export function rowOfBody(body: string): Record<string, string> | undefined {
  try {
    const row = batchFileRow({ currency: '', amount: '' }, body);
    return row.amount && row.wallet_id ? row : undefined;
  } catch {
    return undefined;
  }
}
