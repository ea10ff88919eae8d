/**
 * Waiting for a payout to settle (`--wait`): the payout is read again and again by its
 * transaction id (GET payoutGet, the only look-up the service has: docs/service.md) until its
 * status, compared without regard to case ("successful" in a look-up), is Successful or Failed,
 * or the time limit comes. The one place that polls, so `payout create --wait`,
 * `payout get --wait` and batch status share it.
 *
 * Each read is one call of the client, whose retry engine (api/retry.ts) already retries
 * connection errors, 408, 429 and 5xx with their Retry-After; after the first, a read and its
 * retries end by the time limit (readBound), so that a read that hangs does not overrun it. The polling interval is
 * separate: 1 s, doubling up to 15 s between checks, never sooner than a Retry-After the
 * last answer asked for, and cut short to check once more at the time limit. A check that
 * still failed after the read's retries (429, 5xx, the network) does not end the wait once
 * the payout has been seen: the payout was accepted, and the next check may work. A payout read
 * Successful before (`readSuccessfulBefore`) that a read finds otherwise ends the wait at that
 * read (a contradiction, payouts/contradiction.ts): waiting on would only hold its exit 4 back.
 * Every wait is on the given clock, so tests run it without real waits.
 */
import { apiErrorFrom, parseEnvelope, type ApiClient, type HttpResponse } from '../api/client.js';
import { isRetryableStatus, parseRetryAfter } from '../api/retry.js';
import { recordStatus, type PayoutRecord } from '../service/schemas.js';
import { ApiError, NetworkError } from '../errors.js';
import { payoutAnswer, type PayoutRef } from './lookup.js';
import { comparedAccount } from './identity.js';
import { plainAmount, sameAmount } from '../money/amount.js';
import { sanitizeInline } from '../output/sanitize.js';
import { utcTime } from '../output/text.js';
import { fsFault } from '../config/fs-fault.js';
import type { Clock } from '../clock.js';
import type { JournalEntry, Ledger } from './journal.js';
import { contradicts, unsettledAfterFailed } from './contradiction.js';

/** The intervals between checks: the first, the longest, and the longest Retry-After honoured. */
export const POLL = { firstMs: 1_000, maxMs: 15_000, maxRetryAfterMs: 60_000 } as const;

/** The statuses a payout ends in. */
export const SETTLED_STATUSES = ['Successful', 'Failed'] as const;
export type SettledStatus = (typeof SETTLED_STATUSES)[number];

export function isSettled(status: string): status is SettledStatus {
  return (SETTLED_STATUSES as readonly string[]).includes(status);
}

/** Whether the journal has the payout as read Successful: it has paid, and a later read that says otherwise is a contradiction. */
export function journaledSuccessful(entry: JournalEntry | undefined): boolean {
  const o = entry?.outcome;
  return o?.kind === 'accepted' && o.payoutStatus?.toLowerCase() === 'successful';
}

/**
 * The journal's read of a payout it holds Failed (when, and the entry), else undefined: Failed is
 * final, and a later read that says Pending (or a word payctl does not know) contradicts it.
 */
export function journaledFailed(entry: JournalEntry | undefined): EarlierRead | undefined {
  return entry === undefined ? undefined : earlierRead(entry, 'Successful');
}

/** What the journal held of a payout before a settled read that says the other: its status, when it was read so, and its entry. */
export interface EarlierRead {
  status: SettledStatus;
  /** When it was read so (statusReadAt; a look-up's time): absent when noted before payctl recorded it. */
  at?: string | undefined;
  entry: JournalEntry;
}

/** Where and when an earlier read is said (`before` its place): "in this config folder's journal, at 2026-11-28 20:48 UTC". */
export function earlierSaid(e: EarlierRead, before = "in this config folder's journal"): string {
  return `${before}${e.at !== undefined ? `, at ${utcTime(e.at)}` : ''}`;
}

/** The settled status `entry` holds when it is the other one than `status` (read now), else undefined. */
export function earlierRead(entry: JournalEntry, status: SettledStatus): EarlierRead | undefined {
  const o = entry.outcome;
  if (o?.kind !== 'accepted') return undefined;
  const before = SETTLED_STATUSES.find((s) => s.toLowerCase() === o.payoutStatus?.toLowerCase());
  if (before === undefined || before === status) return undefined;
  return { status: before, at: o.statusReadAt ?? (o.lookedUp ? o.at : undefined), entry };
}

/**
 * Writes a settled status into the payout's journal entry (with when it was read, `now`), so
 * that `history` shows what the payout became (Failed, not only "accepted"), and so that a payout read Successful is held to it:
 * when the journal has the payout as accepted and does not say so already. A journal that cannot
 * be written fails nothing (the read stands); `warn`, when given, is told so for a Successful, as
 * a later read that says otherwise is then not known for a contradiction. A Successful there is
 * kept: a payout known Successful has paid, and a later read that says otherwise is a
 * contradiction (payouts/contradiction.ts), never the payout's settlement. A Failed there is
 * replaced by a Successful read (it may have paid: the repeat guard must count it), and returned
 * as the other way round: the earlier read that the read now contradicts, as the journal holds
 * it when noted (another run may have noted it since this one began). `payout get` (with or
 * without --wait), `payout batch status` and its --failed-out note here.
 */
export async function noteSettled(
  journal: Ledger,
  baseUrl: string,
  payoutId: string | undefined,
  status: SettledStatus,
  warn?: (line: string) => void,
  now?: Date,
): Promise<EarlierRead | undefined> {
  if (payoutId === undefined) return undefined;
  let earlier: EarlierRead | undefined;
  try {
    const entry = await journal.get(baseUrl, payoutId);
    const o = entry?.outcome;
    if (entry === undefined || o?.kind !== 'accepted' || o.payoutStatus === status) return undefined;
    earlier = earlierRead(entry, status);
    if (journaledSuccessful(entry)) return earlier;
    await journal.record(entry, { ...o, payoutStatus: status, ...(now ? { statusReadAt: now.toISOString() } : {}) });
    return earlier;
  } catch (err) {
    // history shows the outcome without the status
    if (status === 'Successful')
      warn?.(
        `Payout ${sanitizeInline(payoutId)} was read Successful, but the journal could not note it (${sanitizeInline(fsFault(err))}): the read stands; a later read that says otherwise will not be held against it.`,
      );
    return earlier;
  }
}

/** What the polling needs of the client (a test may give a fake). */
export type SettleApi = Pick<ApiClient, 'call' | 'command'>;

/** One answer that held the payout: the record and the response it came in (raw: the envelope as sent). */
export interface Seen {
  record: PayoutRecord;
  res: HttpResponse;
}

/** Told after every check: the last status seen, the time waited so far, and why the check failed, if it did. */
export interface WaitStatus {
  status: string;
  elapsedMs: number;
  problem?: string;
}

export interface SettleOptions {
  clock: Clock;
  /** Interrupts the waits between checks (Ctrl-C); the reads use the client's own signal. */
  signal?: AbortSignal;
  /** Checks stop this long after the first: the result is then `pending`. */
  timeoutMs: number;
  /** Read Successful before (the journal, a report's cell): the first read that says otherwise ends the wait, `contradicted`. */
  readSuccessfulBefore?: boolean;
  /** Read Failed before (the journal): the first read that is neither Failed nor Successful ends the wait, `contradicted` (a Successful one is `settled`: its caller notes it). */
  readFailedBefore?: boolean;
  onStatus?: (s: WaitStatus) => void;
}

/**
 * `settled`; `pending` at the time limit; `unread`: after the payout was seen, a read whose answer
 * cannot be used (not the record asked for, unreadable, a 404): its settlement is not known;
 * `contradicted`: read Successful before, otherwise now, or read Failed before, unsettled now (at
 * once, never at the limit). The
 * record is the last one seen, `status` its status.
 */
export type SettleResult = Seen & { elapsedMs: number; checks: number } & (
    | { kind: 'settled'; status: SettledStatus }
    | { kind: 'contradicted'; status: string }
    /** At the limit; `problem` when the checks after the last read (`readMs` into the wait) all failed, the last one's problem. */
    | { kind: 'pending'; status: string; problem?: string; readMs?: number }
    | { kind: 'unread'; status: string; error: ApiError }
  );

type Check = { seen: Seen } | { problem: string; error: Error; retryAfterMs: number | undefined };

/**
 * How a check reads: the first as `payout get` would (it must succeed: the client's retries, each
 * attempt at most --timeout); a later one within the time left, its attempts cut off and its
 * retries given up at `deadline`; the one at the limit (no time left) once, at most --timeout.
 */
function readBound(first: boolean, deadline: number, clock: Clock): { endBy?: number; retry?: boolean } {
  if (first) return {};
  return deadline > clock.now().getTime() ? { endBy: deadline } : { retry: false };
}

/** One read of the payout: the record, or a failure that a later check may get past. */
async function check(api: SettleApi, ref: PayoutRef, clock: Clock, bound: { endBy?: number; retry?: boolean }): Promise<Check> {
  let res: HttpResponse;
  try {
    res = await api.call('payoutGet', { params: { transactionId: ref.transactionId }, ...bound });
  } catch (err) {
    if (err instanceof NetworkError) return { problem: err.message, error: err, retryAfterMs: undefined };
    throw err;
  }
  if (res.status < 200 || res.status > 299) {
    const error = apiErrorFrom(res);
    if (!isRetryableStatus(res.status)) throw error;
    return { problem: `HTTP ${res.status}`, error, retryAfterMs: parseRetryAfter(res.headers['retry-after'], clock.now()) };
  }
  // The answer must be the payout asked for (its transaction id; amount and currency when journaled).
  return { seen: { record: payoutAnswer(parseEnvelope(res).data, ref, res, api), res } };
}

/**
 * What a later read of the payout says otherwise than the first did: its amount (by value),
 * currency, wallet, account or payout id, each as `field: first read X, now Y` (empty when
 * none changed). A payout does not change what it pays while it settles, so a read that says
 * otherwise is not a read of this payout that can be used, whether the journal has it or not.
 * Fields a read leaves out are not compared.
 */
export function changedFields(first: PayoutRecord, now: PayoutRecord): string[] {
  const changed: string[] = [];
  const said = (v: string) => sanitizeInline(v);
  const differs = (what: string, a: string, b: string) => changed.push(`${what}: first read ${said(a)}, now ${said(b)}`);
  if (now.currency !== first.currency) differs('currency', first.currency, now.currency);
  const amountOf = (r: PayoutRecord) => {
    try {
      return plainAmount(r.amount, r.currency);
    } catch {
      return String(r.amount);
    }
  };
  if (!sameAmount(first.amount, now.amount, first.currency)) differs('amount', amountOf(first), amountOf(now));
  const pairs: Array<[string, string | undefined, string | undefined, (v: string) => string]> = [
    ['wallet', first.wallet_id, now.wallet_id, (v) => v],
    ['account', first.recipient?.accountNumber ?? undefined, now.recipient?.accountNumber ?? undefined, comparedAccount],
    ['payout id', first.payout_id, now.payout_id, (v) => v],
  ];
  for (const [what, a, b, key] of pairs) if (a !== undefined && b !== undefined && key(a) !== key(b)) differs(what, a, b);
  return changed;
}

/**
 * Reads the payout now, then again with back-off until it is Successful or Failed
 * (`settled`) or `timeoutMs` has passed (`pending`, with the last record seen). The first
 * read must succeed (its error is thrown, as `payout get` would); after it, an answer that is
 * not retryable and cannot be used (a 404, a page, a record of another payout, or of this
 * transaction paying otherwise than at the first read: changedFields) ends the wait as `unread`, with its error: what the payout became is then not known (never Failed). A key
 * refused (401 or 403: AuthError) is thrown; Ctrl-C rejects with InterruptedError.
 */
export async function waitForSettled(api: SettleApi, payout: PayoutRef | string, opts: SettleOptions): Promise<SettleResult> {
  // A string is a transaction id.
  const ref = typeof payout === 'string' ? { transactionId: payout } : payout;
  const { clock } = opts;
  const started = clock.now().getTime();
  const deadline = started + opts.timeoutMs;
  let delay: number = POLL.firstMs;
  let seen: Seen | undefined;
  // The first record read: every later one must pay the same (changedFields).
  let first: Seen | undefined;
  // When the last record was read, and what went wrong with every check since (undefined once one reads).
  let readMs = 0;
  let failing: string | undefined;
  for (let checks = 1; ; checks++) {
    let c: Check;
    try {
      c = await check(api, ref, clock, readBound(checks === 1, deadline, clock));
    } catch (err) {
      if (!seen || !(err instanceof ApiError)) throw err;
      return { kind: 'unread', status: recordStatus(seen.record), ...seen, error: err, elapsedMs: clock.now().getTime() - started, checks };
    }
    const elapsedMs = clock.now().getTime() - started;
    let retryAfterMs: number | undefined;
    if ('seen' in c) {
      const changed = first ? changedFields(first.record, c.seen.record) : [];
      if (seen && changed.length) {
        const error = new ApiError(`Asked for payout ${ref.transactionId}, the service answered with other details than at the first read (${changed.join('; ')}).`, {
          status: c.seen.res.status,
          requestId: c.seen.res.requestId,
        });
        return { kind: 'unread', status: recordStatus(seen.record), ...seen, error, elapsedMs, checks };
      }
      seen = c.seen;
      first ??= seen;
      readMs = elapsedMs;
      failing = undefined;
      const status = recordStatus(seen.record);
      opts.onStatus?.({ status, elapsedMs });
      if (contradicts(status, opts.readSuccessfulBefore ?? false) || unsettledAfterFailed(status, opts.readFailedBefore ?? false))
        return { kind: 'contradicted', status, ...seen, elapsedMs, checks };
      if (isSettled(status)) return { kind: 'settled', status, ...seen, elapsedMs, checks };
    } else {
      if (!seen) throw c.error;
      retryAfterMs = c.retryAfterMs;
      failing = c.problem;
      opts.onStatus?.({ status: recordStatus(seen.record), elapsedMs, problem: c.problem });
    }
    const left = deadline - clock.now().getTime();
    if (left <= 0)
      return { kind: 'pending', status: recordStatus(seen.record), ...seen, elapsedMs, checks, ...(failing !== undefined ? { problem: failing, readMs } : {}) };
    await clock.sleep(Math.min(Math.max(delay, Math.min(retryAfterMs ?? 0, POLL.maxRetryAfterMs)), left), opts.signal);
    delay = Math.min(delay * 2, POLL.maxMs);
  }
}
