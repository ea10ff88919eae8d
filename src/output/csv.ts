/**
 * CSV for spreadsheets: RFC 4180 quoting, escape sequences removed like any service text,
 * and cells that a spreadsheet would run as a formula neutralized with a leading '.
 *
 * The rule, on the sanitized value:
 * - a cell starting with =, @, tab or carriage return is neutralized;
 * - a cell starting with - is neutralized unless it is a plain negative decimal number
 *   (-1, -1500.50: a minus sign, digits, optionally a point and digits, nothing else);
 * - a cell starting with + is neutralized unless it is a plain number such as a phone
 *   number (+23276000001, +232 76 000 001: a plus sign, then only digits and spaces, at
 *   least one digit) or a signed decimal (+1500.50).
 * What stays unquoted holds no letters, operators, parentheses or references: a spreadsheet
 * can only read it as a number, never call a function or run a command (=cmd|..., -2+3+...).
 * The patterns are anchored with disjoint or single quantifiers: linear on any input.
 */
import { sanitize } from './sanitize.js';

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NEGATIVE = /^-\d+(?:\.\d+)?$/;
const PLAIN_PLUS_NUMBER = /^\+ *\d[\d ]*(?:\.\d+)?$/;

/** Would a spreadsheet evaluate this (sanitized) value as a formula? */
export function isFormula(s: string): boolean {
  if (!FORMULA_START.test(s)) return false;
  if (s.startsWith('-')) return !PLAIN_NEGATIVE.test(s);
  if (s.startsWith('+')) return !PLAIN_PLUS_NUMBER.test(s);
  return true;
}

export function csvCell(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- cells are scalars (strings, numbers, booleans, bigints)
  let s = value === undefined || value === null ? '' : sanitize(String(value));
  if (isFormula(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(values: unknown[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}
