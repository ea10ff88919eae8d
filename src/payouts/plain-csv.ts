/**
 * The common CSV file read without a CSV parser: no quote character anywhere, one line
 * ending throughout ("\n" or "\r\n"), a header line first, and every other line either
 * empty or holding the header's number of fields. Split at its commas, such a file gives
 * exactly the records and blank-line counts that csv-parse reads from it with the options
 * batch-file.ts uses (test/unit/plain-csv.test.ts compares the two on generated files). On
 * a cold start csv-parse's character-by-character parser took half of checking a 1,000-row
 * batch. Any other file (quoted fields, mixed line endings or a lone "\r", a blank first
 * line) is left to csv-parse: plainCsv answers undefined. A row with too many or too few
 * fields (whose error csvFault words) is found as the records are read, not by a first pass over every line
 * (0.8 s for two million rows, in which no signal was heard): records() stops before it and
 * says so in `rest`, and the caller hands the file to csv-parse from there.
 *
 * When csv-parse refuses a file, csvFault finds where and why in words a person reads (its
 * own messages name its internals: "Invalid Closing Quote: got " " at line 61").
 */
import { isUtf8 } from 'node:buffer';
import { plural } from '../output/text.js';

export interface PlainRecord {
  /** The fields of the line, as written. */
  values: string[];
  /** Empty lines skipped so far (csv-parse's info.empty_lines). */
  emptyLines: number;
}

export interface PlainCsv {
  /** The header line's fields, as written. */
  header: string[];
  /**
   * The records after the header, in file order, one line at a time, up to a line whose
   * number of fields is not the header's (`rest` is then true).
   */
  records(): Generator<PlainRecord>;
  /** records() stopped before a line that is not plain: csv-parse must read the file (and word its error). */
  rest: boolean;
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/** The file as plain lines, or undefined when csv-parse must read it. */
export function plainCsv(bytes: Uint8Array): PlainCsv | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const start = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  if (buf.indexOf(QUOTE, start) !== -1 || !isUtf8(buf)) return undefined;
  // One line ending: "\n" alone, or every "\n" after a "\r" and every "\r" before a "\n".
  let crlf = false;
  for (let cr = buf.indexOf(CR, start); cr !== -1; cr = buf.indexOf(CR, cr + 1)) {
    if (buf[cr + 1] !== LF) return undefined;
    crlf = true;
  }
  if (crlf) for (let lf = buf.indexOf(LF, start); lf !== -1; lf = buf.indexOf(LF, lf + 1)) if (buf[lf - 1] !== CR) return undefined;
  const eol = crlf ? 2 : 1;
  /** [start, end) of each line, end before its line ending; the last line may have none. */
  const lineEnd = (from: number) => {
    const lf = buf.indexOf(LF, from);
    return lf === -1 ? buf.length : lf - (eol - 1);
  };
  const headerEnd = lineEnd(start);
  // A file starting with an empty line (or empty) is csv-parse's to read.
  if (headerEnd === start) return undefined;
  const header = buf.toString('utf8', start, headerEnd).split(',');
  const plain: PlainCsv = {
    header,
    rest: false,
    *records() {
      let emptyLines = 0;
      for (let at = headerEnd + eol; at < buf.length;) {
        const end = lineEnd(at);
        if (end === at) emptyLines++;
        else {
          const values = buf.toString('utf8', at, end).split(',');
          if (values.length !== header.length) {
            plain.rest = true;
            return;
          }
          yield { values, emptyLines };
        }
        at = end + eol;
      }
    },
  };
  return plain;
}

/** Why csv-parse refused a file, and the line (as an editor numbers them) where it went wrong. */
export interface CsvFault {
  line: number;
  /** What a person reads after "the file is not valid CSV: ". */
  problem: string;
}

const COMMA = 0x2c;
const QUOTE_TWICE = 'write a quote inside a cell as two ("") and put the whole cell in quotes';

/**
 * The first place where the file is not CSV as csv-parse reads it (batch-file.ts's options:
 * ',' between cells, '"' quotes and escapes quotes, "\r\n", "\n" or "\r" ending a row, empty
 * lines skipped, every row as many cells as the header), or undefined. One pass over the
 * bytes, run only after csv-parse refused the file: ',', '"', "\r" and "\n" never occur
 * inside a UTF-8 character, so the bytes are scanned as they are.
 */
export function csvFault(bytes: Uint8Array): CsvFault | undefined {
  const buf = bytes;
  let i = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  let line = 1;
  let header: number | undefined;
  // The row being read: its first line, its cells so far, and where in a cell the scan is.
  let rowLine = 1;
  let cells = 1;
  let rowEmpty = true;
  let cellStart = true;
  let quoted = false;
  let quoteLine = 0;
  let closed = false;
  const endRow = (): CsvFault | undefined => {
    if (!rowEmpty) {
      if (header === undefined) header = cells;
      else if (cells !== header) {
        return { line: rowLine, problem: `line ${rowLine} has ${plural(cells, 'cell')}, but the header row has ${header}` };
      }
    }
    rowLine = line;
    cells = 1;
    rowEmpty = true;
    cellStart = true;
    closed = false;
    return undefined;
  };
  for (; i < buf.length; i++) {
    const c = buf[i];
    const eol = c === LF || c === CR;
    // A line ends at "\n", at "\r" alone, and once at "\r\n" (inside a quoted cell too).
    const lineEnds = c === LF || (c === CR && buf[i + 1] !== LF);
    if (quoted) {
      if (c === QUOTE) {
        if (buf[i + 1] === QUOTE) i++;
        else {
          quoted = false;
          closed = true;
        }
      } else if (lineEnds) line++;
      continue;
    }
    if (closed && c !== COMMA && !eol) {
      return { line, problem: `on line ${line} a quoted cell goes on after its closing quote; ${QUOTE_TWICE}` };
    }
    if (c === COMMA) {
      cells++;
      rowEmpty = false;
      cellStart = true;
      closed = false;
    } else if (eol) {
      if (!lineEnds) continue; // the "\r" of "\r\n": the row ends at its "\n"
      line++;
      const fault = endRow();
      if (fault) return fault;
    } else if (c === QUOTE) {
      if (!cellStart) return { line, problem: `on line ${line} a quote stands inside a cell that does not start with one; ${QUOTE_TWICE}` };
      quoted = true;
      quoteLine = line;
      rowEmpty = false;
      cellStart = false;
    } else {
      rowEmpty = false;
      cellStart = false;
    }
  }
  if (quoted) return { line: quoteLine, problem: `on line ${quoteLine} a quote opens a cell but never closes; close it, or ${QUOTE_TWICE}` };
  return endRow();
}
