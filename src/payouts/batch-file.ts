/**
 * Reading a batch file: CSV with a header row (csv-parse: quoting, BOM) or JSON
 * lines, into payout fields per row. Rows are numbered as a spreadsheet shows them
 * (CSV: header = row 1) or by line (JSON lines). A row without payout_id gets its id
 * later, from what it pays and the batch id (identity.ts), never from the file's name
 * or the row's position.
 */
import { basename, extname } from 'node:path';
import { decimalFromNumber } from '../money/amount.js';
import { problemOf, rowProblem, type Problem } from '../errors.js';
import { sha256 } from './identity.js';
import { REQUIRED_FIELDS, type FieldName, type Labels, type PayoutFields } from './request.js';
import { plainCsv } from './plain-csv.js';

export const COLUMNS = ['payout_id', 'wallet_id', 'amount', 'currency', 'type', 'name', 'provider', 'account_number', 'phone_number', 'note'] as const;

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
  return content
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('{')
    ? 'jsonl'
    : 'csv';
}

/** payctl 0.1's derived id (file name, row, cells): kept only to find its journal entries. */
function legacyId(file: string, row: number, values: Record<string, string>): string {
  const canon = JSON.stringify(
    Object.keys(values)
      .sort()
      .map((k) => [k, values[k]]),
  );
  return `batch-${sha256(`${basename(file)}\n${row}\n${canon}`).slice(0, 24)}`;
}

/**
 * A problem of a row: `field` the column at fault ('' for the row as a whole), `message`
 * what is wrong with it, `text` how a person reads it after "row N: " (default: the message).
 */
function rowIssue(row: number, field: string, message: string, text = message): Problem {
  return rowProblem(row, { field, message, text });
}

/** `idRow` keeps derived ids as they were first made (before blank lines counted in row numbers). */
function toFields(values: Record<string, string>, row: number, file: string, problems: Problem[], idRow = row): BatchRow {
  const fields: PayoutFields = {};
  const metadata: Record<string, string> = {};
  // By index: in code V8 has not optimized yet (a batch's first thousand rows), each step of
  // `for (const [col, value] of Object.entries(values))` made an array and an iterator result.
  const cols = Object.keys(values);
  for (let i = 0; i < cols.length; i++) {
    const col = cols[i]!;
    const value = values[col]!;
    const key = col.trim();
    if (key.startsWith('metadata.')) {
      const mk = key.slice('metadata.'.length);
      // An own property whatever its name (metadata.__proto__ is refused by validation, not lost).
      if (value !== '') Object.defineProperty(metadata, mk, { value, enumerable: true, writable: true, configurable: true });
    } else if (Object.hasOwn(FIELD_OF, key)) {
      if (value !== '') fields[FIELD_OF[key as keyof typeof FIELD_OF]] = value as never;
    } else if (key !== '') {
      const columns = `(columns: ${COLUMNS.join(', ')}, metadata.<key>)`;
      problems.push(rowIssue(row, key, `unknown column ${columns}`, `unknown column "${key}" ${columns}`));
    }
  }
  if (Object.keys(metadata).length) fields.metadata = metadata;
  const derivedId = !fields.payoutId;
  return derivedId ? { row, fields, derivedId, legacyId: legacyId(file, idRow, values) } : { row, fields, derivedId };
}

/** JSON values of a JSON-lines row as strings; numbers keep their exact decimal form. */
function jsonValues(obj: Record<string, unknown>, row: number, problems: Problem[]): Record<string, string> {
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
        const message = `has more digits than a JSON number holds exactly; write it as a string, e.g. "${k}": "1500.50"`;
        problems.push(rowIssue(row, k, message, `"${k}" ${message}`));
      } else out[k] = d;
    } else problems.push(rowIssue(row, k, 'must be a string or a number', `"${k}" must be a string or a number`));
  }
  return out;
}

/**
 * The first key that an object of this JSON text holds twice (JSON.parse keeps the last,
 * silently); undefined when none. One linear pass over the text.
 */
export function duplicateJsonKey(json: string): string | undefined {
  const stack: Array<Set<string> | null> = [];
  let i = 0;
  while (i < json.length) {
    const c = json[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      // A string is a key when it is followed by a colon inside an object.
      let k = j + 1;
      while (k < json.length && (json[k] === ' ' || json[k] === '\t' || json[k] === '\r' || json[k] === '\n')) k++;
      if (top && json[k] === ':') {
        let key: string;
        try {
          key = JSON.parse(json.slice(i, j + 1)) as string;
        } catch {
          key = json.slice(i + 1, j);
        }
        if (top.has(key)) return key;
        top.add(key);
      }
      i = j + 1;
      continue;
    }
    if (c === '{') stack.push(new Set());
    else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
    i++;
  }
  return undefined;
}

/**
 * The file's bytes as text: UTF-8 only (a BOM is allowed). Latin-1 or UTF-16 would come out
 * as U+FFFD or worse and be paid to a wrong name, so they are refused with the line.
 */
export function decodeBatchFile(bytes: Uint8Array): { text: string } | { problem: string } {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { problem: 'the file is UTF-16 text; save it as UTF-8 (in a spreadsheet: "CSV UTF-8")' };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let line = 1;
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i === bytes.length || bytes[i] === 0x0a) {
        try {
          decoder.decode(bytes.subarray(start, i));
        } catch {
          return { problem: `the file is not UTF-8 text (line ${line} is not); save it as UTF-8 (in a spreadsheet: "CSV UTF-8")` };
        }
        line++;
        start = i + 1;
      }
    }
    return { problem: 'the file is not UTF-8 text; save it as UTF-8' };
  }
}

/**
 * The rows of a batch file, in file order, read as a stream from its bytes (one row in
 * memory at a time, whatever the file's size). Problems of the file or a row are pushed
 * to `problems`; rows that can be read are yielded even when others cannot.
 */
export async function* readRows(file: string, bytes: Uint8Array, problems: Problem[]): AsyncGenerator<BatchRow> {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64)).toString('utf8');
  const format = formatOf(file, head);
  let count = 0;
  if (format === 'csv') {
    let header: string[] | undefined;
    const columns = (h: string[]) => {
      const names = h.map((c) => c.trim());
      const twice = [...new Set(names.filter((n, i) => n !== '' && names.indexOf(n) !== i))];
      // csv-parse would keep the last of two columns of one name: 1000.00 paid instead of 1.00.
      for (const n of twice)
        problems.push({ field: n, message: 'the header row has this column more than once', text: `the header row has the column "${n}" more than once` });
      header = names;
      return names;
    };
    const row = (record: Record<string, string>, emptyLines: number): BatchRow => {
      if (count === 0) {
        const missing = REQUIRED_FIELDS.map(([k]) => COLUMN_LABELS[k]).filter((c) => !header?.includes(c));
        if (missing.length) {
          const text = `the header row lacks column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`;
          problems.push({ field: missing.length === 1 ? missing[0]! : '', message: text, text });
        }
      }
      count++;
      // Row numbers as a spreadsheet shows them: blank lines count.
      return toFields(record, count + 1 + emptyLines, file, problems, count + 1);
    };
    // A file without quotes and with one shape of line is split at its commas (plain-csv.ts).
    const plain = plainCsv(bytes);
    if (plain) {
      const names = columns(plain.header);
      for (const r of plain.records()) {
        // As csv-parse makes a record: each column in turn, the last of two of one name kept.
        const record: Record<string, string> = {};
        for (let i = 0; i < names.length; i++) record[names[i]!] = r.values[i]!;
        yield row(record, r.emptyLines);
      }
    } else {
      const { parse } = await import('csv-parse');
      const parser = parse({ bom: true, columns, skip_empty_lines: true, trim: false, info: true });
      const CHUNK = 1 << 20;
      const feed = (async () => {
        for (let off = 0; off < bytes.byteLength; off += CHUNK) {
          if (!parser.write(Buffer.from(bytes.buffer, bytes.byteOffset + off, Math.min(CHUNK, bytes.byteLength - off)))) {
            await new Promise<void>((resolve) => parser.once('drain', resolve));
          }
        }
        parser.end();
      })();
      feed.catch(() => {}); // a parse error is reported by the iteration below
      try {
        for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { empty_lines: number } }>) {
          yield row(record, info.empty_lines);
        }
      } catch (err) {
        problems.push(problemOf(`the file is not valid CSV: ${(err as Error).message}`));
        return;
      }
    }
  } else {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let start = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
    for (let row = 1; start <= buf.length; row++) {
      let end = buf.indexOf(0x0a, start);
      if (end === -1) end = buf.length;
      const line = buf.toString('utf8', start, end > start && buf[end - 1] === 0x0d ? end - 1 : end);
      start = end + 1;
      if (!line.trim()) continue;
      let obj: unknown;
      try {
        obj = JSON.parse(line);
      } catch {
        problems.push(rowIssue(row, '', 'not a JSON object'));
        continue;
      }
      if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
        problems.push(rowIssue(row, '', 'not a JSON object'));
        continue;
      }
      const twice = duplicateJsonKey(line);
      if (twice !== undefined) {
        problems.push(rowIssue(row, twice, 'is given more than once', `the key "${twice}" is given more than once`));
        continue;
      }
      count++;
      yield toFields(jsonValues(obj as Record<string, unknown>, row, problems), row, file, problems);
    }
  }
  if (count === 0 && problems.length === 0) problems.push(problemOf('the file has no payout rows'));
}

/** Every row of a file's text at once (small files, tests): problems as people read them. */
export async function parseBatchFile(file: string, content: string): Promise<{ rows: BatchRow[]; problems: string[]; format: FileFormat }> {
  const issues: Problem[] = [];
  const rows: BatchRow[] = [];
  for await (const row of readRows(file, Buffer.from(content, 'utf8'), issues)) rows.push(row);
  return { rows, problems: issues.map((p) => p.text), format: formatOf(file, content) };
}
