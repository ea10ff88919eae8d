/**
 * POST /v2/payout/summary as documented: sent with `{}`, answered with flat counts and
 * `total_sent` (the successful amounts of every currency, as one exact JSON number).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, eventually, freshWallet, payoutBody, startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { minorToJsonNumber } from '../../src/money/amount.js';

let sb: Sandbox;

beforeAll(async () => {
  sb = await startSandbox({ demoPayouts: false, settleAfterMs: 100 });
});
afterAll(async () => {
  await sb.close();
});

async function create(walletId: string, currency: string, amount: number, accountNumber = '0012345678', type: 'bank' | 'wallet' = 'bank'): Promise<void> {
  const body = payoutBody(walletId, { currency, amount });
  if (type === 'bank') body.recipient = { type: 'bank', accountDetails: { name: 'Mohamed Sesay', provider: 'ecobank', accountNumber } };
  const res = await api(sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() });
  expect(res.status, res.raw).toBe(201);
}

describe('POST /v2/payout/summary', () => {
  it('counts nothing on an empty ledger, total_sent 0', async () => {
    const res = await api(sb, 'POST', '/payout/summary', { body: {} });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Payout summary retrieved');
    expect(res.raw).toContain('"data":{"total_transfers":0,"successful":0,"pending":0,"failed":0,"total_sent":0,"wallet_transfers":0,"bank_transfers":0}');
  });

  it('counts by status and type, and sums successful amounts exactly (floats would drift)', async () => {
    const usd = freshWallet(sb, '10000000.00', 'USD');
    const sle = freshWallet(sb, '100000000.00', 'SLE');
    const jpy = freshWallet(sb, '100000000', 'JPY');
    // Successful: 0.1 + 0.2 + 3 × 1234567.89 + 0.07 (USD) + 1500.5 (SLE) + 1250 (JPY) = 3706454.54
    for (const a of [0.1, 0.2, 1234567.89, 1234567.89, 1234567.89, 0.07]) await create(usd, 'USD', a);
    await create(sle, 'SLE', 1500.5, '076123456', 'wallet');
    await create(jpy, 'JPY', 1250);
    // Failed (account ending 0000): not in total_sent.
    await create(sle, 'SLE', 99.99, '1200000000');
    await eventually(() => sb.payouts().every((p) => p.status !== 'Pending'), 20_000);
    const res = await api(sb, 'POST', '/payout/summary', { body: {} });
    expect(Object.keys(res.body.data)).toEqual(['total_transfers', 'successful', 'pending', 'failed', 'total_sent', 'wallet_transfers', 'bank_transfers']);
    expect(res.raw).toContain('"data":{"total_transfers":9,"successful":8,"pending":0,"failed":1,"total_sent":3706454.54,"wallet_transfers":1,"bank_transfers":8}');
  });

  it('counts pending payouts, and bulk records, against the ledger', async () => {
    const local = await startSandbox({ demoPayouts: false, settleAfterMs: 60_000 });
    try {
      local.generatePayouts(600);
      const w = freshWallet(local, '5000.00');
      const res0 = await api(local, 'POST', '/payout', { body: payoutBody(w, { amount: 10 }), idempotencyKey: randomUUID() });
      expect(res0.status).toBe(201);
      const all = local.payouts();
      const res = await api(local, 'POST', '/payout/summary', { body: {} });
      const d = res.body.data;
      expect(d.total_transfers).toBe(all.length);
      expect(d.successful).toBe(all.filter((p) => p.status === 'Successful').length);
      expect(d.pending).toBe(all.filter((p) => p.status === 'Pending').length);
      expect(d.failed).toBe(all.filter((p) => p.status === 'Failed').length);
      expect(d.wallet_transfers + d.bank_transfers).toBe(all.length);
      expect(d.wallet_transfers).toBe(all.filter((p) => p.recipient.type === 'wallet').length);
      // Both demo currencies have two digits: the sum's literal, from the minor units.
      const sent = all.filter((p) => p.status === 'Successful').reduce((t, p) => t + p.amount_minor, 0n);
      expect(res.raw).toContain(`"total_sent":${minorToJsonNumber(sent, 2)},`);
    } finally {
      await local.close();
    }
  });

  it('ignores the fields of the body, and takes no body at all', async () => {
    const plain = await api(sb, 'POST', '/payout/summary', { body: {} });
    const filtered = await api(sb, 'POST', '/payout/summary', { body: { currency: 'USD', from: '2030-01-01', walletId: 'nope' } });
    const none = await api(sb, 'POST', '/payout/summary');
    expect(filtered.status).toBe(200);
    expect(filtered.body.data).toEqual(plain.body.data);
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual(plain.body.data);
  });

  it('needs the key', async () => {
    const res = await api(sb, 'POST', '/payout/summary', { body: {}, token: null });
    expect(res.status).toBe(401);
  });
});
