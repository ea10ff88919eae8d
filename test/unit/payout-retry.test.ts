/**
 * Which attempts of POST /payout are tried again, final or unknown (src/api/payout-retry.ts;
 * docs/architecture.md, "Retries"): 2xx answered; 408, 429, 5xx and 409 IDEMPOTENCY_IN_PROGRESS
 * retried (the same key and body); any other 4xx final; a connection error retried; an answer
 * that could not be read, or an interruption with the request in flight, unknown.
 */
import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../src/api/client.js';
import { DEADLINE_CODE } from '../../src/api/client.js';
import { classifyPayoutAnswer, classifyPayoutFailure, payoutRetryReason, retryOfAnswer } from '../../src/api/payout-retry.js';
import { AuthError, InterruptedError, NetworkError } from '../../src/errors.js';

const NOW = new Date('2026-11-21T10:15:30.000Z');

function answer(status: number, body: unknown = {}, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers, raw: JSON.stringify(body), requestId: 'req_1' };
}

const IN_PROGRESS = { message: 'A request with this key is in progress.', code: 'IDEMPOTENCY_IN_PROGRESS' };
const KEY_REUSED = { message: 'This key was used with another body.', code: 'IDEMPOTENCY_KEY_REUSED' };

describe('classifyPayoutAnswer', () => {
  it.each([200, 201, 299])('%i is answered: read and checked next', (s) => {
    expect(classifyPayoutAnswer(answer(s))).toBe('answered');
  });
  it.each([408, 429, 500, 502, 503, 504])('%i is retried', (s) => {
    expect(classifyPayoutAnswer(answer(s))).toBe('retry');
  });
  it('409 IDEMPOTENCY_IN_PROGRESS is waited out and retried', () => {
    expect(classifyPayoutAnswer(answer(409, IN_PROGRESS))).toBe('retry');
    expect(payoutRetryReason(answer(409, IN_PROGRESS))).toBe('the first request is still being processed (409)');
  });
  it.each([
    [400, {}],
    [404, {}],
    [409, KEY_REUSED],
    [409, {}],
    [422, { message: 'The payout id has already been taken.' }],
  ])('%i (%j) is final', (s, body) => {
    expect(classifyPayoutAnswer(answer(s, body))).toBe('final');
    expect(payoutRetryReason(answer(s, body))).toBeUndefined();
  });
  it('says why a retryable answer is tried again', () => {
    expect(payoutRetryReason(answer(429))).toBe('rate limited (429)');
    expect(payoutRetryReason(answer(503))).toBe('HTTP 503');
  });
});

describe('retryOfAnswer', () => {
  it('carries the reason, Retry-After and whether it was a 429', () => {
    expect(retryOfAnswer(answer(429, {}, { 'retry-after': '3' }), NOW)).toEqual({ retry: 'rate limited (429)', retryAfterMs: 3000, rateLimited: true });
    expect(retryOfAnswer(answer(503), NOW)).toEqual({ retry: 'HTTP 503', retryAfterMs: undefined, rateLimited: false });
  });
});

describe('classifyPayoutFailure', () => {
  it('an interruption with the request in flight', () => {
    expect(classifyPayoutFailure(new InterruptedError())).toBe('interrupted');
  });
  it('credentials refused: this attempt took nothing', () => {
    expect(classifyPayoutFailure(new AuthError('The service refused the API key.', { status: 401 }))).toBe('credentials');
  });
  it('a connection error is retried with the same key', () => {
    expect(classifyPayoutFailure(new NetworkError('connection reset', { causeCode: 'ECONNRESET' }))).toBe('retry');
  });
  it('an answer still dripping at the deadline, or one that could not be read, is unknown', () => {
    expect(classifyPayoutFailure(new NetworkError('the answer did not finish in time', { causeCode: DEADLINE_CODE }))).toBe('unknown');
    expect(classifyPayoutFailure(new Error('too large'))).toBe('unknown');
  });
});
