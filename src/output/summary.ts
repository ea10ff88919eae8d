/**
 * The summary for people: per currency, a line of totals and a table of statuses with a
 * bar chart of amounts. Bars are computed in integer minor units; amounts are never
 * added across currencies. For files: one CSV row per currency and status.
 */
import type { Summary } from '../api/schemas.js';
import { formatAmount, plainAmount, toCommonMinor } from '../money/amount.js';
import { csvRow } from './csv.js';
import { renderTable } from './table.js';
import { text, utcTime } from './text.js';
import { paintFor, statusColor, type Style } from './style.js';

const BAR_WIDTH = 24;

/** A bar of `width * value / max` cells, in integer arithmetic. */
export function bar(value: bigint, max: bigint, width = BAR_WIDTH): string {
  if (max <= 0n || value <= 0n) return '';
  const cells = Number((value * BigInt(width) + max / 2n) / max);
  return '█'.repeat(Math.max(1, cells));
}

const BOUND = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?Z$/;

/**
 * A bound of the period as people read dates: the date alone when the bound is a whole
 * day (from at 00:00:00, to at 23:59:59.999...: what `--from 2026-11-01` and `--to
 * 2026-11-30` send), else the UTC time ("2026-11-01 10:30:00 UTC", a fraction of a second
 * kept when there is one). Anything that is not a time is shown sanitized, as it came.
 */
export function periodBound(value: string, end: boolean): string {
  const m = BOUND.exec(value);
  if (m) {
    const [, day, hm, frac = ''] = m;
    const time = hm!.length === 5 ? `${hm}:00` : hm!;
    if (!end && time === '00:00:00' && /^0*$/.test(frac)) return day!;
    if (end && time === '23:59:59' && frac !== '' && /^9+$/.test(frac)) return day!;
    const f = frac.replace(/0+$/, '');
    return `${day} ${time}${f ? '.' + f : ''} UTC`;
  }
  // Another offset: shown in UTC (to the millisecond Date keeps).
  return utcTime(value);
}

export function renderSummary(s: Summary, style: Style): string {
  const parts: string[] = [];
  const period = [s.from ? `from ${periodBound(s.from, false)}` : '', s.to ? `to ${periodBound(s.to, true)}` : ''].filter(Boolean).join(' ');
  if (s.currencies.length === 0) return `No payouts${period ? ' ' + period : ''}.\n`;
  if (period) parts.push(style.dim(`Payouts ${period}`) + '\n');
  for (const c of s.currencies) {
    const cur = text(c.currency);
    const head =
      `${style.bold(cur)}  ${c.count} payout${c.count === 1 ? '' : 's'}  ${formatAmount(c.amount, c.currency)} ${cur}` +
      (c.fee !== undefined ? `  fees ${formatAmount(c.fee, c.currency)} ${cur}` : '');
    const entries = Object.entries(c.statuses);
    // One scale for the whole currency, so extra decimals from the service cannot skew the bars.
    const { minors } = toCommonMinor(
      entries.map(([, v]) => v.amount),
      c.currency,
    );
    const max = minors.reduce((m, v) => (v > m ? v : m), 0n);
    const rows = entries.map(([status, v], i) => [
      statusColor(style, text(status)),
      String(v.count),
      `${formatAmount(v.amount, c.currency)} ${cur}`,
      paintFor(style, status)(bar(minors[i]!, max)),
    ]);
    parts.push(head + '\n');
    if (rows.length) {
      parts.push(
        renderTable([{ header: 'STATUS' }, { header: 'COUNT', align: 'right' }, { header: 'AMOUNT', align: 'right' }, { header: '' }], rows, style)
          .split('\n')
          .map((l) => (l ? '  ' + l : l))
          .join('\n'),
      );
    }
  }
  return parts.join('\n');
}

export const SUMMARY_CSV_HEADER = ['currency', 'status', 'count', 'amount'];

/** The summary as CSV: a header row, then one row per currency and status, amounts exact ("1500.50"). */
export function summaryCsv(s: Summary): string {
  let out = csvRow(SUMMARY_CSV_HEADER);
  for (const c of s.currencies) {
    for (const [status, v] of Object.entries(c.statuses)) out += csvRow([c.currency, status, v.count, plainAmount(v.amount, c.currency)]);
  }
  return out;
}
