import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { isoFromMicros, parseTimeBound } from '../../src/sandbox/time.js';
import { api, freshWallet, payoutBody, startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { cpuMs } from '../helpers/cpu.js';

const opened: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

/** A sandbox with the demo wallets and no historic payouts. */
async function emptySandbox(): Promise<Sandbox> {
  const sb = await startSandbox({ demoPayouts: false, settleAfterMs: 60_000 });
  opened.push(sb);
  return sb;
}

const ids = (res: { body: { data: Array<{ transaction_id: string }> } }) => res.body.data.map((p) => p.transaction_id);

describe('GET /v2/payouts/{id}', () => {
  it('finds a payout by payoutId and by transaction_id, with the full record shape', async () => {
    const sb = await emptySandbox();
    const walletId = freshWallet(sb, '5000');
    const body = payoutBody(walletId, { payoutId: `batch/${randomUUID()}` });
    const created = await api(sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() });
    expect(created.status).toBe(201);
    const tx = created.body.data.transaction_id as string;

    const byTx = await api(sb, 'GET', `/payouts/${tx}`);
    const byPayoutId = await api(sb, 'GET', `/payouts/${encodeURIComponent(body.payoutId)}`);
    expect(byTx.status).toBe(200);
    expect(byTx.body.message).toBe('Payout retrieved successfully');
    expect(byPayoutId.status).toBe(200);
    expect(byPayoutId.body.data).toEqual(byTx.body.data);
    const record = byTx.body.data;
    expect(Object.keys(record)).toEqual([
      'transaction_id',
      'payout_id',
      'wallet_id',
      'amount',
      'fee',
      'currency',
      'status',
      'failure_reason',
      'recipient',
      'provider_response',
      'metadata',
      'created_at',
      'updated_at',
    ]);
    expect(record).toMatchObject({
      transaction_id: tx,
      payout_id: body.payoutId,
      wallet_id: walletId,
      amount: 1500.5,
      fee: 15.01,
      currency: 'SLE',
      status: 'Pending',
      failure_reason: null,
      metadata: { batch: 'oct-stipends' },
      recipient: {
        type: 'wallet',
        accountDetails: { name: 'Aminata Kamara', provider: 'orange_money', accountNumber: '076123456', phoneNumber: '+23276123456', note: 'October stipend' },
      },
      provider_response: { status: 'Pending', provider: 'ORANGE_MONEY', beneficiary: '076123456' },
      created_at: created.body.data.created_at,
    });
    expect(byTx.raw).toContain('"amount":1500.5,"fee":15.01,');
  });

  it('answers 404 NOT_FOUND for an unknown id', async () => {
    const sb = await emptySandbox();
    const res = await api(sb, 'GET', '/payouts/TRX00000000000000000000');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 'Failed', code: 'NOT_FOUND' });
  });
});

describe('GET /v2/payouts: pagination', () => {
  it('pages newest first: full pages, the last partial page, then an empty page', async () => {
    const sb = await emptySandbox();
    sb.generatePayouts(45);
    const all = sb.payouts().map((p) => p.transaction_id); // newest first
    expect(all).toHaveLength(45);

    const p1 = await api(sb, 'GET', '/payouts');
    expect(p1.status).toBe(200);
    expect(p1.body.message).toBe('Payouts retrieved successfully');
    expect(Array.isArray(p1.body.data)).toBe(true);
    expect(ids(p1)).toEqual(all.slice(0, 20)); // default limit 20
    const created = p1.body.data.map((p: { created_at: string }) => p.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    expect(ids(await api(sb, 'GET', '/payouts?page=2'))).toEqual(all.slice(20, 40));
    expect(ids(await api(sb, 'GET', '/payouts?page=3'))).toEqual(all.slice(40, 45));
    const empty = await api(sb, 'GET', '/payouts?page=4');
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    expect((await api(sb, 'GET', '/payouts?page=999999')).body.data).toEqual([]);
    // Any page number is a page: past the last one it is empty, never refused.
    for (const page of ['1000000000', '9007199254740993', '1' + '0'.repeat(40)]) {
      const far = await api(sb, 'GET', `/payouts?page=${page}`);
      expect(far.status, page).toBe(200);
      expect(far.body.data, page).toEqual([]);
    }
    expect((await api(sb, 'GET', '/payouts?page=1000000000&status=Pending')).body.data).toEqual([]);
  });

  it('handles a total that is an exact multiple of the limit', async () => {
    const sb = await emptySandbox();
    sb.generatePayouts(30);
    const all = sb.payouts().map((p) => p.transaction_id);
    expect(ids(await api(sb, 'GET', '/payouts?limit=15&page=1'))).toEqual(all.slice(0, 15));
    expect(ids(await api(sb, 'GET', '/payouts?limit=15&page=2'))).toEqual(all.slice(15, 30));
    expect((await api(sb, 'GET', '/payouts?limit=15&page=3')).body.data).toEqual([]);
  });

  it('gives an empty list when there are no payouts at all', async () => {
    const sb = await emptySandbox();
    const res = await api(sb, 'GET', '/payouts');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it('allows limit 100 and limit 1', async () => {
    const sb = await emptySandbox();
    sb.generatePayouts(150);
    const all = sb.payouts().map((p) => p.transaction_id);
    expect(ids(await api(sb, 'GET', '/payouts?limit=100'))).toEqual(all.slice(0, 100));
    expect(ids(await api(sb, 'GET', '/payouts?limit=100&page=2'))).toEqual(all.slice(100, 150));
    expect(ids(await api(sb, 'GET', '/payouts?limit=1&page=150'))).toEqual([all[149]]);
  });

  it.each([
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=1.5', 'limit'],
    ['page=0', 'page'],
    ['page=-2', 'page'],
    ['page=x', 'page'],
    ['page=', 'page'],
  ])('refuses %s with 400 VALIDATION_ERROR on %s', async (query, field) => {
    const sb = await emptySandbox();
    const res = await api(sb, 'GET', `/payouts?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  });

  it('a live payout comes first, before older generated ones', async () => {
    const sb = await emptySandbox();
    sb.generatePayouts(5);
    const walletId = freshWallet(sb, '5000');
    const created = await api(sb, 'POST', '/payout', { body: payoutBody(walletId), idempotencyKey: randomUUID() });
    const list = await api(sb, 'GET', '/payouts?limit=3');
    expect(list.body.data[0].transaction_id).toBe(created.body.data.transaction_id);
  });
});

describe('GET /v2/payouts: filters', () => {
  async function seeded() {
    const sb = await emptySandbox();
    sb.generatePayouts(300);
    const all = sb.payouts();
    return { sb, all };
  }

  async function everything(sb: Sandbox, query: string): Promise<string[]> {
    const out: string[] = [];
    for (let page = 1; ; page++) {
      const res = await api(sb, 'GET', `/payouts?limit=100&page=${page}${query ? '&' + query : ''}`);
      expect(res.status).toBe(200);
      out.push(...ids(res));
      if (res.body.data.length < 100) return out;
    }
  }

  it('filters by status (case-insensitive), in every status', async () => {
    const { sb, all } = await seeded();
    for (const status of ['Pending', 'Successful', 'Failed']) {
      const expected = all.filter((p) => p.status === status).map((p) => p.transaction_id);
      expect(expected.length).toBeGreaterThan(50);
      expect(await everything(sb, `status=${status}`)).toEqual(expected);
      expect(await everything(sb, `status=${status.toLowerCase()}`)).toEqual(expected);
    }
    expect(await everything(sb, 'status=Reversed')).toEqual([]);
  });

  it('filters by walletId and by currency', async () => {
    const { sb, all } = await seeded();
    const ngn = sb.wallets().find((w) => w.currency === 'NGN')!.wallet_id;
    const sle = sb
      .wallets()
      .filter((w) => w.currency === 'SLE')
      .map((w) => w.wallet_id);
    expect(await everything(sb, `walletId=${ngn}`)).toEqual(all.filter((p) => p.wallet_id === ngn).map((p) => p.transaction_id));
    expect(await everything(sb, `walletId=${sle[0]}`)).toEqual(all.filter((p) => p.wallet_id === sle[0]).map((p) => p.transaction_id));
    const sleAll = all.filter((p) => p.currency === 'SLE').map((p) => p.transaction_id);
    expect(sleAll).toHaveLength(200);
    expect(await everything(sb, 'currency=SLE')).toEqual(sleAll);
    expect(await everything(sb, 'currency=sle')).toEqual(sleAll);
    expect(await everything(sb, 'walletId=wal_unknown')).toEqual([]);
  });

  it('filters by from and to timestamps, both inclusive', async () => {
    const { sb, all } = await seeded();
    const newer = all[49]!; // newest first: index 49 is newer than 250
    const older = all[250]!;
    const inRange = all.filter((p) => p.created_at >= older.created_at && p.created_at <= newer.created_at).map((p) => p.transaction_id);
    expect(inRange).toHaveLength(250 - 49 + 1);
    expect(inRange[0]).toBe(newer.transaction_id);
    expect(inRange[inRange.length - 1]).toBe(older.transaction_id);
    const q = `from=${encodeURIComponent(older.created_at)}&to=${encodeURIComponent(newer.created_at)}`;
    expect(await everything(sb, q)).toEqual(inRange);
    // One microsecond past either edge leaves that record out.
    const shift = (iso: string, us: number) => isoFromMicros(parseTimeBound(iso, 'from')! + us);
    const narrower = `from=${encodeURIComponent(shift(older.created_at, 1))}&to=${encodeURIComponent(shift(newer.created_at, -1))}`;
    expect(await everything(sb, narrower)).toEqual(inRange.slice(1, -1));
  });

  it('reads a date as that UTC day: from at its start, to through its end', async () => {
    const { sb, all } = await seeded();
    const day = all[150]!.created_at.slice(0, 10);
    const sameDay = all.filter((p) => p.created_at.slice(0, 10) === day).map((p) => p.transaction_id);
    expect(sameDay.length).toBeGreaterThan(0);
    expect(await everything(sb, `from=${day}&to=${day}`)).toEqual(sameDay);
    expect(await everything(sb, `from=${day}`)).toEqual(all.filter((p) => p.created_at.slice(0, 10) >= day).map((p) => p.transaction_id));
    expect(await everything(sb, `to=${day}`)).toEqual(all.filter((p) => p.created_at.slice(0, 10) <= day).map((p) => p.transaction_id));
  });

  it('accepts timestamps with an offset', async () => {
    const { sb, all } = await seeded();
    const t = all[100]!.created_at; // e.g. 2026-10-01T10:15:30.123456Z
    const ms = Date.parse(t);
    const plusOne = new Date(ms + 3600_000).toISOString().slice(0, 19) + t.slice(19, 26) + '+01:00';
    const expected = all.filter((p) => p.created_at <= t).map((p) => p.transaction_id);
    expect(await everything(sb, `to=${encodeURIComponent(plusOne)}`)).toEqual(expected);
  });

  it('combines filters with pagination', async () => {
    const { sb, all } = await seeded();
    const sle = sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
    const day = all[200]!.created_at.slice(0, 10);
    const expected = all.filter((p) => p.wallet_id === sle && p.status === 'Successful' && p.created_at.slice(0, 10) >= day).map((p) => p.transaction_id);
    expect(expected.length).toBeGreaterThan(5);
    const page1 = await api(sb, 'GET', `/payouts?walletId=${sle}&status=Successful&from=${day}&limit=3`);
    const page2 = await api(sb, 'GET', `/payouts?walletId=${sle}&status=Successful&from=${day}&limit=3&page=2`);
    expect(ids(page1)).toEqual(expected.slice(0, 3));
    expect(ids(page2)).toEqual(expected.slice(3, 6));
  });

  it.each([
    ['from=yesterday', 'from'],
    ['from=2026-02-30', 'from'],
    ['to=2026-13-01', 'to'],
    ['to=2026-11-01T10:00:00', 'to'],
    ['from=2026-11-01T25:00:00Z', 'from'],
    ['from=2026-11-02&to=2026-11-01', 'from'],
    ['currency=EURO', 'currency'],
  ])('refuses %s with 400 on %s', async (query, field) => {
    const sb = await emptySandbox();
    const res = await api(sb, 'GET', `/payouts?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  });
});

describe('100,000 payouts', () => {
  it('generates them quickly and still lists and filters fast', async () => {
    const sb = await emptySandbox();
    let t = cpuMs();
    sb.generatePayouts(100_000);
    expect(cpuMs() - t).toBeLessThan(3000);
    await api(sb, 'GET', '/payouts?limit=1'); // token fetched, connection warm

    t = cpuMs();
    const first = await api(sb, 'GET', '/payouts?limit=100');
    const last = await api(sb, 'GET', '/payouts?limit=100&page=1000');
    const beyond = await api(sb, 'GET', '/payouts?limit=100&page=1001');
    const failed = await api(sb, 'GET', '/payouts?status=Failed&limit=100&page=300');
    const elapsed = cpuMs() - t;
    expect(first.body.data).toHaveLength(100);
    expect(last.body.data).toHaveLength(100);
    expect(beyond.body.data).toEqual([]);
    expect(failed.body.data).toHaveLength(100);
    expect(failed.body.data.every((p: { status: string }) => p.status === 'Failed')).toBe(true);
    expect(elapsed).toBeLessThan(1500);
    const firstTimes = first.body.data.map((p: { created_at: string }) => p.created_at);
    expect(firstTimes[0] > last.body.data[0].created_at).toBe(true);
  });
});
