/**
 * The admin routes (/_sandbox): faults, recorded requests (credentials masked), wallets,
 * bulk payouts, the key, the account's KYC status, the answer shapes, webhook deliveries.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { admin, api, payoutBody, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox({ demoPayouts: false, pid: 4242 });

describe('admin routes (/_sandbox)', () => {
  it('GET /health reports the process it was told (how sandbox stop knows its sandbox), port and counts', async () => {
    const res = await admin(ctx.sb, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'ok',
      pid: 4242,
      port: ctx.sb.port,
      base_url: ctx.sb.baseUrl,
      wallets: 3,
      payouts: 0,
    });
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('POST/GET/DELETE /faults manage faults; times null = 1, -1 = forever', async () => {
    const once = await admin(ctx.sb, 'POST', '/faults', { path: '/v2/wallets/balances', kind: 'status', status: 503, times: null });
    expect(once.status).toBe(201);
    expect(once.body.data).toMatchObject({ kind: 'status', status: 503, remaining: 1 });
    const forever = await admin(ctx.sb, 'POST', '/faults', { path: '/v2/payout/list', kind: 'status', status: 500, times: -1 });
    expect(forever.body.data).toMatchObject({ times: -1, remaining: -1 });
    const listed = await admin(ctx.sb, 'GET', '/faults');
    expect(listed.body.data.map((f: { status: number }) => f.status)).toEqual([503, 500]);

    expect((await api(ctx.sb, 'GET', '/wallets/balances')).status).toBe(503);
    expect((await api(ctx.sb, 'GET', '/wallets/balances')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await api(ctx.sb, 'GET', '/payout/list')).status).toBe(500);
    expect((await admin(ctx.sb, 'GET', '/faults')).body.data).toHaveLength(1);

    expect((await admin(ctx.sb, 'DELETE', '/faults')).status).toBe(200);
    expect((await admin(ctx.sb, 'GET', '/faults')).body.data).toEqual([]);
    expect((await api(ctx.sb, 'GET', '/payout/list')).status).toBe(200);
  });

  it('POST /faults refuses a bad spec with 400', async () => {
    const res = await admin(ctx.sb, 'POST', '/faults', { kind: 'status', status: 200 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.message).toMatch(/status must be/);
    const bad = await fetch(`${ctx.sb.url}/_sandbox/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{oops' });
    expect(bad.status).toBe(400);
    // fetch's default for a string body is text/plain, which the sandbox refuses (a browser page could send it).
    const plain = await fetch(`${ctx.sb.url}/_sandbox/faults`, { method: 'POST', body: '{"kind":"hang"}' });
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as { code: string }).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await admin(ctx.sb, 'GET', '/faults')).body.data).toEqual([]);
  });

  it('GET/DELETE /requests show and forget recorded /v2 requests (admin calls are not recorded)', async () => {
    await admin(ctx.sb, 'DELETE', '/requests');
    await api(ctx.sb, 'GET', '/wallets/balances?x=1');
    await admin(ctx.sb, 'GET', '/health');
    const res = await admin(ctx.sb, 'GET', '/requests');
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ method: 'GET', path: '/v2/wallets/balances', query: { x: '1' }, outcome: 200 });
    // The key is the bearer token: it never leaves through the admin routes.
    expect(res.body.data[0].headers.authorization).toBe('Bearer ***');
    expect(res.raw).not.toContain(ctx.sb.apiKey);
    await api(ctx.sb, 'GET', '/wallets/balances', { token: null, headers: { Authorization: ctx.sb.apiKey, 'Api-Key': ctx.sb.apiKey } });
    const odd = (await admin(ctx.sb, 'GET', '/requests')).body.data.at(-1);
    expect(odd.headers.authorization).toBe('***');
    expect(odd.headers['api-key']).toBe('***');
    // In process, the recorded request keeps what was sent.
    expect(ctx.sb.requests()[0]!.headers.authorization).toBe(`Bearer ${ctx.sb.apiKey}`);
    await admin(ctx.sb, 'DELETE', '/requests');
    expect((await admin(ctx.sb, 'GET', '/requests')).body.data).toEqual([]);
  });

  it('POST /wallets adds or replaces a wallet with an exact balance', async () => {
    const res = await admin(ctx.sb, 'POST', '/wallets', { wallet_id: '5553881136', wallet_name: 'Kenema Field Office', currency: 'SLE', balance: '1250000.75' });
    expect(res.status).toBe(201);
    expect(res.raw).toContain('"wallet_id":"5553881136","wallet_name":"Kenema Field Office","currency":"SLE","balance":1250000.75,');
    const balances = await api(ctx.sb, 'GET', '/wallets/balances');
    expect(balances.raw).toContain('"wallet_id":"5553881136","wallet_name":"Kenema Field Office","currency":"SLE","balance":1250000.75,');
    await admin(ctx.sb, 'POST', '/wallets', { wallet_id: '5553881136', wallet_name: 'Kenema Field Office', currency: 'SLE', balance: '3' });
    expect(ctx.sb.wallets().find((w) => w.wallet_id === '5553881136')!.balance).toBe('3');
    const created = await admin(ctx.sb, 'POST', '/wallets', { wallet_name: 'New', currency: 'USD', balance: '10.5' });
    expect(created.body.data.wallet_id).toMatch(/^[1-9]\d{9}$/);
    const bad = await admin(ctx.sb, 'POST', '/wallets', { wallet_name: 'Bad', currency: 'SLE', balance: '1.234' });
    expect(bad.status).toBe(400);
    const badCurrency = await admin(ctx.sb, 'POST', '/wallets', { wallet_name: 'Bad', currency: 'ZZZ', balance: '1' });
    expect(badCurrency.status).toBe(400);
  });

  it('POST /payouts/generate adds bulk records, optionally for one wallet and status', async () => {
    const before = ctx.sb.payouts().length;
    const res = await admin(ctx.sb, 'POST', '/payouts/generate', { count: 50, walletId: '5553881136', status: 'Failed' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ generated: 50 });
    const made = ctx.sb.payouts().filter((p) => p.wallet_id === '5553881136');
    expect(made).toHaveLength(50);
    expect(made.every((p) => p.status === 'Failed' && p.currency === 'SLE')).toBe(true);
    expect(ctx.sb.payouts().length).toBe(before + 50);
    expect((await admin(ctx.sb, 'POST', '/payouts/generate', { count: 0 })).status).toBe(400);
    expect((await admin(ctx.sb, 'POST', '/payouts/generate', { count: 5, walletId: '1000000000' })).status).toBe(400);
  });

  it('POST /expire-tokens is gone with the tokens', async () => {
    expect((await admin(ctx.sb, 'POST', '/expire-tokens')).status).toBe(404);
  });

  it('POST /shapes sets the list and error shapes; a name it does not know is refused', async () => {
    const res = await admin(ctx.sb, 'POST', '/shapes', { error: 'problem' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ list: 'paginator', error: 'problem' });
    const refused = await api(ctx.sb, 'GET', '/payout/list?per_page=0');
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    // Admin errors keep their own shape whatever the API's is.
    const bad = await admin(ctx.sb, 'POST', '/shapes', { error: 'xml' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 'Failed', code: 'VALIDATION_ERROR' });
    expect(bad.body.message).toContain('laravel, envelope, error, problem');
    await admin(ctx.sb, 'POST', '/shapes', { error: 'laravel' });
    expect(ctx.sb.shapes()).toEqual({ list: 'paginator', error: 'laravel' });
  });

  it('POST /revoke-key replaces the API key', async () => {
    const old = ctx.sb.apiKey;
    const res = await admin(ctx.sb, 'POST', '/revoke-key', { apiKey: 'sk_sandbox_rotated' });
    expect(res.body.data).toEqual({ api_key: 'sk_sandbox_rotated' });
    expect(ctx.sb.apiKey).toBe('sk_sandbox_rotated');
    const refused = await api(ctx.sb, 'GET', '/wallets/balances', { token: old });
    expect(refused.status).toBe(401);
    expect((await api(ctx.sb, 'GET', '/wallets/balances', { token: 'sk_sandbox_rotated' })).status).toBe(200);
    const random = await admin(ctx.sb, 'POST', '/revoke-key');
    expect(random.body.data.api_key).toMatch(/^sk_sandbox_[0-9a-f]{24}$/);
    expect((await api(ctx.sb, 'GET', '/wallets/balances')).status).toBe(200);
  });

  it('POST /revoke-key refuses a key no client could send as the bearer (a space, a control character), and keeps the key', async () => {
    const before = ctx.sb.apiKey;
    for (const [key, problem] of [
      ['my key', 'a space (U+0020) at character 3'],
      ['sk_\u001b[2J', 'an escape character (U+001B) at character 4'],
    ] as const) {
      const res = await admin(ctx.sb, 'POST', '/revoke-key', { apiKey: key });
      expect(res.status, key).toBe(400);
      expect(res.body.message).toBe(`apiKey contains ${problem}: an API key is visible ASCII characters only.`);
      expect(res.raw).not.toContain('\u001b');
    }
    expect(ctx.sb.apiKey).toBe(before);
  });

  it('answers 404 NOT_FOUND for unknown admin routes', async () => {
    expect((await admin(ctx.sb, 'GET', '/nope')).status).toBe(404);
    expect((await admin(ctx.sb, 'GET', '/nope')).body.code).toBe('NOT_FOUND');
  });

  it('GET /webhooks lists delivery attempts (none without a webhook URL)', async () => {
    expect((await api(ctx.sb, 'POST', '/payout', { body: payoutBody('5553881136', { amount: 1 }), idempotencyKey: randomUUID() })).status).toBe(201);
    const res = await admin(ctx.sb, 'GET', '/webhooks');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });
});
