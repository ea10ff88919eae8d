/**
 * Idempotency-Key on POST /v2/payout: replays byte for byte, 422 for another body under a
 * key, 409 while in progress, one payout under any concurrency, and a payout id already
 * taken refused as Laravel's `unique` rule does.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, eventually, freshWallet, payoutBody, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();

function post(body: unknown, key: string) {
  return api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: key });
}

const balanceOf = (id: string) => ctx.sb.wallets().find((w) => w.wallet_id === id)!.balance;
const payoutsOf = (id: string) => ctx.sb.payouts().filter((p) => p.wallet_id === id);

describe('Idempotency-Key on POST /v2/payout', () => {
  it('is required (422 without it, nothing created)', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const res = await api(ctx.sb, 'POST', '/payout', { body: payoutBody(walletId) });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ 'Idempotency-Key': ['The idempotency key header is required.'] });
    expect(payoutsOf(walletId)).toHaveLength(0);
  });

  it('replays the first answer byte for byte for the same key and body, with Idempotent-Replayed: true', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const body = payoutBody(walletId);
    const first = await post(body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    await new Promise((r) => setTimeout(r, 5));
    const second = await post(body, key);
    expect(second.status).toBe(201);
    expect(second.raw).toBe(first.raw);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(payoutsOf(walletId)).toHaveLength(1);
    expect(balanceOf(walletId)).toBe('3484.49'); // one debit of 1515.51
  });

  it('compares bodies as parsed JSON: other key order and spacing is the same body', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const body = payoutBody(walletId);
    const first = await post(JSON.stringify(body), key);
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2);
    const second = await post(reordered, key);
    expect(second.status).toBe(201);
    expect(second.raw).toBe(first.raw);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(payoutsOf(walletId)).toHaveLength(1);
  });

  it('refuses the same key with a different body: 422 IDEMPOTENCY_KEY_REUSED, no second payout', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const body = payoutBody(walletId);
    expect((await post(body, key)).status).toBe(201);
    const res = await post({ ...body, amount: 1500.51 }, key);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ status: 'Failed', code: 'IDEMPOTENCY_KEY_REUSED' });
    const nested = await post({ ...body, metadata: { batch: 'other' } }, key);
    expect(nested.status).toBe(422);
    expect(nested.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(payoutsOf(walletId)).toHaveLength(1);
    expect(balanceOf(walletId)).toBe('3484.49');
  });

  it('answers 409 IDEMPOTENCY_IN_PROGRESS with Retry-After: 1 while the first request is processed', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const body = payoutBody(walletId);
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 600 });
    const first = post(body, key);
    await eventually(() => ctx.sb.requests().some((r) => r.headers['idempotency-key'] === key));
    const second = await post(body, key);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ status: 'Failed', code: 'IDEMPOTENCY_IN_PROGRESS' });
    expect(second.headers.get('retry-after')).toBe('1');
    expect((await first).status).toBe(201);
    const third = await post(body, key);
    expect(third.status).toBe(201);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(payoutsOf(walletId)).toHaveLength(1);
  });

  it('makes exactly one payout and one debit from two concurrent requests with one key', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const body = payoutBody(walletId);
    // Both requests would wait 500 ms before committing; the second finds the key locked.
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 500, times: 2 });
    const [a, b] = await Promise.all([post(body, key), post(body, key)]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const [created, refused] = a.status === 201 ? [a, b] : [b, a];
    expect(refused.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(payoutsOf(walletId)).toHaveLength(1);
    expect(balanceOf(walletId)).toBe('3484.49');
    const retry = await post(body, key);
    expect(retry.raw).toBe(created.raw);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('many concurrent requests with one key (no fault) still make one payout', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const body = payoutBody(walletId);
    const results = await Promise.all(Array.from({ length: 10 }, () => post(body, key)));
    for (const r of results) expect([201, 409]).toContain(r.status);
    expect(payoutsOf(walletId)).toHaveLength(1);
    expect(balanceOf(walletId)).toBe('3484.49');
  });

  it('refuses a payoutId already used under another key: 422 "The payout id has already been taken."', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const body = payoutBody(walletId);
    expect((await post(body, randomUUID())).status).toBe(201);
    const res = await post(body, randomUUID());
    expect(res.status).toBe(422);
    expect(res.raw).toBe('{"message":"The payout id has already been taken.","errors":{"payoutId":["The payout id has already been taken."]}}');
    expect(payoutsOf(walletId)).toHaveLength(1);
    expect(balanceOf(walletId)).toBe('3484.49');
  });

  it('two keys racing with one payoutId make one payout (the other is told the payout id is taken)', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const body = payoutBody(walletId);
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 150, times: 2 });
    const [a, b] = await Promise.all([post(body, randomUUID()), post(body, randomUUID())]);
    expect([a.status, b.status].sort()).toEqual([201, 422]);
    expect([a, b].find((r) => r.status === 422)!.body.errors).toEqual({ payoutId: ['The payout id has already been taken.'] });
    expect(payoutsOf(walletId)).toHaveLength(1);
  });

  it('does not store 5xx answers: a retry with the same key runs again', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const body = payoutBody(walletId);
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 500 });
    const first = await post(body, key);
    expect(first.status).toBe(500);
    expect(first.body.code).toBe('INTERNAL_ERROR');
    const retry = await post(body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(payoutsOf(walletId)).toHaveLength(1);
  });

  it('stores final 4xx answers: the same request replays the refusal', async () => {
    const walletId = freshWallet(ctx.sb, '10');
    const key = randomUUID();
    const body = payoutBody(walletId);
    const first = await post(body, key);
    expect(first.status).toBe(422);
    expect(first.body.code).toBe('INSUFFICIENT_FUNDS');
    ctx.sb.setWallet({ wallet_id: walletId, wallet_name: 'Topped up', currency: 'SLE', balance: '5000' });
    const again = await post(body, key);
    expect(again.status).toBe(422);
    expect(again.raw).toBe(first.raw);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // A new key runs the request afresh.
    expect((await post(body, randomUUID())).status).toBe(201);
  });

  it('replays a stored validation error for the same body, and refuses another body under that key', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const key = randomUUID();
    const bad = { ...payoutBody(walletId), amount: 'x' };
    const first = await post(bad, key);
    expect(first.status).toBe(422);
    expect(first.body.errors).toEqual({ amount: ['The amount field must be a number.'] });
    const again = await post(bad, key);
    expect(again.raw).toBe(first.raw);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const fixed = await post({ ...bad, amount: 10 }, key);
    expect(fixed.status).toBe(422);
    expect(fixed.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('keeps keys separate: the same body under two keys with different payoutIds makes two payouts', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    const body = payoutBody(walletId, { amount: 10 });
    expect((await post(body, randomUUID())).status).toBe(201);
    expect((await post({ ...body, payoutId: randomUUID() }, randomUUID())).status).toBe(201);
    expect(payoutsOf(walletId)).toHaveLength(2);
  });
});
