import { describe, expect, it } from 'vitest';
import { api, forgetToken, getToken, startSandbox, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox({ apiKey: 'sk_sandbox_test_auth' });

describe('GET /v2/auth/token', () => {
  it('issues a bearer token for the API key', async () => {
    const res = await api(ctx.sb, 'GET', '/auth/token', { token: null, headers: { 'Api-Key': 'sk_sandbox_test_auth' } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Successful');
    expect(res.body.data.token_type).toBe('Bearer');
    expect(res.body.data.expires_in).toBe(3600);
    expect(res.body.data.access_token).toMatch(/^tok_[0-9a-f]{48}$/);
    expect(res.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it.each([
    ['missing', undefined, 'Missing Api-Key header.'],
    ['wrong', 'sk_sandbox_wrong', 'Invalid API key.'],
    ['empty', '', 'Missing Api-Key header.'],
  ])('refuses a %s key with 401 UNAUTHORIZED', async (_what, key, message) => {
    const headers: Record<string, string> = key === undefined ? {} : { 'Api-Key': key };
    const res = await api(ctx.sb, 'GET', '/auth/token', { token: null, headers });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: 'Failed', code: 'UNAUTHORIZED', message });
    expect(res.body.timestamp).toMatch(/\.\d{6}Z$/);
  });
});

describe('bearer tokens on protected routes', () => {
  it.each([
    ['no Authorization header', null],
    ['an unknown token', 'tok_nope'],
  ])('answers 401 UNAUTHORIZED with %s', async (_what, token) => {
    const res = await api(ctx.sb, 'GET', '/wallets/balances', { token });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
    expect(res.body.status).toBe('Failed');
  });

  it('answers 401 for a malformed Authorization header', async () => {
    const token = await getToken(ctx.sb);
    const res = await api(ctx.sb, 'GET', '/wallets/balances', { token: null, headers: { Authorization: `Token ${token}` } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('accepts a valid token', async () => {
    const res = await api(ctx.sb, 'GET', '/wallets/balances', { token: await getToken(ctx.sb) });
    expect(res.status).toBe(200);
  });

  it('refuses tokens after expireTokens(), and a new token works', async () => {
    const token = await getToken(ctx.sb);
    expect((await api(ctx.sb, 'GET', '/wallets/balances', { token })).status).toBe(200);
    ctx.sb.expireTokens();
    const res = await api(ctx.sb, 'GET', '/wallets/balances', { token });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/expired/);
    forgetToken(ctx.sb);
    expect((await api(ctx.sb, 'GET', '/wallets/balances', { token: await getToken(ctx.sb) })).status).toBe(200);
  });

  it('refuses the old key and every token after revokeApiKey()', async () => {
    const sb = await startSandbox({ apiKey: 'sk_sandbox_old' });
    try {
      const token = await getToken(sb);
      sb.revokeApiKey('sk_sandbox_new');
      expect(sb.apiKey).toBe('sk_sandbox_new');
      expect((await api(sb, 'GET', '/wallets/balances', { token })).status).toBe(401);
      const old = await api(sb, 'GET', '/auth/token', { token: null, headers: { 'Api-Key': 'sk_sandbox_old' } });
      expect(old.status).toBe(401);
      const fresh = await getToken(sb, 'sk_sandbox_new');
      expect((await api(sb, 'GET', '/wallets/balances', { token: fresh })).status).toBe(200);
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
    } finally {
      await sb.close();
    }
  });

  it('lets tokens expire after tokenTtlSeconds', async () => {
    const sb = await startSandbox({ tokenTtlSeconds: 2 });
    try {
      const issued = Date.now();
      const res = await api(sb, 'GET', '/auth/token', { token: null, headers: { 'Api-Key': sb.apiKey } });
      expect(res.body.data.expires_in).toBe(2);
      const token = res.body.data.access_token as string;
      expect((await api(sb, 'GET', '/wallets/balances', { token })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 2100 - (Date.now() - issued)));
      const after = await api(sb, 'GET', '/wallets/balances', { token });
      expect(after.status).toBe(401);
      expect(after.body.code).toBe('UNAUTHORIZED');
    } finally {
      await sb.close();
    }
  });
});

describe('every response', () => {
  it('carries X-Request-Id, unique per response, on successes and errors alike', async () => {
    const token = await getToken(ctx.sb);
    const calls = await Promise.all([
      api(ctx.sb, 'GET', '/wallets/balances', { token }),
      api(ctx.sb, 'GET', '/wallets/balances', { token: null }),
      api(ctx.sb, 'GET', '/payouts/nope', { token }),
      api(ctx.sb, 'GET', '/no/such/path', { token }),
      api(ctx.sb, 'POST', '/payout', { token, body: '{' }),
      api(ctx.sb, 'GET', '/auth/token', { token: null }),
    ]);
    expect(calls.map((c) => c.status)).toEqual([200, 401, 404, 404, 400, 401]);
    const ids = calls.map((c) => c.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const outside = await fetch(`${ctx.sb.url}/elsewhere`);
    expect(outside.status).toBe(404);
    expect(outside.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers 404 NOT_FOUND for unknown paths, in the error shape', async () => {
    for (const [method, path] of [
      ['GET', '/nothing'],
      ['DELETE', '/nothing/else'],
      ['POST', '/payouts/a/b'],
    ] as const) {
      const res = await api(ctx.sb, method, path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: 'Failed', code: 'NOT_FOUND' });
      expect(typeof res.body.message).toBe('string');
      expect(res.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    }
  });

  it('answers 405 METHOD_NOT_ALLOWED with Allow for a method a known path does not take', async () => {
    for (const [method, path, allow] of [
      ['DELETE', '/payout', 'POST'],
      ['GET', '/payout', 'POST'],
      ['PUT', '/payouts/abc', 'GET'],
      ['POST', '/payouts', 'GET'],
      ['POST', '/auth/token', 'GET'],
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
  it('answers 429 RATE_LIMITED with Retry-After above the limit, then recovers', async () => {
    const sb = await startSandbox({ rateLimit: 5 });
    try {
      const token = await getToken(sb); // 1 request
      const results = await Promise.all(Array.from({ length: 8 }, () => api(sb, 'GET', '/wallets/balances', { token })));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(4);
      expect(statuses.filter((s) => s === 429)).toHaveLength(4);
      const limited = results.find((r) => r.status === 429)!;
      expect(limited.body).toMatchObject({ status: 'Failed', code: 'RATE_LIMITED' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get('x-request-id')).toMatch(/^req_/);
      // Admin routes are not limited.
      expect((await fetch(`${sb.url}/_sandbox/health`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1050));
      expect((await api(sb, 'GET', '/wallets/balances', { token })).status).toBe(200);
    } finally {
      await sb.close();
    }
  });
});
