/**
 * payouts/settle.ts against a scripted client (no HTTP): the polling interval honours a
 * Retry-After longer than its own back-off (capped at 60 s), goes on past failed checks
 * once the payout was seen, keeps waiting through unknown statuses, sees status words in any
 * case ("successful" as the look-up writes it) and refuses an answer about another payout. The same behaviour against the sandbox is in
 * test/commands/payout-wait.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../src/api/client.js';
import { ApiError, NetworkError } from '../../src/errors.js';
import { waitForSettled, type SettleApi, type WaitStatus } from '../../src/payouts/settle.js';
import { TestClock } from '../helpers/clock.js';
import type { JournalEntry } from '../../src/payouts/journal.js';

const ID = 'TXN-BOK-83BD4FB5EF52C8CB2329510901';
const OTHER = 'TXN-BOK-FF051A7F00A49EB6AF225D10EA';

function record(status: string, transactionId = ID): HttpResponse {
  const raw = JSON.stringify({
    status: 'Successful',
    message: 'Transfer status retrieved',
    data: { transaction_id: transactionId, amount: '1,000.00', fee: '5.00', total_amount: '1,005.00', currency: 'SLE', status },
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
    command: (words: string[], args: string[] = []) => ['payctl', ...words, ...args].join(' '),
    call: async () => {
      const a = answers[Math.min(api.calls, answers.length - 1)]!;
      api.calls += 1;
      if (a instanceof Error) throw a;
      return a;
    },
  };
  return api;
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
    const r = await waitForSettled(scripted([record('on_hold'), record('processing'), record('failed')]), ID, {
      clock,
      timeoutMs: 5000,
      onStatus: (s) => seen.push(s.status),
    });
    expect(r).toMatchObject({ kind: 'settled', status: 'Failed' });
    expect(seen).toEqual(['on_hold', 'Pending', 'Failed']);
  });

  it('the look-up\'s lower-case "successful" is settled (the raw word kept in the record)', async () => {
    const clock = new TestClock();
    const r = await waitForSettled(scripted([record('pending'), record('successful')]), ID, { clock, timeoutMs: 60_000 });
    expect(r).toMatchObject({ kind: 'settled', status: 'Successful', checks: 2 });
    expect(r.record.status).toBe('successful');
    expect(r.record.amount).toBe('1000.00');
  });

  it('an answer about another payout is an error, not a status', async () => {
    const clock = new TestClock();
    await expect(waitForSettled(scripted([record('Successful', OTHER)]), ID, { clock, timeoutMs: 5000 })).rejects.toThrow(
      `Asked for payout ${ID}, the service answered about a different payout: ${OTHER}.`,
    );
  });

  it('with the journaled body, an answer for another amount is an error too', async () => {
    const clock = new TestClock();
    const body = JSON.stringify({
      amount: 999.5,
      currency: 'SLE',
      payoutId: 'p-1',
      walletId: '5564222970',
      recipient: { type: 'bank', accountDetails: { accountNumber: '0127500182' } },
    });
    const entry = { body, payoutId: 'p-1' } as unknown as JournalEntry;
    await expect(waitForSettled(scripted([record('successful')]), { transactionId: ID, payoutId: 'p-1', entry }, { clock, timeoutMs: 5000 })).rejects.toThrow(
      `Asked for payout ${ID} (payout id p-1), the service answered about a different payout (amount: sent 999.50, answered 1000.00).`,
    );
  });

  it('after the payout was seen, an answer that cannot be used ends the wait as unread (not known), with the last record seen', async () => {
    const clock = new TestClock();
    const page: HttpResponse = { status: 200, headers: {}, raw: '<html>502</html>', requestId: undefined };
    for (const later of [page, failure(404), record('successful', OTHER)]) {
      const r = await waitForSettled(scripted([record('pending'), later]), ID, { clock, timeoutMs: 60_000 });
      expect(r).toMatchObject({ kind: 'unread', status: 'Pending', checks: 2 });
      expect(r.record.status).toBe('pending');
      expect(r.kind === 'unread' && r.error).toBeInstanceOf(ApiError);
    }
  });
});
