/**
 * Balances and POST /v2/payout as the documented service answers them: digit wallet ids,
 * `TXN-BOK-` transaction ids, exact amounts, Laravel's 422 validation failures (every
 * field named as the request names it) and the business refusals in the envelope.
 */
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
    expect(res.body.message).toBe('Balances retrieved');
    const data = res.body.data as Array<Record<string, unknown>>;
    expect(data.length).toBe(ctx.sb.wallets().length);
    for (const w of data) {
      expect(Object.keys(w).sort()).toEqual(['balance', 'currency', 'updated_at', 'wallet_id', 'wallet_name']);
      expect(w.wallet_id).toMatch(/^[1-9]\d{9}$/);
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
  it('answers 201 with the documented shape and debits amount + fee', async () => {
    const walletId = freshWallet(ctx.sb, '10000.00');
    const key = randomUUID();
    const body = payoutBody(walletId);
    const res = await post(body, key);
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('Successful');
    expect(res.body.message).toBe('Transfer initiated successfully');
    const d = res.body.data;
    expect(Object.keys(d)).toEqual(['transaction_id', 'amount', 'fee', 'currency', 'provider_response', 'payout_id', 'created_at']);
    expect(d.transaction_id).toMatch(/^TXN-BOK-[0-9A-F]{26}$/);
    expect(d.currency).toBe('SLE');
    expect(d.payout_id).toBe(body.payoutId);
    expect(d.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(d.provider_response).toEqual({
      status: 'Pending',
      beneficiary: '076123456',
      provider: 'ORANGE_MONEY',
      orderId: expect.stringMatching(/^ORD-[0-9A-F]{16}$/),
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
    expect(r3.status).toBe(422);
    expect(r3.body).toEqual({ message: 'The amount field must have 0 decimal places.', errors: { amount: ['The amount field must have 0 decimal places.'] } });
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

  it("takes the documentation's own example body (bank, phoneNumber null, a note, metadata)", async () => {
    const walletId = freshWallet(ctx.sb, '100.00');
    const body = {
      amount: 10,
      currency: 'SLE',
      payoutId: randomUUID(),
      walletId,
      recipient: {
        type: 'bank',
        accountDetails: { name: 'John Doe', provider: 'ecobank', phoneNumber: null, accountNumber: '0427570182', note: 'Payment for services' },
      },
      metadata: { key1: 'value', key2: 'value' },
    };
    const res = await post(body);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ amount: 10, fee: 0.1, currency: 'SLE', payout_id: body.payoutId });
    expect(res.body.data.provider_response).toMatchObject({ status: 'Pending', beneficiary: '0427570182', provider: 'ECOBANK' });
  });
});

describe('POST /v2/payout: validation (422, as Laravel writes it)', () => {
  const wallet = () => walletIn(ctx.sb, 'SLE').wallet_id;
  const AD = 'recipient.accountDetails';

  it('reads a body that is not JSON, or not an object, as an empty one: every required field is missing', async () => {
    for (const body of ['{"amount": 1500.5,', '[1,2]', '"text"']) {
      const res = await post(body);
      expect(res.status, body).toBe(422);
      expect(Object.keys(res.body), body).toEqual(['message', 'errors']);
      expect(res.body.message).toBe('The amount field is required. (and 4 more errors)');
      expect(res.body.errors).toEqual({
        amount: ['The amount field is required.'],
        currency: ['The currency field is required.'],
        payoutId: ['The payout id field is required.'],
        walletId: ['The wallet id field is required.'],
        recipient: ['The recipient field is required.'],
      });
    }
  });

  it("names every missing field as the request names it, in Laravel's words", async () => {
    const res = await post({ recipient: { type: 'wallet', accountDetails: {} } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      amount: ['The amount field is required.'],
      currency: ['The currency field is required.'],
      payoutId: ['The payout id field is required.'],
      walletId: ['The wallet id field is required.'],
      [`${AD}.name`]: ['The recipient.account details.name field is required.'],
      [`${AD}.provider`]: ['The recipient.account details.provider field is required.'],
      [`${AD}.accountNumber`]: ['The recipient.account details.account number field is required.'],
      [`${AD}.phoneNumber`]: ['The recipient.account details.phone number field is required when recipient.type is wallet.'],
    });
    expect(res.body.message).toBe('The amount field is required. (and 7 more errors)');
  });

  it('says "(and 1 more error)" for two, and the message alone for one', async () => {
    const two = await post({ ...payoutBody(wallet()), amount: 0, currency: 'sle' });
    expect(two.body.message).toBe('The amount field must be greater than 0. (and 1 more error)');
    const one = await post({ ...payoutBody(wallet()), amount: 0 });
    expect(one.body).toEqual({ message: 'The amount field must be greater than 0.', errors: { amount: ['The amount field must be greater than 0.'] } });
  });

  it('requires recipient, recipient.type and recipient.accountDetails', async () => {
    const b = payoutBody(wallet()) as unknown as Record<string, unknown>;
    delete b.recipient;
    expect((await post(b)).body.errors).toEqual({ recipient: ['The recipient field is required.'] });
    const c = payoutBody(wallet(), { recipient: {} as never });
    expect((await post(c)).body.errors).toEqual({
      'recipient.type': ['The recipient.type field is required.'],
      [AD]: ['The recipient.account details field is required.'],
    });
  });

  it.each([
    ['amount as a string', { amount: '1500.50' }, 'amount', 'The amount field must be a number.'],
    ['amount zero', { amount: 0 }, 'amount', 'The amount field must be greater than 0.'],
    ['negative amount', { amount: -5 }, 'amount', 'The amount field must be greater than 0.'],
    ['three decimals in SLE', { amount: 10.005 }, 'amount', 'The amount field must have 0-2 decimal places.'],
    ['16 significant digits', { amount: 12345678901234.56 }, 'amount', 'The amount field must not have more than 15 significant digits.'],
    ['lower-case currency', { currency: 'sle' }, 'currency', 'The selected currency is invalid.'],
    ['unknown currency', { currency: 'XYZ' }, 'currency', 'The selected currency is invalid.'],
    ['numeric payoutId', { payoutId: 42 }, 'payoutId', 'The payout id field must be a string.'],
    ['a payoutId of 256 characters', { payoutId: 'p'.repeat(256) }, 'payoutId', 'The payout id field must not be greater than 255 characters.'],
    ['empty walletId', { walletId: '' }, 'walletId', 'The wallet id field is required.'],
    ['blank walletId', { walletId: '   ' }, 'walletId', 'The wallet id field is required.'],
    ['metadata array', { metadata: [1] }, 'metadata', 'The metadata field must be an array.'],
  ])('refuses %s', async (_what, override, field, message) => {
    const res = await post({ ...payoutBody(wallet()), ...override });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message, errors: { [field]: [message] } });
  });

  it.each([
    ['an unknown recipient type', { type: 'card' }, 'recipient.type', 'The selected recipient.type is invalid.'],
    [
      'a wallet without phoneNumber',
      { phoneNumber: undefined },
      `${AD}.phoneNumber`,
      'The recipient.account details.phone number field is required when recipient.type is wallet.',
    ],
    [
      'a wallet with phoneNumber null',
      { phoneNumber: null },
      `${AD}.phoneNumber`,
      'The recipient.account details.phone number field is required when recipient.type is wallet.',
    ],
    ['a bad phone number', { phoneNumber: '12ab' }, `${AD}.phoneNumber`, 'The recipient.account details.phone number field format is invalid.'],
    ['an upper-case provider', { provider: 'Orange Money' }, `${AD}.provider`, 'The recipient.account details.provider field format is invalid.'],
    ['an empty name', { name: '  ' }, `${AD}.name`, 'The recipient.account details.name field is required.'],
    ['a numeric account number', { accountNumber: 76123456 }, `${AD}.accountNumber`, 'The recipient.account details.account number field must be a string.'],
    ['an account number with spaces', { accountNumber: '0761 23456' }, `${AD}.accountNumber`, 'The recipient.account details.account number field format is invalid.'],
    ['a note that is a number', { note: 5 }, `${AD}.note`, 'The recipient.account details.note field must be a string.'],
  ])('refuses %s', async (_what, change, field, message) => {
    const base = payoutBody(wallet());
    const { type, ...details } = change as Record<string, unknown>;
    const body = {
      ...base,
      recipient: { type: type ?? 'wallet', accountDetails: { ...base.recipient.accountDetails, ...details } },
    };
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ [field]: [message] });
  });

  it('requires the Idempotency-Key header', async () => {
    const res = await api(ctx.sb, 'POST', '/payout', { body: payoutBody(wallet()) });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The idempotency key header is required.', errors: { 'Idempotency-Key': ['The idempotency key header is required.'] } });
  });

  it('moves no money on a refused request', async () => {
    const walletId = freshWallet(ctx.sb, '777.77');
    await post({ ...payoutBody(walletId), amount: 'lots' });
    expect(ctx.sb.wallets().find((w) => w.wallet_id === walletId)!.balance).toBe('777.77');
    expect(ctx.sb.payouts().some((p) => p.wallet_id === walletId)).toBe(false);
  });
});

describe('POST /v2/payout: business refusals (422)', () => {
  it('WALLET_NOT_FOUND for an unknown wallet, in the envelope', async () => {
    const res = await post(payoutBody('1000000000'));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body)).toEqual(['status', 'message', 'code', 'timestamp']);
    expect(res.body).toMatchObject({ status: 'Failed', code: 'WALLET_NOT_FOUND' });
    expect(res.body.message).toContain('1000000000');
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
    const summary = await api(ctx.sb, 'POST', '/payout/summary', { body: {}, headers: { 'Content-Type': 'text/plain' } });
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
