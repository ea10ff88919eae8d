/**
 * What people read (issue #15, "Messages" and "Filters"), in process (payctl's main with
 * in-memory streams, the sandbox over real HTTP): `status` tells an unreachable service
 * (exit 4) from refused credentials (exit 3) and shows whose the key is (GET /auth/user: the
 * key is the bearer token, there is no token of payctl's own);
 * `balances --wallet` of an unknown wallet is not found (exit 1); logout and config agree
 * on which profiles and settings exist and never print a secret; `config unset` of an unset
 * key says so; the summary header shows dates; `payouts list --status` is checked before
 * anything is sent.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import {
  closedPort,
  configFile,
  expectNoSecrets,
  newKey,
  oneJson,
  readProfile,
  since,
  useConfigDir,
  writeLoggedIn,
  writeProfile,
  writeProfiles,
} from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();

/** Retries back off on a TestClock: no real waits. */
const run = (...args: string[]) => payctl(args, { dir: cfg.dir, clock: new TestClock() });
const runEnv = (env: Record<string, string | undefined>, ...args: string[]) => payctl(args, { dir: cfg.dir, env, clock: new TestClock() });

afterEach(() => ctx.sb.faults.clear());

describe('status: the service and the credentials, told apart', () => {
  it('an unreachable service: exit 4, "unreachable", the credentials not judged (text)', async () => {
    const port = await closedPort();
    writeProfile(cfg.dir, { baseUrl: `http://127.0.0.1:${port}/v2`, apiKey: KEY });
    const r = await run('status');
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toBe(
      [
        'Profile      default',
        `Base URL     http://127.0.0.1:${port}/v2`,
        `API key      ****${KEY.slice(-4)}`,
        'Service      unreachable',
        'Credentials  not checked: the service could not be reached',
        '',
      ].join('\n'),
    );
    expect(r.stdout).not.toMatch(/not valid|refused|Token/);
    expect(r.stderr).toContain(`Error: Could not connect to 127.0.0.1:${port}: connection refused.`);
    expectNoSecrets(r, [KEY]);
  });

  it('an unreachable service with --json: service "unreachable", authenticated null (unknown), no account, exit 4', async () => {
    const port = await closedPort();
    writeProfile(cfg.dir, { baseUrl: `http://127.0.0.1:${port}/v2`, apiKey: KEY });
    const r = await run('status', '--json');
    expect(r.code, r.stderr).toBe(4);
    expect(oneJson(r.stdout)).toEqual({
      profile: 'default',
      base_url: `http://127.0.0.1:${port}/v2`,
      api_key: `****${KEY.slice(-4)}`,
      api_key_source: 'profile',
      service: 'unreachable',
      credentials: 'not_checked',
      authenticated: null,
      account: null,
    });
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'CONNECTION_REFUSED', message: `Could not connect to 127.0.0.1:${port}: connection refused.` });
  });

  it('an https:// base URL to a server that does not speak TLS: the handshake said, TLS_ERROR, nothing sent', async () => {
    // A plain HTTP server answers the TLS hello with an HTTP error: OpenSSL reads "wrong version number".
    const seen: Buffer[] = [];
    const server = createServer((socket) => {
      socket.once('data', (d: Buffer) => {
        seen.push(d);
        socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      writeProfile(cfg.dir, { baseUrl: `https://127.0.0.1:${port}/v2`, apiKey: KEY });
      const r = await run('balances', '--json');
      expect(r.code, r.stderr).toBe(4);
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'TLS_ERROR',
        message: `The TLS handshake with 127.0.0.1:${port} failed (wrong version number); nothing was sent to it.`,
        hint: expect.stringContaining('a local sandbox is reached with http://'),
      });
      // Only TLS hellos reached the server: no request line, no key.
      expect(Buffer.concat(seen).includes('HTTP/1.1')).toBe(false);
      expectNoSecrets(r, [KEY]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a key the service refuses: exit 3, the service reachable and the credentials refused', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: 'sk_wrong_key_0000000000' });
    const from = ctx.sb.requests().length;
    const r = await run('status');
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^Service {6}reachable$/m);
    expect(r.stdout).toMatch(/^Credentials {2}refused by the service$/m);
    expect(r.stderr).toContain('Error: The service refused the API key (Unauthenticated.).\n');
    expect(r.stderr).toContain('The key may be wrong or revoked. Run `payctl login` with a valid key.');
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/auth/user 401']);
    const j = await run('status', '--json');
    expect(j.code, j.stderr).toBe(3);
    expect(oneJson(j.stdout)).toMatchObject({ service: 'reachable', credentials: 'refused', authenticated: false, account: null });
  });

  it('a refused PAYCTL_API_KEY: the hint names the variable', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl });
    const r = await runEnv({ PAYCTL_API_KEY: 'sk_wrong_key_0000000000' }, 'status');
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('Error: The service refused the API key (Unauthenticated.).\n');
    expect(r.stderr).toContain('PAYCTL_API_KEY was refused: set a valid key, or unset it and run `payctl login`.');
  });

  it('a service that fails (HTTP 500 after retries): exit 1, "answered with an error", the credentials not judged', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    ctx.sb.faults.add({ kind: 'status', status: 500, path: '/v2/auth/user', times: Infinity });
    const r = await run('status');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^Service {6}answered with an error \(HTTP 500\)$/m);
    expect(r.stdout).toMatch(/^Credentials {2}not checked$/m);
    const j = await run('status', '--json');
    expect(j.code, j.stderr).toBe(1);
    expect(oneJson(j.stdout)).toMatchObject({ service: 'failed', credentials: 'not_checked', authenticated: null });
  });

  it('no credentials at all: exit 3, "none (not logged in)", nothing sent', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl });
    const from = ctx.sb.requests().length;
    const r = await run('status');
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^API key {6}not set$/m);
    expect(r.stdout).toMatch(/^Service {6}not checked$/m);
    expect(r.stdout).toMatch(/^Credentials {2}none \(not logged in\)$/m);
    expect(since(ctx.sb, from)).toEqual([]);
    const j = await run('status', '--json');
    expect(oneJson(j.stdout)).toMatchObject({ api_key: null, api_key_source: 'none', service: 'not_checked', credentials: 'missing', authenticated: false });
  });

  it('a valid key: whose it is, live from GET /auth/user, and nothing else asked', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const wallet = ctx.sb.wallets()[0]!.wallet_id;
    const from = ctx.sb.requests().length;
    const r = await run('status');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Credentials {2}valid$/m);
    expect(r.stdout).toMatch(/^Business {5}Sandbox Payouts Ltd$/m);
    expect(r.stdout).toMatch(/^Name {9}Aminata Kamara$/m);
    expect(r.stdout).toMatch(/^Email {8}aminata\.kamara@sandbox\.payctl\.test$/m);
    expect(r.stdout).toMatch(new RegExp(`^Wallet ID {4}${wallet}$`, 'm'));
    expect(r.stdout).not.toMatch(/^Token/m);
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/auth/user 200']);
    expect(since(ctx.sb, from)[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    const j = await run('status', '--json');
    expect(oneJson(j.stdout)).toMatchObject({
      service: 'reachable',
      credentials: 'valid',
      authenticated: true,
      account: { business_name: 'Sandbox Payouts Ltd', email: 'aminata.kamara@sandbox.payctl.test', wallet_id: wallet, kyc_verified: true },
    });
    expect(oneJson(j.stdout)).not.toHaveProperty('token_source');
    expectNoSecrets(r, [KEY]);
  });

  it('a base URL kept by the profile or PAYCTL_BASE_URL that cannot be used: said where it came from, never "--help for usage" (exit 2, nothing sent)', async () => {
    writeProfile(cfg.dir, { baseUrl: 'javascript:alert(1)', apiKey: KEY });
    const from = ctx.sb.requests().length;
    const r = await run('balances');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('Error: The base URL of profile "default" cannot be used: the base URL must use https:// (got javascript:).');
    expect(r.stderr).toContain('`payctl config get base-url --profile default` shows it');
    expect(r.stderr).not.toContain('for usage');
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    const env = await runEnv({ PAYCTL_BASE_URL: 'ftp://x.example/v2' }, 'balances');
    expect(env.code, env.stderr).toBe(2);
    expect(env.stderr).toContain('Error: PAYCTL_BASE_URL cannot be used: the base URL must use https:// (got ftp:).');
    expect(env.stderr).not.toContain('for usage');
    expect(ctx.sb.requests().length).toBe(from);
  });

  it('a KYC status that is not verified: shown, and a warning, still exit 0', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const before = ctx.sb.kycStatus;
    ctx.sb.kycStatus = 'Pending';
    try {
      const r = await run('status');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^KYC {10}Pending \(not verified\)$/m);
      expect(r.stderr).toContain('The account\'s KYC status is "Pending", not verified: the service may refuse payouts until it is.');
      const j = await run('status', '--json');
      expect(oneJson(j.stdout).account).toMatchObject({ kyc_status: 'Pending', kyc_verified: false });
      // "Verified" with a word joiner is not verified: shown with the joiner written out, never as "Verified (not verified)".
      ctx.sb.kycStatus = 'Verified\u2060';
      const hidden = await run('status');
      expect(hidden.stdout).toMatch(/^KYC {10}Verified\\u2060 \(not verified\)$/m);
      expect(hidden.stderr).toContain('The account\'s KYC status is "Verified\\u2060", not verified');
    } finally {
      ctx.sb.kycStatus = before;
    }
  });

  it('PAYCTL_TOKEN is retired: said to be unused, never sent; the key is what goes out', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const token = 'tok_from_an_old_script_0123456789';
    const from = ctx.sb.requests().length;
    const r = await runEnv({ PAYCTL_TOKEN: token }, 'status');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'PAYCTL_TOKEN is no longer used: the API key itself is the bearer token. Set PAYCTL_API_KEY (or run `payctl login`) and unset PAYCTL_TOKEN.',
    );
    expect(r.stdout).toMatch(/^Credentials {2}valid$/m);
    expect(since(ctx.sb, from).map((x) => [x.line, x.headers.authorization])).toEqual([['GET /v2/auth/user 200', `Bearer ${KEY}`]]);
    expectNoSecrets(r, [KEY, token]);
  });

  it('with PAYCTL_API_KEY: the key from the environment, said so, and it is the bearer (nothing saved)', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl });
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const r = await runEnv({ PAYCTL_API_KEY: KEY }, 'status', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(oneJson(r.stdout)).toMatchObject({ api_key: `****${KEY.slice(-4)}`, api_key_source: 'env', authenticated: true });
    const t = await runEnv({ PAYCTL_API_KEY: KEY }, 'status');
    expect(t.stdout).toMatch(new RegExp(`^API key {6}\\*{4}${KEY.slice(-4)} \\(from the environment\\)$`, 'm'));
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
  });
});

describe('balances --wallet', () => {
  beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));

  it('an unknown wallet: exit 1, not found, and how to list the wallets (text)', async () => {
    const r = await run('balances', '--wallet', '9999999999');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    const n = ctx.sb.wallets().length;
    expect(r.stderr).toContain(`Error: No wallet "9999999999": the service lists ${n} wallets, none with this id.\n`);
    expect(r.stderr).toContain('Run `payctl balances` to see the wallets and their ids.');
  });

  it('an unknown wallet with --json: nothing on stdout, a NOT_FOUND error on stderr', async () => {
    const r = await run('balances', '--wallet', '9999999999', '--json');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('No wallet "9999999999"') });
  });

  it('the hint carries the profile it was run with', async () => {
    writeProfiles(cfg.dir, { ops: { baseUrl: ctx.sb.baseUrl, apiKey: KEY } });
    const r = await run('balances', '--wallet', '9999999999', '--profile', 'ops');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('Run `payctl balances --profile ops` to see');
  });

  it('a known wallet still lists (exit 0)', async () => {
    const w = ctx.sb.wallets()[0]!;
    const r = await run('balances', '--wallet', w.wallet_id);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
  });
});

describe('logout', () => {
  it('a profile that does not exist: exit 2, the known profiles named, nothing changed', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    await writeLoggedIn(ctx.sb, cfg.dir, KEY, 'staging');
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const r = await run('logout', '--profile', 'nosuch');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: There is no profile "nosuch": nothing to log out of.\n');
    expect(r.stderr).toContain('Known profiles: default, staging. Pick one with --profile NAME');
    expect(r.stderr).not.toContain('was not logged in');
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);

    const j = await run('logout', '--profile', 'nosuch', '--json');
    expect(j.code, j.stderr).toBe(2);
    expect(j.stdout).toBe('');
    expect(JSON.parse(j.stderr).error.message).toBe('There is no profile "nosuch": nothing to log out of.');
  });

  it('no profiles at all: exit 2, and how to create one', async () => {
    const r = await run('logout');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('There is no profile "default": nothing to log out of.');
    expect(r.stderr).toContain('There are no profiles yet. Run `payctl login` to create one.');
  });

  it('a profile that exists but holds no key: exit 0, "was not logged in"', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl });
    const r = await run('logout');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('Profile "default" was not logged in.\n');
  });
});

describe('config: what exists and what can be read', () => {
  it('get api-key: masked as config list shows it, said to be a secret, never in clear', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await run('config', 'get', 'api-key');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`****${KEY.slice(-4)}\n`);
    expect(r.stderr).toBe('api-key is a secret: shown masked; payctl never prints it in clear.\n');
    expectNoSecrets(r, [KEY]);
    const j = await run('config', 'get', 'api-key', '--json');
    expect(oneJson(j.stdout)).toEqual({ key: 'api-key', value: `****${KEY.slice(-4)}`, masked: true });
    expectNoSecrets(j, [KEY]);
    const list = await run('config', 'list', '--json');
    expect(oneJson(list.stdout).settings['api-key']).toBe(`****${KEY.slice(-4)}`);
  });

  it('token and token-expires-at are gone (the key is the bearer): unknown settings, exit 2', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    for (const key of ['token', 'token-expires-at']) {
      const r = await run('config', 'get', key);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Unknown setting "${key}"`);
    }
    const list = await run('config', 'list', '--json');
    expect(Object.keys(oneJson(list.stdout).settings)).not.toContain('token');
  });

  it('get api-key of a profile without one: exit 1, not set', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl });
    const r = await run('config', 'get', 'api-key');
    expect([r.code, r.stdout, r.stderr]).toEqual([1, '', 'api-key is not set in profile "default".\n']);
  });

  it('set and unset of what login keeps: exit 2, naming login and logout for this profile, nothing changed', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY, 'ops');
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const set = await run('config', 'set', 'api-key', 'sk_from_the_command_line_1234', '--profile', 'ops');
    expect(set.code, set.stderr).toBe(2);
    expect(set.stdout).toBe('');
    expect(set.stderr).toContain('Error: api-key is kept by login and removed by logout: config does not change it.');
    expect(set.stderr).toContain('`payctl login --profile ops`');
    expect(set.stderr).toContain('`payctl logout --profile ops`');
    expect(set.stderr).toContain('to save a new key (the key is read from stdin or a hidden prompt, never from the command line)');
    const unset = await run('config', 'unset', 'api-key', '--profile', 'ops');
    expect(unset.code, unset.stderr).toBe(2);
    expect(unset.stderr).toContain('Error: api-key is kept by login and removed by logout');
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
  });

  it('unset of a key that is not set: says so, no tick, exit 0, file unchanged', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const r = await run('config', 'unset', 'webhook-secret');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('webhook-secret was not set in profile "default": nothing changed.\n');
    expect(r.stderr).not.toContain('✓');
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
    const j = await run('config', 'unset', 'routes.payoutGet', '--json');
    expect(oneJson(j.stdout)).toEqual({ profile: 'default', key: 'routes.payoutGet', set: false, was_set: false });
  });

  it('unset of a key that is set: the tick, and it is gone', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    expect((await run('config', 'set', 'webhook-secret', 'whsec_messages_0123456789')).code).toBe(0);
    const r = await run('config', 'unset', 'webhook-secret');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('✓ Unset webhook-secret in profile "default".\n');
    expect(readProfile(cfg.dir)!.webhookSecret).toBeUndefined();
    const j = await run('config', 'unset', 'webhook-secret', '--json');
    expect(oneJson(j.stdout)).toEqual({ profile: 'default', key: 'webhook-secret', set: false, was_set: false });
  });

  it('get and unset on a profile that does not exist: exit 2 naming the known profiles, as logout', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const get = await run('config', 'get', 'base-url', '--profile', 'nosuch');
    expect(get.code, get.stderr).toBe(2);
    expect(get.stdout).toBe('');
    expect(get.stderr).toContain('No profile "nosuch". Known profiles: default.');
    const unset = await run('config', 'unset', 'base-url', '--profile', 'nosuch');
    expect(unset.code, unset.stderr).toBe(2);
    expect(unset.stderr).toContain('No profile "nosuch". Known profiles: default.');
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
  });

  it('an unknown key on get lists every readable setting', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await run('config', 'get', 'colour');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('Unknown setting "colour"');
    expect(r.stderr).toContain(
      'Settings: base-url, api-key, webhook-secret, webhook-signature-header, policy, ledger, routes.authUser, routes.balances, routes.payoutCreate, routes.payoutGet, routes.payoutsList, routes.payoutsSummary.',
    );
  });
});

describe('summary header: dates printed as dates', () => {
  beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));

  // With a filter the summary is computed by payctl from the list (the documented summary takes
  // no filters): its first line says so, with the period in words.
  const header = async (...args: string[]): Promise<string> => {
    const r = await run('summary', ...args);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.split('\n')[0]!;
  };
  const computed = (period: string) => new RegExp(`^Computed by payctl from \\d+ payouts? \\(of ${ctx.sb.payouts().length} listed\\): ${period}\\.$`);

  it('whole days (--from and --to as dates): the dates alone', async () => {
    expect(await header('--from', '2026-11-01', '--to', '2026-11-30')).toMatch(computed('from 2026-11-01 to 2026-11-30'));
    expect(await header('--from', '2026-11-01')).toMatch(computed('from 2026-11-01'));
    expect(await header('--to', '2026-11-30')).toMatch(computed('to 2026-11-30'));
  });

  it('a time within a day: the UTC time, never the raw timestamp', async () => {
    const h = await header('--from', '2026-11-01T10:30:00Z', '--to', '2026-11-30T18:00:00Z');
    expect(h).toMatch(computed('from 2026-11-01 10:30:00 UTC to 2026-11-30 18:00:00 UTC'));
    expect(h).not.toMatch(/T\d{2}:|\.0{6}Z/);
  });

  it('no payouts in the period: the same dates in the message', async () => {
    const r = await run('summary', '--from', '1999-01-01', '--to', '1999-01-31');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Computed by payctl from 0 payouts (of ${ctx.sb.payouts().length} listed): from 1999-01-01 to 1999-01-31.\n`);
  });
});

describe('payouts list --status: checked before anything is sent', () => {
  beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));

  it('an unknown status: exit 2, the statuses listed, no request recorded by the sandbox', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', '--status', 'Bogus');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: Invalid options for payouts list.');
    expect(r.stderr).toContain('--status: "Bogus" is not a payout status (Pending, Successful, Failed)');
    expect(r.stderr).not.toContain('No payouts match');
    expect(ctx.sb.requests().slice(from)).toEqual([]);
  });

  it.each([['payouts', 'list'], ['payouts', 'list', '--csv'], ['summary'], ['summary', '--json']])(
    'an empty --wallet (an unset variable) to %s %s: exit 2, nothing sent, never an empty result',
    async (...cmd) => {
      const from = ctx.sb.requests().length;
      const r = await run(...cmd, '--wallet', '');
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('give a wallet id (the value is empty)');
      expect(r.stderr).toContain('--wallet');
      expect(ctx.sb.requests().slice(from)).toEqual([]);
    },
  );

  it('with --json and another bad filter: every problem at once, as JSON, nothing sent', async () => {
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', '--status', 'done', '--currency', 'XYZ', '--all', '--json');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const messages = JSON.stringify(JSON.parse(r.stderr).error);
    expect(messages).toContain('\\"done\\" is not a payout status');
    expect(messages).toContain('\\"XYZ\\" is not an ISO 4217 currency code');
    expect(ctx.sb.requests().slice(from)).toEqual([]);
  });

  it.each([
    ['failed', 'failed'],
    ['PENDING', 'pending'],
    [' successful ', 'successful'],
  ])('%j is matched in any case and applied by payctl to every record, never sent (records %j)', async (given, word) => {
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', '--status', given, '--all', '--json');
    expect(r.code, r.stderr).toBe(0);
    const asked = since(ctx.sb, from).filter((x) => x.path === '/v2/payout/list');
    expect(asked.length).toBeGreaterThan(0);
    for (const x of asked) expect(x.query.status).toBeUndefined();
    // With --all, one envelope whose data holds every matching record, the service's raw (lower-case)
    // status word kept: exactly the payouts of that status.
    const records = oneJson(r.stdout).data as Array<{ status: string; transaction_id: string }>;
    expect(records.length).toBeGreaterThan(0);
    for (const p of records) expect(p.status).toBe(word);
    const held = ctx.sb.payouts().filter((p) => p.status.toLowerCase() === word);
    expect(records.map((p) => p.transaction_id).sort()).toEqual(held.map((p) => p.transaction_id).sort());
  });

  it('history --status is checked the same way (exit 2, the outcomes listed)', async () => {
    const r = await run('history', '--status', 'Bogus');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--status: "Bogus" is not an outcome');
  });
});
