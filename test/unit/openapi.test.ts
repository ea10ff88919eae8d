/**
 * openapi/v2.yaml and its validator (test/helpers/openapi.ts): every example in the document
 * validates against its own schema; the documentation's example bodies (verbatim from the
 * Bokumonie pages, docs/service.md) validate against the operations they belong to; the
 * currency table of the description is the one payctl uses; and the validator, against literal
 * exchanges, passes what conforms and catches and names each kind of breakage (a wrong type or
 * form, a missing field or header, a bad enum, an undocumented status), so a passing check
 * against the sandbox means something.
 */
import { describe, expect, it } from 'vitest';
import { knownCurrencies, minorDigits } from '../../src/money/currencies.js';
import { description, requestProblems, responseProblems, schemaProblems, type Answer, type Exchange } from '../helpers/openapi.js';

const TS = '2026-04-02T15:31:07.402913Z';
const KEY = 'sk_live_4b1f0c9e2a7d3b5c8e6f1a2d4c7b9e0f';
const IDEMPOTENCY_KEY = '3d6f1a2b-8c4e-4f5a-9b7c-0e1d2c3b4a59';
const JSON_TYPE = 'application/json; charset=utf-8';

// --- the documentation's example bodies, verbatim ---------------------------------------------

const documentedAuthUser = {
  status: 'Successful',
  message: 'User Authenticated successfully',
  data: {
    walletId: '5553881136',
    email: 'john.doe@microsft.com',
    firstName: 'John',
    lastName: 'Doe',
    phone: '+232713850',
    status: 'ACTIVE',
    kycStatus: 'Pending',
    businessName: 'Bokumonie Technologies Ltd',
    address: '1, Water-side road, Freetown',
    country: 'NG',
  },
  timestamp: '2026-03-29T09:02:38.038901Z',
};

/** The documented create body; its "<random UUID>" filled in. */
const documentedPayout = () => ({
  amount: 10,
  currency: 'SLE',
  payoutId: '6f1c2b9e-3d4a-4b5c-8e7f-0a1b2c3d4e5f',
  walletId: '5564222970',
  recipient: {
    type: 'bank',
    accountDetails: {
      name: 'John Doe',
      provider: 'ecobank',
      phoneNumber: null as string | null,
      accountNumber: '0427570182',
      note: 'Payment for services',
    } as Record<string, unknown>,
  },
  metadata: { key1: 'value', key2: 'value' } as unknown,
});

/** The documented look-up answer; the stored page cuts its timestamp, so one is filled in. */
const documentedLookup = () => ({
  status: 'Successful',
  message: 'Transfer status retrieved',
  data: {
    transaction_id: 'TXN-BOK-FF051A7F00A49EB6AF225D10EA',
    status: 'successful',
    amount: '1,000.00',
    currency: 'SLE',
    fee: '5.00',
    total_amount: '1,005.00',
    recipient: { transfer_type: 'bank', account_number: '0127500182', name: 'John Doe', bank: 'ECOBANK' },
    description: 'Payment for services' as string | null,
    created_at: '2026-04-02T15:30:04.000000Z',
    updated_at: '2026-04-02T15:30:04.000000Z',
    provider_reference: 'ORD-79A7C916A37B46BA',
  } as Record<string, unknown>,
  timestamp: TS,
});

/** The documented summary `data`, in an envelope. */
const documentedSummary = {
  status: 'Successful',
  message: 'Payout summary retrieved',
  data: { total_transfers: 38, successful: 2, pending: 36, failed: 0, total_sent: 7281.78, wallet_transfers: 5, bank_transfers: 33 },
  timestamp: TS,
};

/** The documented transfer.initiated event (the stored page cuts `data` after `fee`). */
const documentedEvent = JSON.parse(`{
  "event": "transfer.initiated",
  "timestamp": "2026-04-05T18:38:54.734510Z",
  "webhook_id": "a1688ad2-b1dc-4006-8e20-cd6b739d8cb5",
  "attempt": 1,
  "data": {
    "status": "Pending",
    "transaction_id": "TXN-BOK-CE5B34C8CABC6EF5B5A431045A",
    "amount": 10,
    "fee": 0.0
  }
}`) as Record<string, any>;

// --- exchanges ---------------------------------------------------------------------------------

const get = (path: string, query: Record<string, string> = {}): Exchange => ({
  method: 'GET',
  path,
  query,
  headers: { accept: 'application/json', authorization: `Bearer ${KEY}`, 'idempotency-key': '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' },
  body: '',
});

const post = (path: string, body: unknown, headers: Record<string, string> = { 'idempotency-key': IDEMPOTENCY_KEY }): Exchange => ({
  method: 'POST',
  path,
  query: {},
  headers: { accept: 'application/json', authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': JSON_TYPE, 'x-request-id': 'req_5f2c9a0e7b1d3c4e6f8a0b2c', ...headers },
  body: JSON.stringify(body),
});

const record = (over: Record<string, unknown> = {}) => ({ ...documentedLookup().data, wallet_id: '5564222970', ...over });

const paginator = (records: unknown[]) => ({
  status: 'Successful',
  message: 'Transfers retrieved',
  data: {
    current_page: 1,
    data: records,
    first_page_url: 'http://127.0.0.1:8080/v2/payout/list?page=1',
    from: records.length ? 1 : null,
    last_page: 1,
    last_page_url: 'http://127.0.0.1:8080/v2/payout/list?page=1',
    links: [
      { url: null, label: '&laquo; Previous', active: false },
      { url: 'http://127.0.0.1:8080/v2/payout/list?page=1', label: '1', active: true },
      { url: null, label: 'Next &raquo;', active: false },
    ],
    next_page_url: null,
    path: 'http://127.0.0.1:8080/v2/payout/list',
    per_page: 15,
    prev_page_url: null,
    to: records.length ? records.length : null,
    total: records.length,
  },
  timestamp: TS,
});

const joined = async (p: Promise<string[]>) => (await p).join('\n');

// --- the document's own examples ---------------------------------------------------------------

type Obj = Record<string, any>;

/** The members of a document object (none when it is absent). */
const entries = (o: unknown): Array<[string, Obj]> => Object.entries((o ?? {}) as Obj) as Array<[string, Obj]>;

/** Every example of the dereferenced document, with the schema it must satisfy and where it is. */
function examplesOf(doc: Obj): Array<{ where: string; schema: Obj; value: unknown }> {
  const out: Array<{ where: string; schema: Obj; value: unknown }> = [];
  const ofMedia = (where: string, content: Obj | undefined) => {
    for (const [type, media] of entries(content)) {
      if (!media.schema) continue;
      if (media.example !== undefined) out.push({ where: `${where} ${type} example`, schema: media.schema, value: media.example });
      for (const [name, ex] of entries(media.examples)) {
        out.push({ where: `${where} ${type} examples.${name}`, schema: media.schema, value: ex.value });
      }
    }
  };
  const ofParameter = (where: string, p: Obj) => {
    if (p.example !== undefined) out.push({ where: `${where} parameter ${p.name}`, schema: p.schema, value: p.example });
    for (const [name, ex] of entries(p.examples)) out.push({ where: `${where} parameter ${p.name} ${name}`, schema: p.schema, value: ex.value });
  };
  const ofOperations = (kind: string, items: Obj) => {
    for (const [path, item] of entries(items)) {
      for (const [method, op] of entries(item)) {
        const where = `${kind} ${method.toUpperCase()} ${path}`;
        for (const p of op.parameters ?? []) ofParameter(where, p);
        ofMedia(`${where} request`, op.requestBody?.content);
        for (const [status, res] of entries(op.responses)) {
          ofMedia(`${where} ${status}`, res.content);
          for (const [name, h] of entries(res.headers)) {
            for (const ex of h.schema?.examples ?? []) out.push({ where: `${where} ${status} header ${name}`, schema: h.schema, value: ex });
          }
        }
      }
    }
  };
  ofOperations('path', doc.paths);
  ofOperations('webhook', doc.webhooks);
  for (const [name, schema] of entries(doc.components.schemas)) {
    for (const ex of schema.examples ?? []) out.push({ where: `schema ${name}`, schema, value: ex });
    for (const [prop, s] of entries(schema.properties)) {
      for (const ex of s.examples ?? []) out.push({ where: `schema ${name}.${prop}`, schema: s, value: ex });
    }
  }
  return out;
}

describe('openapi/v2.yaml', () => {
  it('every example in the document validates against its schema', async () => {
    const examples = examplesOf(await description());
    // Media examples of every operation and webhook, parameter examples, schema examples.
    expect(examples.length).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const ex of examples) for (const p of await schemaProblems(ex.schema, ex.value, 'example')) problems.push(`${ex.where}: ${p}`);
    expect(problems).toEqual([]);
  });

  it('holds the documentation examples verbatim as the documented examples', async () => {
    const doc = await description();
    const media = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].examples.documented.value;
    expect(media('/auth/user', 'get', '200')).toEqual(documentedAuthUser);
    expect(media('/payout/{transactionId}', 'get', '200').data).toEqual(documentedLookup().data);
    expect(media('/payout/summary', 'post', '200').data).toEqual(documentedSummary.data);
    const { payoutId: _p, ...body } = documentedPayout();
    expect(doc.paths['/payout'].post.requestBody.content['application/json'].examples.documented.value).toMatchObject(body);
    expect(doc.webhooks['transfer.initiated'].post.requestBody.content['application/json'].examples.documented.value).toEqual(documentedEvent);
  });

  it('states the currencies the sandbox knows and their minor digits (src/money/currencies.ts)', async () => {
    const request = (await description()).components.schemas.PayoutRequest;
    expect([...request.properties.currency.enum].sort()).toEqual(knownCurrencies());
    const digits = request.properties.amount['x-minor-digits'];
    expect(digits.currencyProperty).toBe('currency');
    for (const c of knownCurrencies()) expect([c, digits.byCurrency[c] ?? digits.default]).toEqual([c, minorDigits(c)]);
    expect([...request.if.properties.currency.enum].sort()).toEqual(knownCurrencies().filter((c) => minorDigits(c) === 0));
    expect(request.properties.amount['x-max-significant-digits']).toBe(15);
  });

  it('marks every assumed part with x-assumed and a sentence why', async () => {
    const doc = await description();
    const assumed: Array<{ at: string; why: string }> = [];
    const seen = new WeakSet<object>();
    const walk = (node: unknown, at: string) => {
      if (typeof node !== 'object' || node === null || seen.has(node)) return;
      seen.add(node);
      if (!Array.isArray(node) && (node as Obj)['x-assumed'] === true) assumed.push({ at, why: String((node as Obj).description ?? '') });
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(doc, '#');
    expect(assumed.length).toBeGreaterThan(15);
    // The parts the documentation is silent on.
    const c = doc.components;
    const parts: Obj = {
      'GET /payout/list': doc.paths['/payout/list'].get,
      'the Signature header': c.parameters.Signature,
      'a 200 create answer': c.responses.PayoutInitiatedOk,
      failure_reason: c.schemas.PayoutLookup.properties.failure_reason,
      'list records': c.schemas.PayoutListRecord,
    };
    for (const name of ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'MethodNotAllowed', 'Conflict', 'Unprocessable', 'RateLimited', 'InternalError'])
      parts[name] = c.responses[name];
    for (const name of ['ErrorBody', 'Problem', 'PayoutListAnswer']) parts[name] = c.schemas[name];
    for (const [name, part] of Object.entries(parts)) expect([name, part['x-assumed']]).toEqual([name, true]);
    const unexplained = assumed.filter((a) => !/assum|documentation|tolerat/i.test(a.why)).map((a) => a.at);
    expect(unexplained).toEqual([]);
    expect(c.parameters.Signature.description).toMatch(/name is assumed/);
  });
});

// --- the validator -----------------------------------------------------------------------------

describe('responseProblems', () => {
  it('passes the documentation example answers', async () => {
    expect(await responseProblems(get('/v2/auth/user'), answer(200, documentedAuthUser))).toEqual([]);
    expect(await responseProblems(get('/v2/payout/TXN-BOK-FF051A7F00A49EB6AF225D10EA'), answer(200, documentedLookup()))).toEqual([]);
    expect(await responseProblems(post('/v2/payout/summary', {}), answer(200, documentedSummary))).toEqual([]);
    const event = (await description()).components.schemas.TransferEvent;
    expect(await schemaProblems(event, documentedEvent, 'event')).toEqual([]);
    expect(await schemaProblems(event, { ...documentedEvent, event: 'payout.pending' }, 'event')).toEqual([
      'event.event must be one of ["transfer.initiated","transfer.success","transfer.failed"]',
    ]);
  });

  it('reads balances as numbers or decimal strings, grouped or not, but not "1.000,00"', async () => {
    const req = get('/v2/wallets/balances');
    const balances = (balance: unknown) => ({
      status: 'Successful',
      message: 'Balances retrieved',
      data: [{ wallet_id: '5553881136', wallet_name: 'Operations SLE', currency: 'SLE', balance, updated_at: '2026-04-02T09:02:11.482913Z' }],
      timestamp: TS,
    });
    for (const ok of [1250000.75, '1250000.75', '1,250,000.75', '0.50']) expect(await responseProblems(req, answer(200, balances(ok)))).toEqual([]);
    for (const bad of ['1.250.000,75', '12,50', 'lots', '']) {
      expect(await joined(responseProblems(req, answer(200, balances(bad))))).toContain('body.data.0.balance must match a schema in anyOf');
    }
  });

  it('fails an envelope without its timestamp, or with one lacking microseconds', async () => {
    const req = get('/v2/auth/user');
    const { timestamp: _t, ...noTimestamp } = documentedAuthUser;
    expect(await joined(responseProblems(req, answer(200, noTimestamp)))).toContain('body.timestamp is missing');
    expect(await joined(responseProblems(req, answer(200, { ...documentedAuthUser, timestamp: '2026-03-29T09:02:38.038Z' })))).toContain(
      'body.timestamp must match pattern',
    );
    expect(await joined(responseProblems(req, answer(200, { ...documentedAuthUser, status: 'success' })))).toContain('body.status must be "Successful"');
  });

  it('holds the look-up record to its documented form', async () => {
    const one = get('/v2/payout/TXN-BOK-FF051A7F00A49EB6AF225D10EA');
    const with_ = (over: Record<string, unknown>) => {
      const body = documentedLookup();
      Object.assign(body.data, over);
      return body;
    };
    // Tolerated: numbers for amounts, any letter case, no note, a failure reason.
    expect(
      await responseProblems(one, answer(200, with_({ amount: 1000, fee: 5, total_amount: 1005, status: 'Failed', description: null, failure_reason: 'Rejected' }))),
    ).toEqual([]);
    expect(await joined(responseProblems(one, answer(200, with_({ amount: '1.000,00' }))))).toContain('body.data.amount must match a schema in anyOf');
    expect(await joined(responseProblems(one, answer(200, with_({ transaction_id: 'TRX9F3A61C0B2D4E5F67A8B' }))))).toContain(
      'body.data.transaction_id must match pattern',
    );
    const noTotal = documentedLookup();
    delete noTotal.data.total_amount;
    delete noTotal.data.description;
    const problems = await joined(responseProblems(one, answer(200, noTotal)));
    expect(problems).toContain('body.data.total_amount is missing');
    expect(problems).toContain('body.data.description is missing');
    expect(await joined(responseProblems(one, answer(200, with_({ recipient: { transfer_type: 'card', account_number: '1', name: 'A', bank: 'B' } }))))).toContain(
      'body.data.recipient.transfer_type must be one of ["bank","wallet"]',
    );
  });

  it('passes each list form, and fails records or pages that break it', async () => {
    const list = get('/v2/payout/list', { page: '1', per_page: '15' });
    const records = [record(), record({ status: 'failed', description: null, failure_reason: 'Rejected by the provider.' })];
    const resource = {
      status: 'Successful',
      message: 'Transfers retrieved',
      data: records,
      links: { first: 'http://127.0.0.1:8080/v2/payout/list?page=1', last: 'http://127.0.0.1:8080/v2/payout/list?page=1', prev: null, next: null },
      meta: { current_page: 1, last_page: 1, per_page: 15, total: 2, from: 1, to: 2, path: 'http://127.0.0.1:8080/v2/payout/list' },
      timestamp: TS,
    };
    const array = { status: 'Successful', message: 'Transfers retrieved', data: records, timestamp: TS };
    const items = { ...array, data: { items: records, has_more: false, total: 2, page: 1 } };
    const payouts = { ...array, data: { payouts: records } };
    for (const body of [paginator(records), paginator([]), resource, array, items, payouts]) expect(await responseProblems(list, answer(200, body))).toEqual([]);

    const noWallet = paginator([{ ...documentedLookup().data }]);
    expect(await joined(responseProblems(list, answer(200, noWallet)))).toContain('body.data.data.0.wallet_id is missing');
    const noNext = paginator(records) as Obj;
    delete noNext.data.next_page_url;
    expect(await joined(responseProblems(list, answer(200, noNext)))).toContain('body.data.next_page_url is missing');
    expect(await joined(responseProblems(list, answer(200, { ...array, data: { entries: records } })))).toContain('body must match exactly one schema in oneOf');
  });

  it('passes every tolerated error form, and fails a body in none of them', async () => {
    const req = post('/v2/payout', documentedPayout());
    const laravel = {
      message: 'The amount field is required. (and 1 more error)',
      errors: { amount: ['The amount field is required.'], currency: ['The currency field is required.'] },
    };
    const envelope = { status: 'Failed', message: 'Insufficient funds.', code: 'INSUFFICIENT_FUNDS', timestamp: TS };
    const envelopeMap = { status: 'Error', message: 'Invalid.', errors: { amount: ['must be a number'] }, timestamp: TS };
    for (const body of [laravel, envelope, envelopeMap, { error: 'Insufficient funds.' }, { error: { message: 'Insufficient funds.', code: 'INSUFFICIENT_FUNDS' } }]) {
      expect(await responseProblems(req, answer(422, body))).toEqual([]);
    }
    expect(await responseProblems(get('/v2/auth/user'), answer(401, { message: 'Unauthenticated.' }))).toEqual([]);
    const problem = { type: 'about:blank', title: 'Unprocessable Content', status: 422, detail: 'The amount field is required.', errors: { amount: ['required'] } };
    expect(await responseProblems(req, answer(422, problem, { 'content-type': 'application/problem+json' }))).toEqual([]);
    expect(await responseProblems(req, answer(422, { ...problem, status: '422' }, { 'content-type': 'application/problem+json' }))).not.toEqual([]);

    // A failure envelope must carry its timestamp and a known status word; errors must be lists of messages.
    const { timestamp: _t, ...late } = envelope;
    expect(await joined(responseProblems(req, answer(422, late)))).toContain('body must match a schema in anyOf');
    expect(await responseProblems(req, answer(422, { ...envelope, status: 'Oops' }))).not.toEqual([]);
    expect(await responseProblems(req, answer(422, { message: 'x', errors: { amount: 'required' } }))).not.toEqual([]);
    expect(await responseProblems(req, answer(422, { detail: 'nope' }))).not.toEqual([]);
  });

  it('passes a 201 and a 200 create answer, and fails one whose transaction id or amount is off', async () => {
    const req = post('/v2/payout', documentedPayout());
    const created = {
      status: 'Successful',
      message: 'Transfer initiated successfully',
      data: {
        transaction_id: 'TXN-BOK-83BD4FB5EF52C8CB2329510901',
        amount: 10,
        fee: 0.1,
        currency: 'SLE',
        provider_response: { status: 'Pending', beneficiary: '0427570182', provider: 'ECOBANK', orderId: 'ORD-79A7C916A37B46BA', idempotency_key: IDEMPOTENCY_KEY },
        payout_id: '6f1c2b9e-3d4a-4b5c-8e7f-0a1b2c3d4e5f',
        created_at: '2026-04-02T15:30:04.000000Z',
      },
      timestamp: TS,
    };
    expect(await responseProblems(req, answer(201, created))).toEqual([]);
    expect(await responseProblems(req, answer(200, created, { 'idempotent-replayed': 'true' }))).toEqual([]);
    const bad = structuredClone(created) as Obj;
    bad.data.transaction_id = 'TXN-BOK-83bd4fb5';
    bad.data.amount = '10.00';
    const problems = await joined(responseProblems(req, answer(201, bad)));
    expect(problems).toContain('body.data.transaction_id must match pattern');
    expect(problems).toContain('body.data.amount must be number');
  });

  it('fails an undocumented status, and checks required response headers', async () => {
    const req = get('/v2/wallets/balances');
    expect(await responseProblems(req, answer(418, { message: 'teapot' }))).toEqual([
      'GET /v2/wallets/balances (getWalletBalances) response 418: status 418 is not documented (documented: 200, 401, 403, 405, 429, 5XX)',
    ]);
    const limited = { status: 'Failed', message: 'Too many requests; retry after 1 s.', code: 'RATE_LIMITED', timestamp: TS };
    expect(await responseProblems(req, answer(429, limited, { 'retry-after': '1' }))).toEqual([]);
    expect(await joined(responseProblems(req, answer(429, limited)))).toContain('the required header Retry-After is missing');
    expect(await joined(responseProblems(req, answer(429, limited, { 'retry-after': 'soon' })))).toContain('headers.retry-after must be integer');
  });

  it('checks answers to unknown paths and methods against the generic errors', async () => {
    const notFound = { status: 'Failed', message: 'No route.', timestamp: TS };
    expect(await responseProblems(get('/v2/nope'), answer(404, notFound))).toEqual([]);
    const del = { ...get('/v2/payout/list'), method: 'DELETE' };
    expect(await responseProblems(del, answer(405, notFound, { allow: 'GET' }))).toEqual([]);
    expect(await joined(responseProblems(del, answer(405, notFound)))).toContain('DELETE /v2/payout/list response 405: the required header Allow is missing');
    expect(await joined(responseProblems(del, answer(404, notFound)))).toContain('status 404 is not documented');
  });
});

describe('requestProblems', () => {
  it('passes the documented create body, and a wallet payout', async () => {
    expect(await requestProblems(post('/v2/payout', documentedPayout()))).toEqual([]);
    const wallet = documentedPayout();
    wallet.recipient = { type: 'wallet', accountDetails: { name: 'Aminata Kamara', provider: 'orange_money', accountNumber: '076123456', phoneNumber: '+23276123456' } };
    delete (wallet as Obj).metadata;
    expect(await requestProblems(post('/v2/payout', wallet))).toEqual([]);
  });

  it('needs a UUID Idempotency-Key on POST /payout, and takes one (or none) elsewhere', async () => {
    expect(await requestProblems(post('/v2/payout', documentedPayout(), {}))).toEqual(['POST /v2/payout (createPayout) request: headers.idempotency-key is missing']);
    expect(await joined(requestProblems(post('/v2/payout', documentedPayout(), { 'idempotency-key': 'retry-1' })))).toContain('headers.idempotency-key must match');
    const bare = get('/v2/wallets/balances');
    delete bare.headers['idempotency-key'];
    expect(await requestProblems(bare)).toEqual([]);
    expect(await requestProblems(get('/v2/wallets/balances'))).toEqual([]);
  });

  it('states the amount rules: a JSON number, more than 0, a whole number for 0-digit currencies', async () => {
    const withAmount = (amount: unknown, currency = 'SLE') => post('/v2/payout', { ...documentedPayout(), amount, currency });
    expect(await requestProblems(withAmount('10.00'))).toEqual(['POST /v2/payout (createPayout) request: body.amount must be number']);
    expect(await requestProblems(withAmount(0))).toEqual(['POST /v2/payout (createPayout) request: body.amount must be > 0']);
    expect(await requestProblems(withAmount(1e15))).toEqual([
      'POST /v2/payout (createPayout) request: body.amount must be < 1000000000000000',
      'POST /v2/payout (createPayout) request: body.amount must have at most 15 significant digits',
    ]);
    expect(await requestProblems(withAmount(1500, 'JPY'))).toEqual([]);
    expect(await joined(requestProblems(withAmount(1500.5, 'JPY')))).toContain('body.amount must be integer');
    expect(await requestProblems(withAmount(1.125, 'KWD'))).toEqual([]);
    // The two extensions are checked too.
    expect(await requestProblems(withAmount(10.005))).toEqual(['POST /v2/payout (createPayout) request: body.amount must have at most 2 decimal places for SLE']);
    expect(await requestProblems(withAmount(1.1255, 'KWD'))).toEqual(['POST /v2/payout (createPayout) request: body.amount must have at most 3 decimal places for KWD']);
    expect(await requestProblems(withAmount(0.0001, 'CLF'))).toEqual([]);
    expect(await requestProblems(withAmount(999999999999999, 'JPY'))).toEqual([]);
    expect(await requestProblems(withAmount(9999999999999.99))).toEqual([]);
    expect(await requestProblems(withAmount(12345678901234.56, 'USD'))).toEqual([
      'POST /v2/payout (createPayout) request: body.amount must have at most 15 significant digits',
    ]);
    expect(await requestProblems(withAmount(1e-7))).toEqual(['POST /v2/payout (createPayout) request: body.amount must have at most 2 decimal places for SLE']);
    expect(await joined(requestProblems(withAmount(10, 'XXX')))).toContain('body.currency must be one of');
    expect(await joined(requestProblems(withAmount(10, 'sle')))).toContain('body.currency must be one of');
  });

  it('states the recipient rules: type, phone for wallets, provider, account and phone forms, lengths', async () => {
    const withDetails = (type: string, details: Record<string, unknown>) => {
      const body = documentedPayout() as Obj;
      body.recipient = { type, accountDetails: { ...body.recipient.accountDetails, ...details } };
      return post('/v2/payout', body);
    };
    expect(await requestProblems(withDetails('bank', { phoneNumber: undefined }))).toEqual([]);
    expect(await joined(requestProblems(withDetails('card', {})))).toContain('body.recipient must match exactly one schema in oneOf');
    expect(await joined(requestProblems(withDetails('wallet', { phoneNumber: null })))).toContain('body.recipient.accountDetails.phoneNumber must be string');
    expect(await joined(requestProblems(withDetails('wallet', { phoneNumber: undefined })))).toContain('body.recipient.accountDetails.phoneNumber is missing');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ phoneNumber: '12' }, 'body.recipient.accountDetails.phoneNumber must match pattern'],
      [{ provider: 'Orange Money' }, 'body.recipient.accountDetails.provider must match pattern'],
      [{ accountNumber: '0427 570182' }, 'body.recipient.accountDetails.accountNumber must match pattern'],
      [{ name: '   ' }, 'body.recipient.accountDetails.name must match pattern'],
      [{ name: 'x'.repeat(256) }, 'body.recipient.accountDetails.name must NOT have more than 255 characters'],
      [{ note: 'x'.repeat(256) }, 'body.recipient.accountDetails.note must NOT have more than 255 characters'],
    ];
    for (const [details, problem] of cases) expect(await joined(requestProblems(withDetails('bank', details)))).toContain(problem);
    expect(await joined(requestProblems(post('/v2/payout', { ...documentedPayout(), metadata: ['a'] })))).toContain('body.metadata must be object');
  });

  it('fails a body that is not JSON or not sent as JSON, and missing credentials', async () => {
    const text = post('/v2/payout', documentedPayout(), { 'idempotency-key': IDEMPOTENCY_KEY, 'content-type': 'text/plain' });
    expect(await joined(requestProblems(text))).toContain(`the body's Content-Type is "text/plain", not one of application/json`);
    expect(await joined(requestProblems(post('/v2/payout', '{"amount":')))).toContain('the body is not JSON');
    const anonymous = get('/v2/auth/user');
    delete anonymous.headers.authorization;
    expect(await requestProblems(anonymous)).toEqual(['GET /v2/auth/user (getAuthenticatedUser) request: needs an Authorization: Bearer <token> header']);
    expect(await requestProblems({ ...get('/v2/auth/user'), headers: { authorization: 'Basic dXNlcjpwYXNz' } })).not.toEqual([]);
  });

  it('checks the list query: page from 1, per_page up to 100, nothing else', async () => {
    expect(await requestProblems(get('/v2/payout/list', { page: '123456789012', per_page: '100' }))).toEqual([]);
    expect(await requestProblems(get('/v2/payout/list'))).toEqual([]);
    const problems = await requestProblems(get('/v2/payout/list', { page: '0', per_page: '101', status: 'failed' }));
    expect(problems).toEqual(
      expect.arrayContaining([
        'GET /v2/payout/list (listPayouts) request: query.page must be >= 1',
        'GET /v2/payout/list (listPayouts) request: query.per_page must be <= 100',
        'GET /v2/payout/list (listPayouts) request: query has an undocumented status',
      ]),
    );
  });

  it('takes the summary body {} only, and a transaction id in the look-up path', async () => {
    expect(await requestProblems(post('/v2/payout/summary', {}))).toEqual([]);
    expect(await requestProblems(post('/v2/payout/summary', { from: '2026-04-01' }))).toEqual([
      'POST /v2/payout/summary (getPayoutSummary) request: body must NOT have more than 0 properties',
    ]);
    expect(await requestProblems(post('/v2/payout/summary', ''))).toEqual(['POST /v2/payout/summary (getPayoutSummary) request: needs a JSON body']);
    expect(await requestProblems(get('/v2/payout/TXN-BOK-FF051A7F00A49EB6AF225D10EA'))).toEqual([]);
    expect(await joined(requestProblems(get('/v2/payout/6f1c2b9e-3d4a-4b5c-8e7f-0a1b2c3d4e5f')))).toContain('path.transactionId must match pattern');
  });

  it('reports unknown paths and methods, the invented ones included', async () => {
    expect(await requestProblems(get('/v2/auth/token'))).toEqual(['GET /v2/auth/token: no operation (unknown path)']);
    expect(await requestProblems(get('/v2/payouts'))).toEqual(['GET /v2/payouts: no operation (unknown path)']);
    expect(await requestProblems({ ...get('/v2/payout/list'), method: 'DELETE' })).toEqual(['DELETE /v2/payout/list: no operation (the path has GET, not DELETE)']);
    expect(await requestProblems(get('/payout/list'))).toEqual(['GET /payout/list: no operation (the API lives under /v2)']);
  });
});
