/**
 * Filters of `payouts list` and `summary`: dates and times as the CLI takes them
 * (`2026-11-01` = that UTC day, or a full ISO timestamp) turned into inclusive created_at
 * bounds, the payout statuses, and the test payctl applies to every listed record itself
 * (the service's list takes no filters it is known to honour: docs/service.md "Payout list").
 */
import { visibleWord } from '../words.js';
import { commandLine, type Invocation } from '../config/command-line.js';
import { sanitizeInline } from '../output/sanitize.js';
import { isTransactionId } from '../service/schemas.js';
import { unseenCharacters } from './unseen.js';

/** Payout statuses as payctl normalizes them (docs/service.md), as `payouts list --status` takes them. */
export const PAYOUT_STATUSES = ['Pending', 'Successful', 'Failed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * A --status filter: one of the normalized statuses in any case ("failed" -> "Failed");
 * anything else is a problem pushed to `problems` (nothing is sent).
 */
export function statusFilter(value: string | undefined, problems: string[]): PayoutStatus | undefined {
  if (value === undefined) return undefined;
  const status = PAYOUT_STATUSES.find((s) => s.toLowerCase() === value.trim().toLowerCase());
  if (status === undefined) problems.push(`--status: "${visibleWord(value)}" is not a payout status (${PAYOUT_STATUSES.join(', ')})`);
  return status;
}

/**
 * An id given to an option (`--wallet`, `--batch-id`, `--payout-id`), trimmed: an empty one (a
 * script's unset variable: `--wallet "$W"`) is a problem, not a filter that matches nothing
 * and exits 0 with a total of zero, nor a request for an empty id. So is one holding control,
 * invisible or direction-changing characters (a zero-width space pasted from a chat app), as
 * `payout create --wallet` refuses them: no id holds one, and an error echoing it would show
 * another id than the one given.
 */
export function idOption(flag: string, what: string, value: string | undefined, problems: string[]): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') problems.push(`${flag}: give ${what} (the value is empty)`);
  for (const problem of unseenCharacters(value.trim())) problems.push(`${flag} ${problem}`);
  return value.trim();
}

/** A --wallet filter (idOption). */
export function walletFilter(value: string | undefined, problems: string[]): string | undefined {
  return idOption('--wallet', 'a wallet id', value, problems);
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
    if (!isRealDate(d[1]!, d[2]!, d[3]!)) return { problem: `${flag}: "${visibleWord(value)}" is not a real date` };
    return { value: `${value}T${end ? '23:59:59.999999999' : '00:00:00.000000'}Z` };
  }
  const iso = ISO.exec(value);
  if (iso) {
    if (!isRealDate(iso[1]!, iso[2]!, iso[3]!)) return { problem: `${flag}: "${visibleWord(value)}" is not a real date` };
    if (!Number.isNaN(Date.parse(value))) return { value };
  }
  return { problem: `${flag}: "${visibleWord(value)}" is not a date (2026-11-01) or an ISO timestamp (2026-11-01T10:00:00Z)` };
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

/** The filters of a list, applied by payctl to every record (docs/service.md "Payout list"). */
export interface ListFilter {
  status?: string;
  walletId?: string;
  currency?: string;
  from?: string;
  to?: string;
}

/** True when the filter has any condition (a summary with one is computed by payctl). */
export function hasFilter(f: ListFilter): boolean {
  return f.status !== undefined || f.walletId !== undefined || f.currency !== undefined || f.from !== undefined || f.to !== undefined;
}

/**
 * An instant as the documentation writes one (ISO 8601, UTC, `Z`), or as a service may: another
 * offset, or a date and time with a space and no zone (Laravel's `2026-11-26 23:30:00`), read in
 * UTC, the documented zone (the tables' CREATED (UTC) shows it so).
 */
const INSTANT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An ISO timestamp as nanoseconds since the epoch, exactly (the service writes microseconds,
 * which a Date would cut to milliseconds); undefined when it is not one.
 */
export function instantNs(value: string | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  const m = INSTANT.exec(value.trim());
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[4] ?? 'Z'}`);
  if (Number.isNaN(ms)) return undefined;
  return BigInt(ms) * 1_000_000n + BigInt((m[3] ?? '').padEnd(9, '0'));
}

/** The record fields a filter reads (a normalized PayoutRecord has them all). */
export interface FilterableRecord {
  status?: string | undefined;
  wallet_id?: string | undefined;
  currency?: string | undefined;
  created_at?: string | undefined;
}

/**
 * The filter as a test of one record. The service is never trusted to filter: every record is
 * judged here. Status by the normalized word (`normalize`, any case); currency in any case;
 * times exactly, to the nanosecond. A record without the field a condition needs never matches.
 */
export function recordFilter(f: ListFilter, normalize: (status: string) => string): (r: FilterableRecord) => boolean {
  const status = f.status?.toLowerCase();
  const currency = f.currency?.toUpperCase();
  const from = instantNs(f.from);
  const to = instantNs(f.to);
  const dated = from !== undefined || to !== undefined;
  return (r) => {
    if (status !== undefined && (r.status === undefined || normalize(r.status).toLowerCase() !== status)) return false;
    if (f.walletId !== undefined && r.wallet_id !== f.walletId) return false;
    if (currency !== undefined && r.currency?.toUpperCase() !== currency) return false;
    if (dated) {
      const at = instantNs(r.created_at);
      if (at === undefined) return false;
      if (from !== undefined && at < from) return false;
      if (to !== undefined && at > to) return false;
    }
    return true;
  };
}

/** Whether --wallet leaves this record out because it names no wallet at all (counted, and said once on stderr). */
export function walletless(f: ListFilter, r: FilterableRecord): boolean {
  return f.walletId !== undefined && (r.wallet_id === undefined || r.wallet_id === '');
}

/** Whether --from or --to leaves this record out because its creation time cannot be read (counted, and said once on stderr). */
export function undated(f: ListFilter, r: FilterableRecord): boolean {
  return (f.from !== undefined || f.to !== undefined) && instantNs(r.created_at) === undefined;
}

/** The note said once when --from or --to left out records whose creation time cannot be read. */
export function undatedNote(count: number): string {
  return `${count} payout${count === 1 ? '' : 's'} left out by --from/--to: the service's record${count === 1 ? ' gives' : 's give'} no creation time payctl can read (created_at).`;
}

/** The note said once when --wallet left out records that name no wallet. */
export function walletlessNote(count: number): string {
  return `${count} payout${count === 1 ? '' : 's'} left out by --wallet: the service's record${count === 1 ? ' does' : 's do'} not say which wallet paid ${count === 1 ? 'it' : 'them'}.`;
}

/**
 * The note said when records were listed without a status (`ids`: the first few transaction ids,
 * '' for a record without one; `count` in all): whether they were paid cannot be told, and the
 * `payout get` that reads the first whose id is a transaction id (the run's options: `inv`).
 */
export function statuslessNote(ids: string[], count: number, inv: Invocation): string {
  const named = ids.map((id) => (id ? sanitizeInline(id) : '(no transaction id)'));
  const more = count > named.length ? ` and ${count - named.length} more` : '';
  const first = ids.find((id) => isTransactionId(id));
  const read = first ? ` Read ${count === 1 ? 'it' : 'the first'} with: ${commandLine(inv, ['payout', 'get', first])}` : '';
  return `${count === 1 ? '1 payout listed has' : `${count} payouts listed have`} no status (${named.join(', ')}${more}): whether ${count === 1 ? 'it was' : 'they were'} paid cannot be told from the list.${read}`;
}
