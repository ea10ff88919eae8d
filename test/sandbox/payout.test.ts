import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, freshWallet, payoutBody, useSandbox, walletIn } from '../helpers/sandbox.js';

const ctx = useSandbox();

function post(body: unknown, key: string = randomUUID()) {
  return api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: key });
}

describe('GET /v2/wallets/balances', () => {
  it('lists every wallet with exact balances', async () => {
    const res = await api(ctx.sb, 'GET', '/wallets/balances');
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/balances/i);
    const data = res.body.data as Array<Record<string, unknown>>;
    expect(data.length).toBe(ctx.sb.wallets().length);
    for (const w of data) {
      expect(Object.keys(w).sort()).toEqual(['balance', 'currency', 'updated_at', 'wallet_id', 'wallet_name']);
      expect(w.wallet_id).toMatch(/^wal_[0-9a-f]+$/);
      expect(typeof w.balance).toBe('number');
      expect(w.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    }
  });

  it('writes a balance of 1250000.75 exactly, digit for digit', async () => {
    const id = freshWallet(ctx.sb, '1250000.75');
    const res = await api(ctx.sb, 'GET', '/wallets/balances');
    expect(res.raw).toContain(`"wallet_id":"${id}","wallet_name":"Test ${id.slice(-4)}","currency":"SLE","balance":1250000.75,`);
    const big = freshWallet(ctx.sb, '98765432109876.54');
    const res2 = await api(ctx.sb, 'GET', '/wallets/balances');
    // Beyond float precision: the literal must still be exact in the raw text.
    expect(res2.raw).toContain(`"wallet_id":"${big}"`);
    expect(res2.raw).toMatch(new RegExp(`"wallet_id":"${big}"[^}]*"balance":98765432109876\\.54,`));
    expect(ctx.sb.wallets().find((w) => w.wallet_id === big)!.balance_minor).toBe(9876543210987654n);
  });

  it('writes whole and one-decimal balances without needless zeros', async () => {
    const a = freshWallet(ctx.sb, '500.00');
    const b = freshWallet(ctx.sb, '0.30');
    const res = await api(ctx.sb, 'GET', '/wallets/balances');
    expect(res.raw).toMatch(new RegExp(`"wallet_id":"${a}"[^}]*"balance":500,`));
    expect(res.raw).toMatch(new RegExp(`"wallet_id":"${b}"[^}]*"balance":0.3,`));
  });
});

describe('POST /v2/payout: success', () => {
  it('answers 201 with the contract shape and debits amount + fee', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00');
    const key = randomUUID();
    const body = payoutBody(walletId);
    const res = await post(body, key);
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('Successful');
    expect(res.body.message).toBe('Transfer initiated successfully');
    const d = res.body.data;
    expect(Object.keys(d)).toEqual(['transaction_id', 'amount', 'fee', 'currency', 'payout_id', 'created_at', 'provider_response']);
    expect(d.transaction_id).toMatch(/^TRX[0-9A-F]{20}$/);
    expect(d.currency).toBe('SLE');
    expect(d.payout_id).toBe(body.payoutId);
    expect(d.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(d.provider_response).toEqual({
      status: 'Pending',
      beneficiary: '076123456',
      provider: 'ORANGE_MONEY',
      orderId: expect.stringMatching(/^ORD-[0-9A-F]{12}$/),
      idempotency_key: key,
    });
    // 1500.5 -> fee 15.005 rounded half up = 15.01, written exactly.
    expect(res.raw).toContain('"amount":1500.5,"fee":15.01,');
    const w = ctx.sb.wallets().find((x) => x.wallet_id === walletId)!;
    expect(w.balance).toBe('8484.49'); // 10000 - 1500.50 - 15.01
    expect(w.balance_minor).toBe(848449n);
  });

  it.each([
    [100, '1'], // 1% of 100.00
    [0.5, '0.01'], // 0.005 -> 0.01 (half up)
    [0.49, '0'], // 0.0049 -> 0.00
    [0.01, '0'],
    [1234.56, '12.35'], // 12.3456 -> 12.35
    [1234.44, '12.34'], // 12.3444 -> 12.34
  ])('charges 1%% of %s rounded half up: fee %s', async (amount, fee) => {
    const walletId = freshWallet(ctx.sb, '5000');
    const res = await post(payoutBody(walletId, { amount }));
    expect(res.status).toBe(201);
    expect(res.raw).toContain(`"amount":${amount},"fee":${fee},`);
  });

  it('uses the currency digits: NGN and a JPY whole amount', async () => {
    const ngn = freshWallet(ctx.sb, '2000000.00', 'NGN');
    const res = await post(payoutBody(ngn, { amount: 250000.25, currency: 'NGN' }));
    expect(res.status).toBe(201);
    expect(res.raw).toContain('"amount":250000.25,"fee":2500,');
    expect(ctx.sb.wallets().find((w) => w.wallet_id === ngn)!.balance).toBe('1747499.75');
    const jpy = freshWallet(ctx.sb, '100000', 'JPY');
    const r2 = await post(payoutBody(jpy, { amount: 1250, currency: 'JPY' }));
    expect(r2.status).toBe(201);
    expect(r2.raw).toContain('"amount":1250,"fee":13,'); // 12.5 -> 13
    const r3 = await post(payoutBody(jpy, { amount: 12.5, currency: 'JPY' }));
    expect(r3.status).toBe(400);
    expect(r3.body.errors).toEqual([{ field: 'amount', message: 'must be a whole number for JPY' }]);
  });

  it('accepts a bank recipient without a phone number (absent or null)', async () => {
    const walletId = freshWallet(ctx.sb, '5000');
    for (const phoneNumber of [undefined, null]) {
      const body = payoutBody(walletId, {
        amount: 10,
        recipient: { type: 'bank', accountDetails: { name: 'Mohamed Sesay', provider: 'ecobank', accountNumber: '0012345678', phoneNumber } },
      });
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.body.data.provider_response.provider).toBe('ECOBANK');
      expect(res.body.data.provider_response.beneficiary).toBe('0012345678');
    }
  });

  it('spends a wallet down to exactly zero, then refuses', async () => {
    const walletId = freshWallet(ctx.sb, '101.00');
    expect((await post(payoutBody(walletId, { amount: 100 }))).status).toBe(201);
    expect(ctx.sb.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('0');
    const res = await post(payoutBody(walletId, { amount: 0.01 }));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('INSUFFICIENT_FUNDS');
  });
});

describe('POST /v2/payout: validation (400 VALIDATION_ERROR)', () => {
  const wallet = () => walletIn(ctx.sb, 'SLE').wallet_id;

  it('refuses malformed JSON', async () => {
    const res = await post('{"amount": 1500.5,');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'Failed', code: 'VALIDATION_ERROR' });
    expect(res.body.errors).toEqual([{ field: 'body', message: 'is not valid JSON' }]);
  });

  it('refuses a body that is not an object', async () => {
    const res = await post('[1,2]');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
  });

  it('lists every missing required field with its full path', async () => {
    const res = await post({ recipient: { type: 'wallet', accountDetails: {} } });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'currency',
      'amount',
      'payoutId',
      'walletId',
      'recipient.accountDetails.name',
      'recipient.accountDetails.provider',
      'recipient.accountDetails.accountNumber',
      'recipient.accountDetails.phoneNumber',
    ]);
    for (const e of res.body.errors) expect(e.message).toBe('is required');
  });

  it('requires recipient, recipient.type and recipient.accountDetails', async () => {
    const b = payoutBody(wallet()) as unknown as Record<string, unknown>;
    delete b.recipient;
    expect((await post(b)).body.errors).toEqual([{ field: 'recipient', message: 'is required' }]);
    const c = payoutBody(wallet(), { recipient: {} as never });
    expect((await post(c)).body.errors).toEqual([
      { field: 'recipient.type', message: 'is required' },
      { field: 'recipient.accountDetails', message: 'is required' },
    ]);
  });

  it.each([
    ['amount as a string', { amount: '1500.50' }, 'amount', 'must be a JSON number, e.g. 1500.5'],
    ['amount zero', { amount: 0 }, 'amount', 'must be greater than 0'],
    ['negative amount', { amount: -5 }, 'amount', 'must be greater than 0'],
    ['three decimals in SLE', { amount: 10.005 }, 'amount', 'must have at most 2 decimal places for SLE'],
    ['lower-case currency', { currency: 'sle' }, 'currency', 'must be an ISO 4217 currency code in capitals, e.g. SLE'],
    ['unknown currency', { currency: 'XYZ' }, 'currency', 'must be an ISO 4217 currency code in capitals, e.g. SLE'],
    ['numeric payoutId', { payoutId: 42 }, 'payoutId', 'must be a string'],
    ['empty walletId', { walletId: '' }, 'walletId', 'must not be empty'],
    ['metadata array', { metadata: [1] }, 'metadata', 'must be an object'],
  ])('refuses %s', async (_what, override, field, message) => {
    const res = await post({ ...payoutBody(wallet()), ...override });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toEqual([{ field, message }]);
  });

  it.each([
    ['an unknown recipient type', { type: 'card' }, 'recipient.type', 'must be "bank" or "wallet"'],
    ['a wallet without phoneNumber', { phoneNumber: undefined }, 'recipient.accountDetails.phoneNumber', 'is required'],
    ['a wallet with phoneNumber null', { phoneNumber: null }, 'recipient.accountDetails.phoneNumber', 'is required'],
    ['a bad phone number', { phoneNumber: '12ab' }, 'recipient.accountDetails.phoneNumber', 'must be 6 to 15 digits, optionally after a +'],
    ['an upper-case provider', { provider: 'Orange Money' }, 'recipient.accountDetails.provider', 'must be lowercase with underscores, e.g. orange_money'],
    ['an empty name', { name: '  ' }, 'recipient.accountDetails.name', 'must not be empty'],
    ['a numeric account number', { accountNumber: 76123456 }, 'recipient.accountDetails.accountNumber', 'must be a string'],
    ['a note that is a number', { note: 5 }, 'recipient.accountDetails.note', 'must be a string or null'],
  ])('refuses %s', async (_what, change, field, message) => {
    const base = payoutBody(wallet());
    const { type, ...details } = change as Record<string, unknown>;
    const body = {
      ...base,
      recipient: { type: type ?? 'wallet', accountDetails: { ...base.recipient.accountDetails, ...details } },
    };
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field, message }]);
  });

  it('requires the Idempotency-Key header', async () => {
    const res = await api(ctx.sb, 'POST', '/payout', { body: payoutBody(wallet()) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toEqual([{ field: 'Idempotency-Key', message: 'header is required' }]);
  });

  it('moves no money on a refused request', async () => {
    const walletId = freshWallet(ctx.sb, '777.77');
    await post({ ...payoutBody(walletId), amount: 'lots' });
    expect(ctx.sb.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('777.77');
    expect(ctx.sb.payouts().some((p) => p.wallet_id === walletId)).toBe(false);
  });
});

describe('POST /v2/payout: business refusals (422)', () => {
  it('WALLET_NOT_FOUND for an unknown wallet', async () => {
    const res = await post(payoutBody('wal_doesnotexist'));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ status: 'Failed', code: 'WALLET_NOT_FOUND' });
    expect(res.body.message).toContain('wal_doesnotexist');
  });

  it("CURRENCY_MISMATCH when the currency is not the wallet's", async () => {
    const ngn = walletIn(ctx.sb, 'NGN').wallet_id;
    const res = await post(payoutBody(ngn, { currency: 'SLE' }));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('CURRENCY_MISMATCH');
  });

  it('INSUFFICIENT_FUNDS when the balance is below amount + fee (but covers the amount)', async () => {
    const walletId = freshWallet(ctx.sb, '1500.50');
    const res = await post(payoutBody(walletId, { amount: 1500.5 }));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('INSUFFICIENT_FUNDS');
    expect(res.body.message).toContain('1515.51');
    expect(ctx.sb.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('1500.5');
    // Exactly amount + fee is enough.
    ctx.sb.setWallet({ wallet_id: walletId, wallet_name: 'Exact', currency: 'SLE', balance: '1515.51' });
    expect((await post(payoutBody(walletId, { amount: 1500.5 }))).status).toBe(201);
  });
});

describe('POST bodies must be JSON (415 UNSUPPORTED_MEDIA_TYPE)', () => {
  it('refuses a JSON body sent as text/plain or as a form, and pays nothing', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp']) {
      const body = payoutBody(walletId);
      const res = await api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: randomUUID(), headers: { 'Content-Type': type } });
      expect(res.status, type).toBe(415);
      expect(res.body, type).toMatchObject({ status: 'Failed', code: 'UNSUPPORTED_MEDIA_TYPE' });
      expect(res.body.message, type).toContain(type);
      expect(ctx.sb.payouts().some((p) => p.payout_id === body.payoutId)).toBe(false);
    }
    const summary = await api(ctx.sb, 'POST', '/payouts/summary', { body: { currency: 'SLE' }, headers: { 'Content-Type': 'text/plain' } });
    expect(summary.status).toBe(415);
    expect(ctx.sb.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('5000');
  });

  it('takes application/json with parameters and in any case', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00');
    const res = await api(ctx.sb, 'POST', '/payout', {
      body: payoutBody(walletId),
      idempotencyKey: randomUUID(),
      headers: { 'Content-Type': 'Application/JSON; charset=utf-8' },
    });
    expect(res.status).toBe(201);
  });
});

describe('records leave out absent optional fields', () => {
  it('a payout sent without note or metadata has neither in its record (no null where the contract says string)', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00');
    const body = payoutBody(walletId);
    delete body.recipient.accountDetails.note;
    delete body.metadata;
    expect((await post(body)).status).toBe(201);
    const got = await api(ctx.sb, 'GET', `/payouts/${body.payoutId}`);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body.data.recipient.accountDetails).sort()).toEqual(['accountNumber', 'name', 'phoneNumber', 'provider']);
    expect(got.body.data).not.toHaveProperty('metadata');
    expect(got.raw).not.toContain('"note"');
    const listed = await api(ctx.sb, 'GET', `/payouts?walletId=${walletId}`);
    expect(listed.raw).not.toContain('"note"');
    expect(listed.raw).not.toContain('"metadata"');
  });

  it('a note that was sent is in the record', async () => {
    const walletId = freshWallet(ctx.sb, '5000.00');
    const body = payoutBody(walletId);
    expect((await post(body)).status).toBe(201);
    const got = await api(ctx.sb, 'GET', `/payouts/${body.payoutId}`);
    expect(got.body.data.recipient.accountDetails.note).toBe('October stipend');
    expect(got.body.data.metadata).toEqual({ batch: 'oct-stipends' });
  });
});
