/**
 * The rows of a JSON-lines batch file: one object a line, numbered by line (blank lines
 * counted), read as a stream from the file's bytes. Numbers keep their exact decimal form;
 * what JSON.parse would lose silently (a key given twice, a number written with an exponent,
 * more digits than a JSON number holds) is found in the line's text and refused, saying why.
 */
import { decimalFromNumber } from '../money/amount.js';
import { parseServiceJson } from '../service/exact-json.js';
import { problemOf, type Problem } from '../errors.js';
import { scanJsonLine } from '../config/json-scan.js';
import { textFault } from '../config/json-fault.js';
import { MAX_COLUMNS } from './batch-columns.js';
import { noPayoutRows, rowIssue, toFields, type BatchRow } from './batch-rows.js';

/** Problems of a line are pushed to `problems`; rows that can be read are yielded even when others cannot. */
// eslint-disable-next-line @typescript-eslint/require-await -- nothing to wait for, but a stream of the same kind as csvRows (batch-file.ts, readRows)
export async function* jsonlRows(file: string, bytes: Uint8Array, problems: Problem[]): AsyncGenerator<BatchRow> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let start = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  const whole = oneDocument(buf, start);
  if (whole) {
    problems.push(problemOf(whole));
    return;
  }
  let count = 0;
  for (let row = 1; start <= buf.length; row++) {
    let end = buf.indexOf(0x0a, start);
    if (end === -1) end = buf.length;
    const line = buf.toString('utf8', start, end > start && buf[end - 1] === 0x0d ? end - 1 : end);
    start = end + 1;
    if (!line.trim()) continue;
    const read = lineValues(line, row, problems);
    if (!read) continue;
    count++;
    const fields = toFields(read.values, row, file, problems);
    // A row with a value that could not be read is not validated ("amount is required" would follow it).
    if (!read.bad) yield fields;
  }
  noPayoutRows(count, problems);
}

/**
 * What to say of a file that is one JSON document written over several lines (a payctl plan, a
 * pretty-printed object or array), not JSON lines; undefined for anything else. Only when its
 * first line is no JSON value of its own, so a JSON-lines file is never parsed whole.
 */
function oneDocument(buf: Buffer, start: number): string | undefined {
  const firstEnd = buf.indexOf(0x0a, start);
  if (firstEnd === -1) return undefined;
  const first = buf.toString('utf8', start, firstEnd).trim();
  if (first !== '{' && first !== '[') return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(buf.toString('utf8', start));
  } catch {
    return undefined;
  }
  const d = doc as Record<string, unknown> | null;
  if (d && typeof d === 'object' && 'payctl_plan' in d) {
    return 'this is a payctl plan, not a batch file: a plan is sent with payctl plan send, once it has the approvals it needs';
  }
  return 'the file is one JSON document over several lines, not JSON lines: a JSON-lines batch file has one payout object on each line';
}

/** A line's values as strings (jsonValues), or undefined for a line that is no row at all (its problem pushed). */
function lineValues(line: string, row: number, problems: Problem[]): { values: Record<string, string>; bad: boolean } | undefined {
  let obj: unknown;
  try {
    // A number JSON.parse would change (99.999999999999999 -> 100) comes back as its own digits
    // (exact-json.ts), and is then read, or refused, as the string it was written as.
    obj = parseServiceJson(line);
  } catch {
    // Where on the line, and the character there (json-fault.ts), found in the line as written.
    problems.push(rowIssue(row, '', textFault(line, { quote: true, oneLine: true }) ?? 'not a JSON object'));
    return undefined;
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
    problems.push(rowIssue(row, '', 'not a JSON object'));
    return undefined;
  }
  const scan = scanJsonLine(line);
  if (scan.twice !== undefined) {
    problems.push(rowIssue(row, scan.twice, 'is given more than once', `the key "${scan.twice}" is given more than once`));
    return undefined;
  }
  const read = jsonValues(obj as Record<string, unknown>, row, problems, scan.exponents);
  if (Object.keys(read.values).length > MAX_COLUMNS) {
    problems.push(rowIssue(row, '', `has more than ${MAX_COLUMNS.toLocaleString('en-US')} keys (metadata keys included)`));
    return undefined;
  }
  return read;
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
