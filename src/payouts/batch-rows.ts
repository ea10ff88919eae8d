/**
 * A row of a batch file, read: its cells (a CSV record, a JSON line's values) into payout
 * fields, by the columns they name (batch-columns.ts). An amount as a spreadsheet writes it
 * ("1,250.00") is read as the plain amount; an ambiguous one, or one with more decimal places
 * than its currency has ("100.250" SLE), is refused saying why, shared by the rows it refuses. A row
 * without payout_id gets its id later, from what it pays and the batch id (docs/architecture.md,
 * "Identity"), never from the file's name or the row's position.
 */
import { basename } from 'node:path';
import { extraDecimals, GROUPING_RULE, ungroupAmount, type ExtraDecimals } from '../money/amount.js';
import { minorDigits } from '../money/currencies.js';
import { visibleWord } from '../words.js';
import { problemOf, rowProblem, type Problem } from '../errors.js';
import { sha256Hex } from './identity.js';
import type { PayoutFields } from './request.js';
import { canonicalColumn, COLUMN_LABELS, FIELD_OF, unknownColumn } from './batch-columns.js';
import type { SharedProblem } from './batch-problems.js';

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

/**
 * A problem of a row: `field` the column at fault ('' for the row as a whole), `message`
 * what is wrong with it, `text` how a person reads it after "row N: " (default: the message).
 */
export function rowIssue(row: number, field: string, message: string, text = message): Problem {
  return rowProblem(row, { field, message, text });
}

/** A field given twice in one row (a CSV header's own duplicates are found in the header). */
function twice(row: number, key: string, problems: Problem[]): void {
  problems.push(rowIssue(row, key, 'is given more than once', `the key "${key}" is given more than once`));
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

/** One group of thousands and nothing else: "1,250", "12,500". */
const THOUSANDS_ONLY = /^\d{1,3},\d{3}$/;
const THREE_DECIMALS = "is ambiguous in a currency of three decimals ('1,250' is 1.250 where ',' is the decimal point, 1250 elsewhere)";

/**
 * "1,250" in a currency with three minor digits (KWD, BHD, OMR, JOD, TND...): where ',' is the
 * decimal point it is 1.250, elsewhere 1250, a thousand times more. Refused, saying both ways
 * to write it; with two decimals or none (SLE, JPY) one group of three can only be thousands.
 */
function threeDecimals(value: string, row: number, currency: string): SharedProblem {
  const label = COLUMN_LABELS.amount;
  const plain = value.replace(',', '');
  const decimal = value.replace(',', '.');
  const message = `"${value}" ${currency.toUpperCase()} could be ${decimal} or ${plain}; write ${plain} or ${decimal}`;
  return {
    ...rowIssue(row, label, message, `${label}: ${message}`),
    row,
    shared: {
      key: 'amount:three-decimals',
      text: `${label} ${THREE_DECIMALS}`,
      message: THREE_DECIMALS,
      example: `row ${row} "${value}" ${currency.toUpperCase()}`,
      advice: `write the amount without ',' (1250 or 1.250)`,
    },
  };
}

/**
 * An amount with more decimal places than its currency has ("100.250" SLE, what a column
 * formatted with three decimals writes): refused (payctl never rounds), shared by the rows
 * refused the same way, and when the extra digits are zeros, said to be only the column's format;
 * one group of three after a "." ("1.000") said both ways, as it may be a thousand (1000).
 */
function tooManyDecimals(value: string, plain: string, row: number, currency: string, x: ExtraDecimals): SharedProblem {
  const label = COLUMN_LABELS.amount;
  const cur = currency.toUpperCase();
  const format = `format the ${label} column with ${x.digits} decimals and save the file again`;
  // x.problem quotes the plain amount it was given ("1000.5"); the operator searches the file
  // for the cell as written ("1,000.5"), so that is quoted (probe M, finding 5).
  const said = `"${plain}"`;
  const problem = x.problem.startsWith(said) ? `"${visibleWord(value)}"${x.problem.slice(said.length)}` : x.problem;
  // One group of three after a '.' may be a thousand written with '.' between thousands: both readings said, no format advised.
  const message = x.zeros && x.thousands === undefined ? `${problem}; ${format}` : problem;
  const kind = `has more decimal places than ${cur} has (${x.digits})`;
  const advice = x.thousands
    ? `each could be a thousand written with '.' between thousands or a column formatted with more decimals: write each amount as meant, without '.' between thousands`
    : x.zeros
      ? `the extra digits are zeros: ${format}`
      : `payctl never rounds an amount: give each with at most ${x.digits} decimals`;
  return {
    ...rowIssue(row, label, message, `${label}: ${message}`),
    row,
    shared: {
      key: `amount:decimals:${cur}:${x.zeros}:${x.thousands !== undefined}`,
      text: `${label} ${kind}`,
      message: kind,
      example: `row ${row} "${value}"${x.write !== undefined ? ` (write ${x.write}${x.thousands ? ` or ${x.thousands}` : ''})` : ''}`,
      advice,
    },
  };
}

/** payctl 0.1's derived id (file name, row, cells): kept only to find its journal entries. */
function legacyId(file: string, row: number, values: Record<string, string>): string {
  const canon = JSON.stringify(
    Object.keys(values)
      .sort()
      .map((k) => [k, values[k]]),
  );
  return `batch-${sha256Hex(`${basename(file)}\n${row}\n${canon}`, 12)}`;
}

/** `idRow` keeps derived ids as they were first made (before blank lines counted in row numbers). */
export function toFields(values: Record<string, string>, row: number, file: string, problems: Problem[], idRow = row): BatchRow {
  const fields: PayoutFields = {};
  const metadata: Record<string, string> = {};
  let reported: string[] | undefined;
  let thousands: { key: string; value: string } | undefined;
  let amountCell: { key: string; value: string } | undefined;
  // By index: in code V8 has not optimized yet (a batch's first thousand rows), each step of
  // `for (const [col, value] of Object.entries(values))` made an array and an iterator result.
  const cols = Object.keys(values);
  for (let i = 0; i < cols.length; i++) {
    const col = cols[i]!;
    const value = values[col]!;
    // CSV headers arrive named already (CsvHeader); JSON-lines keys are named here.
    const key = Object.hasOwn(FIELD_OF, col) ? col : canonicalColumn(col);
    if (key === undefined) {
      // Unknown JSON-lines keys, by row (a CSV header's are named once, by CsvHeader).
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
        // Spaces at its ends dropped, as validation drops them from every other column but the note.
        const cell = value.trim();
        const amount = readAmount(cell, row, problems);
        if (amount !== undefined) {
          fields.amount = amount;
          amountCell = { key, value: cell };
        } else (reported ??= []).push(key);
        if (THOUSANDS_ONLY.test(cell)) thousands = { key, value: cell };
      } else fields[field] = value as never;
    }
  }
  if (thousands && fields.amount !== undefined && minorDigits(fields.currency ?? '') === 3) {
    problems.push(threeDecimals(thousands.value, row, fields.currency!));
    delete fields.amount;
    (reported ??= []).push(thousands.key);
  }
  const extra = amountCell && fields.amount !== undefined ? extraDecimals(fields.amount, fields.currency?.trim() ?? '') : undefined;
  if (extra && amountCell) {
    problems.push(tooManyDecimals(amountCell.value, fields.amount!, row, fields.currency!.trim(), extra));
    delete fields.amount;
    (reported ??= []).push(amountCell.key);
  }
  if (Object.keys(metadata).length) fields.metadata = metadata;
  const derivedId = !fields.payoutId;
  const out: BatchRow = derivedId ? { row, fields, derivedId, legacyId: legacyId(file, idRow, values) } : { row, fields, derivedId };
  if (reported) out.reported = reported;
  return out;
}

/** At the end of a file read to its end: a file without a row, and without any other problem, is said to be one. */
export function noPayoutRows(count: number, problems: Problem[]): void {
  if (count === 0 && problems.length === 0) problems.push(problemOf('the file has no payout rows'));
}
