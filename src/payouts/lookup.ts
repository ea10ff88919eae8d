/**
 * Looking a journaled payout up at the service (GET payoutGet by payout id) and recording
 * what was found: used by `payctl history reconcile` (entries whose outcome is unknown) and
 * by sendPayout before it resends an entry whose first attempt is more than a day old (a
 * service may forget idempotency keys after that, so only a look-up tells whether it exists).
 */
import { ApiError } from '../errors.js';
import type { ApiClient, HttpResponse } from '../api/client.js';
import { parseOrThrow, payoutRecordSchema, recordStatus, type Envelope, type PayoutRecord } from '../api/schemas.js';
import { plainAmount } from '../money/amount.js';
import type { Journal, JournalEntry, Outcome } from './journal.js';

/** How long a service is trusted to remember an idempotency key. */
export const KEY_MEMORY_MS = 24 * 60 * 60 * 1000;

/** Was the entry's first attempt more than a day before `now`? */
export function olderThanKeyMemory(entry: JournalEntry, now: Date): boolean {
  const first = Date.parse(entry.createdAt);
  return Number.isFinite(first) && now.getTime() - first > KEY_MEMORY_MS;
}

/**
 * The payout record of an answer to a GET by `asked` (a payout id, or with `orTransaction`
 * also a transaction id), checked to be that payout: an answer about another one is an
 * ApiError, never taken for it.
 */
export function payoutAnswer(data: unknown, asked: string, res: HttpResponse, opts: { orTransaction?: boolean } = {}): PayoutRecord {
  const record = parseOrThrow(payoutRecordSchema, data, 'a payout', res.requestId);
  const ids = [record.payout_id, opts.orTransaction ? record.transaction_id : undefined].filter((id) => id !== undefined);
  if (ids.length > 0 && !ids.includes(asked)) {
    const other = record.payout_id ?? `with transaction id ${record.transaction_id}`;
    throw new ApiError(`Asked for payout ${asked}, the service answered about a different payout: ${other}.`, {
      status: res.status,
      requestId: res.requestId,
      hint: 'Check the base URL and the payoutGet route (payctl config get routes.payoutGet).',
    });
  }
  return record;
}

export type LookUp = { found: true; record: PayoutRecord; res: HttpResponse; envelope: Envelope } | { found: false };

/**
 * The payout with this id at the service, or `found: false` when the service answers
 * 404 NOT_FOUND (contract.md: an unknown payout). Any other failure (network, 5xx after
 * the GET retries, an answer about another payout) is thrown: it tells nothing.
 */
export async function lookUpPayout(api: ApiClient, payoutId: string, signal?: AbortSignal): Promise<LookUp> {
  let got: { envelope: Envelope; res: HttpResponse };
  try {
    got = await api.callEnvelope('payoutGet', { params: { id: payoutId }, ...(signal ? { signal } : {}) });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.code === 'NOT_FOUND') return { found: false };
    throw err;
  }
  return { found: true, record: payoutAnswer(got.envelope.data, payoutId, got.res), ...got };
}

/** The outcome a look-up shows: accepted (with its transaction and status), or not made. */
export function lookUpOutcome(l: LookUp, now: Date): Outcome {
  if (!l.found) return { kind: 'not-made', at: now.toISOString() };
  const r = l.record;
  const status = recordStatus(r);
  return {
    kind: 'accepted',
    status: l.res.status,
    transactionId: r.transaction_id,
    fee: r.fee === undefined || r.fee === null ? undefined : plainAmount(r.fee, r.currency),
    replayed: true,
    at: now.toISOString(),
    lookedUp: true,
    ...(status ? { payoutStatus: status } : {}),
  };
}

/** Looks the entry's payout up and records the answer in the journal. */
export async function reconcileEntry(
  api: ApiClient,
  journal: Journal,
  entry: JournalEntry,
  now: () => Date,
  signal?: AbortSignal,
): Promise<{ lookUp: LookUp; entry: JournalEntry }> {
  const lookUp = await lookUpPayout(api, entry.payoutId, signal);
  const next = await journal.record(entry, lookUpOutcome(lookUp, now()));
  return { lookUp, entry: next };
}
