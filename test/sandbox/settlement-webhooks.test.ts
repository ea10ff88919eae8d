import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { api, eventually, freshWallet, payoutBody, startSandbox, webhookReceiver, type ReceivedHook, type Sandbox } from '../helpers/sandbox.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});
afterAll(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function setup(opts: { answer?: (n: number, h: ReceivedHook) => number; secret?: string; maxAttempts?: number } = {}) {
  const receiver = await webhookReceiver(opts.answer);
  const sb = await startSandbox({
    demoPayouts: false,
    settleAfterMs: 150,
    webhookUrl: receiver.url,
    webhookRetryBaseMs: 50,
    ...(opts.secret !== undefined && { webhookSecret: opts.secret }),
    ...(opts.maxAttempts !== undefined && { webhookMaxAttempts: opts.maxAttempts }),
  });
  cleanups.push(async () => {
    await sb.close();
    await receiver.close();
  });
  return { sb, receiver };
}

async function create(sb: Sandbox, walletId: string, accountNumber: string) {
  const body = payoutBody(walletId, {
    recipient: { type: 'wallet', accountDetails: { name: 'Ibrahim Conteh', provider: 'afrimoney', accountNumber, phoneNumber: '+23277123456' } },
  });
  const res = await api(sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() });
  expect(res.status).toBe(201);
  return res.body.data.transaction_id as string;
}

function verify(secret: string, hook: ReceivedHook): { t: number; ok: boolean } {
  const header = String(hook.headers['x-webhook-signature']);
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return { t: 0, ok: false };
  const expected = createHmac('sha256', secret).update(`${m[1]}.${hook.raw}`).digest('hex');
  return { t: Number(m[1]), ok: expected === m[2] };
}

describe('settlement', () => {
  it('turns a Pending payout Successful after settleAfterMs; the debit stays', async () => {
    const { sb } = await setup();
    const walletId = freshWallet(sb, '5000');
    const tx = await create(sb, walletId, '077123456');
    const settled = await eventually(async () => {
      const r = await api(sb, 'GET', `/payouts/${tx}`);
      return r.body.data.status !== 'Pending' && r;
    });
    expect(settled.body.data.status).toBe('Successful');
    expect(settled.body.data.failure_reason).toBeNull();
    expect(settled.body.data.updated_at > settled.body.data.created_at).toBe(true);
    const createdMs = Date.parse(settled.body.data.created_at);
    const updatedMs = Date.parse(settled.body.data.updated_at);
    expect(updatedMs - createdMs).toBeGreaterThanOrEqual(140);
    expect(sb.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('3484.49');
  });

  it('fails a payout to an account ending in 0000 and refunds amount + fee exactly', async () => {
    const { sb } = await setup();
    const walletId = freshWallet(sb, '5000');
    const tx = await create(sb, walletId, '0770000000');
    expect(sb.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('3484.49');
    const settled = await eventually(async () => {
      const r = await api(sb, 'GET', `/payouts/${tx}`);
      return r.body.data.status !== 'Pending' && r;
    });
    expect(settled.body.data.status).toBe('Failed');
    expect(settled.body.data.failure_reason).toMatch(/rejected/i);
    expect(sb.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('5000');
  });

  it('does not settle demo or generated Pending records', async () => {
    const sb = await startSandbox({ settleAfterMs: 10 });
    cleanups.push(() => sb.close());
    sb.generatePayouts(6, { status: 'Pending' });
    const before = sb.payouts().filter((p) => p.status === 'Pending').length;
    expect(before).toBeGreaterThanOrEqual(7);
    await new Promise((r) => setTimeout(r, 100));
    expect(sb.payouts().filter((p) => p.status === 'Pending').length).toBe(before);
  });
});

describe('webhooks', () => {
  it('posts payout.pending then payout.successful, signed with HMAC-SHA256 over "<t>.<raw body>"', async () => {
    const { sb, receiver } = await setup({ secret: 'whsec_test_123' });
    const walletId = freshWallet(sb, '5000');
    const tx = await create(sb, walletId, '077123456');
    await eventually(() => receiver.received.length >= 2);
    const [pending, successful] = receiver.received;
    expect(pending!.body).toMatchObject({ type: 'payout.pending', data: { transaction_id: tx, status: 'Pending' } });
    expect(successful!.body).toMatchObject({ type: 'payout.successful', data: { transaction_id: tx, status: 'Successful' } });
    for (const hook of receiver.received) {
      expect(hook.body.id).toMatch(/^evt_[0-9a-f]{24}$/);
      expect(hook.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(hook.headers['content-type']).toBe('application/json');
      const { t, ok } = verify('whsec_test_123', hook);
      expect(ok).toBe(true);
      expect(Math.abs(Date.now() / 1000 - t)).toBeLessThan(300);
      expect(verify('whsec_wrong', hook).ok).toBe(false);
      // The record in data is the full payout record, amounts exact in the raw body.
      expect(hook.raw).toContain('"amount":1500.5,"fee":15.01,');
    }
    expect(pending!.body.id).not.toBe(successful!.body.id);
    expect(sb.webhookSecret).toBe('whsec_test_123');
  });

  it('posts payout.failed for a failed payout', async () => {
    const { sb, receiver } = await setup();
    const walletId = freshWallet(sb, '5000');
    const tx = await create(sb, walletId, '0880000000');
    await eventually(() => receiver.received.length >= 2);
    expect(receiver.received.map((h) => h.body.type)).toEqual(['payout.pending', 'payout.failed']);
    expect(receiver.received[1]!.body.data).toMatchObject({ transaction_id: tx, status: 'Failed' });
    expect(receiver.received[1]!.body.data.failure_reason).toMatch(/rejected/i);
    expect(verify('whsec_sandbox', receiver.received[1]!).ok).toBe(true);
  });

  it('retries a non-2xx answer with backoff, with the same event id each time', async () => {
    // The pending event is answered 500, 500, then 200.
    let pendingSeen = 0;
    const { sb, receiver } = await setup({
      answer: (_n, hook) => (hook.body?.type === 'payout.pending' && ++pendingSeen <= 2 ? 500 : 200),
    });
    const walletId = freshWallet(sb, '5000');
    await create(sb, walletId, '077123456');
    await eventually(() => receiver.received.filter((h) => h.body.type === 'payout.pending').length >= 3);
    const pendings = receiver.received.filter((h) => h.body.type === 'payout.pending');
    expect(new Set(pendings.map((h) => h.body.id)).size).toBe(1);
    expect(pendings.map((h) => h.raw)).toEqual([pendings[0]!.raw, pendings[0]!.raw, pendings[0]!.raw]);
    expect(pendings.map((h) => h.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);
    for (const h of pendings) expect(verify('whsec_sandbox', h).ok).toBe(true);
    const gap1 = pendings[1]!.at - pendings[0]!.at;
    const gap2 = pendings[2]!.at - pendings[1]!.at;
    expect(gap1).toBeGreaterThanOrEqual(45);
    expect(gap2).toBeGreaterThanOrEqual(95);
    // Delivered: no fourth attempt.
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.filter((h) => h.body.type === 'payout.pending')).toHaveLength(3);
    expect(
      sb
        .webhookDeliveries()
        .filter((d) => d.type === 'payout.pending')
        .map((d) => d.outcome),
    ).toEqual([500, 500, 200]);
  });

  it('gives up after a bounded number of attempts', async () => {
    const { sb, receiver } = await setup({ answer: () => 503, maxAttempts: 3 });
    const walletId = freshWallet(sb, '5000');
    await create(sb, walletId, '077123456');
    await eventually(() => receiver.received.length >= 6, 5000); // pending ×3 and successful ×3
    await new Promise((r) => setTimeout(r, 500));
    const byType = (t: string) => receiver.received.filter((h) => h.body.type === t).length;
    expect(byType('payout.pending')).toBe(3);
    expect(byType('payout.successful')).toBe(3);
  });

  it('retries after a connection error', async () => {
    const receiver = await webhookReceiver();
    const url = receiver.url;
    await receiver.close(); // nothing listens there now
    const sb = await startSandbox({ demoPayouts: false, settleAfterMs: 60_000, webhookUrl: url, webhookRetryBaseMs: 30, webhookMaxAttempts: 3 });
    cleanups.push(() => sb.close());
    const walletId = freshWallet(sb, '5000');
    await create(sb, walletId, '077123456');
    await eventually(() => sb.webhookDeliveries().length >= 3);
    expect(sb.webhookDeliveries().map((d) => [d.attempt, d.outcome])).toEqual([
      [1, 'error'],
      [2, 'error'],
      [3, 'error'],
    ]);
  });

  it('refuses a webhook URL that is not http(s) at start', async () => {
    await expect(startSandbox({ webhookUrl: 'ftp://example.com/hook' })).rejects.toThrow(/must be an http:\/\/ or https:\/\/ URL/);
    await expect(startSandbox({ webhookUrl: 'not a url' })).rejects.toThrow(RangeError);
  });

  it('stops retrying when the sandbox closes', async () => {
    const receiver = await webhookReceiver(() => 500);
    cleanups.push(() => receiver.close());
    const sb = await startSandbox({ demoPayouts: false, settleAfterMs: 60_000, webhookUrl: receiver.url, webhookRetryBaseMs: 40 });
    const walletId = freshWallet(sb, '5000');
    await create(sb, walletId, '077123456');
    await eventually(() => receiver.received.length >= 1);
    await sb.close();
    const seen = receiver.received.length;
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.received.length).toBe(seen);
  });
});
