/**
 * Hostile services (issue 11), in process (payctl's main with in-memory streams): answers
 * that drip forever, a Retry-After: 0 storm, a 2xx that describes another payout,
 * services that echo the key (the bearer token: docs/service.md) back, a profile's key
 * offered to another --base-url, redirects (said, never followed) and an envelope without data. Small node:http servers (test/helpers/hostile.ts) play the
 * hostile service, or stand in for the documented one;
 * for payouts, a forwarding proxy in front of the real in-process sandbox rewrites one
 * answer. What needs a process (peak RSS, a full tmpfs, commands run as printed by a
 * shell) is in test/e2e/hostile-service.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { configFile, expectNoSecrets, newKey, readProfile, writeLoggedIn, writeProfile, writeProfiles, type Run } from '../helpers/e2e.js';
import { shellSplit } from '../helpers/pty.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { sizeWords } from '../../src/config/regular-file.js';
import { TestClock } from '../helpers/clock.js';
import {
  configDir,
  deferCleanup,
  expectDocumentedHeaders,
  expectNoCrash,
  heldFor,
  hostile,
  hostileProfile,
  journalOf,
  json,
  payoutArgs,
  sandboxProxy,
  standIn,
  useHostileCleanups,
} from '../helpers/hostile.js';

const ctx = useSandbox();

afterEach(() => ctx.sb.faults.clear());
useHostileCleanups();

describe('answers that never end', () => {
  it('a 200 that drips one byte every 500 ms: --timeout 2 ends within 3.5 s with exit 4, one request, text and --json', async () => {
    const timers = new Set<NodeJS.Timeout>();
    const h = await hostile((req, res) => {
      if (!req.url?.startsWith('/v2/wallets/balances')) return json(res, 404, { status: 'error', message: 'no' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      res.write('{');
      const t = setInterval(() => res.write(' '), 500);
      timers.add(t);
      res.on('close', () => clearInterval(t));
    });
    deferCleanup(() => timers.forEach((t) => clearInterval(t)));
    const dir = configDir();
    const { key } = hostileProfile(dir, h);

    // From the moment the request reached the server to the end of the run: within --timeout + 1 s
    // (real time: the server drips for real). The start-to-end time gets a loose bound too.
    const text = await payctl(['balances', '--timeout', '2'], { dir });
    const textEnd = Date.now();
    expect(text.stderr).toMatch(/did not finish within 2 s/);
    expect(text.code, text.stderr).toBe(4);
    expect(textEnd - h.seen[0]!.at).toBeLessThan(3000);
    expect(textEnd - h.seen[0]!.at).toBeGreaterThanOrEqual(1900);
    expect(text.ms).toBeLessThan(6000);
    expect(text.stdout).toBe('');
    expectNoCrash(text);
    expect(h.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /v2/wallets/balances']);

    const js = await payctl(['balances', '--timeout', '2', '--json'], { dir });
    const jsEnd = Date.now();
    expect(js.code, js.stderr).toBe(4);
    expect(h.seen).toHaveLength(2);
    expect(jsEnd - h.seen[1]!.at).toBeLessThan(3000);
    expect(js.ms).toBeLessThan(6000);
    expect(js.stdout).toBe('');
    const err = JSON.parse(js.stderr) as { error: { message: string } };
    expect(err.error.message).toMatch(/did not finish within 2 s/);
    // Both asked as the documentation asks: the key as the bearer, an Idempotency-Key each.
    expectDocumentedHeaders(h.seen, key);
    expect(h.seen[0]!.headers['idempotency-key']).not.toBe(h.seen[1]!.headers['idempotency-key']);
  });
});

describe('Retry-After: 0 storm', () => {
  it('PAYCTL_MAX_RESPONSE_BYTES under a MiB is named in bytes ("larger than 100 bytes"), never "0 MiB"', async () => {
    const dir = configDir();
    writeProfile(dir, { baseUrl: ctx.sb.baseUrl, apiKey: ctx.sb.apiKey });
    const r = await payctl(['balances'], { dir, env: { PAYCTL_MAX_RESPONSE_BYTES: '100' } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('(HTTP 200) is larger than 100 bytes; payctl stopped reading it.');
    // A value that is not a whole number of bytes is refused before anything is sent, never the default in silence.
    const from = ctx.sb.requests().length;
    for (const bad of ['0', 'abc', '1e3', ' 100', '-5', '99999999999999999999']) {
      const refused = await payctl(['balances'], { dir, env: { PAYCTL_MAX_RESPONSE_BYTES: bad } });
      expect(refused.code, `${bad}: ${refused.stderr}`).toBe(2);
      expect(refused.stderr).toContain(`PAYCTL_MAX_RESPONSE_BYTES is "${bad}": it must be a whole number of bytes, at least 1 (digits only). Nothing was sent.`);
    }
    expect(ctx.sb.requests().length).toBe(from);
    expect(sizeWords(1_500_000)).toBe('1,500,000 bytes');
    expect(sizeWords(2048)).toBe('2 KiB');
    expect(sizeWords(64 << 20)).toBe('64 MiB');
  });

  it('every request answered 429 Retry-After: 0: gives up after at most 4 requests, at least 250 ms apart', async () => {
    // Laravel's throttle answer.
    const h = await hostile((_req, res) => json(res, 429, { message: 'Too Many Attempts.' }, { 'retry-after': '0' }));
    const dir = configDir();
    hostileProfile(dir, h);

    // The server answers at once: the waits are payctl's own, asked of the clock and recorded.
    const clock = new TestClock();
    const r = await payctl(['balances'], { dir, clock });
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('HTTP 429');
    expectNoCrash(r);
    expect(h.seen.length).toBeGreaterThanOrEqual(2);
    expect(h.seen.length).toBeLessThanOrEqual(4);
    // Retry-After: 0 still waits the 250 ms floor before each new request: 3 waits of 250 ms.
    expect(clock.waits).toHaveLength(h.seen.length - 1);
    expect(clock.waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3 * 250);
    for (const w of clock.waits) expect(w).toBeGreaterThanOrEqual(250);
  });
});

describe('a 2xx payctl cannot trust is an unknown outcome, never "refused"', () => {
  it('a 201 whose JSON describes another payout (payout id, amount or currency rewritten): exit 4 "answered about a different payout"', async () => {
    const sb = ctx.sb;
    const rewrites: Array<[string, (data: Record<string, unknown>) => void]> = [
      ['otherid', (d) => (d.payout_id = randomUUID())],
      ['otheramount', (d) => (d.amount = 9999.99)],
      ['othercurrency', (d) => (d.currency = 'USD')],
    ];
    for (const [name, change] of rewrites) {
      const proxy = await sandboxProxy(sb);
      const dir = configDir();
      const p = await writeLoggedIn(sb, dir);
      writeProfile(dir, { ...p, baseUrl: proxy.baseUrl });
      const wallet = freshWallet(sb, '1000.00', 'SLE');
      const id = `${name}-${randomUUID()}`;
      proxy.rewriteNextPayout((status, raw) => {
        expect(status).toBe(201);
        const answer = JSON.parse(raw) as { data: Record<string, unknown> };
        change(answer.data);
        return { status: 201, body: JSON.stringify(answer), contentType: 'application/json' };
      });

      const r = await payctl(payoutArgs(wallet, id), { dir });
      expect(proxy.rewritten, r.stderr).toBe(1);
      expect(r.stderr, name).toContain('the service answered about a different payout');
      expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
      expect(r.stderr).toContain('Retry safely');
      expect(r.code, r.stderr).toBe(4);
      expectNoCrash(r);
      expect(heldFor(sb, id)).toHaveLength(1);
      expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('unknown');
    }
  });
});

describe('GET /auth/user answering an account that says nothing of whose it is', () => {
  it('login saves nothing and exits 1, as README says; status does not call the key valid (probe 51-I: "✓ Logged in", key saved)', async () => {
    for (const data of [{}, { kycStatus: 'Verified' }, { email: '  ', businessName: null }]) {
      const key = newKey();
      const h = await hostile((req, res) => json(res, 200, { status: 'Successful', message: 'User Authenticated successfully', data }));
      const dir = configDir();
      const login = await payctl(['login', '--base-url', h.baseUrl], { dir, env: { PAYCTL_API_KEY: key } });
      expect(login.code, `${JSON.stringify(data)}: ${login.stderr}`).toBe(1);
      expect(login.stderr).not.toContain('Logged in');
      expect(readProfile(dir)?.apiKey).toBeUndefined();
      hostileProfile(dir, h, key);
      const status = await payctl(['status'], { dir });
      expect(status.code, status.stderr).not.toBe(0);
      expect(status.stdout + status.stderr).not.toContain('Credentials valid');
    }
  });
});

describe('GET /auth/user answering an envelope without data', () => {
  it('status and login say in a sentence that the field is missing (not "expected nonoptional, received undefined"); exit 1, nothing saved', async () => {
    const h = await hostile((_req, res) => json(res, 200, { status: 'Successful', message: 'User Authenticated successfully' }));
    const dir = configDir();
    const key = newKey();
    const login = await payctl(['login', '--base-url', h.baseUrl], { dir, env: { PAYCTL_API_KEY: key } });
    expect(login.code, login.stderr).toBe(1);
    expect(readProfile(dir)?.apiKey).toBeUndefined();
    hostileProfile(dir, h, key);
    const status = await payctl(['status'], { dir });
    expect(status.code, status.stderr).toBe(1);
    for (const r of [login, status]) {
      expect(r.stderr).toContain('Error: The service sent a response that payctl does not understand: the field "data" is missing.\n');
      expect(r.stderr).not.toContain('nonoptional');
    }
  });
});

describe('a redirect from the service', () => {
  it.each([301, 302, 303, 307, 308])('HTTP %i is said to be a redirect, naming where to (masked), and not followed: the key goes nowhere else (exit 1)', async (code) => {
    const elsewhere = await hostile((_req, res) => json(res, 200, { status: 'Successful', data: [] }));
    const h = await hostile((_req, res) =>
      res.writeHead(code, { location: `http://admin:pw@127.0.0.1:${new URL(elsewhere.url).port}/v3/wallets/balances\u009b2J` }).end(),
    );
    const dir = configDir();
    const { key } = hostileProfile(dir, h);
    const r = await payctl(['balances'], { dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `Error: The service answered HTTP ${code}, a redirect to "http://****@127.0.0.1:${new URL(elsewhere.url).port}/v3/wallets/balances": payctl does not follow redirects (the API key goes only to the base URL's origin).\n`,
    );
    expect(r.stderr).toContain('If the service has moved, the base URL needs changing: log in again with the new one');
    expect(r.stderr).not.toContain('pw@');
    expect(r.stderr).not.toContain('not JSON');
    expect(elsewhere.seen).toEqual([]);
    expect(h.seen).toHaveLength(1);
    expectNoSecrets(r, [key]);
  });

  it('without a Location: said so', async () => {
    const h = await hostile((_req, res) => res.writeHead(302).end());
    const dir = configDir();
    hostileProfile(dir, h);
    const r = await payctl(['balances'], { dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('Error: The service answered HTTP 302, a redirect without a Location: payctl does not follow redirects');
  });
});

describe('a currency code written with white space or in lower case', () => {
  it('is the currency: one SLE total in a computed summary, and --currency SLE keeps every SLE payout (probe 51-I: "SLE " split off, dropped)', async () => {
    const record = (id: string, amount: string, currency: string) => ({
      transaction_id: `TXN-BOK-${id}`,
      status: 'successful',
      amount,
      currency,
      created_at: '2026-11-05T10:00:00Z',
      recipient: { name: id, account_number: '0011223344' },
    });
    const h = await hostile((req, res) =>
      json(res, 200, {
        status: 'Successful',
        message: 'ok',
        data: {
          current_page: 1,
          last_page: 1,
          next_page_url: null,
          data: [record('1', '1,000.00', 'SLE'), record('2', '500.00', 'SLE '), record('3', '250.00', 'sle')],
        },
      }),
    );
    const dir = configDir();
    hostileProfile(dir, h);
    const summary = await payctl(['summary', '--from', '2026-11-01', '--json'], { dir });
    expect(summary.code, summary.stderr).toBe(0);
    expect(summary.stdout).toContain('"1750.00"');
    expect(summary.stdout).not.toContain('"1250.00"');
    const list = await payctl(['payouts', 'list', '--currency', 'SLE', '--json'], { dir });
    expect(list.code, list.stderr).toBe(0);
    for (const id of ['TXN-BOK-1', 'TXN-BOK-2', 'TXN-BOK-3']) expect(list.stdout).toContain(id);
  });
});

describe("the service's error text is one line of payctl's message", () => {
  it('a 422 whose message holds line breaks cannot print lines of its own ("✓ … is Successful."): text and --json', async () => {
    const dir = configDir();
    writeProfile(dir, { baseUrl: ctx.sb.baseUrl, apiKey: ctx.sb.apiKey });
    const forged = 'Recipient account could not be verified\n\u2713 Payout FL-1 submitted.\r\n\u2713 Payout FL-1 is Successful.\u2028done';
    for (const json of [false, true]) {
      ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 422, code: 'ACCOUNT_UNVERIFIED', message: forged });
      const r = await payctl([...payoutArgs(freshWallet(ctx.sb, '1000.00'), `FL-${randomUUID()}`), ...(json ? ['--json'] : [])], { dir });
      expect(r.code, r.stderr).toBe(1);
      // Before: "\n✓ Payout FL-1 submitted.\n✓ Payout FL-1 is Successful." on lines of their own.
      expect(r.stderr).not.toMatch(/\n\s*\u2713/);
      expect(r.stderr).toContain('Recipient account could not be verified \u2713 Payout FL-1 submitted.');
    }
  });
});

describe('the key echoed back by the service is never printed', () => {
  // The key is the bearer token (there is no token exchange): a service, or a proxy in front of
  // it, that repeats the Authorization header repeats the key. The servers answer at once: retry
  // waits are payctl's own back-off, on a TestClock.
  const TXN = 'TXN-BOK-83BD4FB5EF52C8CB2329510901';

  it('a 401 "Unauthenticated <key>" and a 502 HTML page with "authorization: Bearer <key>": masked in balances, --json, payout get, status', async () => {
    const key = newKey();
    const echo401 = await hostile((req, res) =>
      json(res, 401, { message: `Unauthenticated. Key ${key} is not valid (authorization: ${String(req.headers.authorization)})` }),
    );
    const echo502 = await hostile((req, res) => {
      const page = `<html><body>authorization: ${String(req.headers.authorization)}<br>key: ${key}</body></html>`;
      res.writeHead(502, { 'content-type': 'text/html' }).end(page);
    });
    const commands = [['balances'], ['balances', '--json'], ['payout', 'get', TXN], ['status']];
    const runs: Array<Promise<[string, Run]>> = [];
    for (const h of [echo401, echo502]) {
      const dir = configDir();
      hostileProfile(dir, h, key);
      for (const args of commands) runs.push(payctl(args, { dir, clock: new TestClock() }).then((r) => [`${h === echo401 ? '401' : '502'} ${args.join(' ')}`, r]));
    }
    for (const [name, r] of await Promise.all(runs)) {
      expect(r.code, `${name}: ${r.stderr}`).not.toBe(0);
      // A refused key is exit 3; a service failing with 502 (after retries) is exit 1.
      expect(r.code, `${name}: ${r.stderr}`).toBe(name.startsWith('401') ? 3 : 1);
      expectNoSecrets(r, [key]);
      // The echoed text did reach the output, masked.
      expect(r.stdout + r.stderr, name).toContain('***');
      expectNoCrash(r);
    }
    const text401 = (await Promise.all(runs)).find(([name]) => name === '401 balances')![1];
    expect(text401.stderr).toContain('Error: The service refused the API key (Unauthenticated. Key *** is not valid (authorization: Bearer ***)).');
    expect(text401.stderr).toContain('Run `payctl login` with a valid key.');
    // Every request was asked as documented, at the documented paths: the key sent as the bearer, nowhere else.
    expectDocumentedHeaders([...echo401.seen, ...echo502.seen], key);
    const paths = new Set([...echo401.seen, ...echo502.seen].map((s) => `${s.method} ${s.url}`));
    expect([...paths].sort()).toEqual(['GET /v2/auth/user', `GET /v2/payout/${TXN}`, 'GET /v2/wallets/balances']);
    for (const s of [...echo401.seen, ...echo502.seen]) expect(s.url + s.body).not.toContain(key);
    expect(echo502.seen.length).toBeGreaterThanOrEqual(4);
  });

  it('the key echoed encoded (base64, base64url, Basic, hex, percent) or with U+200B inside: masked in payout create and get, --json, --verbose', async () => {
    const sb = ctx.sb;
    const key = sb.apiKey;
    const b = Buffer.from(key);
    const forms = {
      base64: b.toString('base64'),
      base64url: b.toString('base64url'),
      basic: Buffer.from(`ops:${key}`).toString('base64'),
      hex: b.toString('hex'),
      HEX: b.toString('hex').toUpperCase(),
      percent: b.toString('hex').replace(/../g, '%$&'),
      zwsp: `${key.slice(0, 6)}\u200b${key.slice(6)}`,
      tags: `${key.slice(0, 3)}\u{e0020}\u2060${key.slice(3)}`,
    };
    const echo = Object.entries(forms)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    const proxy = await sandboxProxy(sb);
    proxy.rewriteEveryPayout(() => ({ status: 422, body: JSON.stringify({ message: `The recipient is invalid (${echo}).` }), contentType: 'application/json' }));
    const get = await hostile((_req, res) => json(res, 404, { message: `No such payout for ${echo}.` }));
    const dir = configDir();
    const p = await writeLoggedIn(sb, dir);
    writeProfile(dir, { ...p, baseUrl: proxy.baseUrl });
    const wallet = freshWallet(sb, '1000.00', 'SLE');
    const runs: Array<[string, Run]> = [];
    for (const extra of [[], ['--json'], ['--verbose']]) {
      runs.push([`create ${extra.join(' ')}`, await payctl([...payoutArgs(wallet, randomUUID()), ...extra], { dir, clock: new TestClock() })]);
      const other = configDir();
      hostileProfile(other, get, key);
      runs.push([`get ${extra.join(' ')}`, await payctl(['payout', 'get', 'TXN-BOK-83BD4FB5EF52C8CB2329510901', ...extra], { dir: other, clock: new TestClock() })]);
    }
    for (const [name, r] of runs) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      const out = r.stdout + r.stderr;
      for (const [form, v] of Object.entries(forms)) {
        // Basic's base64 keeps what encodes "ops:" alone.
        expect(out, `${name}: ${form}`).toMatch(new RegExp(`${form}=(b3BzO[a-zA-Z0-9])?\\*\\*\\*`));
        expect(out, `${name}: ${form}`).not.toContain(v.slice(4, 20));
      }
      expectNoSecrets(r, [key]);
      expectNoCrash(r);
    }
  });

  it("another profile's key, webhook secret and ledger password, kept in the config file, echoed by the service of the run's profile: masked", async () => {
    const key = newKey();
    const other = { apiKey: newKey(), webhookSecret: 'whsec_other_0123456789', ledger: 'postgres://team:Ledger-Pass-4411@db.example.com/payctl' };
    const h = await hostile((_req, res) =>
      json(res, 401, { message: `Unauthenticated. Try ${other.apiKey} or ${other.webhookSecret}, or ${encodeURIComponent('Ledger-Pass-4411')}.` }),
    );
    const dir = configDir();
    writeProfiles(dir, { default: { baseUrl: h.baseUrl, apiKey: key }, ops: { baseUrl: 'https://api.example.com/v2', ...other } });
    for (const args of [['balances'], ['balances', '--json']]) {
      const r = await payctl(args, { dir, clock: new TestClock() });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain('Unauthenticated. Try *** or ***, or ***.');
      expectNoSecrets(r, [key, other.apiKey, other.webhookSecret, 'Ledger-Pass-4411']);
    }
  });

  it('the key cut in half by the 120-character excerpt of a non-JSON body: no part of it is printed', async () => {
    const key = newKey();
    // The excerpt of the body is `<html><body>` + pad + ` authorization: Bearer <key> key=<key>`, cut at
    // 120 characters: pad 60 cuts the first key after 25 characters (10 of its random part), pad 20 the second.
    const runs: Array<Promise<[string, Run]>> = [];
    for (const pad of [60, 20]) {
      const h = await hostile((req, res) => {
        res
          .writeHead(502, { 'content-type': 'text/html' })
          .end(`<html><body>${'x'.repeat(pad)} authorization: ${String(req.headers.authorization)} key=${key}</body></html>`);
      });
      const dir = configDir();
      hostileProfile(dir, h, key);
      for (const args of [['balances'], ['balances', '--json']])
        runs.push(payctl(args, { dir, clock: new TestClock() }).then((r) => [`pad ${pad}: ${args.join(' ')}`, r]));
    }
    for (const [name, r] of await Promise.all(runs)) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr, name).toContain('HTTP 502');
      expectNoSecrets(r, [key]);
      // No run of 10 characters from the random part of the key.
      const out = r.stdout + r.stderr;
      const s = key.slice('sk_sandbox_e2e_'.length);
      for (let i = 0; i + 10 <= s.length; i++) expect(out, `${name}: leaks ${s.slice(i, i + 10)} of the key:\n${r.stderr}`).not.toContain(s.slice(i, i + 10));
    }
  });

  it('a numeric key that is also an amount ("250000"): the answer is read, its amounts kept as sent, the key masked in its strings', async () => {
    // Not JSON once masked (`***.00`, `"balance":***`): masked where an echoed key would be, in strings.
    const key = '250000';
    for (const balance of [250000, 1250000.5]) {
      const s = await standIn(key, { balance });
      const dir = configDir();
      hostileProfile(dir, s, key);
      const text = await payctl(['balances'], { dir });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain(balance === 250000 ? '250,000.00' : '1,250,000.50');
      const asJson = await payctl(['balances', '--json'], { dir });
      expect(asJson.code, asJson.stderr).toBe(0);
      expect(JSON.parse(asJson.stdout)).toMatchObject({ data: [{ balance }] });
    }
    // CSV and text: an amount or an account that holds the key's digits is printed whole (`***.52` and `1***` before).
    const csvIn = await standIn(key, { balance: '250000.52', wallet_id: '1250000' });
    const csvDir = configDir();
    hostileProfile(csvDir, csvIn, key);
    const csv = await payctl(['balances', '--csv'], { dir: csvDir });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toMatch(/^1250000,Stand-in Wallet,SLE,250000\.52,/m);
    const table = await payctl(['balances'], { dir: csvDir });
    expect(table.stdout).toMatch(/^1250000 +Stand-in Wallet +SLE +250,000\.52 /m);
    // Echoed in a message: masked there, and the answer still read.
    const h = await hostile((req, res) => json(res, 401, { message: 'Unauthenticated. Key 250000 is not valid', code: 250000 }));
    const dir = configDir();
    hostileProfile(dir, h, key);
    const r = await payctl(['balances'], { dir });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('The service refused the API key (Unauthenticated. Key *** is not valid).');
    expect(r.stderr).not.toContain('not JSON');
  });
});

describe('a profile key is sent only to its own base URL', () => {
  it('--base-url of another server: exit 3 with the PAYCTL_API_KEY hint, nothing reaches it; PAYCTL_API_KEY works there; PAYCTL_TOKEN is not used', async () => {
    const sb = ctx.sb;
    const dir = configDir();
    const profile = await writeLoggedIn(sb, dir);
    const key2 = newKey();
    const two = await standIn(key2, { wallet_id: '5564222970', wallet_name: 'Server Two Wallet', balance: '12.50' });
    const noProfileKey = () => {
      for (const s of two.seen) expect(JSON.stringify(s)).not.toContain(profile.apiKey!);
    };

    const r = await payctl(['balances', '--base-url', two.baseUrl], { dir });
    expect(r.stderr).toContain(`Error: Profile "default" holds a key for ${sb.baseUrl}, not for ${two.baseUrl}: it is not sent there.`);
    expect(r.stderr).toContain(`Set PAYCTL_API_KEY for ${two.baseUrl}, or log in a profile of its own to it: payctl login --profile 127.0.0.1 --base-url ${two.baseUrl}`);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expectNoCrash(r);
    expect(two.seen).toEqual([]);
    // The login printed, run as printed (the key from PAYCTL_API_KEY, as a person types it at the prompt), makes that profile.
    const login = /log in a profile of its own to it: (payctl .*)$/m.exec(r.stderr)![1]!;
    const other = configDir();
    writeProfile(other, profile);
    const made = await payctl(shellSplit(login).slice(1), { dir: other, env: { PAYCTL_API_KEY: key2 } });
    expect(made.code, made.stderr).toBe(0);
    expect(readProfile(other, '127.0.0.1')).toMatchObject({ baseUrl: two.baseUrl, apiKey: key2 });
    two.seen.length = 0;
    // A base URL a shell would read as commands is quoted in it: pasted, it is one word, never run.
    const odd = 'http://127.0.0.1:1/x;touch$IFS/tmp/PWNED;/v2';
    const q = await payctl(['balances', '--base-url', odd], { dir });
    expect(q.code, q.stderr).toBe(3);
    const printed = /log in a profile of its own to it: (payctl .*)$/m.exec(q.stderr)![1]!;
    expect(shellSplit(printed)).toEqual(['payctl', 'login', '--profile', '127.0.0.1', '--base-url', odd]);
    // A profile of that name holding another base URL's key: the printed login names another profile, never replaces it.
    const taken = configDir();
    writeProfiles(taken, { '127.0.0.1': { baseUrl: sb.baseUrl, apiKey: profile.apiKey } });
    const clash = await payctl(['balances', '--profile', '127.0.0.1', '--base-url', two.baseUrl], { dir: taken });
    expect(clash.code, clash.stderr).toBe(3);
    const port = new URL(two.baseUrl).port;
    const suggested = /log in a profile of its own to it: (payctl .*)$/m.exec(clash.stderr)![1]!;
    expect(shellSplit(suggested)).toEqual(['payctl', 'login', '--profile', `127.0.0.1-${port}`, '--base-url', two.baseUrl]);
    expect((await payctl(shellSplit(suggested).slice(1), { dir: taken, env: { PAYCTL_API_KEY: key2 } })).code).toBe(0);
    expect(readProfile(taken, '127.0.0.1')).toMatchObject({ baseUrl: sb.baseUrl, apiKey: profile.apiKey });
    expect(readProfile(taken, `127.0.0.1-${port}`)).toMatchObject({ baseUrl: two.baseUrl, apiKey: key2 });
    // Logged in on purpose over a profile that held another base URL's key: done, and said.
    const over = await payctl(['login', '--profile', '127.0.0.1', '--base-url', two.baseUrl], { dir: taken, env: { PAYCTL_API_KEY: key2 } });
    expect(over.code, over.stderr).toBe(0);
    expect(over.stderr).toContain(`Warning: Profile "127.0.0.1" pointed at ${sb.baseUrl} with a key for it; it now points at ${two.baseUrl}, and that key is replaced.`);
    two.seen.length = 0;
    // An IPv6 host is named as one ("ipv6-1"), not by what is left of it ("1-").
    const v6 = `http://[::1]:${new URL(two.baseUrl).port}/v2`;
    const six = await payctl(['balances', '--base-url', v6], { dir });
    expect(six.code, six.stderr).toBe(3);
    expect(shellSplit(/log in a profile of its own to it: (payctl .*)$/m.exec(six.stderr)![1]!)).toEqual(['payctl', 'login', '--profile', 'ipv6-1', '--base-url', v6]);

    // PAYCTL_TOKEN is retired: it is said to be unused, and never sent as the bearer.
    const retired = await payctl(['balances', '--base-url', two.baseUrl], { dir, env: { PAYCTL_TOKEN: key2 } });
    expect(retired.stderr).toContain('PAYCTL_TOKEN is no longer used: the API key itself is the bearer token. Set PAYCTL_API_KEY');
    expect(retired.code, retired.stderr).toBe(3);
    expect(two.seen).toEqual([]);
    expectNoSecrets(retired, [key2, profile.apiKey]);

    // A wrong key from the environment: the stand-in's 401, and a hint about PAYCTL_API_KEY.
    const wrong = await payctl(['balances', '--base-url', two.baseUrl], { dir, env: { PAYCTL_API_KEY: newKey() } });
    expect(wrong.stderr).toContain('Error: The service refused the API key (Unauthenticated.).');
    // The login command printed for this run carries its --base-url.
    expect(wrong.stderr).toContain(`PAYCTL_API_KEY was refused: set a valid key, or unset it and run \`payctl login --base-url ${two.baseUrl}\`.`);
    expect(wrong.code, wrong.stderr).toBe(3);
    noProfileKey();

    const env = { PAYCTL_API_KEY: key2 };
    const from = two.seen.length;
    const ok = await payctl(['balances', '--base-url', two.baseUrl], { dir, env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^5564222970\s+Server Two Wallet\s+SLE\s+12\.50\s/m);
    const status = await payctl(['status', '--base-url', two.baseUrl], { dir, env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Business\s+Stand-in Payouts Ltd$/m);
    expect(status.stdout).toMatch(/^Wallet ID\s+5564222970$/m);
    const create = await payctl([...payoutArgs('5564222970', randomUUID()), '--base-url', two.baseUrl], { dir, env });
    expect(create.code, create.stderr).toBe(0);
    const [txn] = two.transactions();
    expect(txn).toMatch(/^TXN-BOK-[0-9A-F]{26}$/);
    const get = await payctl(['payout', 'get', txn!, '--base-url', two.baseUrl], { dir, env });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain(txn);
    const list = await payctl(['payouts', 'list', '--base-url', two.baseUrl, '--json'], { dir, env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(txn);
    const summary = await payctl(['summary', '--base-url', two.baseUrl], { dir, env });
    expect(summary.code, summary.stderr).toBe(0);
    for (const run of [ok, status, create, get, list, summary]) expectNoSecrets(run, [key2, profile.apiKey]);
    expectDocumentedHeaders(two.seen.slice(from), key2);
    expect(two.seen.slice(from).map((s) => `${s.method} ${new URL(s.url, two.url).pathname}`)).toEqual([
      'GET /v2/wallets/balances',
      'GET /v2/auth/user',
      // payout create reads the wallet first: its currency is checked before anything is sent.
      'GET /v2/wallets/balances',
      'POST /v2/payout',
      `GET /v2/payout/${txn}`,
      'GET /v2/payout/list',
      'POST /v2/payout/summary',
    ]);
    noProfileKey();
  });

  it('config set base-url of another server while the profile holds a key: exit 2, nothing saved, nothing reaches it; the printed login and logout work as printed', async () => {
    const sb = ctx.sb;
    const dir = configDir();
    const profile = await writeLoggedIn(sb, dir);
    const key2 = newKey();
    const two = await standIn(key2, { wallet_id: '5564222970', wallet_name: 'Server Two Wallet', balance: '12.50' });
    const before = readFileSync(configFile(dir), 'utf8');

    const r = await payctl(['config', 'set', 'base-url', two.baseUrl], { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Error: Profile "default" holds a key for ${sb.baseUrl}: the key is not moved to ${two.baseUrl}. Nothing was saved.`);
    expect(readFileSync(configFile(dir), 'utf8')).toBe(before);
    const b = await payctl(['balances'], { dir });
    expect(b.code, b.stderr).toBe(0);
    expect(two.seen).toEqual([]);
    expectNoCrash(r);

    // The same base URL written another way is no move: it is saved.
    const same = await payctl(['config', 'set', 'base-url', `${sb.baseUrl}/`], { dir });
    expect(same.code, same.stderr).toBe(0);

    // The login printed logs in to the new server with its own key (asked for: here PAYCTL_API_KEY).
    const login = /log in to it with its own key: (payctl .*)$/m.exec(r.stderr)![1]!;
    expect(login).toBe(`payctl login --base-url ${two.baseUrl}`);
    const l = await payctl(login.split(' ').slice(1), { dir, env: { PAYCTL_API_KEY: key2 } });
    expect(l.code, l.stderr).toBe(0);
    expect(readProfile(dir)).toMatchObject({ baseUrl: two.baseUrl, apiKey: key2 });
    const ok = await payctl(['balances'], { dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Server Two Wallet');
    for (const s of two.seen) expect(JSON.stringify(s)).not.toContain(profile.apiKey!);

    // The logout printed removes the key; the base URL may then change.
    const moved = await payctl(['config', 'set', 'base-url', sb.baseUrl], { dir });
    expect(moved.code, moved.stderr).toBe(2);
    const logout = /Or remove this profile's key first: (payctl .*)$/m.exec(moved.stderr)![1]!;
    const o = await payctl(logout.split(' ').slice(1), { dir });
    expect(o.code, o.stderr).toBe(0);
    const set = await payctl(['config', 'set', 'base-url', sb.baseUrl], { dir });
    expect(set.code, set.stderr).toBe(0);
    expect(readProfile(dir)).toEqual({ baseUrl: sb.baseUrl });
  });
});

describe('--timeout', () => {
  it('--timeout 0.0001 (which would round to no limit) is refused with exit 2 before anything is sent', async () => {
    const h = await hostile((_req, res) => json(res, 200, { status: 'success', data: [] }));
    const dir = configDir();
    hostileProfile(dir, h);
    for (const t of ['0.0001', '0']) {
      const r = await payctl(['balances', '--timeout', t], { dir });
      expect(r.stderr).toContain('--timeout must be a number of seconds, at least 0.1');
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
    }
    expect(h.seen).toEqual([]);
  });
});
