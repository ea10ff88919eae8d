/**
 * What people read (issue #15, "Messages" and "Filters"), in process (payctl's main with
 * in-memory streams, the sandbox over real HTTP): `status` tells an unreachable service
 * (exit 4) from refused credentials (exit 3) and says which token the client uses;
 * `balances --wallet` of an unknown wallet is not found (exit 1); logout and config agree
 * on which profiles and settings exist and never print a secret; `config unset` of an unset
 * key says so; the summary header shows dates; `payouts list --status` is checked before
 * anything is sent.
 */
import { readFileSync } from 'node:fs';
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
        'Token        none stored: a new one is fetched with the API key (and saved)',
        'Service      unreachable',
        'Credentials  not checked: the service could not be reached',
        '',
      ].join('\n'),
    );
    expect(r.stdout).not.toMatch(/not valid|refused/);
    expect(r.stderr).toContain(`Error: Could not connect to 127.0.0.1:${port}: connection refused.`);
    expectNoSecrets(r, [KEY]);
  });

  it('an unreachable service with --json: service "unreachable", authenticated null (unknown), exit 4', async () => {
    const port = await closedPort();
    writeProfile(cfg.dir, { baseUrl: `http://127.0.0.1:${port}/v2`, apiKey: KEY });
    const r = await run('status', '--json');
    expect(r.code, r.stderr).toBe(4);
    expect(oneJson(r.stdout)).toEqual({
      profile: 'default',
      base_url: `http://127.0.0.1:${port}/v2`,
      api_key: `****${KEY.slice(-4)}`,
      api_key_source: 'profile',
      token_source: 'api_key',
      token_expires_at: null,
      service: 'unreachable',
      credentials: 'not_checked',
      authenticated: null,
    });
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'ECONNREFUSED', message: `Could not connect to 127.0.0.1:${port}: connection refused.` });
  });

  it('a key the service refuses: exit 3, the service reachable and the credentials refused', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: 'sk_wrong_key_0000000000' });
    const r = await run('status');
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^Service {6}reachable$/m);
    expect(r.stdout).toMatch(/^Credentials {2}refused by the service$/m);
    expect(r.stderr).toContain('Error: The API key was refused by the service');
    const j = await run('status', '--json');
    expect(j.code, j.stderr).toBe(3);
    expect(oneJson(j.stdout)).toMatchObject({ service: 'reachable', credentials: 'refused', authenticated: false });
  });

  it('a service that fails (HTTP 500 after retries): exit 1, "answered with an error", the credentials not judged', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    ctx.sb.faults.add({ kind: 'status', status: 500, path: '/v2/wallets/balances', times: Infinity });
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
    expect(r.stdout).toMatch(/^Token {8}none$/m);
    expect(r.stdout).toMatch(/^Service {6}not checked$/m);
    expect(r.stdout).toMatch(/^Credentials {2}none \(not logged in\)$/m);
    expect(since(ctx.sb, from)).toEqual([]);
    const j = await run('status', '--json');
    expect(oneJson(j.stdout)).toMatchObject({ token_source: 'none', service: 'not_checked', credentials: 'missing', authenticated: false });
  });

  it('says which token the client uses: PAYCTL_TOKEN over the stored one, as is', async () => {
    const p = await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const stored = await run('status');
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stdout).toMatch(/^Token {8}stored in the profile, valid until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/m);

    // The same (valid) token from the environment: the client sends it as is, and status says so.
    const from = ctx.sb.requests().length;
    const env = await runEnv({ PAYCTL_TOKEN: p.token }, 'status');
    expect(env.code, env.stderr).toBe(0);
    expect(env.stdout).toMatch(/^Token {8}PAYCTL_TOKEN, from the environment \(used as is\)$/m);
    expect(env.stdout).toMatch(/^Credentials {2}valid \(\d+ wallets\)$/m);
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/wallets/balances 200']);
    const j = await runEnv({ PAYCTL_TOKEN: p.token }, 'status', '--json');
    expect(oneJson(j.stdout)).toMatchObject({ token_source: 'env', token_expires_at: null, service: 'reachable', credentials: 'valid', authenticated: true });
    expectNoSecrets(env, [KEY, p.token]);
  });

  it('with PAYCTL_API_KEY: a new token for each run, not saved (not "none", not the stored one)', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await runEnv({ PAYCTL_API_KEY: KEY }, 'status', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(oneJson(r.stdout)).toMatchObject({ api_key_source: 'env', token_source: 'api_key', token_expires_at: null, authenticated: true });
    const t = await runEnv({ PAYCTL_API_KEY: KEY }, 'status');
    expect(t.stdout).toMatch(/^Token {8}none stored: a new one from PAYCTL_API_KEY for each run \(not saved\)$/m);
  });
});

describe('balances --wallet', () => {
  beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));

  it('an unknown wallet: exit 1, not found, and how to list the wallets (text)', async () => {
    const r = await run('balances', '--wallet', 'wal_nope');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    const n = ctx.sb.wallets().length;
    expect(r.stderr).toContain(`Error: No wallet "wal_nope": the service lists ${n} wallets, none with this id.\n`);
    expect(r.stderr).toContain('Run `payctl balances` to see the wallets and their ids.');
  });

  it('an unknown wallet with --json: nothing on stdout, a NOT_FOUND error on stderr', async () => {
    const r = await run('balances', '--wallet', 'wal_nope', '--json');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('No wallet "wal_nope"') });
  });

  it('the hint carries the profile it was run with', async () => {
    writeProfiles(cfg.dir, { ops: { baseUrl: ctx.sb.baseUrl, apiKey: KEY } });
    const r = await run('balances', '--wallet', 'wal_nope', '--profile', 'ops');
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
  it('get api-key and token: masked as config list shows them, said to be secrets, never in clear', async () => {
    const p = await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    for (const [key, secret] of [
      ['api-key', KEY],
      ['token', p.token!],
    ] as const) {
      const r = await run('config', 'get', key);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`****${secret.slice(-4)}\n`);
      expect(r.stderr).toBe(`${key} is a secret: shown masked; payctl never prints it in clear.\n`);
      expectNoSecrets(r, [KEY, p.token]);
      const j = await run('config', 'get', key, '--json');
      expect(oneJson(j.stdout)).toEqual({ key, value: `****${secret.slice(-4)}`, masked: true });
      expectNoSecrets(j, [KEY, p.token]);
    }
    const list = await run('config', 'list', '--json');
    expect(oneJson(list.stdout).settings['api-key']).toBe(`****${KEY.slice(-4)}`);
  });

  it('get token-expires-at: what config list shows (not an unknown setting)', async () => {
    const p = await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await run('config', 'get', 'token-expires-at');
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `${p.tokenExpiresAt}\n`, '']);
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
    const unset = await run('config', 'unset', 'token', '--profile', 'ops');
    expect(unset.code, unset.stderr).toBe(2);
    expect(unset.stderr).toContain('Error: token is kept by login and removed by logout');
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
    expect(get.stderr).toContain('There is no profile "nosuch": no settings to read.');
    expect(get.stderr).toContain('Known profiles: default.');
    const unset = await run('config', 'unset', 'base-url', '--profile', 'nosuch');
    expect(unset.code, unset.stderr).toBe(2);
    expect(unset.stderr).toContain('There is no profile "nosuch": no settings to remove.');
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
  });

  it('an unknown key on get lists every readable setting', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await run('config', 'get', 'colour');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('Unknown setting "colour"');
    expect(r.stderr).toContain('Settings: base-url, api-key, token, token-expires-at, webhook-secret, policy, routes.');
  });
});

describe('summary header: dates printed as dates', () => {
  beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));

  const header = async (...args: string[]): Promise<string> => {
    const r = await run('summary', ...args);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.split('\n')[0]!;
  };

  it('whole days (--from and --to as dates): the dates alone', async () => {
    expect(await header('--from', '2026-11-01', '--to', '2026-11-30')).toBe('Payouts from 2026-11-01 to 2026-11-30');
    expect(await header('--from', '2026-11-01')).toBe('Payouts from 2026-11-01');
    expect(await header('--to', '2026-11-30')).toBe('Payouts to 2026-11-30');
  });

  it('a time within a day: the UTC time, never the raw timestamp', async () => {
    const h = await header('--from', '2026-11-01T10:30:00Z', '--to', '2026-11-30T18:00:00Z');
    expect(h).toBe('Payouts from 2026-11-01 10:30:00 UTC to 2026-11-30 18:00:00 UTC');
    expect(h).not.toMatch(/T\d{2}:|\.0{6}Z/);
  });

  it('no payouts in the period: the same dates in the message', async () => {
    const r = await run('summary', '--from', '1999-01-01', '--to', '1999-01-31');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('No payouts from 1999-01-01 to 1999-01-31.\n');
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
    ['failed', 'Failed'],
    ['PENDING', 'Pending'],
    [' successful ', 'Successful'],
  ])('%j is matched in any case and sent as %j', async (given, sent) => {
    const from = ctx.sb.requests().length;
    const r = await run('payouts', 'list', '--status', given, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(
      since(ctx.sb, from)
        .filter((x) => x.path === '/v2/payouts')
        .map((x) => x.query.status),
    ).toEqual([sent]);
    for (const p of oneJson(r.stdout).data as Array<{ status: string }>) expect(p.status).toBe(sent);
  });

  it('history --status is checked the same way (exit 2, the outcomes listed)', async () => {
    const r = await run('history', '--status', 'Bogus');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--status: "Bogus" is not an outcome');
  });
});
