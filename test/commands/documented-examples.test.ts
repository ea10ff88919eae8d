/**
 * payctl against the documentation's own example answers (issue 26, docs/service.md):
 * a plain node:http server (test/helpers/fixture-server.ts, not the sandbox) answers
 * test/fixtures/documented/*.json byte for byte, and payctl runs in process
 * (in-process.ts) with a temp config folder: login, status, balances, payout create
 * (bank and wallet), payout get, summary, as text and with --json (the service's
 * envelope as sent), and webhooks listen fed the documented event signed with a hex
 * HMAC-SHA256 over its raw bytes in the `Signature` header.
 * Every request payctl sends is checked on the server's record: `Authorization: Bearer
 * <key>`, `Accept: application/json`, an `Idempotency-Key` UUID (the journaled one on
 * POST /payout, a fresh one on everything else).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, readProfile, writeProfile, type Run } from '../helpers/e2e.js';
import { TestClock } from '../helpers/clock.js';
import { payctl } from '../helpers/in-process.js';
import { forwardTarget, portClosed, postRaw } from '../helpers/listener.js';
import { listenInProcess, stopLeftoverListeners } from '../helpers/listen-in-process.js';
import { DOCUMENTED_TXN, fixtureBytes, fixtureText, startFixtureServer, type FixtureServer, type RecordedRequest } from '../helpers/fixture-server.js';

const KEY = `bok_live_${randomBytes(16).toString('hex')}`;
const MASKED = `****${KEY.slice(-4)}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

// Values of the documented examples (test/fixtures/documented/).
const WALLET = '5553881136';
const BUSINESS = 'Bokumonie Technologies Ltd';
const EMAIL = 'john.doe@microsft.com';
const CREATE_TXN = 'TXN-BOK-83BD4FB5EF52C8CB2329510901';
const CREATE_PAYOUT_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const CREATE_IDEMPOTENCY_KEY = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
const EVENT_TXN = 'TXN-BOK-CE5B34C8CABC6EF5B5A431045A';
const EVENT_ID = 'a1688ad2-b1dc-4006-8e20-cd6b739d8cb5';

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer({ apiKey: KEY });
});
afterAll(async () => {
  await server.close();
});

const cleanups: Array<() => unknown> = [];
beforeEach(() => server.clear());
afterEach(async () => {
  await stopLeftoverListeners();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A fresh temp config folder, removed after the test. */
function configDir(): string {
  const { dir, cleanup } = tempConfigDir();
  cleanups.push(cleanup);
  return dir;
}

/** A config folder whose default profile holds the fixture server's base URL and the key. */
function loggedIn(): string {
  const dir = configDir();
  writeProfile(dir, { baseUrl: server.baseUrl, apiKey: KEY });
  return dir;
}

const lines = (text: string): string[] => text.split('\n');

/** The one line of `text` that starts with `label` (after spaces), or a failure naming it. */
function lineOf(text: string, label: RegExp): string {
  const found = lines(text).filter((l) => label.test(l.trimStart()));
  expect(found, `one line matching ${label} in:\n${text}`).toHaveLength(1);
  return found[0]!;
}

/** Some line of `text` starts with `label` (after spaces) and matches `value`. */
function someLine(text: string, label: RegExp, value: RegExp): void {
  const found = lines(text).filter((l) => label.test(l.trimStart()));
  expect(found.length, `a line matching ${label} in:\n${text}`).toBeGreaterThan(0);
  expect(
    found.some((l) => value.test(l)),
    `a line matching ${label} with ${value} in:\n${text}`,
  ).toBe(true);
}

/** The fixture as payctl must print it with --json: the envelope as sent, one document. */
function asSent(name: Parameters<typeof fixtureText>[0]): string {
  return fixtureText(name).trim() + '\n';
}

/**
 * The documented headers on every request payctl sent: the bearer token is the key,
 * Accept JSON, an Idempotency-Key UUID; Content-Type JSON on a body. Returns the keys.
 */
function expectDocumentedHeaders(reqs: RecordedRequest[]): string[] {
  expect(reqs.length, 'payctl sent at least one request').toBeGreaterThan(0);
  return reqs.map((r) => {
    const what = `${r.method} ${r.url}`;
    expect(r.headers.authorization, what).toBe(`Bearer ${KEY}`);
    expect(r.headers.accept, what).toMatch(/^application\/json\b/);
    const key = r.headers['idempotency-key'];
    expect(typeof key, `${what}: Idempotency-Key`).toBe('string');
    expect(key, `${what}: Idempotency-Key is a UUID`).toMatch(UUID);
    if (r.raw.length > 0) expect(r.headers['content-type'], what).toMatch(/^application\/json\b/);
    // The old contract's headers are gone.
    expect(r.headers['api-key'], what).toBeUndefined();
    return key as string;
  });
}

/** The documented headers on every request, and fresh keys: no two requests other than POST /payout share one. */
function expectFreshKeys(reqs: RecordedRequest[]): void {
  const keys = expectDocumentedHeaders(reqs).filter((_, i) => !(reqs[i]!.method === 'POST' && reqs[i]!.path === '/v2/payout'));
  expect(new Set(keys).size, 'a fresh Idempotency-Key on every request').toBe(keys.length);
}

const routes = (reqs: RecordedRequest[]): string[] => reqs.map((r) => `${r.method} ${r.path} ${r.status}`);

/** Every file of a config folder as text (where a stored key would be). */
function folderText(dir: string): string {
  if (!existsSync(dir)) return '';
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

describe('the fixture server itself', () => {
  it('serves the files byte for byte, refuses another key with 401 and answers 404 elsewhere', async () => {
    const auth = { authorization: `Bearer ${KEY}`, accept: 'application/json' };
    const get = await fetch(`${server.baseUrl}/payout/${DOCUMENTED_TXN}`, { headers: auth });
    expect(get.status).toBe(200);
    const bytes = Buffer.from(await get.arrayBuffer());
    expect(bytes.equals(fixtureBytes('payout-get'))).toBe(true);
    // The documented number formats reach the client untouched.
    expect(bytes.toString('utf8')).toContain('"amount": "1,000.00"');
    expect(fixtureText('webhook-transfer-initiated')).toContain('"fee": 0.0\n');

    const post = await fetch(`${server.baseUrl}/payout`, { method: 'POST', headers: auth, body: '{"anything":true}' });
    expect(post.status).toBe(200);
    expect(Buffer.from(await post.arrayBuffer()).equals(fixtureBytes('payout-create'))).toBe(true);

    const wrong = await fetch(`${server.baseUrl}/auth/user`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ message: 'Unauthenticated.' });
    const missing = await fetch(`${server.baseUrl}/payout/TXN-BOK-00000000000000000000000000`, { headers: auth });
    expect(missing.status).toBe(404);
    expect(routes(server.requests)).toEqual([
      `GET /v2/payout/${DOCUMENTED_TXN} 200`,
      'POST /v2/payout 200',
      'GET /v2/auth/user 401',
      'GET /v2/payout/TXN-BOK-00000000000000000000000000 404',
    ]);
    expect(server.requests[1]!.body).toBe('{"anything":true}');
  });
});

describe('login against GET /auth/user', () => {
  it('checks the key as the bearer token, shows whose it is, warns on KYC "Pending" and stores the key', async () => {
    const dir = configDir();
    const r = await payctl(['login', '--api-key-stdin', '--base-url', server.baseUrl, '--no-input'], { dir, input: KEY + '\n' });
    expect(r.code, r.stderr).toBe(0);
    const shown = r.stdout + r.stderr;
    expect(shown).toContain(BUSINESS);
    expect(shown).toContain(EMAIL);
    expect(shown).toContain(WALLET);
    // A KYC status other than verified/approved is a warning.
    expect(lineOf(r.stderr, /^Warning:.*KYC/i)).toContain('Pending');
    // Only the masked key is ever shown.
    expect(shown).not.toContain(KEY);

    // One request: the documented look-up, no token exchange.
    expect(routes(server.requests)).toEqual(['GET /v2/auth/user 200']);
    expectFreshKeys(server.requests);

    // Saved: the base URL and the key (no OS keyring here: the file).
    expect(readProfile(dir)?.baseUrl).toBe(server.baseUrl);
    expect(folderText(dir)).toContain(KEY);
    // No token is stored: the key is the token.
    expect(readProfile(dir) as Record<string, unknown>).not.toHaveProperty('token');

    // The saved profile works on its own.
    server.clear();
    const b = await payctl(['balances', '--json'], { dir });
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toBe(asSent('balances'));
    expectFreshKeys(server.requests);
  });

  it('--json: one JSON document on stdout naming the account', async () => {
    const dir = configDir();
    const r = await payctl(['login', '--api-key-stdin', '--base-url', server.baseUrl, '--no-input', '--json'], { dir, input: KEY + '\n' });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.stringify(oneJson(r.stdout));
    expect(doc).toContain(WALLET);
    expect(doc).toContain(BUSINESS);
    expect(doc).toContain(EMAIL);
    expect(doc).not.toContain(KEY);
    expect(routes(server.requests)).toEqual(['GET /v2/auth/user 200']);
    expectFreshKeys(server.requests);
  });

  it('a key the service refuses (401): exit 3, nothing saved', async () => {
    const dir = configDir();
    const wrong = `bok_live_${randomBytes(16).toString('hex')}`;
    const r = await payctl(['login', '--api-key-stdin', '--base-url', server.baseUrl, '--no-input'], { dir, input: wrong + '\n' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Unauthenticated.');
    expect(routes(server.requests)).toEqual(['GET /v2/auth/user 401']);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${wrong}`);
    expect(folderText(dir)).not.toContain(wrong);
  });
});

describe('status', () => {
  it('shows the profile, base URL, masked key and the account, checked live', async () => {
    const dir = loggedIn();
    const r = await payctl(['status'], { dir });
    expect(r.code, r.stderr).toBe(0);
    const shown = r.stdout + r.stderr;
    expect(shown).toContain(server.baseUrl);
    expect(shown).toContain(MASKED);
    expect(shown).not.toContain(KEY);
    expect(shown).toContain(BUSINESS);
    expect(shown).toContain(EMAIL);
    expect(shown).toContain(WALLET);
    expect(shown).toMatch(/KYC.*Pending/i);
    expect(routes(server.requests)).toEqual(['GET /v2/auth/user 200']);
    expectFreshKeys(server.requests);
  });

  it('--json: one JSON document with the account', async () => {
    const dir = loggedIn();
    const r = await payctl(['status', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.stringify(oneJson(r.stdout));
    expect(doc).toContain(WALLET);
    expect(doc).toContain(BUSINESS);
    expect(doc).toContain(server.baseUrl);
    expect(doc).not.toContain(KEY);
    expect(routes(server.requests)).toEqual(['GET /v2/auth/user 200']);
    expectFreshKeys(server.requests);
  });
});

describe('balances', () => {
  it('text: the documented wallet with its balance exactly (1,469.95 SLE) and its time in UTC', async () => {
    const r = await payctl(['balances'], { dir: loggedIn() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const out = lines(r.stdout.trimEnd());
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^WALLET\s+NAME\s+CURRENCY\s+BALANCE\s+UPDATED$/);
    expect(out[1]).toMatch(/^5553881136\s+Main Wallet\s+SLE\s+1,469\.95\s+2026-04-03 14:58:04 UTC$/);
    expect(routes(server.requests)).toEqual(['GET /v2/wallets/balances 200']);
    expectFreshKeys(server.requests);
  });

  it('--json: the envelope as the service sent it', async () => {
    const r = await payctl(['balances', '--json'], { dir: loggedIn() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(asSent('balances'));
    expect(JSON.parse(r.stdout).data[0].balance).toBe(1469.95);
    expectFreshKeys(server.requests);
  });
});

describe('payout create (POST /payout)', () => {
  const bank = [
    '--wallet',
    WALLET,
    '--amount',
    '10',
    '--currency',
    'SLE',
    '--type',
    'bank',
    '--name',
    'John Doe',
    '--provider',
    'ecobank',
    '--account',
    '0427570182',
    '--note',
    'Payment for services',
    '--metadata',
    'key1=value',
    '--metadata',
    'key2=value',
    '--payout-id',
    CREATE_PAYOUT_ID,
    '--yes',
  ];
  const wallet = [
    '--wallet',
    WALLET,
    '--amount',
    '10.00',
    '--currency',
    'SLE',
    '--type',
    'wallet',
    '--name',
    'Aminata Kamara',
    '--provider',
    'orange_money',
    '--account',
    '076123456',
    '--phone',
    '+23276123456',
    '--payout-id',
    CREATE_PAYOUT_ID,
    '--idempotency-key',
    CREATE_IDEMPOTENCY_KEY,
    '--yes',
  ];

  /** The one POST /payout of the run, with the documented headers. */
  function thePost(): { req: RecordedRequest; body: any } {
    const posts = server.requests.filter((r) => r.method === 'POST' && r.path === '/v2/payout');
    expect(posts, routes(server.requests).join('\n')).toHaveLength(1);
    const req = posts[0]!;
    expectDocumentedHeaders([req]);
    expect(req.headers['content-type']).toMatch(/^application\/json\b/);
    // The amount is a JSON number, exactly 10.
    expect(req.body).toMatch(/"amount":\s*10(\.0+)?[,}\s]/);
    return { req, body: JSON.parse(req.body) };
  }

  /** The documented body's field names, and nothing else. */
  function expectDocumentedFields(body: any): void {
    expect(Object.keys(body).sort()).toEqual(expect.arrayContaining(['amount', 'currency', 'payoutId', 'recipient', 'walletId']));
    for (const k of Object.keys(body)) expect(['amount', 'currency', 'payoutId', 'walletId', 'recipient', 'metadata']).toContain(k);
    expect(Object.keys(body.recipient).sort()).toEqual(['accountDetails', 'type']);
    for (const k of Object.keys(body.recipient.accountDetails)) expect(['name', 'provider', 'accountNumber', 'phoneNumber', 'note']).toContain(k);
  }

  function expectCreatedCard(r: Run): void {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(CREATE_TXN);
    expect(r.stdout).toContain('Pending');
    expect(lineOf(r.stdout, /^Amount\b/)).toContain('10.00 SLE');
    expect(lineOf(r.stdout, /^Fee\b/)).toContain('0.05 SLE');
    // Other requests (a balance check) may precede the POST, each with its own key.
    expectFreshKeys(server.requests);
  }

  it('a bank payout: the documented body and headers, the answer shown, its transaction id journaled', async () => {
    const dir = loggedIn();
    const r = await payctl(['payout', 'create', ...bank], { dir });
    expectCreatedCard(r);
    const { req, body } = thePost();
    expectDocumentedFields(body);
    expect(body).toMatchObject({
      amount: 10,
      currency: 'SLE',
      payoutId: CREATE_PAYOUT_ID,
      walletId: WALLET,
      recipient: { type: 'bank', accountDetails: { name: 'John Doe', provider: 'ecobank', accountNumber: '0427570182', note: 'Payment for services' } },
      metadata: { key1: 'value', key2: 'value' },
    });
    // Sent as null for a bank recipient, or left out.
    expect(body.recipient.accountDetails.phoneNumber ?? null).toBeNull();
    const key = req.headers['idempotency-key'] as string;

    // The journal maps the payout id to the answer's transaction id: payout get looks that up.
    server.clear();
    const g = await payctl(['payout', 'get', CREATE_PAYOUT_ID], { dir });
    expect(routes(server.requests)).toEqual([`GET /v2/payout/${CREATE_TXN} 404`]);
    expect(g.code, g.stderr).toBe(1);
    expectFreshKeys(server.requests);
    expect(server.requests[0]!.headers['idempotency-key']).not.toBe(key);
  });

  it('a bank payout with --json: the envelope as the service sent it', async () => {
    const r = await payctl(['payout', 'create', ...bank, '--json'], { dir: loggedIn() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(asSent('payout-create'));
    expectDocumentedFields(thePost().body);
    expectFreshKeys(server.requests);
  });

  it('a wallet payout: phoneNumber sent, the given Idempotency-Key sent as is', async () => {
    const r = await payctl(['payout', 'create', ...wallet], { dir: loggedIn() });
    expectCreatedCard(r);
    const { req, body } = thePost();
    expectDocumentedFields(body);
    expect(body).toMatchObject({
      amount: 10,
      currency: 'SLE',
      payoutId: CREATE_PAYOUT_ID,
      walletId: WALLET,
      recipient: { type: 'wallet', accountDetails: { name: 'Aminata Kamara', provider: 'orange_money', accountNumber: '076123456', phoneNumber: '+23276123456' } },
    });
    expect(req.headers['idempotency-key']).toBe(CREATE_IDEMPOTENCY_KEY);
  });

  it('a wallet payout with --json: the envelope as the service sent it', async () => {
    const r = await payctl(['payout', 'create', ...wallet, '--json'], { dir: loggedIn() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(asSent('payout-create'));
    const { req, body } = thePost();
    expect(body.recipient.type).toBe('wallet');
    expect(req.headers['idempotency-key']).toBe(CREATE_IDEMPOTENCY_KEY);
  });
});

describe('payout get (GET /payout/{transactionId})', () => {
  it('text: amounts from grouped strings exactly, status Successful, the note, provider reference and bank', async () => {
    const r = await payctl(['payout', 'get', DOCUMENTED_TXN], { dir: loggedIn() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(DOCUMENTED_TXN);
    expect(lineOf(r.stdout, /^Status\b/)).toMatch(/^\s*Status\s+Successful\s*$/);
    expect(lineOf(r.stdout, /^Amount\b/)).toMatch(/\s1,000\.00 SLE\s*$/);
    expect(lineOf(r.stdout, /^Fee\b/)).toMatch(/\s5\.00 SLE\s*$/);
    expect(lineOf(r.stdout, /^Total\b/)).toMatch(/\s1,005\.00 SLE\s*$/);
    expect(lineOf(r.stdout, /^Note\b/)).toMatch(/\sPayment for services\s*$/);
    expect(r.stdout).toMatch(/ORD-79A7C916A37B46BA/);
    expect(r.stdout).toMatch(/\bECOBANK\b/);
    expect(r.stdout).toContain('John Doe');
    expect(r.stdout).toContain('0127500182');
    // Never a float's rendering, never the raw lower-case word as the status.
    expect(r.stdout).not.toMatch(/\b1000(\.0+)?\b|1005\b/);
    expect(r.stdout).not.toMatch(/\bsuccessful\b/);
    expect(routes(server.requests)).toEqual([`GET /v2/payout/${DOCUMENTED_TXN} 200`]);
    expectFreshKeys(server.requests);
  });

  it('--json: the envelope as the service sent it (the raw status word kept)', async () => {
    const r = await payctl(['payout', 'get', DOCUMENTED_TXN, '--json'], { dir: loggedIn() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(asSent('payout-get'));
    expect(JSON.parse(r.stdout).data.status).toBe('successful');
    expectFreshKeys(server.requests);
  });
});

describe('summary (POST /payout/summary)', () => {
  it('text: the service’s counts by status and type, total_sent as the service’s figure without a currency', async () => {
    const r = await payctl(['summary'], { dir: loggedIn() });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    // The table and the bar chart may both show a count: some line with the label has it.
    someLine(out, /^(Total )?transfers\b/i, /\b38\b/);
    someLine(out, /^Successful\b/i, /\b2\b/);
    someLine(out, /^Pending\b/i, /\b36\b/);
    someLine(out, /^Failed\b/i, /\b0\b/);
    someLine(out, /^Wallet\b/i, /\b5\b/);
    someLine(out, /^Bank\b/i, /\b33\b/);
    const sent = lineOf(out, /^Total sent\b/i);
    expect(sent).toContain('7281.78');
    expect(sent).toMatch(/service/i);
    expect(sent).not.toMatch(/\b[A-Z]{3}\b/);
    // Not computed from a list: the one documented call, with the body {}.
    expect(out + r.stderr).not.toMatch(/computed from/i);
    expect(routes(server.requests)).toEqual(['POST /v2/payout/summary 200']);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({});
    expectFreshKeys(server.requests);
  });

  it('--json: the envelope as the service sent it', async () => {
    const r = await payctl(['summary', '--json'], { dir: loggedIn() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(asSent('payout-summary'));
    expect(routes(server.requests)).toEqual(['POST /v2/payout/summary 200']);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({});
    expectFreshKeys(server.requests);
  });
});

describe('webhooks listen: the documented event, signed as documented', () => {
  const SECRET = `whsec_${randomBytes(12).toString('hex')}`;
  /** 64 lower-case hex characters of HMAC-SHA256(secret, raw body): computed here, not with src/. */
  const hexSig = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');
  // The listener's clock: 5 s after the event's own timestamp (2026-04-05T18:38:54.734510Z).
  const clock = () => new TestClock(new Date('2026-04-05T18:38:59.734Z'));

  it('text: accepted, printed, forwarded with the raw bytes and the Signature header; again: a duplicate; a wrong signature refused', async () => {
    const app = await forwardTarget(() => 200);
    cleanups.push(() => app.close());
    const l = await listenInProcess(['--forward-to', app.url], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: SECRET }, clock: clock() });
    const body = fixtureBytes('webhook-transfer-initiated');
    const signature = hexSig(SECRET, body);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);

    const res = await postRaw(l.url, body, { 'content-type': 'application/json', signature });
    expect(res.status).toBe(200);
    const line = (await l.waitFor(() => l.lines().length >= 1 && l.lines(), 'the event line'))[0]!;
    expect(line).toContain('transfer.initiated');
    expect(line).toContain(EVENT_TXN);
    expect(line).toContain('Pending');
    expect(line).toContain(EVENT_ID);
    expect(line).not.toMatch(/duplicate/i);
    // Forwarded untouched: the raw bytes and the signature header.
    expect(app.received).toHaveLength(1);
    expect(app.received[0]!.raw.equals(body)).toBe(true);
    expect(app.received[0]!.headers.signature).toBe(signature);

    // The sender's next attempt of the same event: shown as a duplicate.
    const again = await postRaw(l.url, body, { 'content-type': 'application/json', signature });
    expect(again.status).toBe(200);
    await l.waitFor(() => l.lines().length >= 2, 'the duplicate line');
    expect(l.lines()[1]).toContain(EVENT_ID);
    expect(l.lines()[1]).toMatch(/duplicate/i);

    // Signed with another secret: refused, not printed, not forwarded.
    const forwarded = app.received.length;
    const wrong = await postRaw(l.url, body, { 'content-type': 'application/json', signature: hexSig('whsec_someone_else', body) });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    expect(wrong.status).toBeLessThan(500);
    await l.waitFor(() => /Warning:.*signature/i.test(l.stderr()), 'the refusal warning');
    expect(l.lines()).toHaveLength(2);
    expect(app.received).toHaveLength(forwarded);

    const exit = await l.stop();
    expect(exit.code, exit.stderr).toBe(130);
    expect(await portClosed(l.port)).toBe(true);
  });

  it('--json: one JSON line for the accepted event; the fuller copy of the page is accepted too', async () => {
    const l = await listenInProcess(['--json'], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: SECRET }, clock: clock() });
    const body = fixtureBytes('webhook-transfer-initiated');
    const res = await postRaw(l.url, body, { 'content-type': 'application/json', signature: hexSig(SECRET, body) });
    expect(res.status).toBe(200);
    const first = (await l.waitFor(() => l.lines().length >= 1 && l.lines(), 'the JSON line'))[0]!;
    const doc = JSON.stringify(JSON.parse(first));
    expect(doc).toContain('transfer.initiated');
    expect(doc).toContain(EVENT_TXN);
    expect(doc).toContain(EVENT_ID);

    // The later stored copy: currency given, so the amount can be shown with its digits.
    const full = fixtureBytes('webhook-transfer-initiated-full');
    const res2 = await postRaw(l.url, full, { 'content-type': 'application/json', signature: hexSig(SECRET, full) });
    expect(res2.status).toBe(200);
    await l.waitFor(() => l.lines().length >= 2, 'the second JSON line');
    const second = JSON.parse(l.lines()[1]!);
    expect(JSON.stringify(second)).toContain(EVENT_TXN);

    // A wrong signature with --json: refused, a JSON line on stderr, nothing on stdout.
    const wrong = await postRaw(l.url, full, { 'content-type': 'application/json', signature: hexSig('whsec_someone_else', full) });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    expect(wrong.status).toBeLessThan(500);
    await l.waitFor(() => /"rejected"/.test(l.stderr()), 'the rejected JSON line');
    expect(l.lines()).toHaveLength(2);

    const exit = await l.stop();
    expect(exit.code, exit.stderr).toBe(130);
  });

  it('the text line of the fuller copy shows the amount with the currency’s digits', async () => {
    const l = await listenInProcess([], { dir: configDir(), env: { PAYCTL_WEBHOOK_SECRET: SECRET }, clock: clock() });
    const full = fixtureBytes('webhook-transfer-initiated-full');
    const res = await postRaw(l.url, full, { 'content-type': 'application/json', signature: hexSig(SECRET, full) });
    expect(res.status).toBe(200);
    const line = (await l.waitFor(() => l.lines().length >= 1 && l.lines(), 'the event line'))[0]!;
    expect(line).toContain('transfer.initiated');
    expect(line).toContain(EVENT_TXN);
    expect(line).toContain('10.00 SLE');
    expect(line).toContain('Pending');
    await l.stop();
  });
});
