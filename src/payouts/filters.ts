/**
 * Filters of `payouts list` and `summary`: dates and times as the CLI takes them
 * (`2026-11-01` = that UTC day, or a full ISO timestamp) turned into the inclusive
 * created_at bounds the service takes, and the payout statuses of the contract.
 */
import { sanitizeInline } from '../output/sanitize.js';

/** Payout statuses of the service (contract.md), as `payouts list --status` sends them. */
export const PAYOUT_STATUSES = ['Pending', 'Successful', 'Failed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * A --status filter: one of the contract's statuses in any case ("failed"), sent in the
 * contract's case ("Failed"); anything else is a problem pushed to `problems` (nothing is sent).
 */
export function statusFilter(value: string | undefined, problems: string[]): PayoutStatus | undefined {
  if (value === undefined) return undefined;
  const status = PAYOUT_STATUSES.find((s) => s.toLowerCase() === value.trim().toLowerCase());
  if (status === undefined) problems.push(`--status: "${sanitizeInline(value)}" is not a payout status (${PAYOUT_STATUSES.join(', ')})`);
  return status;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** False for days that do not exist (2026-02-30), which Date would roll into the next month. */
function isRealDate(y: string, m: string, d: string): boolean {
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d);
}

/** A `from`/`to` value, or a problem to list. `end` picks the end of a bare date's day. */
export function parseTimeBound(flag: string, value: string, end: boolean): { value: string } | { problem: string } {
  const d = DATE.exec(value);
  if (d) {
    if (!isRealDate(d[1]!, d[2]!, d[3]!)) return { problem: `${flag}: "${value}" is not a real date` };
    return { value: `${value}T${end ? '23:59:59.999999' : '00:00:00.000000'}Z` };
  }
  const iso = ISO.exec(value);
  if (iso) {
    if (!isRealDate(iso[1]!, iso[2]!, iso[3]!)) return { problem: `${flag}: "${value}" is not a real date` };
    if (!Number.isNaN(Date.parse(value))) return { value };
  }
  return { problem: `${flag}: "${value}" is not a date (2026-11-01) or an ISO timestamp (2026-11-01T10:00:00Z)` };
}

export interface TimeRange {
  from?: string;
  to?: string;
}

/** Parses --from/--to, adding problems to `problems`; checks from <= to. */
export function parseTimeRange(opts: { from?: string; to?: string }, problems: string[]): TimeRange {
  const range: TimeRange = {};
  if (opts.from !== undefined) {
    const r = parseTimeBound('--from', opts.from, false);
    if ('problem' in r) problems.push(r.problem);
    else range.from = r.value;
  }
  if (opts.to !== undefined) {
    const r = parseTimeBound('--to', opts.to, true);
    if ('problem' in r) problems.push(r.problem);
    else range.to = r.value;
  }
  if (range.from && range.to && Date.parse(range.from) > Date.parse(range.to)) problems.push('--from is later than --to');
  return range;
}

/** The filters a list page was asked for, in the service's names. */
export interface ListFilter {
  status?: string;
  walletId?: string;
  currency?: string;
  from?: string;
  to?: string;
}

/**
 * How a record answered to a filtered list falls outside the filters asked for ("status Pending,
 * asked for Failed"), or undefined when it fits. Fields the record does not carry are not judged;
 * times are compared to the millisecond, so a record is only refused when it is surely outside.
 */
export function outsideFilter(
  record: { status?: string | undefined; wallet_id?: string | undefined; currency?: string | undefined; created_at?: string | undefined },
  f: ListFilter,
): string | undefined {
  if (f.status !== undefined && record.status !== undefined && record.status.toLowerCase() !== f.status.toLowerCase())
    return `status ${record.status}, asked for ${f.status}`;
  if (f.walletId !== undefined && record.wallet_id !== undefined && record.wallet_id !== f.walletId) return `wallet ${record.wallet_id}, asked for ${f.walletId}`;
  if (f.currency !== undefined && record.currency !== undefined && record.currency.toUpperCase() !== f.currency.toUpperCase())
    return `currency ${record.currency}, asked for ${f.currency}`;
  const created = record.created_at === undefined ? NaN : Date.parse(record.created_at);
  if (!Number.isNaN(created)) {
    if (f.from !== undefined && created < Math.floor(Date.parse(f.from))) return `created ${record.created_at}, asked for from ${f.from}`;
    if (f.to !== undefined && created > Date.parse(f.to)) return `created ${record.created_at}, asked for to ${f.to}`;
  }
  return undefined;
}
