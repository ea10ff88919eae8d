/**
 * In process (payctl's main with in-memory streams, the sandbox over real HTTP).
 * What reaches the terminal is safe: service text without escape sequences, control
 * or bidi characters; CSV cells neutralized against formulas; --verbose without the
 * key (the bearer token: there is no other); plain http:// to a non-loopback host refused before anything is
 * sent; errors with --json as one JSON document on stderr.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { api, freshWallet, payoutBody, useSandbox } from '../helpers/sandbox.js';
import { configFile, expectNoSecrets, lastBearer, newKey, oneJson, readProfile, since, useConfigDir, writeProfile, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const EVIL = 'Evil\u001b[31m\u001b]0;pwned\u0007\u009b2J\u202eName';

const run = (...args: string[]) => payctl(args, { dir: cfg.dir });
const sandboxUrl = (): string => ctx.sb.baseUrl;

beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));
afterEach(() => ctx.sb.faults.clear());

/** No ESC, BEL, 8-bit CSI (raw or as UTF-8) or RIGHT-TO-LEFT OVERRIDE anywhere in the output. */
function expectNoControlBytes(r: Run): void {
  for (const [name, bytes] of [
    ['stdout', r.stdoutBytes],
    ['stderr', r.stderrBytes],
  ] as const) {
    expect(bytes.includes(0x1b), `${name} has ESC`).toBe(false);
    expect(bytes.includes(0x07), `${name} has BEL`).toBe(false);
    expect(bytes.includes(0x9b), `${name} has 0x9b`).toBe(false);
    expect(bytes.includes(Buffer.from('\u202e')), `${name} has U+202E`).toBe(false);
    // Other C0/C1 controls and bidi controls (CR is allowed: CSV rows end in CRLF).
    expect(bytes.toString('utf8')).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  }
}

/** Creates a payout straight on the sandbox (as another client would: this config folder's journal does not know it). */
async function createPayout(walletId: string, name: string, note: string): Promise<{ transaction_id: string; payout_id: string }> {
  const body = payoutBody(walletId, { amount: 1200.5 });
  body.recipient.accountDetails.name = name;
  body.recipient.accountDetails.note = note;
  const res = await api(ctx.sb, 'POST', '/payout', { body, idempotencyKey: randomUUID() });
  expect(res.status).toBe(201);
  return { transaction_id: res.body.data.transaction_id, payout_id: body.payoutId };
}

describe('escape sequences from the service', () => {
  let evilWallet: string;
  let evilPayout: { transaction_id: string; payout_id: string };
  beforeAll(async () => {
    evilWallet = ctx.sb.setWallet({ wallet_name: EVIL, currency: 'SLE', balance: '500000' }).wallet_id;
    evilPayout = await createPayout(evilWallet, EVIL, `note\u001b[2J\u001b]8;;http://evil\u0007link\u202e`);
  });

  it('a wallet name full of escapes renders in balances without any of them', async () => {
    const r = await run('balances');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expectNoControlBytes(r);
    expect(r.stdout).toMatch(new RegExp(`^${evilWallet}\\s+EvilName\\s+SLE\\s+`, 'm'));
    const one = await run('balances', '--wallet', evilWallet);
    expect(one.code, one.stderr).toBe(0);
    expectNoControlBytes(one);
    expect(one.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('a recipient name and note full of escapes render in payout get (by transaction id) without any of them', async () => {
    for (const args of [[evilPayout.transaction_id], [evilPayout.transaction_id.toLowerCase()]]) {
      const r = await run('payout', 'get', ...args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expectNoControlBytes(r);
      expect(r.stdout).toMatch(/^Recipient\s+EvilName$/m);
      expect(r.stdout).toMatch(/^Note\s+notelink$/m);
      expect(r.stdout).toContain(evilPayout.transaction_id);
    }
  });

  it('an id payout get cannot look up, full of escapes, is echoed without any of them (exit 1, nothing sent)', async () => {
    const from = ctx.sb.requests().length;
    for (const id of [evilPayout.payout_id, `po\u001b]0;pwned\u0007\u202eid`]) {
      const r = await run('payout', 'get', id);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expectNoControlBytes(r);
    }
    expect(since(ctx.sb, from).filter((x) => x.path.startsWith('/v2/payout'))).toEqual([]);
  });

  it('the list table and its CSV carry none of them either', async () => {
    const t = await run('payouts', 'list', '--wallet', evilWallet);
    expect(t.code, t.stderr).toBe(0);
    expectNoControlBytes(t);
    // The list record has no payout id (docs/service.md): the row shows the wallet it was paid from.
    expect(t.stdout).toMatch(new RegExp(`${evilPayout.transaction_id}\\s+${evilWallet}\\s+EvilName\\s+1,200\\.50 SLE\\s+Pending$`, 'm'));
    expect(t.stdout).not.toContain(evilPayout.payout_id);
    const c = await run('payouts', 'list', '--wallet', evilWallet, '--csv');
    expect(c.code, c.stderr).toBe(0);
    expectNoControlBytes(c);
    expect(c.stdout).toContain(',EvilName,');
  });

  it('an error message from the service is sanitized too', async () => {
    ctx.sb.faults.add({ kind: 'status', status: 422, path: '/v2/wallets/balances', message: `Bad\u001b[31m wallet\u0007\u202e` });
    const r = await run('balances');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expectNoControlBytes(r);
    expect(r.stderr).toContain('Error: Bad wallet\n');
  });
});

describe('CSV formula injection', () => {
  it('a cell starting with = (or +, -, @) is neutralized with a leading quote', async () => {
    const w = freshWallet(ctx.sb, '100000');
    const p = await createPayout(w, '=HYPERLINK("http://x")', '@SUM(A1)');
    const r = await run('payouts', 'list', '--wallet', w, '--csv');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\r\n');
    expect(lines).toHaveLength(3); // header, one row, and the empty string after the last CRLF
    const row = lines[1]!;
    // No payout id in the list record (another client's payout); the provider is the look-up's `bank`, and it has no phone.
    expect(row).toContain(`,${p.transaction_id},,${w},Pending,1200.50,`);
    expect(row).not.toContain(p.payout_id);
    expect(row).toContain(`,"'=HYPERLINK(""http://x"")",ORANGE_MONEY,076123456,,'@SUM(A1),`);
    // No cell of the row starts with a formula character (a phone number's + followed by digits only is not one).
    expect(row).not.toMatch(/(^|,)"?([=@-]|\+(?![0-9 ]+(,|$)))/);

    // People see the name as it is in the table.
    const t = await run('payouts', 'list', '--wallet', w);
    expect(t.stdout).toContain('=HYPERLINK("http://x")');
  });
});

describe('--verbose', () => {
  it('logs requests and responses on stderr, but never the key, which is the bearer token', async () => {
    // Login: the key goes out as the bearer of GET /auth/user; nothing comes back to store but the key.
    const login = await payctl(['login', '--api-key-stdin', '--verbose', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).toContain(`> GET ${ctx.sb.baseUrl}/auth/user\n`);
    expect(login.stderr).toContain('> authorization: Bearer ***\n');
    expect(login.stderr).toMatch(/^> idempotency-key: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/m);
    expect(login.stderr).toMatch(/^< 200 \(\d+ ms\)$/m);
    expect(login.stderr).toContain('"message":"User Authenticated successfully"');
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    expect(lastBearer(ctx.sb)).toBe(KEY);
    expectNoSecrets(login, [KEY]);

    // A call with the saved key: the same key as the bearer, masked in the log.
    const r = await run('balances', '-v');
    expect(r.code, r.stderr).toBe(0);
    expect(lastBearer(ctx.sb)).toBe(KEY);
    expect(r.stdout).toMatch(/^WALLET\s+NAME/);
    expect(r.stdout).not.toContain('> GET');
    expect(r.stderr).toContain(`> GET ${ctx.sb.baseUrl}/wallets/balances\n`);
    expect(r.stderr).toContain('> authorization: Bearer ***\n');
    expect(r.stderr).toMatch(/^< 200 \(\d+ ms\)$/m);
    expect(r.stderr).toMatch(/^< x-request-id: req_[0-9a-f]{24}$/m);
    expect(r.stderr).toContain('"message":"Balances retrieved"');
    expectNoSecrets(r, [KEY]);

    // A POST body is logged too (the summary is asked with the documented `{}`).
    const s = await run('summary', '--verbose');
    expect(s.code, s.stderr).toBe(0);
    expect(s.stderr).toContain(`> POST ${ctx.sb.baseUrl}/payout/summary\n`);
    expect(s.stderr).toContain('> {}\n');
    expectNoSecrets(s, [KEY]);
  });

  it('a refused key: the 401 logged, the key masked in the request and nowhere in clear', async () => {
    const wrong = newKey();
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: wrong });
    const r = await run('balances', '-v');
    expect(r.code, r.stderr).toBe(3);
    expect(lastBearer(ctx.sb)).toBe(wrong);
    expect(r.stderr).toContain('> authorization: Bearer ***\n');
    expect(r.stderr).toMatch(/^< 401 \(\d+ ms\)$/m);
    expect(r.stderr).toContain('Error: The service refused the API key (Unauthenticated.).');
    expectNoSecrets(r, [wrong, KEY]);
  });

  it('with the key in PAYCTL_API_KEY and a retired PAYCTL_TOKEN set, neither appears, and the token is not sent', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl });
    const token = `tok_${randomUUID().replace(/-/g, '')}`;
    const from = ctx.sb.requests().length;
    const r = await payctl(['payouts', 'list', '--limit', '2', '-v'], { dir: cfg.dir, env: { PAYCTL_TOKEN: token, PAYCTL_API_KEY: KEY } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('PAYCTL_TOKEN is no longer used');
    expect(lastBearer(ctx.sb)).toBe(KEY);
    for (const x of since(ctx.sb, from)) expect(JSON.stringify(x)).not.toContain(token);
    expect(r.stderr).toContain('> authorization: Bearer ***\n');
    expectNoSecrets(r, [KEY, token]);
  });
});

describe('plain http:// to a host that is not loopback', () => {
  const BAD = 'http://payctl-e2e.invalid/v2';
  it.each([
    ['--base-url', ['balances', '--base-url', BAD], {}, sandboxUrl, 'Error: Refusing'],
    ['PAYCTL_BASE_URL', ['payouts', 'list'], { PAYCTL_BASE_URL: BAD }, sandboxUrl, 'Error: PAYCTL_BASE_URL cannot be used: refusing'],
    ['the profile', ['summary'], {}, (): string => BAD, 'Error: The base URL of profile "default" cannot be used: refusing'],
  ] as const)('from %s: refused with exit 2 saying where it came from, nothing sent, TLS asked for', async (_from, args, env, profileUrl, said) => {
    writeProfile(cfg.dir, { baseUrl: profileUrl(), apiKey: KEY });
    const from = ctx.sb.requests().length;
    const r = await payctl([...args], { dir: cfg.dir, env: { ...env } });
    // A name that cannot resolve: had a connection been tried, this would be exit 4.
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${said} to send credentials over plain http:// to payctl-e2e.invalid. Nothing was sent.`);
    expect(r.stderr).toContain('Use https://');
    expect(since(ctx.sb, from)).toEqual([]);
    expectNoSecrets(r, [KEY]);
  });

  it('login refuses it before reading or sending the key, and saves nothing', async () => {
    const fresh = `${cfg.dir}/fresh`;
    const r = await payctl(['login', '--api-key-stdin', '--base-url', 'http://example.invalid/v2'], { dir: fresh, input: KEY });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/https:\/\//);
    expect(existsSync(configFile(fresh)) ? readProfile(fresh) : undefined).toBeUndefined();
  });

  it('--json: the refusal as {"error":{...}} on stderr', async () => {
    const r = await run('balances', '--json', '--base-url', 'http://example.invalid/v2');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const doc = JSON.parse(r.stderr);
    expect(doc.error.code).toBe('USAGE_ERROR');
    expect(doc.error.message).toContain('plain http://');
    expect(doc.error.hint).toContain('https://');
  });
});

describe('errors with --json', () => {
  it('a service error: one JSON document on stderr with message, status, code, request_id, errors, hint', async () => {
    ctx.sb.faults.add({ kind: 'status', status: 404, path: '/v2/payout/list', code: 'NOT_FOUND', message: 'Gone.' });
    const r = await run('payouts', 'list', '--json');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.endsWith('\n')).toBe(true);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    const doc = JSON.parse(r.stderr);
    expect(Object.keys(doc)).toEqual(['error']);
    expect(doc.error).toEqual({ message: 'Gone.', status: 404, code: 'NOT_FOUND', request_id: expect.stringMatching(/^req_[0-9a-f]{24}$/), errors: [], hint: null });
  });

  it('a usage error: {"error":{...}} with the problems, and no human text', async () => {
    const r = await run('payouts', 'list', '--json', '--from', 'yesterday', '--currency', 'XXQ');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const doc = JSON.parse(r.stderr);
    expect(doc.error.code).toBe('USAGE_ERROR');
    // Each problem names its flag in field; the message is without it.
    expect(doc.error.errors).toEqual([
      { field: '--from', message: '"yesterday" is not a date (2026-11-01) or an ISO timestamp (2026-11-01T10:00:00Z)' },
      { field: '--currency', message: '"XXQ" is not an ISO 4217 currency code' },
    ]);
    const unknown = await run('balance', '--json');
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(JSON.parse(unknown.stderr).error.message).toContain("unknown command 'balance'");
  });

  it('not logged in: exit 3 with code UNAUTHORIZED and a hint', async () => {
    writeProfile(cfg.dir, {});
    const r = await run('balances', '--json');
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    const doc = oneJson(r.stderr);
    expect(doc.error.code).toBe('UNAUTHORIZED');
    expect(doc.error.hint).toContain('payctl login');
  });
});
