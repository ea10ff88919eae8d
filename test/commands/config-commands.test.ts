/**
 * `payctl config list|get|set|unset|path`, in process (payctl's main with in-memory streams, the sandbox over real HTTP): secrets masked everywhere, base
 * URLs checked, route overrides stored and then really used, and a damaged config
 * file reported (exit 2, file named, no stack trace) and left untouched.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import {
  configFile,
  expectNoSecrets,
  newKey,
  oneJson,
  readProfile,
  since,
  stackLines,
  useConfigDir,
  writeLoggedIn,
  writeProfile,
  type ProfileFile,
} from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';

const KEY = newKey();
// The routes.payoutGet test points payctl at /payout/{id} on purpose, a path the contract does not have.
const ctx = useSandbox({ apiKey: KEY, offContractPaths: /^\/v2\/payout\/./ });
const cfg = useConfigDir();
const WEBHOOK_SECRET = 'whsec_e2e_0123456789abcdef';

const run = (...args: string[]) => payctl(args, { dir: cfg.dir });

afterEach(() => ctx.sb.faults.clear());

describe('config with a logged-in profile', () => {
  let profile: ProfileFile;
  beforeEach(async () => {
    profile = await writeLoggedIn(ctx.sb, cfg.dir, KEY);
  });

  it('list: settings with key and token masked, never in clear', async () => {
    const r = await run('config', 'list');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        `base-url          ${ctx.sb.baseUrl}`,
        `api-key           ****${KEY.slice(-4)}`,
        `token             ****${profile.token!.slice(-4)}`,
        `token-expires-at  ${profile.tokenExpiresAt}`,
        '',
      ].join('\n'),
    );
    expectNoSecrets(r, [KEY, profile.token]);
  });

  it('list --json: one document, secrets masked', async () => {
    const set = await run('config', 'set', 'webhook-secret', WEBHOOK_SECRET);
    expect(set.code, set.stderr).toBe(0);
    const r = await run('config', 'list', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(oneJson(r.stdout)).toEqual({
      profile: 'default',
      profiles: ['default'],
      settings: {
        'base-url': ctx.sb.baseUrl,
        'api-key': `****${KEY.slice(-4)}`,
        token: `****${profile.token!.slice(-4)}`,
        'token-expires-at': profile.tokenExpiresAt,
        'webhook-secret': `****${WEBHOOK_SECRET.slice(-4)}`,
      },
    });
    expectNoSecrets(set, [WEBHOOK_SECRET, KEY]);
    expectNoSecrets(r, [KEY, profile.token, WEBHOOK_SECRET]);
  });

  it('get: plain values as they are, secrets masked, exit 1 when not set', async () => {
    let r = await run('config', 'get', 'base-url');
    expect([r.code, r.stdout, r.stderr]).toEqual([0, ctx.sb.baseUrl + '\n', '']);

    // The key and token are never printed by `config get`, whether it shows them masked or refuses them.
    for (const key of ['api-key', 'token']) {
      r = await run('config', 'get', key);
      expect([0, 2]).toContain(r.code);
      if (r.code === 0) expect(r.stdout).toMatch(/^\*{4}[^*]{4}\n$/);
      expectNoSecrets(r, [KEY, profile.token]);
    }

    r = await run('config', 'get', 'webhook-secret');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('webhook-secret is not set in profile "default".\n');

    r = await run('config', 'get', 'routes.payoutGet', '--json');
    expect(r.code, r.stderr).toBe(1);
    expect(oneJson(r.stdout)).toEqual({ key: 'routes.payoutGet', value: null });

    r = await run('config', 'get', 'colour');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Unknown setting "colour"');
  });

  it('set base-url to http:// on a non-loopback host is refused (exit 2) and nothing changes', async () => {
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const r = await run('config', 'set', 'base-url', 'http://example.com/v2');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('plain http://');
    expect(r.stderr).toContain('https://');
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);

    const ok = await run('config', 'set', 'base-url', 'https://api.example.com/v2/');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toBe('✓ Set base-url in profile "default".\n');
    expect(readProfile(cfg.dir)!.baseUrl).toBe('https://api.example.com/v2');

    const bad = await run('config', 'set', 'base-url', 'https://api.example.com/v1');
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain('must end in /v2');
  });

  it('set routes.payoutGet is stored and then used: the sandbox sees the overridden path (404, exit 1); unset restores it', async () => {
    const p = ctx.sb.payouts()[0]!;
    const set = await run('config', 'set', 'routes.payoutGet', '/payout/{id}');
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe('');
    expect(set.stderr).toBe('✓ Set routes.payoutGet in profile "default".\n');
    expect(readProfile(cfg.dir)!.routes).toEqual({ payoutGet: '/payout/{id}' });

    const get = await run('config', 'get', 'routes.payoutGet');
    expect([get.code, get.stdout]).toEqual([0, '/payout/{id}\n']);
    const list = await run('config', 'list');
    expect(list.stdout).toMatch(/^routes\.payoutGet\s+\/payout\/\{id\}$/m);

    let from = ctx.sb.requests().length;
    const r = await run('payout', 'get', p.payout_id);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`No route for GET /v2/payout/${p.payout_id}`);
    expect(r.stderr).toContain('HTTP 404 NOT_FOUND');
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual([`GET /v2/payout/${p.payout_id} 404`]);

    const unset = await run('config', 'unset', 'routes.payoutGet');
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stderr).toBe('✓ Unset routes.payoutGet in profile "default".\n');
    expect(readProfile(cfg.dir)!.routes).toBeUndefined();

    from = ctx.sb.requests().length;
    const ok = await run('payout', 'get', p.payout_id);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(p.transaction_id);
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual([`GET /v2/payouts/${p.payout_id} 200`]);
  });

  it('set refuses a route without its {id} or an unknown route (exit 2, nothing saved)', async () => {
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    let r = await run('config', 'set', 'routes.payoutGet', '/payout');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('route payoutGet must contain {id}');
    r = await run('config', 'set', 'routes.nope', '/x');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('Unknown setting "routes.nope"');
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
  });

  it('webhook-secret: set, shown masked, unset', async () => {
    const set = await run('config', 'set', 'webhook-secret', WEBHOOK_SECRET);
    expect(set.code, set.stderr).toBe(0);
    const get = await run('config', 'get', 'webhook-secret');
    expect([get.code, get.stdout]).toEqual([0, `****${WEBHOOK_SECRET.slice(-4)}\n`]);
    expectNoSecrets(get, [WEBHOOK_SECRET]);
    expect(readProfile(cfg.dir)!.webhookSecret).toBe(WEBHOOK_SECRET);
    const unset = await run('config', 'unset', 'webhook-secret');
    expect(unset.code, unset.stderr).toBe(0);
    expect(readProfile(cfg.dir)!.webhookSecret).toBeUndefined();
    expect(readProfile(cfg.dir)!.apiKey).toBe(KEY);
  });
});

describe('config path', () => {
  it('prints the config file in PAYCTL_CONFIG_DIR', async () => {
    const r = await run('config', 'path');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(configFile(cfg.dir) + '\n');
  });

  it('without PAYCTL_CONFIG_DIR: $XDG_CONFIG_HOME/payctl/config.json (no -nodejs suffix)', async () => {
    const r = await payctl(['config', 'path'], { dir: cfg.dir, env: { PAYCTL_CONFIG_DIR: undefined, XDG_CONFIG_HOME: cfg.dir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${cfg.dir}/payctl/config.json\n`);
  });
});

describe('config list of an empty profile', () => {
  it('says there are no settings (exit 0, nothing on stdout)', async () => {
    const r = await run('config', 'list');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Profile "default" has no settings.');
  });

  it('names the other profiles', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }, 'staging');
    const r = await run('config', 'list');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Other profiles: staging');
    const s = await run('config', 'list', '--profile', 'staging');
    expect(s.stdout).toContain(`base-url  ${ctx.sb.baseUrl}`);
    expectNoSecrets(s, [KEY]);
  });
});

describe('a damaged config file', () => {
  const DAMAGED = '{not json';

  it.each([
    [['balances']],
    [['config', 'list']],
    [['config', 'set', 'base-url', 'http://127.0.0.1:1/v2']],
    [['login', '--api-key-stdin', '--base-url', 'http://127.0.0.1:1/v2']],
    [['logout']],
  ])('payctl %j: a clear error naming the file, exit 2, no stack trace, file unchanged', async (args) => {
    writeFileSync(configFile(cfg.dir), DAMAGED, { mode: 0o600 });
    const from = ctx.sb.requests().length;
    const r = await payctl(args, { dir: cfg.dir, input: KEY });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Error: The config file ${configFile(cfg.dir)} is damaged and cannot be read`);
    expect(r.stderr).toContain('payctl does not overwrite it');
    expect(stackLines(r.stderr)).toEqual([]);
    expect(r.stderr).not.toContain('This is a bug');
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(DAMAGED);
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('--json: the error as {"error":{...}} on stderr', async () => {
    writeFileSync(configFile(cfg.dir), DAMAGED, { mode: 0o600 });
    const r = await run('balances', '--json');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr).error;
    expect(err.message).toContain(configFile(cfg.dir));
    expect(stackLines(r.stderr)).toEqual([]);
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(DAMAGED);
  });

  it('valid JSON of the wrong shape is reported the same way', async () => {
    const odd = '{"profiles":{"default":{"apiKey":42}}}';
    writeFileSync(configFile(cfg.dir), odd, { mode: 0o600 });
    const r = await run('config', 'set', 'webhook-secret', WEBHOOK_SECRET);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`The config file ${configFile(cfg.dir)} is damaged`);
    expect(stackLines(r.stderr)).toEqual([]);
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(odd);
  });
});

describe('config.json that is empty, a FIFO or a symlink', () => {
  it('an empty config.json holds no profiles: config set writes it (it reported a bug)', async () => {
    writeFileSync(configFile(cfg.dir), '');
    const r = await run('config', 'set', 'base-url', 'https://api.example.com/v2');
    expect(r.stderr).not.toContain('This is a bug');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(configFile(cfg.dir), 'utf8')).profiles.default.baseUrl).toBe('https://api.example.com/v2');
  });

  it('a FIFO at config.json is refused at once (it blocked every command)', async () => {
    execFileSync('mkfifo', [configFile(cfg.dir)]);
    const r = await payctl(['config', 'list'], { dir: cfg.dir, timeoutMs: 10_000 });
    expect(r.stderr).toContain(`The config file ${configFile(cfg.dir)} is not a regular file`);
    expect(r.code).toBe(2);
    expect(r.ms).toBeLessThan(8_000);
  });

  it('a symlink at config.json is refused, its target untouched (it was rewritten and chmodded)', async () => {
    const target = `${cfg.dir}.target.json`;
    writeFileSync(target, '{"profiles":{}}', { mode: 0o644 });
    symlinkSync(target, configFile(cfg.dir));
    const r = await run('config', 'set', 'base-url', 'https://api.example.com/v2');
    expect(r.stderr).toContain('is a symbolic link');
    expect(r.code).toBe(2);
    expect(readFileSync(target, 'utf8')).toBe('{"profiles":{}}');
    expect(statSync(target).mode & 0o777).toBe(0o644);
    rmSync(target);
  });
});
