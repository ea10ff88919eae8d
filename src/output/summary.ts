/**
 * `payctl summary` for people and files, in its two forms (docs/service.md "Summary"):
 *
 * - the service's summary (`POST /payout/summary`, no filter): its counts by status and by
 *   type as tables with bar charts, the total, and `total_sent` as the service's figure (it has
 *   no currency, so none is shown): drawn in service-summary.ts, its names exported from here;
 * - a summary computed by payctl from the list (any filter): per currency and status, counts
 *   and amounts added exactly in bigint minor units (SummaryTally), never across currencies.
 *
 * Bars are computed in integer arithmetic. For files: CSV of either form.
 */
import type { Money, PayoutRecord } from '../service/schemas.js';
import { decimalToMinor, formatAmount, minorToDecimal, toDecimal } from '../money/amount.js';
import { minorDigits } from '../money/currencies.js';
import { csvRow } from './csv.js';
import { displayWidth, wrapSegments, wrapText } from './text-width.js';
import { text, utcTime } from './text.js';
import { paintFor, statusColor, type Style } from './style.js';
import { bar, barTables, largest, type BarTable } from './bars.js';

// The service's summary is drawn in service-summary.ts; the bars in bars.ts.
export { bar } from './bars.js';
export { TOTAL_SENT_LABEL, renderGeneric, renderServiceSummary, serviceSummaryCsv, unreadFigures } from './service-summary.js';
export { digitsWarning as digitsOf } from './payout.js';

const BOUND = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?Z$/;

/**
 * A bound of the period as people read dates: the date alone when the bound is a whole
 * day (from at 00:00:00, to at 23:59:59.999...: what `--from 2026-11-01` and `--to
 * 2026-11-30` mean), else the UTC time ("2026-11-01 10:30:00 UTC", a fraction of a second
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

// ---- the summary payctl computes -------------------------------------------------------

/** An exact sum of one currency's amounts: minor units at the currency's digits, or more when an amount has more. */
class ExactSum {
  minor = 0n;
  constructor(public digits: number) {}

  add(value: Money): void {
    const decimal = toDecimal(value);
    const places = decimal.includes('.') ? decimal.length - decimal.indexOf('.') - 1 : 0;
    if (places > this.digits) {
      this.minor *= 10n ** BigInt(places - this.digits);
      this.digits = places;
    }
    this.minor += decimalToMinor(decimal, this.digits);
  }

  get decimal(): string {
    return minorToDecimal(this.minor, this.digits);
  }
}

interface StatusTally {
  count: number;
  amount: ExactSum;
}

interface CurrencyTally {
  count: number;
  amount: ExactSum;
  fee: ExactSum;
  withFee: number;
  statuses: Map<string, StatusTally>;
}

/** The filters a computed summary was asked for, as the run took them. */
export interface SummaryFilters {
  from?: string;
  to?: string;
  wallet?: string;
  currency?: string;
}

/** A summary computed by payctl: amounts as exact plain decimals with at least the currency's digits. */
export interface ComputedSummary {
  computed: true;
  /** Payouts summed, and payouts read from the list in all. */
  payouts: number;
  listed: number;
  filters: SummaryFilters;
  currencies: Array<{
    currency: string;
    count: number;
    amount: string;
    /** The sum of the fees the records give; null when none gives one. */
    fee: string | null;
    statuses: Record<string, { count: number; amount: string }>;
  }>;
}

const STATUS_ORDER = ['Successful', 'Pending', 'Failed'];

/**
 * Counts and exact amounts per currency and status, one record at a time (memory: one entry
 * per currency and status). Each record added is counted: listPages leaves out a payout the
 * service lists twice (by its transaction id), so one is counted once.
 */
export class SummaryTally {
  readonly #currencies = new Map<string, CurrencyTally>();
  #payouts = 0;
  listed = 0;

  /** Adds a record that passed the filters; `status` is its normalized status word. */
  add(r: PayoutRecord, status: string): void {
    const currency = r.currency.toUpperCase();
    const digits = minorDigits(currency) ?? 2;
    let c = this.#currencies.get(currency);
    if (!c) {
      c = { count: 0, amount: new ExactSum(digits), fee: new ExactSum(digits), withFee: 0, statuses: new Map() };
      this.#currencies.set(currency, c);
    }
    const key = status || 'Unknown';
    let s = c.statuses.get(key);
    if (!s) {
      s = { count: 0, amount: new ExactSum(digits) };
      c.statuses.set(key, s);
    }
    c.count++;
    c.amount.add(r.amount);
    s.count++;
    s.amount.add(r.amount);
    if (r.fee !== undefined && r.fee !== null) {
      c.fee.add(r.fee);
      c.withFee++;
    }
    this.#payouts++;
  }

  get payouts(): number {
    return this.#payouts;
  }

  result(filters: SummaryFilters): ComputedSummary {
    const rank = (s: string) => (STATUS_ORDER.includes(s) ? STATUS_ORDER.indexOf(s) : STATUS_ORDER.length);
    return {
      computed: true,
      payouts: this.#payouts,
      listed: this.listed,
      filters,
      currencies: [...this.#currencies.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([currency, c]) => ({
          currency,
          count: c.count,
          amount: c.amount.decimal,
          fee: c.withFee ? c.fee.decimal : null,
          statuses: Object.fromEntries(
            [...c.statuses.entries()].sort(([a], [b]) => rank(a) - rank(b)).map(([status, s]) => [status, { count: s.count, amount: s.amount.decimal }]),
          ),
        })),
    };
  }
}

/** The filters in words: "currency SLE, wallet 5553881136, from 2026-11-01 to 2026-11-30". */
function filterWords(f: SummaryFilters): string {
  const words: string[] = [];
  if (f.currency) words.push(`currency ${text(f.currency)}`);
  if (f.wallet) words.push(`wallet ${text(f.wallet)}`);
  const period = [f.from ? `from ${periodBound(f.from, false)}` : '', f.to ? `to ${periodBound(f.to, true)}` : ''].filter(Boolean).join(' ');
  if (period) words.push(period);
  return words.join(', ');
}

/** The line that says where a computed summary's figures come from. */
export function computedLabel(c: ComputedSummary): string {
  const filters = filterWords(c.filters);
  return `Computed by payctl from ${c.payouts} payout${c.payouts === 1 ? '' : 's'} (of ${c.listed} listed)${filters ? `: ${filters}` : ''}.`;
}

/** A currency's line of totals: "SLE  15 payouts  51,087.84 SLE  fees 510.86 SLE"; at a terminal broken between its parts when it does not fit. */
function currencyLine(cur: ComputedSummary['currencies'][number], style: Style, width: number | undefined): string {
  const code = text(cur.currency);
  const segments = [`${style.bold(code)}  ${cur.count} payout${cur.count === 1 ? '' : 's'}`, `${formatAmount(cur.amount, cur.currency)} ${code}`];
  if (cur.fee !== null) segments.push(`fees ${formatAmount(cur.fee, cur.currency)} ${code}`);
  const line = segments.join('  ');
  return (width === undefined || displayWidth(line) <= width ? line : wrapSegments(segments, width, '  ')) + '\n';
}

/** A currency's statuses: count and amount, a bar beside each amount, one scale for the currency. */
function statusTable(cur: ComputedSummary['currencies'][number], style: Style): BarTable {
  const code = text(cur.currency);
  const entries = Object.entries(cur.statuses);
  // One scale for the currency (the sums share it), so extra decimals cannot skew the bars.
  const digits = Math.max(...entries.map(([, v]) => (v.amount.includes('.') ? v.amount.length - v.amount.indexOf('.') - 1 : 0)));
  const minors = entries.map(([, v]) => decimalToMinor(v.amount, digits));
  const max = largest(minors);
  return {
    columns: [{ header: 'STATUS' }, { header: 'COUNT', align: 'right' }, { header: 'AMOUNT', align: 'right' }],
    rows: entries.map(([status, v]) => [statusColor(style, text(status)), String(v.count), `${formatAmount(v.amount, cur.currency)} ${code}`]),
    bars: entries.map(
      ([status], i) =>
        (w) =>
          paintFor(style, status)(bar(minors[i]!, max, w)),
    ),
  };
}

/**
 * A computed summary: its label, then per currency a line of totals and a table of statuses
 * with bars. At a terminal (`width`) the lines fit it: the bars shrink (one width for every
 * currency), the label and the totals wrap; amounts are never cut. Off one nothing changes.
 */
export function renderComputedSummary(c: ComputedSummary, style: Style, width?: number): string {
  const label = wrapText(computedLabel(c), width)
    .split('\n')
    .map((l) => style.dim(l))
    .join('\n');
  const tables = c.currencies.map((cur) => statusTable(cur, style));
  const drawn = barTables(tables, style, width);
  const parts: string[] = [label + '\n'];
  c.currencies.forEach((cur, i) => {
    parts.push(currencyLine(cur, style, width));
    if (tables[i]!.rows.length) parts.push(drawn[i]!);
  });
  return parts.join('\n');
}

export const SUMMARY_CSV_HEADER = ['currency', 'status', 'count', 'amount'];

/** A computed summary as CSV: a header row, then one row per currency and status, amounts exact ("1500.50"). */
export function summaryCsv(c: ComputedSummary): string {
  let out = csvRow(SUMMARY_CSV_HEADER);
  for (const cur of c.currencies) {
    for (const [status, v] of Object.entries(cur.statuses)) out += csvRow([cur.currency, status, v.count, v.amount]);
  }
  return out;
}
