/**
 * Reading a batch file: CSV with a header row (csv-parse: quoting, BOM) or JSON
 * lines, into payout fields per row. Rows are numbered as a spreadsheet shows them
 * (CSV: header = row 1) or by line (JSON lines). A row without payout_id gets its id
 * later, from what it pays and the batch id (identity.ts), never from the file's name
 * or the row's position.
 */
import { createHash } from 'node:crypto';
import { basename, extname } from 'node:path';
import { decimalFromNumber } from '../money/amount.js';
import type { FieldName, Labels, PayoutFields } from './request.js';

export const COLUMNS = [
  'payout_id',
  'wallet_id',
  'amount',
  'currency',
  'type',
  'name',
  'provider',
  'account_number',
  'phone_number',
  'note',
] as const;

const FIELD_OF: Record<(typeof COLUMNS)[number], FieldName> = {
  payout_id: 'payoutId',
  wallet_id: 'walletId',
  amount: 'amount',
  currency: 'currency',
  type: 'type',
  name: 'name',
  provider: 'provider',
  account_number: 'account',
  phone_number: 'phone',
  note: 'note',
};

export const COLUMN_LABELS: Labels = {
  payoutId: 'payout_id',
  walletId: 'wallet_id',
  amount: 'amount',
  currency: 'currency',
  type: 'type',
  name: 'name',
  provider: 'provider',
  account: 'account_number',
  phone: 'phone_number',
  note: 'note',
  metadata: 'metadata',
};

export interface BatchRow {
  /** Row number as the person sees it (spreadsheet row, or JSON line). */
  row: number;
  fields: PayoutFields;
  /** True when the file gives no payout id: it is derived from the payout (identity.ts). */
  derivedId: boolean;
  /**
   * The id payctl 0.1 derived from the file name and row (only with derivedId), looked up
   * in the journal so that a batch sent by it is resumed, not paid again.
   */
  legacyId?: string;
}

export type FileFormat = 'csv' | 'jsonl';

export function formatOf(file: string, content: string): FileFormat {
  const ext = extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.ndjson' || ext === '.json') return 'jsonl';
  return content.replace(/^\uFEFF/, '').trimStart().startsWith('{') ? 'jsonl' : 'csv';
}

/** payctl 0.1's derived id (file name, row, cells): kept only to find its journal entries. */
function legacyId(file: string, row: number, values: Record<string, string>): string {
  const canon = JSON.stringify(Object.keys(values).sort().map((k) => [k, values[k]]));
  const h = createHash('sha256').update(`${basename(file)}\n${row}\n${canon}`).digest('hex');
  return `batch-${h.slice(0, 24)}`;
}

/** `idRow` keeps derived ids as they were first made (before blank lines counted in row numbers). */
function toFields(values: Record<string, string>, row: number, file: string, problems: string[], idRow = row): BatchRow {
  const fields: PayoutFields = {};
  const metadata: Record<string, string> = {};
  for (const [col, value] of Object.entries(values)) {
    const key = col.trim();
    if (key.startsWith('metadata.')) {
      const mk = key.slice('metadata.'.length);
      if (value !== '') metadata[mk] = value;
    } else if (Object.hasOwn(FIELD_OF, key)) {
      if (value !== '') fields[FIELD_OF[key as keyof typeof FIELD_OF]] = value as never;
    } else if (key !== '') {
      problems.push(`row ${row}: unknown column "${key}" (columns: ${COLUMNS.join(', ')}, metadata.<key>)`);
    }
  }
  if (Object.keys(metadata).length) fields.metadata = metadata;
  const derivedId = !fields.payoutId;
  return derivedId ? { row, fields, derivedId, legacyId: legacyId(file, idRow, values) } : { row, fields, derivedId };
}

/** JSON values of a JSON-lines row as strings; numbers keep their exact decimal form. */
function jsonValues(obj: Record<string, unknown>, row: number, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'metadata' && v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [mk, mv] of Object.entries(v)) out[`metadata.${mk}`] = typeof mv === 'string' ? mv : JSON.stringify(mv);
    } else if (v === null || v === undefined) {
      continue;
    } else if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number') {
      // A JSON number holds 15 significant digits exactly; more would change the amount silently.
      const d = decimalFromNumber(v);
      if (d.replace(/^-?[0.]*/, '').replace('.', '').length > 15) {
        problems.push(`row ${row}: "${k}" has more digits than a JSON number holds exactly; write it as a string, e.g. "${k}": "1500.50"`);
      } else out[k] = d;
    }
    else problems.push(`row ${row}: "${k}" must be a string or a number`);
  }
  return out;
}

export async function parseBatchFile(file: string, content: string): Promise<{ rows: BatchRow[]; problems: string[]; format: FileFormat }> {
  const problems: string[] = [];
  const rows: BatchRow[] = [];
  const format = formatOf(file, content);
  if (format === 'csv') {
    const { parse } = await import('csv-parse/sync');
    let records: Array<{ record: Record<string, string>; info: { empty_lines: number } }>;
    try {
      records = parse(content, {
        bom: true,
        columns: (h: string[]) => h.map((c) => c.trim()),
        skip_empty_lines: true,
        trim: false,
        info: true,
      }) as unknown as typeof records;
    } catch (err) {
      return { rows, problems: [`the file is not valid CSV: ${(err as Error).message}`], format };
    }
    const header = records.length ? Object.keys(records[0]!.record) : [];
    const missingCols = ['wallet_id', 'amount', 'currency', 'type', 'name', 'provider', 'account_number'].filter((c) => !header.includes(c));
    if (records.length && missingCols.length) problems.push(`the header row lacks column${missingCols.length > 1 ? 's' : ''} ${missingCols.join(', ')}`);
    // Row numbers as a spreadsheet shows them: blank lines count.
    records.forEach(({ record, info }, i) => rows.push(toFields(record, i + 2 + info.empty_lines, file, problems, i + 2)));
  } else {
    const lines = content.replace(/^\uFEFF/, '').split(/\r?\n/);
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      const row = i + 1;
      let obj: unknown;
      try {
        obj = JSON.parse(line);
      } catch {
        problems.push(`row ${row}: not a JSON object`);
        return;
      }
      if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
        problems.push(`row ${row}: not a JSON object`);
        return;
      }
      rows.push(toFields(jsonValues(obj as Record<string, unknown>, row, problems), row, file, problems));
    });
  }
  if (rows.length === 0 && problems.length === 0) problems.push('the file has no payout rows');
  return { rows, problems, format };
}
