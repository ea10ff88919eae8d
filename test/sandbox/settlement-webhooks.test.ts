/**
 * The sandbox's settlement (a payout settles after settleAfterMs; an account ending in
 * 0000 fails and is refunded) and its webhooks as documented (docs/service.md,
 * "Webhooks"): `{event, timestamp, webhook_id, attempt, data}` with `event`
 * transfer.initiated / transfer.success / transfer.failed, signed with hex HMAC-SHA256 of
 * the raw body in the `Signature` header (checked here with node:crypto, not with src/);
 * retries keep the webhook_id and count the attempt, with a fresh timestamp and signature.
 */
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

/** The `Signature` header is 64 lower-case hex characters of HMAC-SHA256(secret, the raw body as received). */
function verify(secret: string, hook: ReceivedHook): boolean {
  const header = String(hook.headers.signature);
  return /^[0-9a-f]{64}$/.test(header) && createHmac('sha256', secret).update(Buffer.from(hook.raw, 'utf8')).digest('hex') === header;
}

const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('settlement', () => {
  it('turns a Pending payout Successful after settleAfterMs; the debit stays', async () => {
    const { sb } = await setup();
    const walletId = freshWallet(sb, '5000');
    const tx = await create(sb, walletId, '077123456');
    const settled = await eventually(async () => {
      const r = await api(sb, 'GET', `/payout/${tx}`);
      return r.body.data.status !== 'pending' && r;
    });
    expect(settled.body.data.status).toBe('successful');
    expect(settled.body.data).not.toHaveProperty('failure_reason');
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
      const r = await api(sb, 'GET', `/payout/${tx}`);
      return r.body.data.status !== 'pending' && r;
    });
    expect(settled.body.data.status).toBe('failed');
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

  it('refuses a settle delay longer than a timer can wait (2147483647 ms) at start; the longest one waits', async () => {
    await expect(startSandbox({ settleAfterMs: 3_000_000_000 })).rejects.toThrow(
      'The settle delay must be a whole number of milliseconds from 0 to 2147483647, got 3000000000.',
    );
    const sb = await startSandbox({ settleAfterMs: 2_147_483_647 });
    cleanups.push(() => sb.close());
    const walletId = freshWallet(sb, '100000.00');
    const res = await api(sb, 'POST', '/payout', { body: payoutBody(walletId), idempotencyKey: randomUUID() });
    expect(res.status).toBe(201);
    await new Promise((r) => setTimeout(r, 100));
    expect(sb.payouts().find((p) => p.wallet_id === walletId)!.status).toBe('Pending');
  });
});

describe('webhooks', () => {
  it('posts transfer.initiated then transfer.success in the documented form, signed with hex HMAC-SHA256 over the raw body', async () => {
    const { sb, receiver } = await setup({ secret: 'whsec_test_123' });
    const walletId = freshWallet(sb, '5000');
    const tx = await create(sb, walletId, '077123456');
    await eventually(() => receiver.received.length >= 2);
    const [initiated, success] = receiver.received;
    expect(initiated!.body).toMatchObject({ event: 'transfer.initiated', attempt: 1, data: { transaction_id: tx, status: 'Pending' } });
    expect(success!.body).toMatchObject({ event: 'transfer.success', attempt: 1, data: { transaction_id: tx, status: 'Successful' } });
    for (const hook of receiver.received) {
      expect(Object.keys(hook.body)).toEqual(['event', 'timestamp', 'webhook_id', 'attempt', 'data']);
      expect(hook.body.webhook_id).toMatch(UUID_V4);
      expect(hook.body.timestamp).toMatch(MICROS);
      expect(Math.abs(Date.now() - Date.parse(hook.body.timestamp))).toBeLessThan(5000);
      expect(hook.headers['content-type']).toBe('application/json');
      expect(hook.headers.signature).toMatch(/^[0-9a-f]{64}$/);
      expect(verify('whsec_test_123', hook)).toBe(true);
      expect(verify('whsec_wrong', hook)).toBe(false);
      // No header of the old scheme.
      expect(hook.headers).not.toHaveProperty('x-webhook-signature');
      // The record in data: amounts as exact JSON numbers in the raw body.
      expect(hook.raw).toContain('"amount":1500.5,"fee":15.01,');
    }
    expect(initiated!.body.webhook_id).not.toBe(success!.body.webhook_id);
    expect(sb.webhookSecret).toBe('whsec_test_123');
  });

  it('posts transfer.failed for a failed payout, with its reason', async () => {
    const { sb, receiver } = await setup();
    const walletId = freshWallet(sb, '5000');
    const tx = await create(sb, walletId, '0880000000');
    await eventually(() => receiver.received.length >= 2);
    expect(receiver.received.map((h) => h.body.event)).toEqual(['transfer.initiated', 'transfer.failed']);
    expect(receiver.received[1]!.body.data).toMatchObject({ transaction_id: tx, status: 'Failed' });
    expect(receiver.received[1]!.body.data.failure_reason).toMatch(/rejected/i);
    expect(verify('whsec_sandbox', receiver.received[1]!)).toBe(true);
  });

  it('retries a non-2xx answer with backoff: the same webhook_id and data, the next attempt, a fresh timestamp, signed afresh', async () => {
    // The initiated event is answered 500, 500, then 200.
    let initiatedSeen = 0;
    const { sb, receiver } = await setup({
      answer: (_n, hook) => (hook.body?.event === 'transfer.initiated' && ++initiatedSeen <= 2 ? 500 : 200),
    });
    const walletId = freshWallet(sb, '5000');
    await create(sb, walletId, '077123456');
    await eventually(() => receiver.received.filter((h) => h.body.event === 'transfer.initiated').length >= 3);
    const tries = receiver.received.filter((h) => h.body.event === 'transfer.initiated');
    expect(new Set(tries.map((h) => h.body.webhook_id)).size).toBe(1);
    expect(tries.map((h) => h.body.attempt)).toEqual([1, 2, 3]);
    expect(tries.map((h) => JSON.stringify(h.body.data))).toEqual(Array(3).fill(JSON.stringify(tries[0]!.body.data)));
    // Each attempt is its own body (attempt, timestamp) with its own signature over it.
    expect(new Set(tries.map((h) => h.raw)).size).toBe(3);
    expect(new Set(tries.map((h) => h.headers.signature)).size).toBe(3);
    for (const h of tries) expect(verify('whsec_sandbox', h)).toBe(true);
    expect(Date.parse(tries[2]!.body.timestamp)).toBeGreaterThan(Date.parse(tries[0]!.body.timestamp));
    const gap1 = tries[1]!.at - tries[0]!.at;
    const gap2 = tries[2]!.at - tries[1]!.at;
    expect(gap1).toBeGreaterThanOrEqual(45);
    expect(gap2).toBeGreaterThanOrEqual(95);
    // Delivered: no fourth attempt.
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.filter((h) => h.body.event === 'transfer.initiated')).toHaveLength(3);
    const log = sb.webhookDeliveries().filter((d) => d.event === 'transfer.initiated');
    expect(log.map((d) => [d.webhookId, d.attempt, d.outcome])).toEqual([
      [tries[0]!.body.webhook_id, 1, 500],
      [tries[0]!.body.webhook_id, 2, 500],
      [tries[0]!.body.webhook_id, 3, 200],
    ]);
  });

  it('gives up after a bounded number of attempts', async () => {
    const { sb, receiver } = await setup({ answer: () => 503, maxAttempts: 3 });
    const walletId = freshWallet(sb, '5000');
    await create(sb, walletId, '077123456');
    await eventually(() => receiver.received.length >= 6, 5000); // initiated ×3 and success ×3
    await new Promise((r) => setTimeout(r, 500));
    const byEvent = (e: string) => receiver.received.filter((h) => h.body.event === e).length;
    expect(byEvent('transfer.initiated')).toBe(3);
    expect(byEvent('transfer.success')).toBe(3);
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
