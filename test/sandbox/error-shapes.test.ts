/**
 * Error bodies in each shape the sandbox can serve (the service documents none, so a
 * client must read them all): Laravel's (the default), the envelope, `{error: {…}}` and
 * RFC 9457 problem details. One sandbox per shape, the same failures asked of each.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, freshWallet, payoutBody, startSandbox, type Sandbox } from '../helpers/sandbox.js';
import type { ErrorShape } from '../../src/sandbox/server.js';

const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** What each failure looks like in one shape, asked of a fresh sandbox set to it. */
function failures(shape: ErrorShape) {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ errorShape: shape, settleAfterMs: 60_000 });
  });
  afterAll(async () => {
    await sb.close();
  });
  return {
    get sb() {
      return sb;
    },
    validation: () => api(sb, 'POST', '/payout', { body: { ...payoutBody(sb.wallets()[0]!.wallet_id), amount: 0, currency: 'sle' }, idempotencyKey: randomUUID() }),
    duplicate: async () => {
      const body = payoutBody(freshWallet(sb, '5000'));
      expect((await api(sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() })).status).toBe(201);
      return api(sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() });
    },
    refusal: () => api(sb, 'POST', '/payout', { body: payoutBody(freshWallet(sb, '1')), idempotencyKey: randomUUID() }),
    unauthenticated: () => api(sb, 'GET', '/wallets/balances', { token: 'sk_sandbox_wrong' }),
    notFound: () => api(sb, 'GET', '/payout/TXN-BOK-00000000000000000000000000'),
    serverError: () => {
      sb.faults.add({ path: '/v2/wallets/balances', kind: 'status', status: 500 });
      return api(sb, 'GET', '/wallets/balances');
    },
  };
}

describe("errorShape 'laravel' (the default)", () => {
  const f = failures('laravel');

  it('validation: 422 {message: "<first> (and N more errors)", errors: {field: [...]}}', async () => {
    const res = await f.validation();
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      message: 'The amount field must be greater than 0. (and 1 more error)',
      errors: { amount: ['The amount field must be greater than 0.'], currency: ['The selected currency is invalid.'] },
    });
  });

  it('a payout id already taken: a validation failure on payoutId', async () => {
    const res = await f.duplicate();
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The payout id has already been taken.', errors: { payoutId: ['The payout id has already been taken.'] } });
  });

  it('a business refusal: the envelope, status "Failed", with the code kept', async () => {
    const res = await f.refusal();
    expect(res.status).toBe(422);
    expect(Object.keys(res.body)).toEqual(['status', 'message', 'code', 'timestamp']);
    expect(res.body).toMatchObject({ status: 'Failed', code: 'INSUFFICIENT_FUNDS' });
    expect(res.body.timestamp).toMatch(MICROS);
  });

  it('401: {"message":"Unauthenticated."}; 404 and 5xx: the envelope', async () => {
    const u = await f.unauthenticated();
    expect([u.status, u.raw]).toEqual([401, '{"message":"Unauthenticated."}']);
    const n = await f.notFound();
    expect(n.status).toBe(404);
    expect(n.body).toEqual({ status: 'Failed', message: 'Transfer not found', timestamp: expect.stringMatching(MICROS) });
    const s = await f.serverError();
    expect(s.status).toBe(500);
    expect(s.body).toMatchObject({ status: 'Failed', message: 'Internal error; please retry.', code: 'INTERNAL_ERROR' });
  });
});

describe("errorShape 'envelope'", () => {
  const f = failures('envelope');

  it('writes every error as {status: "Failed" | "Error", message, errors?, timestamp}', async () => {
    const v = await f.validation();
    expect(v.status).toBe(422);
    expect(v.body).toEqual({
      status: 'Failed',
      message: 'The amount field must be greater than 0. (and 1 more error)',
      errors: { amount: ['The amount field must be greater than 0.'], currency: ['The selected currency is invalid.'] },
      timestamp: expect.stringMatching(MICROS),
    });
    const d = await f.duplicate();
    expect(d.body).toMatchObject({ status: 'Failed', errors: { payoutId: ['The payout id has already been taken.'] } });
    const r = await f.refusal();
    expect(Object.keys(r.body)).toEqual(['status', 'message', 'timestamp']);
    expect(r.body.message).toMatch(/the payout needs/);
    const u = await f.unauthenticated();
    expect(u.status).toBe(401);
    expect(u.body).toMatchObject({ status: 'Failed', message: 'Unauthenticated.' });
    expect((await f.notFound()).body).toMatchObject({ status: 'Failed', message: 'Transfer not found' });
    const s = await f.serverError();
    expect(s.status).toBe(500);
    expect(s.body).toEqual({ status: 'Error', message: 'Internal error; please retry.', timestamp: expect.stringMatching(MICROS) });
  });
});

describe("errorShape 'error'", () => {
  const f = failures('error');

  it('writes every error as {error: {message, code}}', async () => {
    const v = await f.validation();
    expect(v.status).toBe(422);
    expect(v.body).toEqual({ error: { message: 'The amount field must be greater than 0. (and 1 more error)', code: 'VALIDATION_ERROR' } });
    expect((await f.duplicate()).body).toEqual({ error: { message: 'The payout id has already been taken.', code: 'VALIDATION_ERROR' } });
    expect((await f.refusal()).body.error.code).toBe('INSUFFICIENT_FUNDS');
    expect((await f.unauthenticated()).body).toEqual({ error: { message: 'Unauthenticated.', code: 'UNAUTHORIZED' } });
    expect((await f.notFound()).body).toEqual({ error: { message: 'Transfer not found', code: 'HTTP_404' } });
    expect((await f.serverError()).body).toEqual({ error: { message: 'Internal error; please retry.', code: 'INTERNAL_ERROR' } });
  });
});

describe("errorShape 'problem'", () => {
  const f = failures('problem');

  it('writes every error as application/problem+json {type, title, status, detail, errors?}', async () => {
    const v = await f.validation();
    expect(v.status).toBe(422);
    expect(v.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(v.body).toEqual({
      type: 'about:blank',
      title: 'Unprocessable Entity',
      status: 422,
      detail: 'The amount field must be greater than 0. (and 1 more error)',
      errors: { amount: ['The amount field must be greater than 0.'], currency: ['The selected currency is invalid.'] },
    });
    const r = await f.refusal();
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Object.keys(r.body)).toEqual(['type', 'title', 'status', 'detail']);
    const u = await f.unauthenticated();
    expect(u.body).toEqual({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'Unauthenticated.' });
    expect((await f.notFound()).body).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'Transfer not found' });
    expect((await f.serverError()).body).toMatchObject({ title: 'Internal Server Error', status: 500 });
  });

  it('a replay is the first answer byte for byte, content type included', async () => {
    const key = randomUUID();
    const body = { ...payoutBody(f.sb.wallets()[0]!.wallet_id), amount: 0 };
    const first = await api(f.sb, 'POST', '/payout', { body, idempotencyKey: key });
    const again = await api(f.sb, 'POST', '/payout', { body, idempotencyKey: key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.raw).toBe(first.raw);
    expect(again.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  });

  it('the admin routes keep their own shape', async () => {
    const res = await admin(f.sb, 'POST', '/shapes', { error: 'nope' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ status: 'Failed', code: 'VALIDATION_ERROR' });
  });
});
