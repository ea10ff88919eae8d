/**
 * sendPayout's classification, with a scripted client: an answer payctl cannot read, one
 * about another payout, a journal that cannot take the outcome and credentials refused
 * after an attempt that may have reached the service are all unknown (exit 4), never
 * refused; credentials refused on the first attempt are an auth error (nothing was taken).
 * A resend of an unknown outcome refused as a duplicate payout id stays unknown (that earlier
 * attempt was probably made), and an entry older than 24 hours whose outcome is unknown is
 * never sent: only the payout list is read. Two resends answered at once with one transaction
 * id: only the first takes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient, HttpResponse } from '../../src/api/client.js';
import { AuthError, NetworkError } from '../../src/errors.js';
import { Journal, type JournalEntry } from '../../src/payouts/journal.js';
import { payoutBody, validatePayout } from '../../src/payouts/request.js';
import { sendPayout } from '../../src/payouts/send.js';
import { systemClock } from '../../src/clock.js';

const BASE = 'https://api.example.com/v2';
const POLICY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 5, deadlineMs: 5_000 };

let dir: string;
let journal: Journal;
let entry: JournalEntry;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-send-'));
  journal = new Journal(dir);
  const r = validatePayout({ payoutId: 'p-1', walletId: 'wal_1', amount: '1500.50', currency: 'SLE', type: 'bank', name: 'A', provider: 'uba', account: '1' });
  if (!r.ok) throw new Error(r.problems.join('; '));
  entry = await journal.begin({ baseUrl: BASE, payoutId: 'p-1', body: payoutBody(r.request), now: new Date() });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Step = HttpResponse | Error;

/** A client whose calls answer (or throw) the given steps in order. */
function scripted(steps: Step[]): { api: ApiClient; calls: () => number } {
  let n = 0;
  const api = {
    baseUrl: BASE,
    call: async () => {
      const s = steps[Math.min(n++, steps.length - 1)]!;
      if (s instanceof Error) throw s;
      return s;
    },
  } as unknown as ApiClient;
  return { api, calls: () => n };
}

function answer(status: number, data: unknown, raw?: string): HttpResponse {
  return { status, headers: {}, raw: raw ?? JSON.stringify({ status: 'Successful', message: 'ok', data, timestamp: '2026-11-21T10:15:30.123456Z' }), requestId: 'req_1' };
}

const OK = { transaction_id: 'TRX0123456789ABCDEF0123', amount: 1500.5, fee: 15.01, currency: 'SLE', payout_id: 'p-1' };
const send = (api: ApiClient, j: Journal = journal, more: { earlierAttempt?: boolean } = {}) =>
  sendPayout(api, j, entry, { policy: POLICY, signal: new AbortController().signal, clock: systemClock, ...more });

const DUPLICATE = {
  status: 422,
  headers: {},
  raw: JSON.stringify({ message: 'The payout id has already been taken.', errors: { payoutId: ['The payout id has already been taken.'] } }),
  requestId: 'req_2',
};

describe('sendPayout', () => {
  it('accepts a readable answer about the payout asked for', async () => {
    const r = await send(scripted([answer(201, OK)]).api);
    expect(r.kind).toBe('accepted');
    expect((await journal.get(BASE, 'p-1'))?.outcome?.kind).toBe('accepted');
  });

  it.each([
    ['an HTML page', answer(201, null, '<html>ok</html>'), 'could not read the answer'],
    ['no transaction id', answer(201, { ...OK, transaction_id: undefined }), 'could not read the answer'],
    // Taken for success before: payout get then said "unknown" and reconcile "accepted, nothing to do".
    ['an empty transaction id', answer(201, { ...OK, transaction_id: '' }), 'could not read the answer'],
    ['a transaction id with a space', answer(201, { ...OK, transaction_id: 'TXN 1' }), 'could not read the answer'],
    ['a fee that is not a number', answer(201, { ...OK, fee: 'abc' }), 'could not read the answer'],
    ['another payout id', answer(201, { ...OK, payout_id: 'p-2' }), 'the service answered about a different payout (payout id: sent p-1, answered p-2)'],
    ['another amount', answer(201, { ...OK, amount: 1500.51 }), 'the service answered about a different payout (amount: sent 1500.50, answered 1500.51)'],
    ['another currency', answer(201, { ...OK, currency: 'NGN' }), 'the service answered about a different payout (currency: sent SLE, answered NGN)'],
    ['another wallet', answer(201, { ...OK, wallet_id: 'wal_other' }), 'the service answered about a different payout (wallet: sent wal_1, answered wal_other)'],
  ])('a 2xx with %s is unknown, never refused', async (_what, res, message) => {
    const r = await send(scripted([res]).api);
    expect(r.kind).toBe('unknown');
    if (r.kind === 'unknown') expect(r.error.message).toContain(message);
    expect((await journal.get(BASE, 'p-1'))?.outcome?.kind).toBe('unknown');
  });

  it('two resends answered at once with one transaction id: the first is taken, the other stays unknown (the owners are read in turn)', async () => {
    const r = validatePayout({ payoutId: 'p-2', walletId: 'wal_1', amount: '1500.50', currency: 'SLE', type: 'bank', name: 'A', provider: 'uba', account: '1' });
    if (!r.ok) throw new Error(r.problems.join('; '));
    const second = await journal.begin({ baseUrl: BASE, payoutId: 'p-2', body: payoutBody(r.request), now: new Date() });
    const opts = { policy: POLICY, signal: new AbortController().signal, clock: systemClock, earlierAttempt: true };
    const [a, b] = await Promise.all([
      sendPayout(scripted([answer(201, OK)]).api, journal, entry, opts),
      sendPayout(scripted([answer(201, { ...OK, payout_id: 'p-2' })]).api, journal, second, opts),
    ]);
    expect([a.kind, b.kind]).toEqual(['accepted', 'unknown']);
    if (b.kind === 'unknown') expect(b.error.message).toContain(`transaction ${OK.transaction_id}, which the journal already has for another payout (p-1)`);
    expect((await journal.get(BASE, 'p-2'))?.outcome?.kind).toBe('unknown');
  });

  it('a journal that cannot take the accepted outcome: unknown, saying the service accepted it', async () => {
    const failing = Object.create(journal) as Journal;
    failing.record = async () => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    };
    const r = await send(scripted([answer(201, OK)]).api, failing);
    expect(r.kind).toBe('unknown');
    if (r.kind === 'unknown')
      expect(r.error.message).toBe(
        'the service accepted it (transaction TRX0123456789ABCDEF0123), but payctl could not record that in its journal: no space left on device (ENOSPC): the disk is full',
      );
  });

  it('credentials refused on the first attempt: an auth error, the service took nothing', async () => {
    const { api, calls } = scripted([new AuthError('The service refused the credentials.')]);
    await expect(send(api)).rejects.toBeInstanceOf(AuthError);
    expect(calls()).toBe(1);
  });

  it('credentials refused after an attempt that may have reached the service: unknown, not "log in"', async () => {
    const { api, calls } = scripted([new NetworkError('No answer within 1 s.'), new AuthError('The service refused the credentials.')]);
    const r = await send(api);
    expect(calls()).toBe(2);
    expect(r.kind).toBe('unknown');
    if (r.kind === 'unknown')
      expect(r.error.message).toBe('an earlier attempt may have reached the service, then the credentials were refused (The service refused the credentials)');
    expect((await journal.get(BASE, 'p-1'))?.outcome?.kind).toBe('unknown');
  });

  it.each([
    ['no answer', new NetworkError('No answer within 1 s.')],
    ['a 502', answer(502, null, '<html>bad gateway</html>')],
  ])('a final refusal after an attempt that got %s: unknown (a gateway may answer 4xx), never "refused"', async (_what, first) => {
    for (const [status, raw] of [
      [404, '<html>404 from gateway</html>'],
      [400, '<html>400 Bad Request</html>'],
      [422, JSON.stringify({ message: 'The given data was invalid.', errors: { amount: ['bad'] } })],
    ] as const) {
      const { api, calls } = scripted([first, answer(status, null, raw)]);
      const r = await send(api);
      expect(calls()).toBe(2);
      expect(r.kind, `${status}`).toBe('unknown');
      if (r.kind === 'unknown') expect(r.error.message).toMatch(/^an earlier attempt may have reached the service, then it answered /);
      expect((await journal.get(BASE, 'p-1'))?.outcome?.kind).toBe('unknown');
    }
  });

  it('a final refusal after only 429s, or on the first attempt: refused (the service took nothing)', async () => {
    const refusal = answer(422, null, JSON.stringify({ message: 'The given data was invalid.', errors: { amount: ['bad'] } }));
    const afterRateLimit = await send(scripted([answer(429, null, '{"message":"Too Many Attempts."}'), refusal]).api);
    expect(afterRateLimit.kind).toBe('rejected');
    const first = await send(scripted([refusal]).api);
    expect(first.kind).toBe('rejected');
  });

  it('an entry recorded as not made reads as unknown while it is sent again (a kill mid-request must not leave it "not made")', async () => {
    entry = await journal.record(entry, { kind: 'not-made', at: new Date().toISOString() });
    let during: string | undefined;
    const api = {
      baseUrl: BASE,
      call: async () => {
        during = (await journal.get(BASE, 'p-1'))?.outcome?.kind;
        return answer(201, OK);
      },
    } as unknown as ApiClient;
    const r = await send(api);
    expect(during).toBe('unknown');
    expect(r.kind).toBe('accepted');
    expect((await journal.get(BASE, 'p-1'))?.outcome?.kind).toBe('accepted');
  });

  it('a duplicate payout id, on a first send or a resend: "already made" (accepted, no transaction id), never refused, never unknown', async () => {
    const first = await send(scripted([DUPLICATE]).api);
    expect(first.kind).toBe('accepted');
    if (first.kind === 'accepted') {
      expect(first.alreadyMade?.code).toBe('DUPLICATE_PAYOUT_ID');
      expect(first.replayed).toBe(true);
      expect(first.transaction.transaction_id).toBe('');
    }
    expect((await journal.get(BASE, 'p-1'))?.outcome).toMatchObject({ kind: 'accepted', alreadyMade: { code: 'DUPLICATE_PAYOUT_ID' } });
    const again = await send(scripted([DUPLICATE]).api, journal, { earlierAttempt: true });
    expect(again.kind).toBe('accepted');
    if (again.kind === 'accepted') expect(again.alreadyMade?.code).toBe('DUPLICATE_PAYOUT_ID');
  });

  it('older than 24 hours with an unknown outcome: not sent, only the list read; held with its candidates', async () => {
    await journal.record(entry, { kind: 'unknown', reason: 'no answer', at: new Date().toISOString() });
    entry = (await journal.get(BASE, 'p-1'))!;
    const paths: string[] = [];
    const later = { now: () => new Date(Date.now() + 25 * 3600_000), sleep: async () => {} };
    const api = {
      baseUrl: BASE,
      call: async (name: string) => {
        paths.push(name);
        throw new Error('not expected');
      },
      callEnvelope: async (name: string) => {
        paths.push(name);
        const data = { current_page: 1, data: [], last_page: 1, next_page_url: null, per_page: 100, total: 0 };
        return { envelope: { status: 'Successful', message: 'ok', data }, res: answer(200, data) };
      },
    } as unknown as ApiClient;
    const r = await sendPayout(api, journal, entry, { policy: POLICY, signal: new AbortController().signal, clock: later });
    expect(paths).toEqual(['payoutsList']);
    expect(r.kind).toBe('unknown');
    if (r.kind === 'unknown')
      expect(r.held).toEqual({ candidates: [], read: 0, complete: true, anyTime: false, claimed: 0, marks: new Map(), unchecked: new Map(), leftOut: new Map() });
    expect((await journal.get(BASE, 'p-1'))?.outcome).toMatchObject({ kind: 'unknown', reason: 'no answer' });
  });
});
