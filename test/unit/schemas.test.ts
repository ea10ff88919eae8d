import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import {
  envelopeSchema,
  parseErrorBody,
  parseOrThrow,
  payoutPageSchema,
  payoutRecordSchema,
  payoutTransactionSchema,
  recordStatus,
  summarySchema,
  tokenSchema,
  walletsSchema,
} from '../../src/api/schemas.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('envelopeSchema', () => {
  it('keeps the envelope fields and extra fields', () => {
    const env = { status: 'Successful', message: 'ok', data: [1], timestamp: '2026-11-21T10:15:30.123456Z', extra: 1 };
    expect(envelopeSchema.parse(env)).toEqual(env);
  });
});

describe('tokenSchema', () => {
  it.each([
    [{ access_token: 'tok-a', token_type: 'Bearer', expires_in: 3600 }, 'tok-a'],
    [{ accessToken: 'tok-b', expires_in: 3600 }, 'tok-b'],
    [{ token: 'tok-c', expires_in: 3600 }, 'tok-c'],
  ])('reads the token from %j', (data, token) => {
    expect(tokenSchema.parse(data)).toEqual({ token, expiresInSeconds: 3600, expiresAt: undefined });
  });

  it('prefers access_token over accessToken over token', () => {
    expect(tokenSchema.parse({ access_token: 'a', accessToken: 'b', token: 'c' }).token).toBe('a');
    expect(tokenSchema.parse({ accessToken: 'b', token: 'c' }).token).toBe('b');
  });

  it.each([
    [{ access_token: 't', expires_in: 3600 }, 3600],
    [{ access_token: 't', expires_in: '3600' }, 3600],
    [{ access_token: 't', expiresIn: 900 }, 900],
    [{ access_token: 't', expiresIn: '900' }, 900],
    [{ access_token: 't', expires_in: '1.5' }, 1.5],
  ])('reads a relative expiry from %j', (data, seconds) => {
    expect(tokenSchema.parse(data)).toEqual({ token: 't', expiresInSeconds: seconds, expiresAt: undefined });
  });

  const AT_MS = Date.UTC(2026, 10, 21, 10, 15, 30, 123);
  it.each([
    [{ access_token: 't', expires_at: '2026-11-21T10:15:30.123456Z' }, AT_MS],
    [{ access_token: 't', expiresAt: '2026-11-21T10:15:30.123Z' }, AT_MS],
    [{ access_token: 't', expires_at: '2026-11-21T11:15:30.123+01:00' }, AT_MS],
    [{ access_token: 't', expires_at: 1795256130 }, AT_MS - 123], // unix seconds
    [{ access_token: 't', expiresAt: 1795256130 }, AT_MS - 123],
    [{ access_token: 't', expires_at: AT_MS }, AT_MS], // unix milliseconds
  ])('reads an absolute expiry from %j', (data, ms) => {
    const r = tokenSchema.parse(data);
    expect(r.token).toBe('t');
    expect(r.expiresInSeconds).toBeUndefined();
    expect(r.expiresAt).toBeInstanceOf(Date);
    expect(r.expiresAt!.getTime()).toBe(ms);
  });

  it('prefers a relative expiry over an absolute one', () => {
    const r = tokenSchema.parse({ access_token: 't', expires_in: 60, expires_at: '2026-11-21T10:15:30Z' });
    expect(r).toEqual({ token: 't', expiresInSeconds: 60, expiresAt: undefined });
  });

  it('accepts a token without any expiry', () => {
    expect(tokenSchema.parse({ access_token: 't' })).toEqual({ token: 't', expiresInSeconds: undefined, expiresAt: undefined });
  });

  it('refuses an unreadable expiry time', () => {
    const r = tokenSchema.safeParse({ access_token: 't', expires_at: 'next tuesday' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toBe('expiry "next tuesday" is not a time');
    expect(r.error!.issues[0]!.path).toEqual(['expires_at']);
  });

  it('refuses a non-numeric expires_in', () => {
    expect(tokenSchema.safeParse({ access_token: 't', expires_in: 'soon' }).success).toBe(false);
  });

  it.each([[{}], [{ token_type: 'Bearer', expires_in: 3600 }], [{ access_token: '' }], [{ access_token: 42 }]])('refuses data without a token: %j', (data) => {
    expect(tokenSchema.safeParse(data).success).toBe(false);
  });

  it('names the missing token field through parseOrThrow', () => {
    const err = thrown(() => parseOrThrow(tokenSchema, { expires_in: 3600 }, 'a token', 'req-1'));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe('The service sent a token that payctl does not understand: access_token: no access_token, accessToken or token field.');
    expect((err as ApiError).requestId).toBe('req-1');
  });
});

describe('walletsSchema', () => {
  it('reads wallets with number and string balances, keeping extra fields', () => {
    const data = [
      { wallet_id: 'wal_1', wallet_name: 'Main', currency: 'SLE', balance: 1500.5, updated_at: '2026-11-21T10:15:30.123456Z' },
      { wallet_id: 'wal_2', currency: 'NGN', balance: '1234567.80', extra: true },
    ];
    expect(walletsSchema.parse(data)).toEqual([data[0], { wallet_id: 'wal_2', wallet_name: '', currency: 'NGN', balance: '1234567.80', extra: true }]);
  });

  it('names the bad field with its index', () => {
    const err = thrown(() =>
      parseOrThrow(
        walletsSchema,
        [
          { wallet_id: 'w', currency: 'SLE', balance: 1 },
          { wallet_id: 'w2', balance: 2 },
        ],
        'wallets',
      ),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toMatch(/^The service sent wallets that payctl does not understand: 1\.currency: /);
  });

  it('refuses a balance that is not a decimal', () => {
    const r = walletsSchema.safeParse([{ wallet_id: 'w', currency: 'SLE', balance: '1,500.00' }]);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual([0, 'balance']);
  });
});

describe('payoutTransactionSchema', () => {
  const tx = {
    transaction_id: 'TRX0123456789ABCDEF0123',
    amount: 1500.5,
    fee: 15.01,
    currency: 'SLE',
    payout_id: 'p-1',
    created_at: '2026-11-21T10:15:30.123456Z',
    provider_response: {
      status: 'Pending',
      beneficiary: '076123456',
      provider: 'ORANGE_MONEY',
      orderId: 'ord-1',
      idempotency_key: 'k',
      extra: 'kept',
    },
  };

  it('reads the POST /payout data, keeping unknown fields', () => {
    expect(payoutTransactionSchema.parse({ ...tx, new_field: 1 })).toEqual({ ...tx, new_field: 1 });
  });

  it('names a missing transaction_id', () => {
    const { transaction_id: _, ...rest } = tx;
    const err = thrown(() => parseOrThrow(payoutTransactionSchema, rest, 'a payout'));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toMatch(/^The service sent a payout that payctl does not understand: transaction_id: /);
    expect((err as ApiError).hint).toMatch(/--verbose/);
  });

  it('names a nested bad field by its path', () => {
    const err = thrown(() => parseOrThrow(payoutTransactionSchema, { ...tx, provider_response: { status: 5 } }, 'a payout'));
    expect((err as ApiError).message).toMatch(/: provider_response\.status: /);
  });

  it('says (top level) when the data is not an object', () => {
    const err = thrown(() => parseOrThrow(payoutTransactionSchema, 'oops', 'a payout'));
    expect((err as ApiError).message).toMatch(/: \(top level\): /);
  });
});

describe('payoutRecordSchema and recordStatus', () => {
  const record = {
    transaction_id: 'TRX1',
    payout_id: 'p-1',
    wallet_id: 'wal_1',
    amount: 1500.5,
    fee: null,
    currency: 'SLE',
    status: 'Successful',
    failure_reason: null,
    recipient: { type: 'wallet', accountDetails: { name: 'Aminata', provider: 'orange_money', accountNumber: '076', phoneNumber: null } },
    metadata: null,
    created_at: '2026-11-21T10:15:30.123456Z',
  };

  it('reads a record with nulls', () => {
    expect(payoutRecordSchema.parse(record)).toEqual(record);
  });

  it('needs amount and currency', () => {
    expect(payoutRecordSchema.safeParse({ ...record, amount: undefined }).success).toBe(false);
    const r = payoutRecordSchema.safeParse({ ...record, currency: undefined });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['currency']);
  });

  it('recordStatus: top-level status, else the provider status, else empty', () => {
    expect(recordStatus(payoutRecordSchema.parse(record))).toBe('Successful');
    expect(recordStatus(payoutRecordSchema.parse({ ...record, status: undefined, provider_response: { status: 'Pending' } }))).toBe('Pending');
    expect(recordStatus(payoutRecordSchema.parse({ ...record, status: 'Failed', provider_response: { status: 'Pending' } }))).toBe('Failed');
    expect(recordStatus(payoutRecordSchema.parse({ ...record, status: undefined }))).toBe('');
    expect(recordStatus(payoutRecordSchema.parse({ ...record, status: 'Reversed' }))).toBe('Reversed');
  });
});

describe('payoutPageSchema', () => {
  const items = [{ transaction_id: 'a' }, { transaction_id: 'b' }];

  it('reads an array directly in data', () => {
    expect(payoutPageSchema.parse(items)).toEqual({ items, hasMore: undefined, total: undefined });
    expect(payoutPageSchema.parse([])).toEqual({ items: [], hasMore: undefined, total: undefined });
  });

  it.each(['items', 'payouts', 'results'])('reads the array under %s, with has_more and total', (key) => {
    expect(payoutPageSchema.parse({ [key]: items, has_more: true, total: 42, page: 1 })).toEqual({ items, hasMore: true, total: 42 });
    expect(payoutPageSchema.parse({ [key]: items })).toEqual({ items, hasMore: undefined, total: undefined });
  });

  it('prefers items over payouts over results', () => {
    expect(payoutPageSchema.parse({ items: [1], payouts: [2], results: [3] }).items).toEqual([1]);
    expect(payoutPageSchema.parse({ payouts: [2], results: [3] }).items).toEqual([2]);
  });

  it.each([[{}], [{ total: 3, has_more: false }], [{ data: [1] }]])('refuses an object without a list: %j', (data) => {
    const r = payoutPageSchema.safeParse(data);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toBe('no list of payouts (expected data to be an array, or data.items)');
  });

  it.each([[null], ['list'], [5]])('refuses %j', (data) => {
    expect(payoutPageSchema.safeParse(data).success).toBe(false);
  });

  it('gives an ApiError through parseOrThrow', () => {
    const err = thrown(() => parseOrThrow(payoutPageSchema, { count: 0 }, 'a list of payouts'));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe(
      'The service sent a list of payouts that payctl does not understand: (top level): no list of payouts (expected data to be an array, or data.items).',
    );
  });
});

describe('summarySchema', () => {
  it('reads a summary and defaults missing statuses to {}', () => {
    const data = {
      from: '2026-11-01T00:00:00.000000Z',
      to: null,
      currencies: [
        { currency: 'SLE', count: 2, amount: 1500.5, fee: '15.01', statuses: { Pending: { count: 2, amount: 1500.5 } } },
        { currency: 'NGN', count: 0, amount: 0 },
      ],
    };
    expect(summarySchema.parse(data)).toEqual({
      ...data,
      currencies: [data.currencies[0], { currency: 'NGN', count: 0, amount: 0, statuses: {} }],
    });
  });

  it('refuses another shape', () => {
    expect(summarySchema.safeParse({ totals: { SLE: 1 } }).success).toBe(false);
    expect(summarySchema.safeParse({ currencies: [{ currency: 'SLE', count: 'two', amount: 1 }] }).success).toBe(false);
  });
});

describe('parseErrorBody', () => {
  it('reads the contract form with a list of {field, message}', () => {
    const body = JSON.stringify({
      status: 'Failed',
      message: 'Validation failed',
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'recipient.accountDetails.phoneNumber', message: 'is required' }, { path: 'amount', message: 'must be > 0' }, { field: 'currency' }],
      timestamp: '2026-11-21T10:15:30.123456Z',
    });
    expect(parseErrorBody(body)).toEqual({
      message: 'Validation failed',
      code: 'VALIDATION_ERROR',
      errors: [
        { field: 'recipient.accountDetails.phoneNumber', message: 'is required' },
        { field: 'amount', message: 'must be > 0' },
        { field: 'currency', message: 'invalid' },
      ],
    });
  });

  it('reads errors as a list of strings', () => {
    expect(parseErrorBody(JSON.stringify({ message: 'Bad', errors: ['amount is required', 'currency is wrong'] }))).toEqual({
      message: 'Bad',
      code: undefined,
      errors: [
        { field: '', message: 'amount is required' },
        { field: '', message: 'currency is wrong' },
      ],
    });
  });

  it('reads errors as a map of lists', () => {
    expect(parseErrorBody(JSON.stringify({ errors: { amount: ['is required', 'must be a number'], currency: ['is unknown'] } }))).toEqual({
      message: undefined,
      code: undefined,
      errors: [
        { field: 'amount', message: 'is required' },
        { field: 'amount', message: 'must be a number' },
        { field: 'currency', message: 'is unknown' },
      ],
    });
  });

  it('reads errors as a map of strings', () => {
    expect(parseErrorBody(JSON.stringify({ code: 'VALIDATION_ERROR', errors: { amount: 'is required' } }))).toEqual({
      message: undefined,
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'amount', message: 'is required' }],
    });
  });

  it('reads error as a string', () => {
    expect(parseErrorBody(JSON.stringify({ error: 'Wallet not found' }))).toEqual({
      message: 'Wallet not found',
      code: undefined,
      errors: [],
    });
  });

  it('reads error as {message, code}', () => {
    expect(parseErrorBody(JSON.stringify({ error: { message: 'Too many requests', code: 'RATE_LIMITED' } }))).toEqual({
      message: 'Too many requests',
      code: 'RATE_LIMITED',
      errors: [],
    });
  });

  it('prefers the top-level message and code over error', () => {
    expect(parseErrorBody(JSON.stringify({ message: 'top', code: 'TOP', error: { message: 'nested', code: 'NESTED' } }))).toEqual({
      message: 'top',
      code: 'TOP',
      errors: [],
    });
  });

  it.each([['<html><body><h1>502 Bad Gateway</h1></body></html>'], ['Bad Gateway'], [''], ['{"message": "cut']])(
    'returns undefined for a body that is not JSON: %j',
    (raw) => {
      expect(parseErrorBody(raw)).toBeUndefined();
    },
  );

  it.each([['"just a string"'], ['null'], ['[1,2]'], ['{"message": 5}']])('returns undefined for JSON of another shape: %s', (raw) => {
    expect(parseErrorBody(raw)).toBeUndefined();
  });
});
