/**
 * payouts/settle.ts against a scripted client (no HTTP): the polling interval honours a
 * Retry-After longer than its own back-off (capped at 60 s), goes on past failed checks
 * once the payout was seen, keeps waiting through unknown statuses, and refuses an answer
 * about another payout. The same behaviour against the sandbox is in
 * test/commands/payout-wait.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../src/api/client.js';
import { ApiError, NetworkError } from '../../src/errors.js';
import { waitForSettled, type SettleApi, type WaitStatus } from '../../src/payouts/settle.js';
import { TestClock } from '../helpers/clock.js';

const ID = 'po_1';

function record(status: string, payoutId = ID): HttpResponse {
  const raw = JSON.stringify({
    status: 'Successful',
    message: 'ok',
    data: { payout_id: payoutId, amount: 10, currency: 'SLE', status },
    timestamp: '2026-11-22T10:00:00.000000Z',
  });
  return { status: 200, headers: {}, raw, requestId: undefined };
}

function failure(status: number, retryAfter?: string): HttpResponse {
  return { status, headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter }, raw: '{"status":"Failed","message":"busy"}', requestId: undefined };
}

/** A client that answers each read with the next scripted answer (the last one repeats). */
function scripted(answers: Array<HttpResponse | Error>): SettleApi & { calls: number } {
  const api = {
    calls: 0,
    call: async () => {
      const a = answers[Math.min(api.calls, answers.length - 1)]!;
      api.calls += 1;
      if (a instanceof Error) throw a;
      return a;
    },
  };
  return api as unknown as SettleApi & { calls: number };
}

describe('waitForSettled', () => {
  it('a Retry-After longer than the back-off sets the next interval (10 s instead of 2 s)', async () => {
    const clock = new TestClock();
    const api = scripted([record('Pending'), failure(503, '10'), record('Pending'), record('Successful')]);
    const r = await waitForSettled(api, ID, { clock, timeoutMs: 600_000 });
    expect(r.kind).toBe('settled');
    expect(r.status).toBe('Successful');
    expect(clock.waits).toEqual([1000, 10_000, 4000]);
    expect(r.checks).toBe(4);
  });

  it('a Retry-After is honoured up to 60 s, and never past the time limit', async () => {
    const clock = new TestClock();
    const r = await waitForSettled(scripted([record('Pending'), failure(429, '3600')]), ID, { clock, timeoutMs: 100_000 });
    expect(r.kind).toBe('pending');
    expect(clock.waits).toEqual([1000, 60_000, 39_000]);
  });

  it('network failures after the payout was seen do not end the wait; the last record seen is the result', async () => {
    const clock = new TestClock();
    const seen: WaitStatus[] = [];
    const down = new NetworkError('Could not connect to x: connection refused.', { causeCode: 'ECONNREFUSED' });
    const r = await waitForSettled(scripted([record('Pending'), down]), ID, { clock, timeoutMs: 5000, onStatus: (s) => seen.push(s) });
    expect(r.kind).toBe('pending');
    expect(r.record.status).toBe('Pending');
    expect(seen.map((s) => [s.status, s.elapsedMs, s.problem])).toEqual([
      ['Pending', 0, undefined],
      ['Pending', 1000, 'Could not connect to x: connection refused.'],
      ['Pending', 3000, 'Could not connect to x: connection refused.'],
      ['Pending', 5000, 'Could not connect to x: connection refused.'],
    ]);
  });

  it('a first read that fails is thrown at once: nothing was seen to wait for', async () => {
    const clock = new TestClock();
    await expect(waitForSettled(scripted([failure(503)]), ID, { clock, timeoutMs: 5000 })).rejects.toBeInstanceOf(ApiError);
    expect(clock.waits).toEqual([]);
  });

  it('a status it does not know is shown and waited through', async () => {
    const clock = new TestClock();
    const seen: string[] = [];
    const r = await waitForSettled(scripted([record('Processing'), record('Failed')]), ID, { clock, timeoutMs: 5000, onStatus: (s) => seen.push(s.status) });
    expect(r).toMatchObject({ kind: 'settled', status: 'Failed' });
    expect(seen).toEqual(['Processing', 'Failed']);
  });

  it('an answer about another payout is an error, not a status', async () => {
    const clock = new TestClock();
    await expect(waitForSettled(scripted([record('Successful', 'po_2')]), ID, { clock, timeoutMs: 5000 })).rejects.toThrow(
      'Asked for payout po_1, the service answered about a different payout: po_2.',
    );
  });
});
