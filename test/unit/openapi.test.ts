/**
 * The OpenAPI validator (test/helpers/openapi.ts) against literal exchanges: a conforming
 * request or answer passes, and each kind of breakage is caught and named (a wrong type,
 * a missing field or header, a null where the document says absent, a bad enum, an
 * undocumented status), so a passing check against the sandbox means something.
 */
import { describe, expect, it } from 'vitest';
import { requestProblems, responseProblems, type Answer, type Exchange } from '../helpers/openapi.js';

const TS = '2026-11-21T10:15:30.123456Z';
const TOKEN = 'tok_4b1f0c9e2a7d3b5c8e6f1a2d4c7b9e0f3a5d8c1b2e4f6a7c';
const JSON_TYPE = 'application/json; charset=utf-8';

const get = (path: string, query: Record<string, string> = {}): Exchange => ({
  method: 'GET',
  path,
  query,
  headers: { accept: 'application/json', authorization: `Bearer ${TOKEN}` },
  body: '',
});

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': JSON_TYPE, 'x-request-id': 'req_5f2c9a0e7b1d3c4e6f8a0b2c', ...headers },
  body: JSON.stringify(body),
});

const balances = () => ({
  status: 'Successful',
  message: 'Wallet balances retrieved successfully',
  data: [
    { wallet_id: 'wal_3f9a0c1d2e4b5a68', wallet_name: 'Operations SLE', currency: 'SLE', balance: 1250000.75, updated_at: '2026-11-21T09:02:11.482913Z' },
    { wallet_id: 'wal_8c2d4e6f0a1b3c5d', wallet_name: 'Payroll NGN', currency: 'NGN', balance: 48500000, updated_at: '2026-11-20T17:45:03.000127Z' },
  ],
  timestamp: TS,
});

const record = () => ({
  transaction_id: 'TRX9F3A61C0B2D4E5F67A8B',
  payout_id: '0b5c9d1e-7f2a-4c3b-9d8e-1a2b3c4d5e6f',
  wallet_id: 'wal_3f9a0c1d2e4b5a68',
  amount: 1500.5,
  fee: 15.01,
  currency: 'SLE',
  status: 'Pending',
  failure_reason: null,
  recipient: {
    type: 'wallet',
    accountDetails: { name: 'Aminata Kamara', provider: 'orange_money', accountNumber: '076123456', phoneNumber: '+23276123456', note: 'October stipend' },
  },
  provider_response: {
    status: 'Pending',
    beneficiary: '076123456',
    provider: 'ORANGE_MONEY',
    orderId: 'ORD-5C2E9A7B1D40',
    idempotency_key: '3d6f1a2b-8c4e-4f5a-9b7c-0e1d2c3b4a59',
  },
  metadata: { batch: 'oct-stipends' },
  created_at: '2026-11-21T10:15:30.120871Z',
  updated_at: '2026-11-21T10:15:30.120871Z',
});

const payoutBody = (): any => ({
  amount: 1500.5,
  currency: 'SLE',
  payoutId: '0b5c9d1e-7f2a-4c3b-9d8e-1a2b3c4d5e6f',
  walletId: 'wal_3f9a0c1d2e4b5a68',
  recipient: {
    type: 'wallet',
    accountDetails: { name: 'Aminata Kamara', provider: 'orange_money', accountNumber: '076123456', phoneNumber: '+23276123456', note: 'October stipend' },
  },
  metadata: { batch: 'oct-stipends' },
});

const postPayout = (body: unknown, headers: Record<string, string> = { 'idempotency-key': '3d6f1a2b-8c4e-4f5a-9b7c-0e1d2c3b4a59' }): Exchange => ({
  method: 'POST',
  path: '/v2/payout',
  query: {},
  headers: { accept: 'application/json', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

describe('responseProblems', () => {
  const req = get('/v2/wallets/balances');

  it('passes a correct balances answer', async () => {
    expect(await responseProblems(req, answer(200, balances()))).toEqual([]);
  });

  it('fails a balance sent as a string', async () => {
    const body = balances();
    (body.data[0] as any).balance = '1250000.75';
    const problems = await responseProblems(req, answer(200, body));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join('\n')).toContain('GET /v2/wallets/balances (getWalletBalances) response 200: body.data.0.balance must be number');
  });

  it('fails an envelope without its timestamp, or with one lacking microseconds', async () => {
    const { timestamp: _t, ...noTimestamp } = balances();
    expect((await responseProblems(req, answer(200, noTimestamp))).join('\n')).toContain('body.timestamp is missing');
    const millis = { ...balances(), timestamp: '2026-11-21T10:15:30.123Z' };
    expect((await responseProblems(req, answer(200, millis))).join('\n')).toContain('body.timestamp must match pattern');
  });

  it('passes a payout record, and fails one with note: null or metadata: null', async () => {
    const one = get('/v2/payouts/TRX9F3A61C0B2D4E5F67A8B');
    const ok = { status: 'Successful', message: 'Payout retrieved successfully', data: record(), timestamp: TS };
    expect(await responseProblems(one, answer(200, ok))).toEqual([]);

    const withNullNote = structuredClone(ok) as any;
    withNullNote.data.recipient.accountDetails.note = null;
    expect((await responseProblems(one, answer(200, withNullNote))).join('\n')).toContain('body.data.recipient.accountDetails.note must be string');

    const withNullMetadata = { ...ok, data: { ...record(), metadata: null } };
    expect((await responseProblems(one, answer(200, withNullMetadata))).join('\n')).toContain('body.data.metadata must be object');

    const list = { status: 'Successful', message: 'Payouts retrieved successfully', data: [withNullNote.data], timestamp: TS };
    expect((await responseProblems(get('/v2/payouts'), answer(200, list))).join('\n')).toContain('body.data.0.recipient.accountDetails.note must be string');
  });

  it('passes a bank recipient with phoneNumber null or absent, but not a wallet recipient without one', async () => {
    const one = get('/v2/payouts/0b5c9d1e-7f2a-4c3b-9d8e-1a2b3c4d5e6f');
    const bank = (phone: Record<string, unknown>) => ({
      status: 'Successful',
      message: 'Payout retrieved successfully',
      data: { ...record(), recipient: { type: 'bank', accountDetails: { name: 'Chinedu Okafor', provider: 'access_bank', accountNumber: '0123456789', ...phone } } },
      timestamp: TS,
    });
    expect(await responseProblems(one, answer(200, bank({ phoneNumber: null })))).toEqual([]);
    expect(await responseProblems(one, answer(200, bank({})))).toEqual([]);
    const wallet = bank({});
    wallet.data.recipient.type = 'wallet';
    expect((await responseProblems(one, answer(200, wallet))).join('\n')).toContain('body.data.recipient.accountDetails.phoneNumber is missing');
  });

  it('passes a 422 error body, and fails one with an unlisted code or a missing timestamp', async () => {
    const refused = {
      status: 'Failed',
      message: 'Wallet wal_3f9a0c1d2e4b5a68 has 1000 SLE; the payout needs 1515.51 (amount 1500.5 + fee 15.01).',
      code: 'INSUFFICIENT_FUNDS',
      timestamp: TS,
    };
    expect(await responseProblems(postPayout(payoutBody()), answer(422, refused))).toEqual([]);
    expect((await responseProblems(postPayout(payoutBody()), answer(422, { ...refused, code: 'NOPE' }))).join('\n')).toContain('body.code must be one of');
    const { timestamp: _t, ...late } = refused;
    expect((await responseProblems(postPayout(payoutBody()), answer(422, late))).join('\n')).toContain('body.timestamp is missing');
  });

  it('accepts RFC 9457 problem details as an error media type', async () => {
    const problem = { type: 'about:blank', title: 'Unprocessable', status: 422, detail: 'Insufficient funds.' };
    expect(await responseProblems(postPayout(payoutBody()), answer(422, problem, { 'content-type': 'application/problem+json' }))).toEqual([]);
    expect(await responseProblems(postPayout(payoutBody()), answer(422, { ...problem, status: '422' }, { 'content-type': 'application/problem+json' }))).not.toEqual([]);
  });

  it('fails an undocumented status', async () => {
    expect(await responseProblems(req, answer(418, { status: 'Failed', message: 'teapot', code: 'HTTP_418', timestamp: TS }))).toEqual([
      'GET /v2/wallets/balances (getWalletBalances) response 418: status 418 is not documented (documented: 200, 401, 405, 429, 5XX)',
    ]);
  });

  it('checks required response headers', async () => {
    const limited = { status: 'Failed', message: 'Too many requests; retry after 1 s.', code: 'RATE_LIMITED', timestamp: TS };
    expect(await responseProblems(req, answer(429, limited, { 'retry-after': '1' }))).toEqual([]);
    expect((await responseProblems(req, answer(429, limited))).join('\n')).toContain('the required header Retry-After is missing');
    expect((await responseProblems(req, answer(429, limited, { 'retry-after': 'soon' }))).join('\n')).toContain('headers.retry-after must be integer');
  });

  it('checks answers to unknown paths and methods against the generic errors', async () => {
    const notFound = { status: 'Failed', message: 'No route.', code: 'NOT_FOUND', timestamp: TS };
    expect(await responseProblems(get('/v2/nope'), answer(404, notFound))).toEqual([]);
    const del = { ...get('/v2/payouts'), method: 'DELETE' };
    const notAllowed = { status: 'Failed', message: 'Use GET.', code: 'METHOD_NOT_ALLOWED', timestamp: TS };
    expect(await responseProblems(del, answer(405, notAllowed, { allow: 'GET' }))).toEqual([]);
    expect((await responseProblems(del, answer(405, notAllowed))).join('\n')).toContain('DELETE /v2/payouts response 405: the required header Allow is missing');
    expect((await responseProblems(del, answer(404, notFound))).join('\n')).toContain('status 404 is not documented');
  });
});

describe('requestProblems', () => {
  it('passes a correct POST /payout, and a bank payout with phoneNumber null', async () => {
    expect(await requestProblems(postPayout(payoutBody()))).toEqual([]);
    const bank = payoutBody();
    bank.recipient = { type: 'bank', accountDetails: { name: 'Chinedu Okafor', provider: 'access_bank', accountNumber: '0123456789', phoneNumber: null } };
    expect(await requestProblems(postPayout(bank))).toEqual([]);
  });

  it('fails a POST /payout without Idempotency-Key', async () => {
    expect(await requestProblems(postPayout(payoutBody(), {}))).toEqual(['POST /v2/payout (createPayout) request: headers.idempotency-key is missing']);
  });

  it('fails an amount sent as a string', async () => {
    const body = { ...payoutBody(), amount: '1500.50' };
    expect(await requestProblems(postPayout(body))).toEqual(['POST /v2/payout (createPayout) request: body.amount must be number']);
  });

  it('fails recipient.type "card"', async () => {
    const body = payoutBody();
    body.recipient.type = 'card';
    expect((await requestProblems(postPayout(body))).join('\n')).toContain('body.recipient.type must be one of ["bank"]');
  });

  it('fails a wallet recipient without phoneNumber', async () => {
    const body = payoutBody();
    delete body.recipient.accountDetails.phoneNumber;
    expect((await requestProblems(postPayout(body))).join('\n')).toContain('body.recipient.accountDetails.phoneNumber is missing');
  });

  it('fails a body that is not JSON or not sent as JSON, and missing credentials', async () => {
    const text = { ...postPayout(payoutBody()), headers: { ...postPayout(payoutBody()).headers, 'content-type': 'text/plain' } };
    expect((await requestProblems(text)).join('\n')).toContain(`the body's Content-Type is "text/plain", not one of application/json`);
    expect((await requestProblems({ ...postPayout(payoutBody()), body: '{"amount":' })).join('\n')).toContain('the body is not JSON');
    const anonymous = get('/v2/wallets/balances');
    delete anonymous.headers.authorization;
    expect(await requestProblems(anonymous)).toEqual(['GET /v2/wallets/balances (getWalletBalances) request: needs an Authorization: Bearer <token> header']);
    expect(await requestProblems({ ...get('/v2/auth/token'), headers: {} })).toEqual(['GET /v2/auth/token (getAccessToken) request: needs an Api-Key header']);
    expect(await requestProblems({ ...get('/v2/auth/token'), headers: { 'api-key': 'sk_sandbox_0123' } })).toEqual([]);
  });

  it('checks the list query: any page, limit up to 100, no unknown parameters', async () => {
    expect(await requestProblems(get('/v2/payouts', { page: '123456789012', limit: '100', status: 'Failed', currency: 'sle' }))).toEqual([]);
    const problems = await requestProblems(get('/v2/payouts', { page: '0', limit: '101', sort: 'asc' }));
    expect(problems).toEqual(
      expect.arrayContaining([
        'GET /v2/payouts (listPayouts) request: query.page must be >= 1',
        'GET /v2/payouts (listPayouts) request: query.limit must be <= 100',
        'GET /v2/payouts (listPayouts) request: query has an undocumented sort',
      ]),
    );
  });

  it('passes a summary with or without a body', async () => {
    const summary = (body: string): Exchange => ({
      ...get('/v2/payouts/summary'),
      method: 'POST',
      headers: { ...get('').headers, 'content-type': 'application/json' },
      body,
    });
    expect(await requestProblems(summary(''))).toEqual([]);
    expect(await requestProblems(summary('{"from":"2026-11-01","walletId":"wal_3f9a0c1d2e4b5a68"}'))).toEqual([]);
    expect(await requestProblems(summary('{"from":20261101}'))).toEqual(['POST /v2/payouts/summary (getPayoutSummary) request: body.from must be string']);
  });

  it('reports unknown paths and methods', async () => {
    expect(await requestProblems(get('/v2/nope'))).toEqual(['GET /v2/nope: no operation (unknown path)']);
    expect(await requestProblems({ ...get('/v2/payouts'), method: 'DELETE' })).toEqual(['DELETE /v2/payouts: no operation (the path has GET, not DELETE)']);
    expect(await requestProblems(get('/payouts'))).toEqual(['GET /payouts: no operation (the API lives under /v2)']);
  });
});
