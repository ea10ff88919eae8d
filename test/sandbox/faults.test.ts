/**
 * Fault injection: resets before and after the commit, made-up statuses (in the error
 * shape of the moment, or a raw proxy page), delays, hangs; matching and counting; and the
 * record of what each request was and how it ended.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, freshWallet, payoutBody, startSandbox, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();

const payoutsOf = (id: string) => ctx.sb.payouts().filter((p) => p.wallet_id === id);
const balanceOf = (id: string) => ctx.sb.wallets().find((w) => w.wallet_id === id)!.balance;

async function failsWithConnectionError(p: Promise<unknown>): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  expect(String((err as Error & { cause?: unknown }).cause ?? err)).toMatch(/other side closed|ECONNRESET|socket|terminated/i);
}

describe('reset-before-commit', () => {
  it('drops the connection before processing: no payout, and a retry with the key creates it', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const body = payoutBody(walletId);
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit' });
    await failsWithConnectionError(api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: key }));
    expect(payoutsOf(walletId)).toHaveLength(0);
    expect(balanceOf(walletId)).toBe('5000');
    const last = ctx.sb.requests().at(-1)!;
    expect(last).toMatchObject({ method: 'POST', path: '/v2/payout', outcome: 'reset' });
    const retry = await api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(payoutsOf(walletId)).toHaveLength(1);
  });
});

describe('reset-after-commit', () => {
  it('commits, then drops the connection: the payout exists once and a retry replays it', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const body = payoutBody(walletId);
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit' });
    await failsWithConnectionError(api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: key }));
    const made = payoutsOf(walletId);
    expect(made).toHaveLength(1);
    expect(balanceOf(walletId)).toBe('3484.49');
    expect(ctx.sb.requests().at(-1)!.outcome).toBe('reset');
    const retry = await api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.transaction_id).toBe(made[0]!.transaction_id);
    expect(payoutsOf(walletId)).toHaveLength(1);
    expect(balanceOf(walletId)).toBe('3484.49');
  });
});

describe('status', () => {
  it('answers 503 in the envelope without processing; not stored, so a retry creates the payout', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const body = payoutBody(walletId);
    ctx.sb.faults.add({ path: '/v2/payout', kind: 'status', status: 503 });
    const first = await api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: key });
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ status: 'Failed', code: 'INTERNAL_ERROR' });
    expect(first.headers.get('x-request-id')).toMatch(/^req_/);
    expect(payoutsOf(walletId)).toHaveLength(0);
    const retry = await api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(payoutsOf(walletId)).toHaveLength(1);
  });

  it('answers 429 as RATE_LIMITED with Retry-After: 1', async () => {
    ctx.sb.faults.add({ method: 'GET', path: '/v2/wallets/balances', kind: 'status', status: 429 });
    const res = await api(ctx.sb, 'GET', '/wallets/balances');
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await api(ctx.sb, 'GET', '/wallets/balances')).status).toBe(200);
  });

  it('can send a raw non-JSON body, as a proxy would', async () => {
    ctx.sb.faults.add({ path: '/v2/wallets/balances', kind: 'status', status: 502, body: '<html><body>Bad gateway</body></html>' });
    const res = await api(ctx.sb, 'GET', '/wallets/balances');
    expect(res.status).toBe(502);
    expect(res.raw).toBe('<html><body>Bad gateway</body></html>');
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('can override the code and message', async () => {
    ctx.sb.faults.add({ path: '/v2/payout/list', kind: 'status', status: 500, code: 'UPSTREAM_DOWN', message: 'Provider unreachable' });
    const res = await api(ctx.sb, 'GET', '/payout/list');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ status: 'Failed', code: 'UPSTREAM_DOWN', message: 'Provider unreachable' });
  });

  it('writes a made-up error in the error shape the sandbox is set to', async () => {
    const sb = await startSandbox({ errorShape: 'error' });
    try {
      sb.faults.add({ path: '/v2/wallets/balances', kind: 'status', status: 503 });
      const res = await api(sb, 'GET', '/wallets/balances');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: { message: 'Internal error; please retry.', code: 'INTERNAL_ERROR' } });
      expect(res.headers.get('retry-after')).toBe('1');
    } finally {
      await sb.close();
    }
  });
});

describe('delay', () => {
  it('waits delayMs and then answers normally', async () => {
    ctx.sb.faults.add({ method: 'GET', path: '/v2/wallets/balances', kind: 'delay', delayMs: 250 });
    const t = Date.now();
    const res = await api(ctx.sb, 'GET', '/wallets/balances');
    expect(Date.now() - t).toBeGreaterThanOrEqual(240);
    expect(res.status).toBe(200);
    expect(ctx.sb.faults.list()).toEqual([]); // used up: the next request is not delayed
  });

  it('on POST /payout holds the key in progress, then commits', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 300 });
    const first = api(ctx.sb, 'POST', '/payout', { body: payoutBody(walletId), idempotencyKey: key });
    await new Promise((r) => setTimeout(r, 100));
    expect(payoutsOf(walletId)).toHaveLength(0); // not committed yet
    expect((await first).status).toBe(201);
    expect(payoutsOf(walletId)).toHaveLength(1);
  });
});

describe('hang', () => {
  it('never answers; the client gives up; the sandbox still closes promptly', async () => {
    const sb = await startSandbox();
    sb.faults.add({ kind: 'hang', path: '/v2/wallets/balances' });
    const err = await api(sb, 'GET', '/wallets/balances', { signal: AbortSignal.timeout(300) }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
    expect(sb.requests().at(-1)!.outcome).toBe('hang');
    // Another request hangs and is still open when the sandbox closes.
    sb.faults.add({ kind: 'hang' });
    const pending = api(sb, 'GET', '/payout/list').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const t = Date.now();
    await sb.close();
    expect(Date.now() - t).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(Error);
  });

  it('close() also ends a request waiting in a delay', async () => {
    const sb = await startSandbox();
    sb.faults.add({ kind: 'delay', delayMs: 10_000 });
    const pending = api(sb, 'GET', '/wallets/balances').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const t = Date.now();
    await sb.close();
    expect(Date.now() - t).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('matching and counting', () => {
  it('counts down times, and Infinity lasts until clear()', async () => {
    ctx.sb.faults.add({ method: 'GET', path: '/v2/wallets/balances', kind: 'status', status: 500, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await api(ctx.sb, 'GET', '/wallets/balances')).status);
    expect(statuses).toEqual([500, 500, 200]);
    ctx.sb.faults.add({ path: '/v2/wallets/balances', kind: 'status', status: 502, times: Infinity });
    for (let i = 0; i < 4; i++) expect((await api(ctx.sb, 'GET', '/wallets/balances')).status).toBe(502);
    expect(ctx.sb.faults.list()).toEqual([expect.objectContaining({ kind: 'status', status: 502, remaining: Infinity })]);
    ctx.sb.faults.clear();
    expect(ctx.sb.faults.list()).toEqual([]);
    expect((await api(ctx.sb, 'GET', '/wallets/balances')).status).toBe(200);
  });

  it('matches by method and by path (exact or below, not a longer name)', async () => {
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 500, times: Infinity });
    try {
      expect((await api(ctx.sb, 'GET', '/payout/list')).status).toBe(200); // another method
      expect((await api(ctx.sb, 'POST', '/payout/summary', { body: {} })).status).toBe(500); // below /v2/payout
      const res = await api(ctx.sb, 'POST', '/payout', { body: {}, idempotencyKey: randomUUID() });
      expect(res.status).toBe(500);
    } finally {
      ctx.sb.faults.clear();
    }
    ctx.sb.faults.add({ path: '/v2/payout/list', kind: 'status', status: 500, times: 2 });
    expect((await api(ctx.sb, 'POST', '/payout/summary', { body: {} })).status).toBe(200); // not below /v2/payout/list
    expect((await api(ctx.sb, 'GET', '/payout/list')).status).toBe(500);
    expect((await api(ctx.sb, 'GET', '/payout/list?page=2')).status).toBe(500);
    expect((await api(ctx.sb, 'GET', '/payout/list')).status).toBe(200);
    ctx.sb.faults.add({ path: '/v2/wallets', kind: 'status', status: 502 });
    expect((await api(ctx.sb, 'GET', '/wallets/balances')).status).toBe(502); // below /v2/wallets
    ctx.sb.faults.add({ path: '/v2/wall*', kind: 'status', status: 502 });
    expect((await api(ctx.sb, 'GET', '/wallets/balances')).status).toBe(502); // a plain prefix
    expect((await api(ctx.sb, 'GET', '/wallets/balances')).status).toBe(200);
  });

  it('applies faults in the order they were added', async () => {
    ctx.sb.faults.add({ path: '/v2/wallets/balances', kind: 'status', status: 500 });
    ctx.sb.faults.add({ path: '/v2/wallets/balances', kind: 'status', status: 503 });
    const a = await api(ctx.sb, 'GET', '/wallets/balances');
    const b = await api(ctx.sb, 'GET', '/wallets/balances');
    const c = await api(ctx.sb, 'GET', '/wallets/balances');
    expect([a.status, b.status, c.status]).toEqual([500, 503, 200]);
  });

  it('refuses an invalid fault spec', () => {
    expect(() => ctx.sb.faults.add({ kind: 'explode' as never })).toThrow(/kind must be one of/);
    expect(() => ctx.sb.faults.add({ kind: 'status' })).toThrow(/status must be/);
    expect(() => ctx.sb.faults.add({ kind: 'delay' })).toThrow(/delayMs/);
    expect(() => ctx.sb.faults.add({ kind: 'hang', times: 0 })).toThrow(/times/);
  });
});

describe('recorded requests', () => {
  it('records method, path, query, lower-case headers, raw body and outcome, oldest first', async () => {
    ctx.sb.clearRequests();
    const key = randomUUID();
    await api(ctx.sb, 'GET', '/payout/list?per_page=2&status=Pending');
    await api(ctx.sb, 'POST', '/payout', { body: '{"not": "valid"', idempotencyKey: key, headers: { 'X-Custom-Thing': 'Yes' } });
    const recs = ctx.sb.requests();
    expect(recs.map((r) => [r.method, r.path, r.outcome])).toEqual([
      ['GET', '/v2/payout/list', 200],
      ['POST', '/v2/payout', 422],
    ]);
    expect(recs[0]!.query).toEqual({ per_page: '2', status: 'Pending' });
    expect(recs[1]!.headers['idempotency-key']).toBe(key);
    expect(recs[1]!.headers['x-custom-thing']).toBe('Yes');
    expect(recs[1]!.headers.authorization).toBe(`Bearer ${ctx.sb.apiKey}`);
    expect(recs[1]!.body).toBe('{"not": "valid"');
    expect(recs[1]!.receivedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    ctx.sb.clearRequests();
    expect(ctx.sb.requests()).toEqual([]);
  });
});
