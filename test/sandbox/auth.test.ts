/**
 * The sandbox's authentication as the documented service's: the API key is the bearer
 * token on every /v2 route (no token exchange), GET /v2/auth/user says whose key it is,
 * and what every answer carries (request ids, 404, 405, the rate limit).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { admin, api, startSandbox, useSandbox } from '../helpers/sandbox.js';

const KEY = 'sk_sandbox_test_auth';
const ctx = useSandbox({ apiKey: KEY });
const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('the API key is the bearer token', () => {
  it('accepts Authorization: Bearer <API key> on every route', async () => {
    for (const [method, path, body] of [
      ['GET', '/auth/user', undefined],
      ['GET', '/wallets/balances', undefined],
      ['GET', '/payout/list', undefined],
      ['POST', '/payout/summary', {}],
    ] as const) {
      const res = await api(ctx.sb, method, path, { token: KEY, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(200);
      expect(res.body.status).toBe('Successful');
    }
    // Any letter case of the scheme, as HTTP allows.
    const lower = await api(ctx.sb, 'GET', '/wallets/balances', { token: null, headers: { Authorization: `bearer ${KEY}` } });
    expect(lower.status).toBe(200);
  });

  it.each([
    ['no Authorization header', {}],
    ['an empty one', { Authorization: '' }],
    ['the key without Bearer', { Authorization: KEY }],
    ['another scheme', { Authorization: `Token ${KEY}` }],
    ['a wrong key', { Authorization: 'Bearer sk_sandbox_wrong' }],
    ['the key one character short', { Authorization: `Bearer ${KEY.slice(0, -1)}` }],
    ['the key in an Api-Key header only', { 'Api-Key': KEY }],
  ])('answers 401 {"message":"Unauthenticated."} (Laravel) to %s', async (_what, headers) => {
    for (const path of ['/auth/user', '/wallets/balances', '/payout/list', '/payout/TXN-BOK-00000000000000000000000000']) {
      const res = await api(ctx.sb, 'GET', path, { token: null, headers });
      expect(res.status, path).toBe(401);
      expect(res.raw, path).toBe('{"message":"Unauthenticated."}');
    }
  });

  it('has no token exchange: GET /v2/auth/token is not a route', async () => {
    const res = await api(ctx.sb, 'GET', '/auth/token', { token: null, headers: { 'Api-Key': KEY } });
    expect(res.status).toBe(404);
    expect(res.raw).not.toContain('access_token');
  });

  it('refuses the old key after revokeApiKey(), and takes the new one', async () => {
    const sb = await startSandbox({ apiKey: 'sk_sandbox_old' });
    try {
      expect((await api(sb, 'GET', '/wallets/balances')).status).toBe(200);
      sb.revokeApiKey('sk_sandbox_new');
      expect(sb.apiKey).toBe('sk_sandbox_new');
      expect((await api(sb, 'GET', '/wallets/balances', { token: 'sk_sandbox_old' })).status).toBe(401);
      expect((await api(sb, 'GET', '/wallets/balances', { token: 'sk_sandbox_new' })).status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  it('revokeApiKey() without a key makes a new random one', async () => {
    const sb = await startSandbox();
    try {
      const before = sb.apiKey;
      expect(before).toMatch(/^sk_sandbox_[0-9a-f]{24}$/);
      sb.revokeApiKey();
      expect(sb.apiKey).toMatch(/^sk_sandbox_[0-9a-f]{24}$/);
      expect(sb.apiKey).not.toBe(before);
      expect((await api(sb, 'GET', '/auth/user', { token: before })).status).toBe(401);
    } finally {
      await sb.close();
    }
  });
});

describe('GET /v2/auth/user', () => {
  it('says whose key it is, in the documented shape, with the first wallet', async () => {
    const res = await api(ctx.sb, 'GET', '/auth/user');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['status', 'message', 'data', 'timestamp']);
    expect(res.body.status).toBe('Successful');
    expect(res.body.message).toBe('User Authenticated successfully');
    expect(res.body.timestamp).toMatch(MICROS);
    const d = res.body.data;
    expect(Object.keys(d)).toEqual(['walletId', 'email', 'firstName', 'lastName', 'phone', 'status', 'kycStatus', 'businessName', 'address', 'country']);
    expect(d.walletId).toBe(ctx.sb.wallets()[0]!.wallet_id);
    expect(d.walletId).toMatch(/^\d{10}$/);
    expect(d.status).toBe('ACTIVE');
    expect(d.kycStatus).toBe('Verified');
    for (const k of ['email', 'firstName', 'lastName', 'phone', 'businessName', 'address', 'country']) expect(typeof d[k], k).toBe('string');
    expect(d.email).toMatch(/^[^@\s]+@[^@\s]+$/);
  });

  it('reports the KYC status it is given: the kycStatus option, the property, the admin route', async () => {
    const sb = await startSandbox({ kycStatus: 'Pending' });
    try {
      expect((await api(sb, 'GET', '/auth/user')).body.data.kycStatus).toBe('Pending');
      sb.kycStatus = 'Rejected';
      expect((await api(sb, 'GET', '/auth/user')).body.data.kycStatus).toBe('Rejected');
      const set = await admin(sb, 'POST', '/account', { kycStatus: 'Approved' });
      expect(set.status).toBe(200);
      expect(set.body.data).toEqual({ kycStatus: 'Approved' });
      expect(sb.kycStatus).toBe('Approved');
      expect((await api(sb, 'GET', '/auth/user')).body.data.kycStatus).toBe('Approved');
      expect((await admin(sb, 'POST', '/account', { kycStatus: '' })).status).toBe(400);
      expect((await admin(sb, 'POST', '/account', { kycStatus: 5 })).status).toBe(400);
    } finally {
      await sb.close();
    }
  });
});

describe('every response', () => {
  it('carries X-Request-Id, unique per response, on successes and errors alike', async () => {
    const calls = await Promise.all([
      api(ctx.sb, 'GET', '/wallets/balances'),
      api(ctx.sb, 'GET', '/wallets/balances', { token: null }),
      api(ctx.sb, 'GET', '/payout/TXN-BOK-00000000000000000000000000'),
      api(ctx.sb, 'GET', '/no/such/path'),
      api(ctx.sb, 'POST', '/payout', { body: '{', idempotencyKey: randomUUID() }),
      api(ctx.sb, 'GET', '/auth/user'),
    ]);
    expect(calls.map((c) => c.status)).toEqual([200, 401, 404, 404, 422, 200]);
    const ids = calls.map((c) => c.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const outside = await fetch(`${ctx.sb.url}/elsewhere`);
    expect(outside.status).toBe(404);
    expect(outside.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('takes an Idempotency-Key on every route (the documentation sends one everywhere) and ignores it', async () => {
    const key = randomUUID();
    const a = await api(ctx.sb, 'GET', '/wallets/balances', { idempotencyKey: key });
    const b = await api(ctx.sb, 'GET', '/wallets/balances', { idempotencyKey: key });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect((await api(ctx.sb, 'POST', '/payout/summary', { body: {}, idempotencyKey: key })).status).toBe(200);
    expect((await api(ctx.sb, 'GET', '/auth/user', { idempotencyKey: key })).status).toBe(200);
    expect((await api(ctx.sb, 'GET', '/payout/list', { idempotencyKey: key })).status).toBe(200);
  });

  it('answers 404 for unknown paths in the envelope, status "Failed"', async () => {
    for (const [method, path] of [
      ['GET', '/nothing'],
      ['DELETE', '/nothing/else'],
      ['POST', '/payout/a/b'],
      ['GET', '/payouts'],
      ['GET', '/payouts/summary'],
    ] as const) {
      const res = await api(ctx.sb, method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatchObject({ status: 'Failed', code: 'NOT_FOUND' });
      expect(typeof res.body.message).toBe('string');
      expect(res.body.timestamp).toMatch(MICROS);
    }
  });

  it('answers 405 with Allow for a method a known path does not take', async () => {
    for (const [method, path, allow] of [
      ['DELETE', '/payout', 'POST'],
      ['GET', '/payout', 'POST'],
      ['PUT', '/payout/TXN-BOK-00000000000000000000000000', 'GET'],
      ['POST', '/payout/list', 'GET'],
      ['DELETE', '/payout/summary', 'POST, GET'],
      ['POST', '/auth/user', 'GET'],
      ['PATCH', '/wallets/balances', 'GET'],
    ] as const) {
      const res = await api(ctx.sb, method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(res.body).toMatchObject({ status: 'Failed', code: 'METHOD_NOT_ALLOWED' });
    }
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After above the limit, in the envelope, then recovers', async () => {
    const sb = await startSandbox({ rateLimit: 5 });
    try {
      const results = await Promise.all(Array.from({ length: 8 }, () => api(sb, 'GET', '/wallets/balances')));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(3);
      const limited = results.find((r) => r.status === 429)!;
      expect(limited.body).toMatchObject({ status: 'Failed', code: 'RATE_LIMITED' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get('x-request-id')).toMatch(/^req_/);
      // Admin routes are not limited.
      expect((await fetch(`${sb.url}/_sandbox/health`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1050));
      expect((await api(sb, 'GET', '/wallets/balances')).status).toBe(200);
    } finally {
      await sb.close();
    }
  });
});
