import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, freshWallet, payoutBody, startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { minorToJsonNumber } from '../../src/money/amount.js';

let sb: Sandbox;
let usd: string;
let sle: string;

beforeAll(async () => {
  sb = await startSandbox({ demoPayouts: false, settleAfterMs: 60_000 });
  sb.generatePayouts(600);
  usd = freshWallet(sb, '10000000.00', 'USD');
  sle = freshWallet(sb, '100000000.00', 'SLE');
  const create = async (walletId: string, currency: string, amount: number) => {
    const res = await api(sb, 'POST', '/payout', { body: payoutBody(walletId, { currency, amount }), idempotencyKey: randomUUID() });
    expect(res.status).toBe(201);
  };
  // Floats would drift here: 0.1 + 0.2 + 1234567.89 * 3 + 0.07.
  for (const a of [0.1, 0.2, 1234567.89, 1234567.89, 1234567.89, 0.07]) await create(usd, 'USD', a);
  await create(sle, 'SLE', 1500.5);
});
afterAll(async () => {
  await sb.close();
});

interface Totals {
  count: number;
  amount: bigint;
  fee: bigint;
  statuses: Map<string, { count: number; amount: bigint }>;
}

function expected(filter: (p: ReturnType<Sandbox['payouts']>[number]) => boolean): Map<string, Totals> {
  const out = new Map<string, Totals>();
  for (const p of sb.payouts().filter(filter)) {
    let t = out.get(p.currency);
    if (!t) out.set(p.currency, (t = { count: 0, amount: 0n, fee: 0n, statuses: new Map() }));
    t.count++;
    t.amount += p.amount_minor;
    t.fee += p.fee_minor;
    const s = t.statuses.get(p.status) ?? { count: 0, amount: 0n };
    s.count++;
    s.amount += p.amount_minor;
    t.statuses.set(p.status, s);
  }
  return out;
}

const digits = (c: string) => (c === 'JPY' ? 0 : 2);

function checkAgainst(res: { raw: string; body: any }, exp: Map<string, Totals>) {
  const currencies = res.body.data.currencies as Array<{ currency: string }>;
  expect(currencies.map((c) => c.currency)).toEqual([...exp.keys()].sort());
  for (const [currency, t] of exp) {
    const d = digits(currency);
    const statuses = ['Pending', 'Successful', 'Failed']
      .map((s) => {
        const v = t.statuses.get(s) ?? { count: 0, amount: 0n };
        return `"${s}":{"count":${v.count},"amount":${minorToJsonNumber(v.amount, d)}}`;
      })
      .join(',');
    // Exact literals in the raw body: never a float sum.
    const text = `{"currency":"${currency}","count":${t.count},"amount":${minorToJsonNumber(t.amount, d)},"fee":${minorToJsonNumber(t.fee, d)},"statuses":{${statuses}}}`;
    expect(res.raw).toContain(text);
  }
}

describe('POST /v2/payouts/summary', () => {
  it('totals every payout per currency and status, exactly', async () => {
    const res = await api(sb, 'POST', '/payouts/summary', { body: {} });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Successful');
    expect(res.body.data.from).toBeNull();
    expect(res.body.data.to).toBeNull();
    checkAgainst(
      res,
      expected(() => true),
    );
    // The USD wallet's live payouts: 0.1 + 0.2 + 3 × 1234567.89 + 0.07 = 3703704.04, all Pending.
    const usdOnly = await api(sb, 'POST', '/payouts/summary', { body: { walletId: usd } });
    expect(usdOnly.raw).toContain(
      '{"currency":"USD","count":6,"amount":3703704.04,"fee":37037.04,"statuses":{"Pending":{"count":6,"amount":3703704.04},"Successful":{"count":0,"amount":0},"Failed":{"count":0,"amount":0}}}',
    );
  });

  it('never adds amounts across currencies', async () => {
    const res = await api(sb, 'POST', '/payouts/summary', { body: {} });
    const currencies = res.body.data.currencies as Array<{ currency: string; count: number }>;
    expect(currencies.map((c) => c.currency)).toEqual(['NGN', 'SLE', 'USD']);
    expect(currencies.reduce((n, c) => n + c.count, 0)).toBe(sb.payouts().length);
  });

  it('filters by currency and by walletId', async () => {
    const ngn = await api(sb, 'POST', '/payouts/summary', { body: { currency: 'NGN' } });
    checkAgainst(
      ngn,
      expected((p) => p.currency === 'NGN'),
    );
    expect(ngn.body.data.currencies).toHaveLength(1);
    const one = await api(sb, 'POST', '/payouts/summary', { body: { walletId: sle } });
    checkAgainst(
      one,
      expected((p) => p.wallet_id === sle),
    );
    expect(one.raw).toContain('"count":1,"amount":1500.5,"fee":15.01');
    const none = await api(sb, 'POST', '/payouts/summary', { body: { walletId: 'wal_none' } });
    expect(none.body.data.currencies).toEqual([]);
  });

  it('filters by from and to (inclusive) and echoes the bounds as timestamps', async () => {
    const all = sb.payouts();
    const from = all[400]!.created_at;
    const to = all[100]!.created_at;
    const res = await api(sb, 'POST', '/payouts/summary', { body: { from, to } });
    expect(res.status).toBe(200);
    expect(res.body.data.from).toBe(from);
    expect(res.body.data.to).toBe(to);
    checkAgainst(
      res,
      expected((p) => p.created_at >= from && p.created_at <= to),
    );
    const day = all[300]!.created_at.slice(0, 10);
    const byDay = await api(sb, 'POST', '/payouts/summary', { body: { from: day, to: day } });
    expect(byDay.body.data.from).toBe(`${day}T00:00:00.000000Z`);
    expect(byDay.body.data.to).toBe(`${day}T23:59:59.999999Z`);
    checkAgainst(
      byDay,
      expected((p) => p.created_at.slice(0, 10) === day),
    );
  });

  it('accepts an empty body as no filter', async () => {
    const res = await api(sb, 'POST', '/payouts/summary');
    expect(res.status).toBe(200);
    checkAgainst(
      res,
      expected(() => true),
    );
  });

  it.each([
    ['malformed JSON', '{"from":', 'body'],
    ['an array', '[]', 'body'],
    ['an invalid from', JSON.stringify({ from: 'last week' }), 'from'],
    ['a numeric to', JSON.stringify({ to: 20261101 }), 'to'],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_what, body, field) => {
    const res = await api(sb, 'POST', '/payouts/summary', { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors[0].field).toBe(field);
  });

  it('needs a token', async () => {
    const res = await api(sb, 'POST', '/payouts/summary', { body: {}, token: null });
    expect(res.status).toBe(401);
  });
});
