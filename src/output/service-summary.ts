/**
 * The service's summary (`POST /payout/summary`, `payctl summary` without a filter) for people
 * and files (docs/service.md "Summary"): its counts by status and by type as tables with bar
 * charts, the total, and `total_sent` as the service's figure (it has no currency, so none is
 * shown); figures the documentation does not name are shown as they came.
 *
 * Each documented figure is read on its own: one that cannot be read (a count that is no whole
 * number, a `total_sent` that is no exact amount: `1e400`, `"abc"`) does not turn the rest into
 * something else. A count is then shown as sent without a bar; `total_sent` is never shown
 * through a float: `(unreadable)` on the line, an empty cell in CSV. unreadFigures names them
 * (a string with its escapes written out) for the warning the command gives in every output
 * mode; doubtfulFigures names a count that is null (`(missing)` on its row, an empty cell in
 * CSV) and a `total_sent` that is missing or negative for a warning of its own.
 */
import { money } from '../service/schemas.js';
import { toDecimal } from '../money/amount.js';
import { bar, barTables, largest, type BarTable } from './bars.js';
import { csvRow } from './csv.js';
import { sanitizeInline } from './sanitize.js';
import { text } from './text.js';
import { wrapText } from './text-width.js';
import { paintFor, type Style } from './style.js';
import { visibleWord } from '../words.js';

/** The figures docs/service.md documents, in the order they are shown. */
const STATUS_FIELDS = [
  ['successful', 'Successful'],
  ['pending', 'Pending'],
  ['failed', 'Failed'],
] as const;
const TYPE_FIELDS = [
  ['wallet_transfers', 'Wallet'],
  ['bank_transfers', 'Bank'],
] as const;
const COUNT_FIELDS: readonly string[] = ['total_transfers', ...STATUS_FIELDS.map(([k]) => k), ...TYPE_FIELDS.map(([k]) => k)];
const KNOWN_FIELDS: ReadonlySet<string> = new Set([...COUNT_FIELDS, 'total_sent']);

/** The service's summary `data`: an object of figures (any may be missing, or not what it should be). */
export type ServiceSummary = Record<string, unknown>;

/** A figure as it came, as text: a string as it is, anything else as its JSON ("38", "[1]"). */
function asSent(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
}

/** A whole number as written: digits, maybe a fraction and a (3-digit at most) exponent ("36", "1e30", "1.5E3", "36.0"). */
const WRITTEN_NUMBER = /^(\d+)(?:\.(\d+))?(?:[eE]\+?(\d{1,3}))?$/;

/**
 * A count as a whole number, exactly: a safe integer, or the text of a number as the service
 * wrote it (exact-json keeps `1e30` or 20 digits as text: never a float's `1e+30`);
 * undefined when it is no whole number of zero or more (`-1`, `1.5`, `"two"`).
 */
export function countValue(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : undefined;
  const m = typeof v === 'string' ? WRITTEN_NUMBER.exec(v) : null;
  if (!m) return undefined;
  const frac = m[2] ?? '';
  const shift = Number(m[3] ?? '0') - frac.length;
  const digits = m[1]! + frac;
  if (shift >= 0) return BigInt(digits) * 10n ** BigInt(shift);
  // A fraction beyond the exponent: whole only when what it leaves are zeros ("36.0", "1.50e1").
  return /^0+$/.test(digits.slice(shift)) ? BigInt(digits.slice(0, shift) || '0') : undefined;
}

/** `total_sent` exact and plain ("7281.78", a grouped string made plain); undefined when it is no exact amount. */
export function serviceFigure(v: unknown): string | undefined {
  const r = money.safeParse(v);
  return r.success ? toDecimal(r.data) : undefined;
}

/**
 * A figure payctl cannot read as it came, on one line: a string holding anything but printable
 * ASCII quoted with those characters written out (words.ts visibleWord: `"\u001b[2J33"`, never
 * `33`, which reads as a count), anything else sanitized.
 */
function visibleSent(v: unknown): string {
  const s = asSent(v);
  return typeof v === 'string' && visibleWord(s) !== s ? `"${visibleWord(s)}"` : sanitizeInline(s);
}

/** At most 40 characters of what came, as visibleSent writes it (a warning must not hold 1 MB). */
function excerpt(v: unknown): string {
  const s = visibleSent(v);
  return s.length > 40 ? s.slice(0, 40) + '…' : s;
}

/**
 * The documented figures payctl cannot read, one phrase each, for a warning: "total_sent
 * 1e400 is not an exact amount: not shown". None when every figure that came can be read.
 */
export function unreadFigures(s: ServiceSummary): string[] {
  const out: string[] = [];
  for (const key of COUNT_FIELDS) {
    const v = s[key];
    if (v !== undefined && v !== null && countValue(v) === undefined) out.push(`${key} ${excerpt(v)} is not a count: shown as sent, without a bar`);
  }
  const sent = s.total_sent;
  if (sent !== undefined && sent !== null && serviceFigure(sent) === undefined) out.push(`total_sent ${excerpt(sent)} is not an exact amount: not shown`);
  return out;
}

/** A figure with a minus sign: "-5.00", and "-0.0" too (docs/service.md: a total may be zero, never negative). */
function negative(figure: string): boolean {
  return figure.startsWith('-');
}

/**
 * Documented figures that are not what docs/service.md describes, one phrase each for a
 * warning: a count that is null (its row reads `(missing)`; before, the row was left out
 * without a word, probe R 2), and `total_sent` missing (absent or null: its line says so) or
 * negative (shown as sent). Before, a negative total was shown without a word and a missing
 * one was left out silently (probe M, 3).
 */
export function doubtfulFigures(s: ServiceSummary): string[] {
  const out = COUNT_FIELDS.filter((key) => s[key] === null).map((key) => `${key} is null: no figure`);
  const sent = s.total_sent;
  const figure = sent === undefined || sent === null ? undefined : serviceFigure(sent);
  if (sent === undefined) out.push('total_sent is missing');
  else if (sent === null) out.push('total_sent is null: no figure');
  else if (figure !== undefined && negative(figure)) out.push(`total_sent ${excerpt(figure)} is negative (a total is never below zero): shown as sent`);
  return out;
}

/** The label of `total_sent`: it is the service's figure and carries no currency. */
export const TOTAL_SENT_LABEL = "Total sent (service's figure, no currency)";

/** Where `total_sent` cannot be read: on its line instead of a figure. */
const UNREADABLE = '(unreadable)';

/** Where `total_sent` is absent or null, or a count null: on its line instead of a figure. */
const MISSING = '(missing)';

/** Any JSON as indented "key: value" lines, sanitized (figures payctl does not know). */
export function renderGeneric(value: unknown, indent = ''): string {
  if (value === null || typeof value !== 'object') return `${indent}${sanitizeInline(String(value))}\n`;
  let out = '';
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && typeof v === 'object') out += `${indent}${sanitizeInline(k)}:\n` + renderGeneric(v, indent + '  ');
    else out += `${indent}${sanitizeInline(k)}: ${sanitizeInline(String(v))}\n`;
  }
  return out;
}

/** A table of counts under its heading: bars beside the counts that can be read, scaled to the largest. */
function countTable(heading: string, rows: Array<[string, string, bigint | undefined]>, paint: (label: string) => (s: string) => string): BarTable {
  const max = largest(rows.map(([, , v]) => v));
  return {
    columns: [{ header: heading }, { header: 'COUNT', align: 'right' }],
    rows: rows.map(([label, shown]) => [paint(label)(label), shown]),
    bars: rows.map(
      ([label, , v]) =>
        (width) =>
          v === undefined ? '' : paint(label)(bar(v, max, width)),
    ),
  };
}

/**
 * The service's summary: the total, tables of counts by status and by type with bars, the
 * total sent as the service's figure; other fields as they came. A count that is absent is
 * left out, one that is null reads `(missing)`; `total_sent` missing is said to be missing (unless every figure is); a count that
 * cannot be read is shown as it came, without a bar; a `total_sent` that cannot be read is said
 * to be unreadable, a negative one is shown in yellow. At a terminal (`width`) the
 * lines fit it: the bars shrink, the sentences wrap; off one nothing changes.
 */
export function renderServiceSummary(s: ServiceSummary, style: Style, width?: number): string {
  const prose = (line: string, paint: (t: string) => string = (t) => t) =>
    wrapText(line, width)
      .split('\n')
      .map((l) => paint(l))
      .join('\n') + '\n';
  const parts: string[] = [prose('Summary from the service (every payout; POST /payout/summary)', style.dim)];
  // A count null reads (missing); one that cannot be read, as it came with its escapes written out.
  const shown = (v: unknown) => (v === undefined ? undefined : v === null ? style.yellow(MISSING) : countValue(v) === undefined ? visibleSent(v) : text(asSent(v)));
  if (shown(s.total_transfers) !== undefined) parts.push(`Total transfers  ${shown(s.total_transfers)}\n`);
  const rows = (fields: ReadonlyArray<readonly [string, string]>): Array<[string, string, bigint | undefined]> =>
    fields.flatMap(([key, label]) => {
      const t = shown(s[key]);
      return t === undefined ? [] : [[label, t, countValue(s[key])] as [string, string, bigint | undefined]];
    });
  const tables: BarTable[] = [];
  const byStatus = rows(STATUS_FIELDS);
  if (byStatus.length) tables.push(countTable('STATUS', byStatus, (l) => paintFor(style, l)));
  const byType = rows(TYPE_FIELDS);
  if (byType.length) tables.push(countTable('TYPE', byType, () => (t) => t));
  parts.push(...barTables(tables, style, width));
  const absent = s.total_sent === undefined || s.total_sent === null;
  if (parts.length === 1 && absent) parts.push(prose("The service's summary has none of the documented figures."));
  else {
    const figure = absent ? undefined : serviceFigure(s.total_sent);
    const mark = absent ? MISSING : UNREADABLE;
    // Wrapped before the colour, so that "(unreadable)" or "(missing)" is measured as it shows.
    const line = prose(`${TOTAL_SENT_LABEL}: ${figure ?? mark}`);
    parts.push(figure === undefined || negative(figure) ? line.replace(figure ?? mark, style.yellow(figure ?? mark)) : line);
  }
  const extra = Object.fromEntries(Object.entries(s).filter(([k]) => !KNOWN_FIELDS.has(k)));
  if (Object.keys(extra).length) parts.push(prose('Other figures from the service, as sent:', style.dim) + renderGeneric(extra, '  '));
  return parts.join('\n');
}

/**
 * The service's summary as CSV: `figure,value`, each field as sent, except `total_sent`: exact
 * and plain, or an empty cell when it is no exact amount (never a float's rendering); a count
 * null is an empty cell, and one that cannot be read has its escapes written out.
 */
export function serviceSummaryCsv(s: ServiceSummary): string {
  let out = csvRow(['figure', 'value']);
  for (const [k, v] of Object.entries(s)) {
    if (v === undefined) continue;
    const value = k === 'total_sent' && v !== null ? (serviceFigure(v) ?? '') : v !== null && typeof v === 'object' ? JSON.stringify(v) : csvFigure(k, v);
    out += csvRow([k, value]);
  }
  return out;
}

/** A count's cell: a string that is no count with what it holds written out (`\u001b[2J33`, never `33`). */
function csvFigure(key: string, v: unknown): unknown {
  return typeof v === 'string' && COUNT_FIELDS.includes(key) && countValue(v) === undefined ? visibleWord(v) : v;
}
