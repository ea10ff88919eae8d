import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import {
  envelopeSchema,
  envelopeSucceeded,
  parseErrorBody,
  parseOrThrow,
  payoutPageSchema,
  payoutRecordSchema,
  payoutTransactionSchema,
  recordStatus,
  summarySchema,
  authUserSchema,
  kycVerified,
  money,
  isUnknownStatus,
  normalizeStatus,
  walletsSchema,
} from '../../src/service/schemas.js';
import { readFileSync } from 'node:fs';

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

describe('envelopeSucceeded', () => {
  it('takes "Successful" in any case, its synonyms, and an envelope without a status (tolerated variants)', () => {
    for (const status of ['Successful', 'successful', 'SUCCESSFUL', ' Successful ', 'success', 'Success', 'succeeded', undefined]) {
      expect(envelopeSucceeded({ status }), String(status)).toBe(true);
    }
  });

  it('refuses any other word, whatever the HTTP code: "Failed", "Error", "pending", "" and words of no meaning', () => {
    for (const status of ['Failed', 'failed', 'FAILED', 'Error', 'error', 'Pending', '', 'Unauthenticated', 'ok']) {
      expect(envelopeSucceeded({ status }), status).toBe(false);
    }
  });
});

describe('money: amounts as the service writes them, read exactly', () => {
  it.each([
    ['1,000.00', '1000.00'],
    ['5.00', '5.00'],
    ['1,005.00', '1005.00'],
    ['12,345,678.91', '12345678.91'],
    ['1,250', '1250'],
    ['-1,000.50', '-1000.50'],
    ['0.10', '0.10'],
  ])('%s is read as %s', (given, plain) => {
    expect(money.parse(given)).toBe(plain);
  });

  it('keeps JSON numbers as numbers (converted exactly later, never summed as floats)', () => {
    expect(money.parse(1000)).toBe(1000);
    expect(money.parse(7281.78)).toBe(7281.78);
  });

  it.each([['1.000,00'], ['1,00'], ['10,00.00'], ['1,0000.00'], [',100'], ['1,000,'], ['ten'], [''], ['1e3'], ['1 000.00'], ['NaN']])('refuses %j', (given) => {
    expect(money.safeParse(given).success).toBe(false);
  });
});

describe('authUserSchema', () => {
  it('reads the documented GET /auth/user data', () => {
    const doc = JSON.parse(readFileSync(new URL('../fixtures/documented/auth-user.json', import.meta.url), 'utf8')) as { data: unknown };
    const u = authUserSchema.parse(doc.data);
    expect(u.walletId).toBe('5553881136');
    expect(u.businessName).toBe('Bokumonie Technologies Ltd');
    expect(u.kycStatus).toBe('Pending');
  });

  it('takes any field being absent, but not every field that says whose the account is', () => {
    expect(authUserSchema.parse({ email: 'ops@example.com' })).toEqual({ email: 'ops@example.com' });
    expect(authUserSchema.parse({ walletId: 6643665465 })).toEqual({ walletId: 6643665465 });
    for (const nobody of [{}, { kycStatus: 'Verified' }, { email: '  ', businessName: null }])
      expect(authUserSchema.safeParse(nobody).success, JSON.stringify(nobody)).toBe(false);
  });

  it.each([
    ['Verified', true],
    ['APPROVED', true],
    [' verified ', true],
    ['Pending', false],
    ['rejected', false],
    [undefined, false],
  ])('kycVerified(%j) is %s', (word, ok) => {
    expect(kycVerified(word)).toBe(ok);
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
    expect((err as ApiError).message).toBe('The service sent wallets that payctl does not understand: the field "1.currency" is missing.');
  });

  it('reads a grouped balance exactly and a digit wallet id given as a number', () => {
    expect(walletsSchema.parse([{ wallet_id: 5553881136, currency: 'SLE', balance: '1,500.00' }])[0]).toMatchObject({ wallet_id: '5553881136', balance: '1500.00' });
  });

  it('refuses a balance that is not a decimal', () => {
    const r = walletsSchema.safeParse([{ wallet_id: 'w', currency: 'SLE', balance: '1.500,00' }]);
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
    expect((err as ApiError).message).toBe('The service sent a payout that payctl does not understand: the field "transaction_id" is missing.');
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
    recipient: { type: 'wallet', accountDetails: { name: 'Aminata', provider: 'orange_money', accountNumber: '076', phoneNumber: null, note: 'Oct' } },
    metadata: null,
    created_at: '2026-11-21T10:15:30.123456Z',
  };

  it.each([-16, '-16.00', '0.00', 0, '-0'])('refuses the amount %j: a payout pays more than zero', (amount) => {
    expect(payoutRecordSchema.safeParse({ ...record, amount }).success).toBe(false);
    expect(payoutTransactionSchema.safeParse({ transaction_id: 'T', amount, currency: 'SLE' }).success).toBe(false);
  });

  it('a fee or total of zero is read; a negative one is refused', () => {
    expect(payoutRecordSchema.safeParse({ ...record, fee: '0.00', total_amount: 0 }).success).toBe(true);
    expect(payoutRecordSchema.safeParse({ ...record, fee: '-1.00' }).success).toBe(false);
    expect(payoutRecordSchema.safeParse({ ...record, total_amount: -1 }).success).toBe(false);
  });

  it('reads the documented look-up record: grouped amounts exactly, its field names in one shape', () => {
    const doc = JSON.parse(readFileSync(new URL('../fixtures/documented/payout-get.json', import.meta.url), 'utf8')) as { data: unknown };
    const r = payoutRecordSchema.parse(doc.data);
    expect(r).toMatchObject({
      transaction_id: 'TXN-BOK-FF051A7F00A49EB6AF225D10EA',
      status: 'successful',
      amount: '1000.00',
      fee: '5.00',
      total_amount: '1005.00',
      currency: 'SLE',
      note: 'Payment for services',
      provider_reference: 'ORD-79A7C916A37B46BA',
      recipient: { type: 'bank', accountNumber: '0127500182', name: 'John Doe', bank: 'ECOBANK' },
    });
    expect(r.payout_id).toBeUndefined();
    expect(r.wallet_id).toBeUndefined();
    expect(recordStatus(r)).toBe('Successful');
  });

  it("reads a record in the create body's names, with nulls", () => {
    const r = payoutRecordSchema.parse(record);
    expect(r).toMatchObject({ transaction_id: 'TRX1', payout_id: 'p-1', wallet_id: 'wal_1', amount: 1500.5, currency: 'SLE', note: 'Oct' });
    expect(r.recipient).toEqual({ type: 'wallet', name: 'Aminata', accountNumber: '076', phoneNumber: null, provider: 'orange_money', bank: undefined });
  });

  it('reads a failure reason under failure_reason or reason', () => {
    expect(payoutRecordSchema.parse({ ...record, failure_reason: undefined, reason: 'Account closed' }).failure_reason).toBe('Account closed');
  });

  it('refuses a grouped amount in another locale', () => {
    const r = payoutRecordSchema.safeParse({ ...record, amount: '1.500,50' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['amount']);
  });

  it('needs amount and currency', () => {
    expect(payoutRecordSchema.safeParse({ ...record, amount: undefined }).success).toBe(false);
    const r = payoutRecordSchema.safeParse({ ...record, currency: undefined });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['currency']);
  });

  it('recordStatus: top-level status, else the provider status, else empty; normalized whatever the case', () => {
    expect(recordStatus(payoutRecordSchema.parse(record))).toBe('Successful');
    expect(recordStatus(payoutRecordSchema.parse({ ...record, status: undefined, provider_response: { status: 'Pending' } }))).toBe('Pending');
    expect(recordStatus(payoutRecordSchema.parse({ ...record, status: 'FAILED', provider_response: { status: 'Pending' } }))).toBe('Failed');
    expect(recordStatus(payoutRecordSchema.parse({ ...record, status: undefined }))).toBe('');
    expect(recordStatus(payoutRecordSchema.parse({ ...record, status: 'on_hold' }))).toBe('on_hold');
  });

  it.each([
    ['successful', 'Successful'],
    ['SUCCESS', 'Successful'],
    ['Completed', 'Successful'],
    ['paid', 'Successful'],
    ['failed', 'Failed'],
    ['Failure', 'Failed'],
    ['rejected', 'Failed'],
    ['declined', 'Failed'],
    ['reversed', 'Failed'],
    ['cancelled', 'Failed'],
    ['canceled', 'Failed'],
    ['pending', 'Pending'],
    ['PROCESSING', 'Pending'],
    ['initiated', 'Pending'],
    ['queued', 'Pending'],
    ['on_hold', 'on_hold'],
    [' SUCCESSFUL ', 'Successful'],
    // A word payctl does not know cannot pass for one of the three once sanitized for a terminal.
    ['Failed\u0000', 'Failed\\u0000'],
    ['\u001b[32mSuccessful', '\\u001b[32mSuccessful'],
    ['\u202eSuccessful', '\\u202eSuccessful'],
    ['Success\u200bful', 'Success\\u200bful'],
    ['\u0405uccessful', '\\u0405uccessful'],
    ['done \u{1f600}', 'done \\u{1f600}'],
    // Only ASCII spaces are trimmed: a BOM or a no-break space around a word is no padding payctl reads past.
    ['\ufeffSuccessful', '\\ufeffSuccessful'],
    ['Successful\u00a0', 'Successful\\u00a0'],
    ['\u2028Failed', '\\u2028Failed'],
    ['\tPending\r\n', 'Pending'],
  ])('normalizeStatus(%j) is %j', (word, status) => {
    expect(normalizeStatus(word)).toBe(status);
  });

  it('isUnknownStatus: anything but the three, no status included', () => {
    expect(['Successful', 'Failed', 'Pending'].map(isUnknownStatus)).toEqual([false, false, false]);
    expect(['done', '', normalizeStatus('Failed\u0000')].map(isUnknownStatus)).toEqual([true, true, true]);
  });
});

describe('payoutPageSchema: every list shape, from the whole envelope', () => {
  const items = [{ transaction_id: 'a' }, { transaction_id: 'b' }];

  it('a Laravel paginator in data', () => {
    const env = {
      status: 'Successful',
      data: {
        current_page: 1,
        data: items,
        first_page_url: 'https://x/v2/payout/list?page=1',
        from: 1,
        last_page: 3,
        last_page_url: 'https://x/v2/payout/list?page=3',
        links: [],
        next_page_url: 'https://x/v2/payout/list?page=2',
        path: 'https://x/v2/payout/list',
        per_page: 2,
        prev_page_url: null,
        to: 2,
        total: 6,
      },
    };
    expect(payoutPageSchema.parse(env)).toEqual({ items, hasMore: true, nextUrl: 'https://x/v2/payout/list?page=2', currentPage: 1, lastPage: 3, perPage: 2, total: 6 });
    const last = { ...env, data: { ...env.data, current_page: 3, next_page_url: null } };
    expect(payoutPageSchema.parse(last)).toMatchObject({ hasMore: false, nextUrl: undefined, currentPage: 3 });
  });

  it('a resource collection: data an array, links and meta beside it', () => {
    const env = {
      data: items,
      links: { first: 'f', last: 'l', prev: null, next: 'https://x/v2/payout/list?page=2' },
      meta: { current_page: 1, last_page: 2, per_page: 2, total: 4 },
    };
    expect(payoutPageSchema.parse(env)).toEqual({ items, hasMore: true, nextUrl: 'https://x/v2/payout/list?page=2', currentPage: 1, lastPage: 2, perPage: 2, total: 4 });
    expect(payoutPageSchema.parse({ ...env, links: { next: null } })).toMatchObject({ hasMore: false });
  });

  it('data the array itself', () => {
    expect(payoutPageSchema.parse({ data: items })).toEqual({
      items,
      hasMore: undefined,
      nextUrl: undefined,
      currentPage: undefined,
      lastPage: undefined,
      perPage: undefined,
      total: undefined,
    });
    expect(payoutPageSchema.parse({ data: [] }).items).toEqual([]);
  });

  it.each([['items'], ['payouts'], ['results']])('data.%s with has_more, total and page', (key) => {
    expect(payoutPageSchema.parse({ data: { [key]: items, has_more: true, total: 42, page: 1 } })).toMatchObject({ items, hasMore: true, total: 42, currentPage: 1 });
    expect(payoutPageSchema.parse({ data: { [key]: items } })).toMatchObject({ items, hasMore: undefined });
  });

  it('refuses a page without records', () => {
    const err = thrown(() => parseOrThrow(payoutPageSchema, { data: { count: 0 } }, 'a list of payouts'));
    expect((err as ApiError).message).toMatch(/^The service sent a list of payouts that payctl does not understand: /);
    expect(payoutPageSchema.safeParse({ data: 'nope' }).success).toBe(false);
  });
});

describe('summarySchema', () => {
  it('reads the documented POST /payout/summary data', () => {
    const doc = JSON.parse(readFileSync(new URL('../fixtures/documented/payout-summary.json', import.meta.url), 'utf8')) as { data: unknown };
    expect(summarySchema.parse(doc.data)).toEqual({
      total_transfers: 38,
      successful: 2,
      pending: 36,
      failed: 0,
      total_sent: 7281.78,
      wallet_transfers: 5,
      bank_transfers: 33,
    });
  });

  it('takes missing and extra fields, counts as digit strings, and a grouped total', () => {
    expect(summarySchema.parse({ total_transfers: '4', total_sent: '1,250.50', reversed: 1 })).toEqual({ total_transfers: '4', total_sent: '1250.50', reversed: 1 });
  });

  it('refuses counts that are not counts', () => {
    expect(summarySchema.safeParse({ successful: 'two' }).success).toBe(false);
    expect(summarySchema.safeParse({ total_sent: '7.281,78' }).success).toBe(false);
  });
});

describe('parseErrorBody', () => {
  it('reads a numeric code as a string, and keeps the rest when one field has a type of no use (message null, errors a number)', () => {
    expect(parseErrorBody(JSON.stringify({ message: 'Key not valid', code: 40101 }))).toEqual({ message: 'Key not valid', code: '40101', errors: [] });
    expect(parseErrorBody(JSON.stringify({ error: { message: 'Slow down', code: 429001 } }))).toEqual({ message: 'Slow down', code: '429001', errors: [] });
    expect(parseErrorBody(JSON.stringify({ message: null, title: 'Bad Request', detail: 'amount is missing', errors: 3, code: { x: 1 } }))).toEqual({
      message: 'Bad Request: amount is missing',
      code: undefined,
      errors: [],
    });
    // An object with nothing readable is still an error body (its HTTP status says the rest), never "not JSON".
    expect(parseErrorBody('{"message": 5}')).toEqual({ message: undefined, code: undefined, errors: [] });
  });

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

  it('reads a Laravel 422 validation body', () => {
    const body = JSON.stringify({
      message: 'The amount field is required. (and 1 more error)',
      errors: { amount: ['The amount field is required.'], 'recipient.accountDetails.phoneNumber': ['The phone number field is required when type is wallet.'] },
    });
    expect(parseErrorBody(body)).toEqual({
      message: 'The amount field is required. (and 1 more error)',
      code: undefined,
      errors: [
        { field: 'amount', message: 'The amount field is required.' },
        { field: 'recipient.accountDetails.phoneNumber', message: 'The phone number field is required when type is wallet.' },
      ],
    });
  });

  it.each([
    [{ message: 'The payout id has already been taken.', errors: { payoutId: ['The payout id has already been taken.'] } }],
    [{ message: 'Invalid', errors: { payout_id: ['duplicate value'] } }],
    [{ status: 'Failed', message: 'Duplicate payoutId: p-1 already exists' }],
    [{ error: 'payout id already used' }],
    // The service's own code says duplicate too: a payout with this id exists (a probe's 409).
    [{ status: 'Failed', message: 'Duplicate payoutId: a payout with this payoutId already exists', code: 'DUPLICATE' }],
    [{ message: 'payout_id already exists', code: 'ALREADY_EXISTS' }],
  ])('gives a refusal naming a used payout id the code DUPLICATE_PAYOUT_ID: %j', (body) => {
    expect(parseErrorBody(JSON.stringify(body))?.code).toBe('DUPLICATE_PAYOUT_ID');
  });

  it('keeps a code the service gave, and names no duplicate where none is said', () => {
    expect(parseErrorBody(JSON.stringify({ message: 'taken', code: 'OTHER', errors: { payoutId: ['has already been taken'] } }))?.code).toBe('OTHER');
    expect(parseErrorBody(JSON.stringify({ message: 'The amount has already been refunded.', errors: { amount: ['has already been refunded'] } }))?.code).toBeUndefined();
  });

  it.each([['<html><body><h1>502 Bad Gateway</h1></body></html>'], ['Bad Gateway'], [''], ['{"message": "cut']])(
    'returns undefined for a body that is not JSON: %j',
    (raw) => {
      expect(parseErrorBody(raw)).toBeUndefined();
    },
  );

  it.each([['"just a string"'], ['null'], ['[1,2]']])('returns undefined for JSON of another shape: %s', (raw) => {
    expect(parseErrorBody(raw)).toBeUndefined();
  });
});
