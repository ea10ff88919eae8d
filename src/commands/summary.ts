/**
 * `payctl summary`: totals per currency and status, with a bar chart of amounts by
 * status. Amounts are never added across currencies. A summary of another shape is
 * shown generically rather than failing.
 */
import { write, type Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { summarySchema, type Money, type Summary } from '../api/schemas.js';
import { parseTimeRange } from '../payouts/filters.js';
import { decimalFromNumber, decimalToMinor, formatAmount } from '../money/amount.js';
import { isKnownCurrency, minorDigits } from '../money/currencies.js';
import { renderTable, text } from '../output/table.js';
import { makeStyle, statusColor, type Style } from '../output/style.js';
import { sanitizeInline } from '../output/sanitize.js';

export interface SummaryOptions {
  from?: string;
  to?: string;
  wallet?: string;
  currency?: string;
}

const BAR_WIDTH = 24;

export async function run(opts: SummaryOptions, deps: Deps): Promise<number> {
  const problems: string[] = [];
  const range = parseTimeRange(opts, problems);
  const currency = opts.currency?.toUpperCase();
  if (currency !== undefined && !isKnownCurrency(currency)) problems.push(`--currency: "${opts.currency}" is not an ISO 4217 currency code`);
  if (problems.length) throw new UsageError('Invalid options for summary.', problems);

  const api = await deps.api();
  const body = JSON.stringify({ ...range, ...(opts.wallet ? { walletId: opts.wallet } : {}), ...(currency ? { currency } : {}) });
  // The summary is a read: safe to retry although it is a POST.
  const { envelope, res } = await api.callEnvelope('payoutsSummary', { body, retry: true });
  if (deps.globals.json) {
    await write(deps.io.stdout, res.raw.trim() + '\n');
    return 0;
  }
  const style = makeStyle(deps.io.color);
  const parsed = summarySchema.safeParse(envelope.data);
  if (!parsed.success) {
    await write(deps.io.stdout, renderGeneric(envelope.data, ''));
    return 0;
  }
  await write(deps.io.stdout, renderSummary(parsed.data, style));
  return 0;
}

function decimal(m: Money): string {
  return typeof m === 'number' ? decimalFromNumber(m) : m;
}

function fracDigits(d: string): number {
  return d.includes('.') ? d.length - d.indexOf('.') - 1 : 0;
}

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
    const head = `${style.bold(cur)}  ${c.count} payout${c.count === 1 ? '' : 's'}  ${formatAmount(c.amount, c.currency)} ${cur}` +
      (c.fee !== undefined ? `  fees ${formatAmount(c.fee, c.currency)} ${cur}` : '');
    const entries = Object.entries(c.statuses);
    // One scale for the whole currency, so extra decimals from the service cannot skew the bars.
    const scale = Math.max(minorDigits(c.currency) ?? 2, ...entries.map(([, v]) => fracDigits(decimal(v.amount))));
    const minors = entries.map(([, v]) => decimalToMinor(decimal(v.amount), scale));
    const max = minors.reduce((m, v) => (v > m ? v : m), 0n);
    const rows = entries.map(([status, v], i) => [
      statusColor(style, text(status)),
      String(v.count),
      `${formatAmount(v.amount, c.currency)} ${cur}`,
      colourBar(style, status, bar(minors[i]!, max)),
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

function colourBar(style: Style, status: string, b: string): string {
  if (status === 'Successful') return style.green(b);
  if (status === 'Pending') return style.yellow(b);
  if (status === 'Failed') return style.red(b);
  return b;
}

/** Any JSON as indented "key: value" lines, sanitized. */
function renderGeneric(value: unknown, indent: string): string {
  if (value === null || typeof value !== 'object') return `${indent}${sanitizeInline(String(value))}\n`;
  let out = '';
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && typeof v === 'object') out += `${indent}${sanitizeInline(k)}:\n` + renderGeneric(v, indent + '  ');
    else out += `${indent}${sanitizeInline(k)}: ${sanitizeInline(String(v))}\n`;
  }
  return out;
}
