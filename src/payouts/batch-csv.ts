/**
 * The rows of a CSV batch file with a header row, in file order, read as a stream from its
 * bytes (one row in memory at a time, whatever the file's size). A file without quotes and
 * with one shape of line is split at its commas (plain-csv.ts); anything else is read by
 * csv-parse (quoting, BOM, every line ending, mixed as they come). Rows are numbered as a
 * spreadsheet shows them: the header is row 1, and blank lines count. A row holding only a
 * "Total" cell and amounts is refused as a totals row, one naming the columns again as a header
 * repeated (two sheets pasted together); a title above the header is said as that
 * (batch-columns.ts laterHeaderLine). A file csv-parse refuses
 * is said in words a person reads (plain-csv.ts, csvFault), never in csv-parse's own.
 */
import { problemOf, type Problem } from '../errors.js';
import { canonicalColumn, CsvHeader, laterHeaderLine } from './batch-columns.js';
import { noPayoutRows, rowIssue, toFields, type BatchRow } from './batch-rows.js';
import { csvFault, plainCsv } from './plain-csv.js';

/** A record as csv-parse gives it with `info`: the cells by column, and the blank lines before it. */
interface ParsedRecord {
  record: Record<string, string>;
  info: { empty_lines: number };
}

/** Problems of the file or a row are pushed to `problems`; rows that can be read are yielded even when others cannot. */
export async function* csvRows(file: string, bytes: Uint8Array, problems: Problem[]): AsyncGenerator<BatchRow> {
  const header = new CsvHeader(problems, () => laterHeaderLine(bytes));
  let count = 0;
  let payouts = 0;
  const row = (record: Record<string, string>, emptyLines: number): BatchRow | undefined => {
    if (count === 0) header.checkRequired();
    count++;
    // A row of separators only (",,,,", what a spreadsheet saves below its data when cells there
    // were once formatted) is a blank row: skipped, and counted like a blank line.
    if (isBlankRecord(record)) return undefined;
    payouts++;
    // Row numbers as a spreadsheet shows them: blank lines count.
    if (isTotalsRow(record)) {
      problems.push(rowIssue(count + 1 + emptyLines, '', TOTALS_ROW));
      return undefined;
    }
    if (isHeaderAgain(record)) {
      const at = count + 1 + emptyLines;
      problems.push({ field: '', row: at, message: HEADER_AGAIN, text: `row ${at} ${HEADER_AGAIN}` });
      return undefined;
    }
    return toFields(record, count + 1 + emptyLines, file, problems, count + 1);
  };
  const plain = plainCsv(bytes);
  // Records plainCsv read before a line it leaves to csv-parse: csv-parse reads them the same, and skips them.
  let read = 0;
  if (plain) {
    const names = header.columns(plain.header);
    if (header.refusedWhole) return;
    for (const r of plain.records()) {
      // As csv-parse makes a record: each column in turn, the last of two of one name kept, unknown ones left out.
      const record: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        if (name !== undefined) record[name] = r.values[i]!;
      }
      read++;
      const fields = row(record, r.emptyLines);
      if (fields) yield fields;
    }
  }
  if (!plain || plain.rest) {
    const records = await parsedCsv(bytes, header.columns);
    try {
      for await (const { record, info } of records) {
        if (header.refusedWhole) return;
        if (read > 0) read--;
        else {
          const fields = row(record, info.empty_lines);
          if (fields) yield fields;
        }
      }
    } catch (err) {
      if (!header.refusedWhole) problems.push(notValidCsv(err, bytes));
      return;
    }
  }
  noPayoutRows(payouts, problems);
}

/** Every cell empty or spaces: a blank row, however many separators it has. */
function isBlankRecord(record: Record<string, string>): boolean {
  for (const k in record) if (record[k]!.trim() !== '') return false;
  return true;
}

const TOTALS_ROW = 'this looks like a totals row (a "Total" cell and amounts only), not a payout: delete it';
/** "Total", "TOTAL:", "Grand total", "Subtotal", "Totals". */
const TOTAL_WORD = /^(?:grand\s+|sub-?\s*)?totals?\s*:?$/i;
/** An amount in any of the ways a spreadsheet sums it ("2,750.50", "(12.00)", "$ 1 000"), or a currency code. */
const AMOUNT_LIKE = /^(?:[-+($€£\s]*\d[\d.,\s]*\)?|[A-Z]{3})$/;

/** A row that only holds a "Total" word and amounts: the sum a spreadsheet keeps below the payouts. */
function isTotalsRow(record: Record<string, string>): boolean {
  let word = false;
  let amount = false;
  for (const k in record) {
    const v = record[k]!.trim();
    if (v === '') continue;
    if (TOTAL_WORD.test(v)) word = true;
    else if (AMOUNT_LIKE.test(v)) amount ||= /\d/.test(v);
    else return false;
  }
  return word && amount;
}

const HEADER_AGAIN = 'repeats the header row (two sheets pasted together?), not a payout: delete it';

/**
 * A row that names the columns again, each cell its own column's name however written
 * ("wallet_id", "Amount"): the header of a second sheet pasted below the first. At least
 * three such cells and no other: a payee named "Name" is still a payout row.
 */
function isHeaderAgain(record: Record<string, string>): boolean {
  let names = 0;
  for (const k in record) {
    const v = record[k]!;
    if (v.trim() === '') continue;
    if (canonicalColumn(v) !== k) return false;
    names++;
  }
  return names >= 3;
}

/** The file's records as csv-parse reads them, fed in chunks of a megabyte; a parse error is thrown by the iteration. */
async function parsedCsv(bytes: Uint8Array, columns: CsvHeader['columns']): Promise<AsyncIterable<ParsedRecord>> {
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
  feed.catch(() => {}); // a parse error is reported by the iteration
  return parser as AsyncIterable<ParsedRecord>;
}

/** Said in words a person reads, never csv-parse's own ("Invalid Closing Quote: got " " at line 61"). */
function notValidCsv(err: unknown, bytes: Uint8Array): Problem {
  const fault = csvFault(bytes);
  const lines = (err as { lines?: unknown }).lines;
  const where = typeof lines === 'number' && lines > 0 ? ` near line ${lines}` : '';
  return problemOf(`the file is not valid CSV: ${fault ? fault.problem : `its quotes or commas do not add up${where}`}`);
}
