/**
 * Hostile services (issue 11), in process (payctl's main with in-memory streams): answers
 * that drip forever, a Retry-After: 0 storm, a 2xx that describes another payout,
 * services that echo the key and token back, and a profile's key offered to another
 * --base-url. Small node:http servers (test/helpers/hostile.ts) play the hostile service;
 * for payouts, a forwarding proxy in front of the real in-process sandbox rewrites one
 * answer. What needs a process (peak RSS, a full tmpfs, commands run as printed by a
 * shell) is in test/e2e/hostile-service.test.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { expectNoSecrets, newKey, writeLoggedIn, writeProfile, type Run } from '../helpers/e2e.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import {
  configDir,
  deferCleanup,
  expectNoCrash,
  heldFor,
  hostile,
  hostileProfile,
  journalOf,
  json,
  payoutArgs,
  sandboxProxy,
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
    hostileProfile(dir, h);

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
  });
});

describe('Retry-After: 0 storm', () => {
  it('every request answered 429 Retry-After: 0: gives up after at most 4 requests, at least 250 ms apart', async () => {
    const h = await hostile((_req, res) => json(res, 429, { status: 'error', code: 'RATE_LIMITED', message: 'slow down' }, { 'retry-after': '0' }));
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
  it('a 201 whose JSON describes another payout (payout id, or amount rewritten): exit 4 "answered about a different payout"', async () => {
    const sb = ctx.sb;
    const rewrites: Array<[string, (data: Record<string, unknown>) => void]> = [
      ['otherid', (d) => (d.payout_id = 'someone-elses-payout')],
      ['otheramount', (d) => (d.amount = 9999.99)],
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

describe('credentials echoed back by the service are never printed', () => {
  // The servers answer at once: retry waits are payctl's own back-off, on a TestClock.
  it('a 401 "Invalid API key <key>" and a 502 HTML page with "authorization: Bearer <token>": masked in balances, --json, payout get, status', async () => {
    const key = newKey();
    const token = `tok_${randomBytes(16).toString('hex')}`;
    const issued: string[] = [];
    const echo401 = await hostile((req, res) => {
      if (req.url === '/v2/auth/token' && req.headers['api-key'] === key) {
        const t = `tok_${randomBytes(16).toString('hex')}`;
        issued.push(t);
        return json(res, 200, { status: 'success', data: { access_token: t, expires_in: 3600 } });
      }
      json(res, 401, { status: 'error', code: 'UNAUTHORIZED', message: `Invalid API key ${key} (authorization: ${String(req.headers.authorization)})` });
    });
    const echo502 = await hostile((_req, res) => {
      const page = `<html><body>authorization: Bearer ${token}<br>api-key: ${key}</body></html>`;
      res.writeHead(502, { 'content-type': 'text/html' }).end(page);
    });
    const commands = [['balances'], ['balances', '--json'], ['payout', 'get', 'x'], ['status']];
    const runs: Array<Promise<[string, Run]>> = [];
    for (const h of [echo401, echo502]) {
      const dir = configDir();
      hostileProfile(dir, h, key, token);
      for (const args of commands) runs.push(payctl(args, { dir, clock: new TestClock() }).then((r) => [`${h === echo401 ? '401' : '502'} ${args.join(' ')}`, r]));
    }
    for (const [name, r] of await Promise.all(runs)) {
      expect(r.code, `${name}: ${r.stderr}`).not.toBe(0);
      expect([1, 3], `${name}: ${r.stderr}`).toContain(r.code);
      expectNoSecrets(r, [key, token, ...issued]);
      // The echoed text did reach the output, masked.
      expect(r.stderr, name).toContain('***');
      expectNoCrash(r);
    }
    expect(issued.length).toBeGreaterThan(0);
    expect(echo502.seen.length).toBeGreaterThanOrEqual(4);
  });

  it('an echoed token or key cut in half by the 120-character excerpt of a non-JSON body: no part of it is printed', async () => {
    const key = newKey();
    const token = `tok_${randomBytes(16).toString('hex')}`;
    // The excerpt of the body is `<html><body>` + pad + ` authorization: Bearer <token> api-key: <key>`,
    // cut at 120 characters: pad 70 cuts the token after 15 characters, pad 25 the key after 14.
    const runs: Array<Promise<[string, Run]>> = [];
    for (const pad of [70, 25]) {
      const h = await hostile((_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' }).end(`<html><body>${'x'.repeat(pad)} authorization: Bearer ${token} api-key: ${key}</body></html>`);
      });
      const dir = configDir();
      hostileProfile(dir, h, key, token);
      for (const args of [['balances'], ['balances', '--json']])
        runs.push(payctl(args, { dir, clock: new TestClock() }).then((r) => [`pad ${pad}: ${args.join(' ')}`, r]));
    }
    for (const [name, r] of await Promise.all(runs)) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr, name).toContain('HTTP 502');
      expectNoSecrets(r, [key, token]);
      // No run of 10 characters from the random part of either secret.
      const out = r.stdout + r.stderr;
      for (const s of [key.slice('sk_sandbox_e2e_'.length), token.slice('tok_'.length)]) {
        for (let i = 0; i + 10 <= s.length; i++) expect(out, `${name}: leaks ${s.slice(i, i + 10)} of a secret:\n${r.stderr}`).not.toContain(s.slice(i, i + 10));
      }
    }
  });
});

describe('a profile key is sent only to its own base URL', () => {
  it('--base-url of another server: exit 3 with the PAYCTL_API_KEY / PAYCTL_TOKEN hint, nothing carrying a credential reaches it; PAYCTL_TOKEN works', async () => {
    const sb = ctx.sb;
    const dir = configDir();
    const profile = await writeLoggedIn(sb, dir);
    const token2 = `tok2_${randomBytes(16).toString('hex')}`;
    const two = await hostile((req, res) => {
      if (req.url === '/v2/wallets/balances' && req.headers.authorization === `Bearer ${token2}`) {
        return json(res, 200, { status: 'success', data: [{ wallet_id: 'wal_server_two', wallet_name: 'Server Two Wallet', currency: 'SLE', balance: '12.50' }] });
      }
      json(res, 401, { status: 'error', code: 'UNAUTHORIZED', message: 'no' });
    });

    const r = await payctl(['balances', '--base-url', two.baseUrl], { dir });
    expect(r.stderr).toMatch(/set PAYCTL_API_KEY or PAYCTL_TOKEN/i);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expectNoCrash(r);
    for (const s of two.seen) {
      expect(s.headers['api-key']).toBeUndefined();
      expect(s.headers.authorization).toBeUndefined();
      expect(JSON.stringify(s)).not.toContain(profile.apiKey!);
      expect(JSON.stringify(s)).not.toContain(profile.token!);
    }

    const ok = await payctl(['balances', '--base-url', two.baseUrl], { dir, env: { PAYCTL_TOKEN: token2 } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Server Two Wallet');
    expect(two.seen.length).toBeGreaterThan(0);
    for (const s of two.seen) {
      expect(s.headers['api-key']).toBeUndefined();
      expect(JSON.stringify(s)).not.toContain(profile.apiKey!);
      expect(JSON.stringify(s)).not.toContain(profile.token!);
    }
    expect(two.seen.at(-1)!.headers.authorization).toBe(`Bearer ${token2}`);
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
