/**
 * Reading a batch file: CSV with a header row (csv-parse: quoting, BOM) or JSON
 * lines, into payout fields per row. Rows are numbered as a spreadsheet shows them
 * (CSV: header = row 1) or by line (JSON lines). A row without payout_id gets its id
 * later, from what it pays and the batch id (identity.ts), never from the file's name
 * or the row's position.
 *
 * Bounded: at most MAX_COLUMNS columns and lines of at most MAX_LINE_BYTES, refused before
 * any row is read (boundsProblem), and every check linear in the file's length.
 */
import { basename, extname } from 'node:path';
import { decimalFromNumber, GROUPING_RULE, ungroupAmount } from '../money/amount.js';
import { problemOf, rowProblem, type Problem } from '../errors.js';
import { sha256 } from './identity.js';
import { REQUIRED_FIELDS, type FieldName, type Labels, type PayoutFields } from './request.js';
import { csvFault, plainCsv } from './plain-csv.js';
import { editDistance } from '../words.js';

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

/**
 * A header as a spreadsheet may write it, compared without case, spaces, '_' and '-':
 * "Account Number", "account-number", "ACCOUNT_NUMBER" and "AccountNumber" all squash to
 * "accountnumber".
 */
function squash(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

const COLUMN_BY_SQUASHED = new Map<string, string>(COLUMNS.map((c) => [squash(c), c]));

/**
 * The column a header (a CSV header cell, a JSON-lines key) names: one of COLUMNS however it
 * is written, `metadata.<key>` (the key as written: it is data), '' for an empty header, or
 * undefined for any other name.
 */
export function canonicalColumn(name: string): string | undefined {
  const t = name.trim();
  if (t === '') return '';
  if (/^metadata\./i.test(t)) return `metadata.${t.slice('metadata.'.length)}`;
  return COLUMN_BY_SQUASHED.get(squash(t));
}

/** The columns squashed (as squash makes them), each with how many edits from it still count as a slip. */
const SQUASHED = COLUMNS.map((c) => ({ column: c, squashed: squash(c), limit: squash(c).length <= 4 ? 1 : 2 }));

/**
 * The column an unknown header most likely means: one or two edits away ("acount_number",
 * "amout"), or the start of it ("phone", "account") or it plus more ("currency_code"), or
 * undefined.
 */
export function closestColumn(name: string): string | undefined {
  const typed = squash(name);
  if (typed.length < 3 || typed.length > 64) return undefined;
  let best: string | undefined;
  let bestEdits = Infinity;
  for (const { column, squashed, limit } of SQUASHED) {
    const d = typed.length >= 4 && (squashed.startsWith(typed) || typed.startsWith(squashed)) ? 0.5 : editDistance(typed, squashed, limit);
    if (d <= limit && d < bestEdits) {
      best = column;
      bestEdits = d;
    }
  }
  return best;
}

/**
 * What was said of unknown names lately: a JSON-lines file has the same unknown key on every
 * line, or (hostile) thousands of keys on each; each name is compared with the columns once.
 */
const UNKNOWN_SAID = new Map<string, { message: string; text: string; shared: SharedProblem['shared'] }>();

const KNOWN_COLUMNS = `(columns: ${COLUMNS.join(', ')}, metadata.<key>)`;

/**
 * What is said of an unknown column (a CSV header cell, once; a JSON-lines key, by row, shared
 * by the rows that have it): its likely meaning, or the columns there are.
 */
function unknownColumn(key: string): { message: string; text: string; shared: SharedProblem['shared'] } {
  const said = UNKNOWN_SAID.get(key);
  if (said) return said;
  const near = closestColumn(key);
  const message = near ? `is not a column; did you mean ${near}?` : `unknown column ${KNOWN_COLUMNS}`;
  const text = near ? `unknown column "${key}" — did you mean ${near}?` : `unknown column "${key}" ${KNOWN_COLUMNS}`;
  const out = { message, text, shared: { key: `unknown:${key}`, text, message } };
  if (UNKNOWN_SAID.size >= 1000) UNKNOWN_SAID.clear();
  UNKNOWN_SAID.set(key, out);
  return out;
}

/**
 * A row's problem that many rows of one file may share (a spreadsheet's way of writing
 * amounts, a key on every JSON line): batch-load.ts lists the rows that share one as a single
 * line ("rows 3–46 (44 rows): amount is written in the European style ...") when there are
 * more than a few, the first few shown in full.
 */
export interface SharedProblem extends Problem {
  row: number;
  shared: {
    /** Rows with the same key share the problem. */
    key: string;
    /** The problem said of all of them: `amount is written in the European style (...)`. */
    text: string;
    /** The same without the column's name (for --json's `message`). */
    message: string;
    /** This row in the list: `row 3 "1.250,00" (write 1250.00)`; none where the row number says it all. */
    example?: string;
    /** What to do, said once after the list. */
    advice?: string;
  };
}

export function isShared(p: Problem): p is SharedProblem {
  return (p as Partial<SharedProblem>).shared !== undefined;
}

const EUROPEAN = "is written in the European style (',' as the decimal point, '.' between thousands)";
const BAD_GROUPS = "has ',' between digits that are not groups of three";

/**
 * An amount as a spreadsheet writes it ("1,250.00") ungrouped for validation ("1250.00"): the
 * same payout, the same identity and body as the plain amount. An ambiguous one is refused
 * here, saying why; anything else is left to validatePayout (parseAmount) as it is.
 */
function readAmount(value: string, row: number, problems: Problem[]): string | undefined {
  const u = ungroupAmount(value);
  if (u.ok) return u.plain;
  const label = COLUMN_LABELS.amount;
  const p: SharedProblem = {
    ...rowIssue(row, label, u.problem, `${label}: ${u.problem}`),
    row,
    shared: {
      key: `amount:${u.kind}`,
      text: `${label} ${u.kind === 'european' ? EUROPEAN : BAD_GROUPS}`,
      message: u.kind === 'european' ? EUROPEAN : BAD_GROUPS,
      example: `row ${row} "${value}"${u.write !== undefined ? ` (write ${u.write})` : ''}`,
      advice: GROUPING_RULE,
    },
  };
  problems.push(p);
  return undefined;
}

export interface BatchRow {
  /** Row number as the person sees it (spreadsheet row, or JSON line). */
  row: number;
  fields: PayoutFields;
  /**
   * Columns whose problem was already reported while reading (an ambiguous amount): left out
   * of `fields`, and not reported again by validation ("amount is required").
   */
  reported?: string[];
  /** True when the file gives no payout id: it is derived from the payout (identity.ts). */
  derivedId: boolean;
  /**
   * The id payctl 0.1 derived from the file name and row (only with derivedId), looked up
   * in the journal so that a batch sent by it is resumed, not paid again.
   */
  legacyId?: string;
}

export type FileFormat = 'csv' | 'jsonl';

/**
 * Columns (CSV) or keys (a JSON line, metadata keys included) a batch file may have: a
 * payout has ten fields, and a thousand leaves room for any metadata a person means.
 */
export const MAX_COLUMNS = 1000;

/**
 * The longest line read, in bytes. The longest row the field limits allow (request.ts: a
 * 128-character id, a 200-character name, a 500-character note, ...) is about 4 KB of UTF-8
 * in 4-byte characters, about 12 KB written in JSON \u escapes; 64 KiB leaves room for that
 * and for dozens of metadata values, while a file of one huge line (a million columns, a
 * megabyte of note) is refused before any work is spent on it.
 */
export const MAX_LINE_BYTES = 64 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;

/**
 * Why a file is refused whatever its rows say (a header of more than MAX_COLUMNS columns,
 * a line longer than MAX_LINE_BYTES), or undefined. Reads no more than the header and a
 * few native searches a megabyte: no loop over the lines in JavaScript, which a cold start
 * runs in the interpreter (10 ms for 10,000 rows). A CSV line ends at "\n", "\r\n" or a
 * lone "\r" (an old Mac export), as csv-parse reads them (readRows); a JSON line at "\n".
 */
export function boundsProblem(bytes: Uint8Array, format: FileFormat): string | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const origin = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  let start = origin;
  if (format === 'csv') {
    // The header is the first line that is not empty (csv-parse skips empty lines); its
    // fields counted outside quotes, scanning no further than a line may be long.
    while (buf[start] === LF || buf[start] === CR) start++;
    const stop = Math.min(buf.length, start + MAX_LINE_BYTES + 1);
    let fields = 1;
    let quoted = false;
    for (let i = start; i < stop; i++) {
      const c = buf[i];
      if (c === QUOTE) quoted = !quoted;
      else if (quoted) continue;
      else if (c === LF || c === CR) break;
      else if (c === COMMA && ++fields > MAX_COLUMNS) {
        return `the header row has more than ${MAX_COLUMNS.toLocaleString('en-US')} columns; payctl reads at most ${MAX_COLUMNS.toLocaleString('en-US')} (the payout's columns and metadata.<key> columns)`;
      }
    }
  }
  // A line longer than the bound is a stretch of more than MAX_LINE_BYTES bytes without a line
  // ending: from each point, a backward search of the next MAX_LINE_BYTES + 1 bytes for the
  // last "\n" (in CSV, and one for the last "\r") jumps over all the lines that end in them (a
  // few searches a megabyte, in native code). A line of exactly MAX_LINE_BYTES, then "\r\n",
  // ends at its "\r" in CSV, and is that long in JSON lines too (the "\r" is not counted).
  const cr = format === 'csv';
  for (let at = start; buf.length - at > MAX_LINE_BYTES;) {
    const lf = buf.lastIndexOf(LF, at + MAX_LINE_BYTES);
    const end = cr ? Math.max(lf, buf.lastIndexOf(CR, at + MAX_LINE_BYTES)) : lf;
    if (end >= at) at = end + 1;
    else if (!cr && buf[at + MAX_LINE_BYTES] === CR && buf[at + MAX_LINE_BYTES + 1] === LF) at += MAX_LINE_BYTES + 2;
    else return tooLong(buf, origin, at, cr);
  }
  return undefined;
}

/** The problem of the line that starts at `at`: its number and length (counted only now). `cr`: a lone "\r" ends a line (CSV). */
function tooLong(buf: Buffer, start: number, at: number, cr: boolean): string {
  let line = 1;
  for (let lf = buf.indexOf(LF, start); lf !== -1 && lf < at; lf = buf.indexOf(LF, lf + 1)) line++;
  // "\r\n" is counted at its "\n".
  if (cr) for (let r = buf.indexOf(CR, start); r !== -1 && r < at; r = buf.indexOf(CR, r + 1)) if (buf[r + 1] !== LF) line++;
  const lf = buf.indexOf(LF, at);
  const r = cr ? buf.indexOf(CR, at) : -1;
  const end = Math.min(lf === -1 ? buf.length : buf[lf - 1] === CR && lf - 1 >= at ? lf - 1 : lf, r === -1 ? buf.length : r);
  return `line ${line} is ${(end - at).toLocaleString('en-US')} bytes long; payctl reads lines of at most ${MAX_LINE_BYTES.toLocaleString('en-US')} bytes (64 KiB), far more than a payout row needs`;
}

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

/** A field given twice in one row (a CSV header's own duplicates are found in the header). */
function twice(row: number, key: string, problems: Problem[]): void {
  problems.push(rowIssue(row, key, 'is given more than once', `the key "${key}" is given more than once`));
}

/** `idRow` keeps derived ids as they were first made (before blank lines counted in row numbers). */
function toFields(values: Record<string, string>, row: number, file: string, problems: Problem[], idRow = row): BatchRow {
  const fields: PayoutFields = {};
  const metadata: Record<string, string> = {};
  let reported: string[] | undefined;
  // By index: in code V8 has not optimized yet (a batch's first thousand rows), each step of
  // `for (const [col, value] of Object.entries(values))` made an array and an iterator result.
  const cols = Object.keys(values);
  for (let i = 0; i < cols.length; i++) {
    const col = cols[i]!;
    const value = values[col]!;
    // CSV headers arrive named already (readRows); JSON-lines keys are named here.
    const key = Object.hasOwn(FIELD_OF, col) ? col : canonicalColumn(col);
    if (key === undefined) {
      // Unknown JSON-lines keys, by row (a CSV header's are named once, by readRows).
      const name = col.trim();
      const unknown = unknownColumn(name);
      const p: SharedProblem = { field: name, message: unknown.message, row, text: `row ${row}: ${unknown.text}`, shared: unknown.shared };
      problems.push(p);
    } else if (key.startsWith('metadata.')) {
      const mk = key.slice('metadata.'.length);
      // An own property whatever its name (metadata.__proto__ is refused by validation, not lost).
      if (value === '') continue;
      if (Object.hasOwn(metadata, mk)) twice(row, key, problems);
      else Object.defineProperty(metadata, mk, { value, enumerable: true, writable: true, configurable: true });
    } else if (key !== '') {
      if (value === '') continue;
      const field = FIELD_OF[key as keyof typeof FIELD_OF];
      // Two keys of one name once read (JSON lines: "amount" and " Amount"): neither wins silently.
      if (fields[field] !== undefined || reported?.includes(key)) twice(row, key, problems);
      else if (field === 'amount') {
        const amount = readAmount(value, row, problems);
        if (amount !== undefined) fields.amount = amount;
        else (reported ??= []).push(key);
      } else fields[field] = value as never;
    }
  }
  if (Object.keys(metadata).length) fields.metadata = metadata;
  const derivedId = !fields.payoutId;
  const out: BatchRow = derivedId ? { row, fields, derivedId, legacyId: legacyId(file, idRow, values) } : { row, fields, derivedId };
  if (reported) out.reported = reported;
  return out;
}

/**
 * JSON values of a JSON-lines row as strings; numbers keep their exact decimal form.
 * `exponents` are the top-level keys whose number the line writes with an exponent (scanJsonLine).
 */
function jsonValues(obj: Record<string, unknown>, row: number, problems: Problem[], exponents: string[] | undefined): { values: Record<string, string>; bad: boolean } {
  const out: Record<string, string> = {};
  let bad = false;
  const fault = (p: Problem) => {
    bad = true;
    problems.push(p);
  };
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'metadata' && v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [mk, mv] of Object.entries(v)) {
        const flat = `metadata.${mk}`;
        // "metadata.a" beside "metadata": {"a": ...}: one of the two would be sent, silently.
        if (Object.hasOwn(out, flat)) fault(metadataTwice(row, flat, mk));
        else out[flat] = typeof mv === 'string' ? mv : JSON.stringify(mv);
      }
    } else if (Object.hasOwn(out, k)) {
      fault(metadataTwice(row, k, k.slice('metadata.'.length)));
    } else if (v === null || v === undefined) {
      continue;
    } else if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' && exponents?.includes(k)) {
      // JSON.parse has made 1e3 into 1000 and 1E-2 into 0.01; the CLI refuses such an amount, and so does a file.
      const message = `is a number written with an exponent (as 1e3 is); write it in plain digits, e.g. 1000 or "1000.00"`;
      fault(rowIssue(row, k, message, `"${k}" ${message}`));
    } else if (typeof v === 'number') {
      // A JSON number holds 15 significant digits exactly; more would change the amount silently.
      const d = decimalFromNumber(v);
      if (d.replace(/^-?[0.]*/, '').replace('.', '').length > 15) {
        const message = `has more digits than a JSON number holds exactly; write it as a string, e.g. "${k}": "1500.50"`;
        fault(rowIssue(row, k, message, `"${k}" ${message}`));
      } else out[k] = d;
    } else fault(rowIssue(row, k, 'must be a string or a number', `"${k}" must be a string or a number`));
  }
  return { values: out, bad };
}

function metadataTwice(row: number, flat: string, key: string): Problem {
  const message = `is given both as "${flat}" and inside "metadata"; give it once`;
  return rowIssue(row, flat, message, `the metadata key "${key}" ${message}`);
}

/** What a JSON line's text says that JSON.parse does not keep. */
export interface JsonLineScan {
  /** The first key that one object holds twice (JSON.parse keeps the last, silently). */
  twice?: string;
  /** Top-level keys whose value is a number written with an exponent (1e3, 1E-2). */
  exponents?: string[];
}

/** One linear pass over a JSON line's text (parsed already: it is valid JSON). */
export function scanJsonLine(json: string): JsonLineScan {
  const stack: Array<Set<string> | null> = [];
  let exponents: string[] | undefined;
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
        if (top.has(key)) return { twice: key, exponents };
        top.add(key);
        if (stack.length === 1) {
          // The literal of a top-level number, which JSON.parse turns into a float and forgets.
          let v = k + 1;
          while (v < json.length && (json[v] === ' ' || json[v] === '\t' || json[v] === '\r' || json[v] === '\n')) v++;
          let end = v;
          while (end < json.length && '-+.0123456789eE'.includes(json[end]!)) end++;
          if (end > v && /[eE]/.test(json.slice(v, end))) (exponents ??= []).push(key);
          i = end > v ? end : j + 1;
          continue;
        }
      }
      i = j + 1;
      continue;
    }
    if (c === '{') stack.push(new Set());
    else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
    i++;
  }
  return { exponents };
}

/** The first key that an object of this JSON text holds twice, or undefined (scanJsonLine). */
export function duplicateJsonKey(json: string): string | undefined {
  return scanJsonLine(json).twice;
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
  const tooBig = boundsProblem(bytes, format);
  if (tooBig) {
    problems.push(problemOf(tooBig));
    return;
  }
  let count = 0;
  if (format === 'csv') {
    let header: Set<string> | undefined;
    /** Each header cell's column (canonicalColumn), undefined for an unknown one (left out of the records). */
    let named: Array<string | undefined> | undefined;
    const columns = (h: string[]): Array<string | undefined> => {
      // Read once more by csv-parse after plainCsv stopped: its problems are listed already.
      if (named) return named;
      named = h.map(canonicalColumn);
      // One pass with a Map (a search of the names for each name took 33 s for 100,000 columns).
      const seen = new Map<string, string[]>();
      const twice = new Set<string>();
      for (let i = 0; i < h.length; i++) {
        const name = named[i];
        const written = h[i]!.trim();
        if (name === undefined) {
          // Named once, not on every row (a header of "Colour" made a problem of each of 1,000 rows).
          const unknown = unknownColumn(written);
          problems.push({ field: written, message: unknown.message, text: unknown.text });
          continue;
        }
        if (name === '') continue;
        const spellings = seen.get(name);
        if (!spellings) seen.set(name, [written]);
        else {
          twice.add(name);
          spellings.push(written);
        }
      }
      // csv-parse would keep the last of two columns of one name: 1000.00 paid instead of 1.00.
      for (const n of twice) {
        const spellings = seen.get(n)!;
        const as = spellings.every((w) => w === n) ? '' : ` (${spellings.map((w) => `"${w}"`).join(', ')})`;
        problems.push({ field: n, message: 'the header row has this column more than once', text: `the header row has the column "${n}" more than once${as}` });
      }
      header = new Set(seen.keys());
      return named;
    };
    const row = (record: Record<string, string>, emptyLines: number): BatchRow => {
      if (count === 0) {
        const missing = REQUIRED_FIELDS.map(([k]) => COLUMN_LABELS[k]).filter((c) => !header?.has(c));
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
    // Records plainCsv read before a line it leaves to csv-parse: csv-parse reads them the same, and skips them.
    let read = 0;
    if (plain) {
      const names = columns(plain.header);
      for (const r of plain.records()) {
        // As csv-parse makes a record: each column in turn, the last of two of one name kept, unknown ones left out.
        const record: Record<string, string> = {};
        for (let i = 0; i < names.length; i++) {
          const name = names[i];
          if (name !== undefined) record[name] = r.values[i]!;
        }
        read++;
        yield row(record, r.emptyLines);
      }
    }
    if (!plain || plain.rest) {
      const { parse } = await import('csv-parse');
      // Every line ending, mixed as they come: csv-parse would otherwise take the first line's
      // ending for the whole file, and read a row appended with another as part of a cell.
      const parser = parse({ bom: true, columns, skip_empty_lines: true, trim: false, info: true, record_delimiter: ['\r\n', '\n', '\r'] });
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
          if (read > 0) read--;
          else yield row(record, info.empty_lines);
        }
      } catch (err) {
        // Said in words a person reads, never csv-parse's own ("Invalid Closing Quote: got " " at line 61").
        const fault = csvFault(bytes);
        const lines = (err as { lines?: unknown }).lines;
        const where = typeof lines === 'number' && lines > 0 ? ` near line ${lines}` : '';
        problems.push(problemOf(`the file is not valid CSV: ${fault ? fault.problem : `its quotes or commas do not add up${where}`}`));
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
      const scan = scanJsonLine(line);
      if (scan.twice !== undefined) {
        problems.push(rowIssue(row, scan.twice, 'is given more than once', `the key "${scan.twice}" is given more than once`));
        continue;
      }
      const { values, bad } = jsonValues(obj as Record<string, unknown>, row, problems, scan.exponents);
      if (Object.keys(values).length > MAX_COLUMNS) {
        problems.push(rowIssue(row, '', `has more than ${MAX_COLUMNS.toLocaleString('en-US')} keys (metadata keys included)`));
        continue;
      }
      count++;
      const fields = toFields(values, row, file, problems);
      // A row with a value that could not be read is not validated ("amount is required" would follow it).
      if (!bad) yield fields;
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

/**
 * The example row of `payout batch --template`: a wallet payout as README.md's example pays,
 * payout_id left empty (the id is made from what the row pays and the batch id).
 */
const TEMPLATE_ROW: Record<(typeof COLUMNS)[number], string> = {
  payout_id: '',
  wallet_id: '6643665465',
  amount: '1250.00',
  currency: 'SLE',
  type: 'wallet',
  name: 'Fatmata Bangura',
  provider: 'orange_money',
  account_number: '076000001',
  phone_number: '+23276000001',
  note: 'November stipend',
};

/** `payout batch --template`: the header row (COLUMNS, in order) and one example row, as CSV. */
export function batchTemplate(): string {
  return `${COLUMNS.join(',')}\n${COLUMNS.map((c) => TEMPLATE_ROW[c]).join(',')}\n`;
}
