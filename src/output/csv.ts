/**
 * CSV for spreadsheets: RFC 4180 quoting, and cells that a spreadsheet would run as a
 * formula (starting with =, +, -, @, tab or carriage return) neutralized with a leading ',
 * and escape sequences removed like any service text.
 */
import { sanitize } from './sanitize.js';

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  let s = value === undefined || value === null ? '' : sanitize(String(value));
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(values: unknown[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}
