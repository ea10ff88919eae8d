/**
 * The summary for people: per currency, a line of totals and a table of statuses with a
 * bar chart of amounts. Bars are computed in integer minor units; amounts are never
 * added across currencies.
 */
import type { Summary } from '../api/schemas.js';
import { formatAmount, toCommonMinor } from '../money/amount.js';
import { renderTable } from './table.js';
import { text } from './text.js';
import { paintFor, statusColor, type Style } from './style.js';

const BAR_WIDTH = 24;

/** A bar of `width * value / max` cells, in integer arithmetic. */
export function bar(value: bigint, max: bigint, width = BAR_WIDTH): string {
  if (max <= 0n || value <= 0n) return '';
  const cells = Number((value * BigInt(width) + max / 2n) / max);
  return '█'.repeat(Math.max(1, cells));
}

export function renderSummary(s: Summary, style: Style): string {
  const parts: string[] = [];
  const period = [s.from ? `from ${text(s.from)}` : '', s.to ? `to ${text(s.to)}` : ''].filter(Boolean).join(' ');
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
