/**
 * Reading a batch file: CSV with a header row (batch-csv.ts) or JSON lines (batch-jsonl.ts),
 * into payout fields per row (batch-rows.ts), by the columns a header names
 * (batch-columns.ts). Rows are numbered as a spreadsheet shows them (CSV: header = row 1)
 * or by line (JSON lines). A row without payout_id gets its id later, from what it pays and
 * the batch id (docs/architecture.md, "Identity"), never from the file's name or the row's
 * position. What is said of a file's problems is batch-problems.ts's.
 *
 * Bounded: at most MAX_COLUMNS columns and lines of at most MAX_LINE_BYTES, refused before
 * any row is read (boundsProblem), and every check linear in the file's length.
 */
import { extname } from 'node:path';
import { problemOf, type Problem } from '../errors.js';
import { MAX_COLUMNS } from './batch-columns.js';
import type { BatchRow } from './batch-rows.js';
import { csvRows } from './batch-csv.js';
import { jsonlRows } from './batch-jsonl.js';

// What the modules of a file's reading offer, from the one module their callers know.
export { batchTemplate, canonicalColumn, closestColumn, COLUMN_LABELS, COLUMNS, MAX_COLUMNS } from './batch-columns.js';
export { duplicateJsonKey } from '../config/json-scan.js';
export type { BatchRow } from './batch-rows.js';

export type FileFormat = 'csv' | 'jsonl';

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
 * lone "\r" (an old Mac export), as csv-parse reads them (batch-csv.ts); a JSON line at "\n".
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
  // ending: from each point, a backward search of the next MAX_LINE_BYTES + 1 bytes (and no
  // further) for the last "\n" (in CSV, and one for the last "\r") jumps over all the lines that
  // end in them (a few searches a megabyte, in native code). Searched in the whole buffer, a
  // file without "\r" had each search run back to its first byte: 0.4 s of CPU for 28 MB, with
  // no pause for a signal. A line of exactly MAX_LINE_BYTES, then "\r\n", ends at its "\r" in
  // CSV, and is that long in JSON lines too (the "\r" is not counted).
  const cr = format === 'csv';
  for (let at = start; buf.length - at > MAX_LINE_BYTES;) {
    const window = buf.subarray(at, at + MAX_LINE_BYTES + 1);
    const lf = window.lastIndexOf(LF);
    const end = cr ? Math.max(lf, window.lastIndexOf(CR)) : lf;
    if (end >= 0) at += end + 1;
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

/**
 * UTF-16 without a byte order mark, as some programs save text: ASCII comes out as every other
 * byte NUL (UTF-16LE: "w\0a\0"...; BE: "\0w\0a"...). Told by the first 512 bytes: at least
 * three quarters of their pairs a NUL beside a byte that is not (no UTF-8 text holds NULs).
 */
function nulInterleaved(bytes: Uint8Array): boolean {
  const pairs = Math.min(bytes.length, 512) >> 1;
  if (pairs < 2) return false;
  let le = 0;
  let be = 0;
  for (let i = 0; i < pairs; i++) {
    const a = bytes[2 * i]!;
    const b = bytes[2 * i + 1]!;
    if (a !== 0 && b === 0) le++;
    else if (a === 0 && b !== 0) be++;
  }
  return Math.max(le, be) * 4 >= pairs * 3;
}

/** UTF-16 text: with its byte order mark, or without one (nulInterleaved). */
export function isUtf16(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff) || nulInterleaved(bytes);
}

/**
 * The file's bytes as text: UTF-8 only (a BOM is allowed). Latin-1 or UTF-16 (isUtf16) would come out
 * as U+FFFD or worse and be paid to a wrong name, so they are refused with the line.
 */
export function decodeBatchFile(bytes: Uint8Array): { text: string } | { problem: string } {
  if (isUtf16(bytes)) {
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
 * to `problems`; rows that can be read are yielded even when others cannot. A file too wide
 * or with too long a line (boundsProblem) has no rows read.
 */
export function readRows(file: string, bytes: Uint8Array, problems: Problem[]): AsyncGenerator<BatchRow> {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64)).toString('utf8');
  const format = formatOf(file, head);
  const tooBig = boundsProblem(bytes, format);
  if (tooBig) {
    problems.push(problemOf(tooBig));
    return noRows();
  }
  return format === 'csv' ? csvRows(file, bytes, problems) : jsonlRows(file, bytes, problems);
}

/** The rows of a file refused whole (boundsProblem): none. */
async function* noRows(): AsyncGenerator<BatchRow> {}

/** Every row of a file's text at once (small files, tests): problems as people read them. */
export async function parseBatchFile(file: string, content: string): Promise<{ rows: BatchRow[]; problems: string[]; format: FileFormat }> {
  const issues: Problem[] = [];
  const rows: BatchRow[] = [];
  for await (const row of readRows(file, Buffer.from(content, 'utf8'), issues)) rows.push(row);
  return { rows, problems: issues.map((p) => p.text), format: formatOf(file, content) };
}
