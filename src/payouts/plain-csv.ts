/**
 * The common CSV file read without a CSV parser: no quote character anywhere, one line
 * ending throughout ("\n" or "\r\n"), a header line first, and every other line either
 * empty or holding the header's number of fields. Split at its commas, such a file gives
 * exactly the records and blank-line counts that csv-parse reads from it with the options
 * batch-file.ts uses (test/unit/plain-csv.test.ts compares the two on generated files). On
 * a cold start csv-parse's character-by-character parser took half of checking a 1,000-row
 * batch. Any other file (quoted fields, mixed line endings, a blank first line) is left to
 * csv-parse: plainCsv answers undefined. A row with too many or too few fields (whose error
 * csv-parse words) is found as the records are read, not by a first pass over every line
 * (0.8 s for two million rows, in which no signal was heard): records() stops before it and
 * says so in `rest`, and the caller hands the file to csv-parse from there.
 */
import { isUtf8 } from 'node:buffer';

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
