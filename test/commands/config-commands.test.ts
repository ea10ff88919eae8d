/**
 * `payctl config list|get|set|unset|path`, in process (payctl's main with in-memory streams, the sandbox over real HTTP): secrets masked everywhere, base
 * URLs checked, route overrides stored and then really used, and a damaged config
 * file reported (exit 2, file named, no stack trace) and left untouched.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
import { listenInProcess, stopLeftoverListeners } from '../helpers/listen-in-process.js';
import { commandLine } from '../../src/config/command-line.js';

const KEY = newKey();
// The routes.payoutGet test points payctl at /payouts/{transactionId} on purpose, a path the service does not have.
const ctx = useSandbox({ apiKey: KEY, offContractPaths: /^\/v2\/payouts\/./ });
const cfg = useConfigDir();
const WEBHOOK_SECRET = 'whsec_e2e_0123456789abcdef';

const run = (...args: string[]) => payctl(args, { dir: cfg.dir });

afterEach(async () => {
  ctx.sb.faults.clear();
  await stopLeftoverListeners();
});

describe('config with a logged-in profile', () => {
  let profile: ProfileFile;
  beforeEach(async () => {
    profile = await writeLoggedIn(ctx.sb, cfg.dir, KEY);
  });

  it('what login leaves: base URL and key, nothing else', () => {
    expect(profile).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  });

  it('list: settings with the key masked, never in clear', async () => {
    const r = await run('config', 'list');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe([`base-url  ${ctx.sb.baseUrl}`, `api-key   ****${KEY.slice(-4)}`, ''].join('\n'));
    expectNoSecrets(r, [KEY]);
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
        'webhook-secret': `****${WEBHOOK_SECRET.slice(-4)}`,
      },
    });
    expectNoSecrets(set, [WEBHOOK_SECRET, KEY]);
    expectNoSecrets(r, [KEY, WEBHOOK_SECRET]);
  });

  it('get: plain values as they are, secrets masked, exit 1 when not set', async () => {
    let r = await run('config', 'get', 'base-url');
    expect([r.code, r.stdout, r.stderr]).toEqual([0, ctx.sb.baseUrl + '\n', '']);

    // The key is never printed by `config get`: only masked.
    r = await run('config', 'get', 'api-key');
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `****${KEY.slice(-4)}\n`, 'api-key is a secret: shown masked; payctl never prints it in clear.\n']);
    expectNoSecrets(r, [KEY]);

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

  it('a near miss of a setting (base_url, baseurl, Base-URL, webhook_secret): exit 2, and "Did you mean" names the setting; far off: none', async () => {
    for (const [verb, key, meant] of [
      ['set', 'base_url', 'base-url'],
      ['set', 'baseurl', 'base-url'],
      ['get', 'Base-URL', 'base-url'],
      ['unset', 'webhook_secret', 'webhook-secret'],
      ['get', 'apikey', 'api-key'],
    ] as const) {
      const r = await run('config', verb, key, ...(verb === 'set' ? [ctx.sb.baseUrl] : []));
      expect([r.code, r.stdout], r.stderr).toEqual([2, '']);
      expect(r.stderr).toContain(`Error: Unknown setting "${key}".\nDid you mean ${meant}? Settings: `);
    }
    const far = await run('config', 'get', 'colour');
    expect(far.code, far.stderr).toBe(2);
    expect(far.stderr).not.toContain('Did you mean');
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  });

  it('config set api_key (a slip of what login keeps): told at once that login keeps api-key, with the login; a key typed is said to be in shell history (probe B53, 5)', async () => {
    for (const key of ['api_key', 'api-key', 'API_KEY']) {
      const r = await run('config', 'set', key, 'sk_live_typed', '--profile', 'default');
      expect([r.code, r.stdout], r.stderr).toEqual([2, '']);
      expect(r.stderr).not.toContain('Did you mean');
      expect(r.stderr).toContain('is kept by login and removed by logout: config does not change it.');
      expect(r.stderr).toContain('may now be in your shell history');
      expect(r.stderr).toContain('Run `payctl login` to save a new key');
      expect(r.stderr).not.toContain('sk_live_typed');
    }
    const slip = await run('config', 'set', 'api_key', 'x');
    expect(slip.stderr).toMatch(/^Error: Unknown setting "api_key": api-key, which is kept by login/);
    // Without a value on the command line (unset), nothing is said of shell history.
    const unset = await run('config', 'unset', 'api_key');
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('api-key, which is kept by login');
    expect(unset.stderr).not.toContain('shell history');
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  });

  it('config set KEY --stdin checks the setting and the profile before it reads a value (probe B53, 4)', async () => {
    // An empty stdin: the did-you-mean, never a "Pipe it in" for a setting that does not exist.
    const slip = await payctl(['config', 'set', 'webhook_secret', '--stdin', '--profile', 'default'], { dir: cfg.dir, input: '' });
    expect(slip.code).toBe(2);
    expect(slip.stderr).toContain('Unknown setting "webhook_secret".\nDid you mean webhook-secret?');
    expect(slip.stderr).not.toContain('Pipe it in');
    const far = await payctl(['config', 'set', 'nonsense', '--stdin'], { dir: cfg.dir, input: '' });
    expect(far.code).toBe(2);
    expect(far.stderr).toContain('Unknown setting "nonsense"');
    expect(far.stderr).not.toContain('Pipe it in');
    const missing = await payctl(['config', 'set', 'webhook-secret', '--stdin', '--profile', 'nosuch'], { dir: cfg.dir, input: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No profile "nosuch"');
    expect(missing.stderr).not.toContain('Pipe it in');
    // At a terminal, no hidden prompt is shown first (the scripted prompter fails on any question).
    const typed = await payctl(['config', 'set', 'webhook_secret', '--stdin', '--profile', 'nosuch'], { dir: cfg.dir, prompts: [] });
    expect(typed.code).toBe(2);
    expect(typed.stderr).toContain('Unknown setting "webhook_secret"');
    const noProfile = await payctl(['config', 'set', 'webhook-secret', '--stdin', '--profile', 'nosuch'], { dir: cfg.dir, prompts: [] });
    expect(noProfile.code).toBe(2);
    expect(noProfile.stderr).toContain('No profile "nosuch"');
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  });

  it('an unknown setting holding an escape sequence or an invisible character is named with them written out, not as a setting payctl knows (exit 2)', async () => {
    for (const [key, shown] of [
      ['base-url\u001b]0;pwn\u0007', 'base-url\\u001b]0;pwn\\u0007'],
      ['base-url\u200b', 'base-url\\u200b'],
    ] as const) {
      for (const verb of ['get', 'unset']) {
        const r = await run('config', verb, key);
        expect([r.code, r.stdout], r.stderr).toEqual([2, '']);
        expect(r.stderr).toContain(`Error: Unknown setting "${shown}".\n`);
      }
    }
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  });

  it('unset base-url while the profile holds a key: exit 2, nothing changed (the key would be stranded); the printed logout works, then it is unset', async () => {
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    for (const args of [[], ['--json']]) {
      const r = await run('config', 'unset', 'base-url', ...args);
      expect([r.code, r.stdout], r.stderr).toEqual([2, '']);
      expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
    }
    const r = await run('config', 'unset', 'base-url');
    expect(r.stderr).toBe(
      `Error: Profile "default" holds a key for ${ctx.sb.baseUrl}: its base URL stays while the key does. Nothing was changed.\nRemove this profile's key first: payctl logout\n`,
    );
    // The profile still works as it did.
    const status = await run('status');
    expect(status.code, status.stderr).toBe(0);
    const logout = /first: (payctl .*)$/m.exec(r.stderr)![1]!;
    const o = await run(...logout.split(' ').slice(1));
    expect(o.code, o.stderr).toBe(0);
    const unset = await run('config', 'unset', 'base-url');
    expect([unset.code, unset.stderr]).toEqual([0, '✓ Unset base-url in profile "default".\n']);
    expect(readProfile(cfg.dir)).toEqual({});
  });

  it('set base-url to http:// on a non-loopback host is refused (exit 2) and nothing changes', async () => {
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const r = await run('config', 'set', 'base-url', 'http://example.com/v2');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('plain http://');
    expect(r.stderr).toContain('https://');
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);

    // The profile's key stays with its base URL: the same one, written with a trailing slash, is saved as it is.
    const ok = await run('config', 'set', 'base-url', `${ctx.sb.baseUrl}/`);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toBe('✓ Set base-url in profile "default".\n');
    expect(readProfile(cfg.dir)!.baseUrl).toBe(ctx.sb.baseUrl);

    const bad = await run('config', 'set', 'base-url', 'https://api.example.com/v1');
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain('must end in /v2');
  });

  it('set routes.payoutGet is stored and then used: the sandbox sees the overridden path (404, exit 1); unset restores it', async () => {
    const p = ctx.sb.payouts()[0]!;
    const txn = p.transaction_id;
    const set = await run('config', 'set', 'routes.payoutGet', '/payouts/{transactionId}');
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe('');
    expect(set.stderr).toBe('✓ Set routes.payoutGet in profile "default".\n');
    expect(readProfile(cfg.dir)!.routes).toEqual({ payoutGet: '/payouts/{transactionId}' });

    const get = await run('config', 'get', 'routes.payoutGet');
    expect([get.code, get.stdout]).toEqual([0, '/payouts/{transactionId}\n']);
    const list = await run('config', 'list');
    expect(list.stdout).toMatch(/^routes\.payoutGet\s+\/payouts\/\{transactionId\}$/m);

    let from = ctx.sb.requests().length;
    const r = await run('payout', 'get', txn);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('HTTP 404 NOT_FOUND');
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual([`GET /v2/payouts/${txn} 404`]);

    const unset = await run('config', 'unset', 'routes.payoutGet');
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stderr).toBe('✓ Unset routes.payoutGet in profile "default".\n');
    expect(readProfile(cfg.dir)!.routes).toBeUndefined();

    from = ctx.sb.requests().length;
    const ok = await run('payout', 'get', txn);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(txn);
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual([`GET /v2/payout/${txn} 200`]);
  });

  it('set refuses a route without its {transactionId} or an unknown route (exit 2, nothing saved)', async () => {
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    let r = await run('config', 'set', 'routes.payoutGet', '/payout');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('route payoutGet must contain {transactionId}');
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

describe('two config changes at once (two terminals, a provisioning script)', () => {
  beforeEach(async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
  });

  const ROUTES = ['authUser', 'balances', 'payoutCreate', 'payoutsList', 'payoutsSummary'];

  it('six config set at once: every one lands, none overwrites another (five routes of one object among them)', async () => {
    const runs = await Promise.all([...ROUTES.map((r) => run('config', 'set', `routes.${r}`, `/x/${r}`)), run('config', 'set', 'webhook-signature-header', 'X-Sig')]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const p = readProfile(cfg.dir)!;
    expect(p.routes).toEqual(Object.fromEntries(ROUTES.map((r) => [r, `/x/${r}`])));
    expect(p).toMatchObject({ baseUrl: ctx.sb.baseUrl, apiKey: KEY, webhookSignatureHeader: 'X-Sig' });
    // And unset at once: each removes its own route only.
    const unset = await Promise.all(ROUTES.slice(0, 4).map((r) => run('config', 'unset', `routes.${r}`)));
    for (const r of unset) expect(r.code, r.stderr).toBe(0);
    expect(readProfile(cfg.dir)!.routes).toEqual({ payoutsSummary: '/x/payoutsSummary' });
  });
});

describe('config webhook-signature-header', () => {
  beforeEach(async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
  });

  it('set, get (as it is: not a secret), list, unset', async () => {
    const set = await run('config', 'set', 'webhook-signature-header', 'X-Signature');
    expect([set.code, set.stdout, set.stderr]).toEqual([0, '', '✓ Set webhook-signature-header in profile "default".\n']);
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY, webhookSignatureHeader: 'X-Signature' });

    const get = await run('config', 'get', 'webhook-signature-header');
    expect([get.code, get.stdout, get.stderr]).toEqual([0, 'X-Signature\n', '']);
    const getJson = await run('config', 'get', 'webhook-signature-header', '--json');
    expect(getJson.code, getJson.stderr).toBe(0);
    expect(oneJson(getJson.stdout)).toEqual({ key: 'webhook-signature-header', value: 'X-Signature' });

    const list = await run('config', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^webhook-signature-header\s+X-Signature$/m);
    const listJson = await run('config', 'list', '--json');
    expect(oneJson(listJson.stdout).settings['webhook-signature-header']).toBe('X-Signature');

    const unset = await run('config', 'unset', 'webhook-signature-header');
    expect([unset.code, unset.stdout, unset.stderr]).toEqual([0, '', '✓ Unset webhook-signature-header in profile "default".\n']);
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });

    const after = await run('config', 'get', 'webhook-signature-header');
    expect(after.code, after.stderr).toBe(1);
    expect(after.stdout).toBe('');
    expect(after.stderr).toBe('webhook-signature-header is not set in profile "default".\n');
    expect((await run('config', 'list')).stdout).not.toContain('webhook-signature-header');
  });

  // Echoed with what it holds made visible (a zero-width space, an escape, a letter that is not ASCII), never dropped.
  it.each([
    ['X Signature', 'X Signature'],
    ['X-Signature:', 'X-Signature:'],
    ['(sig)', '(sig)'],
    ['Sïg', 'S\\u00efg'],
    ['X-Sig\u200b', 'X-Sig\\u200b'],
    ['X-Sig\u001b[2J', 'X-Sig\\u001b[2J'],
  ])('refuses %j (not an HTTP header name): exit 2, nothing saved, the name shown as %j', async (name, shown) => {
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const r = await run('config', 'set', 'webhook-signature-header', name);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Error: "${shown}" is not an HTTP header name.\n`);
    expect(r.stderr).toContain('payctl config set webhook-signature-header X-Signature');
    expect(stackLines(r.stderr)).toEqual([]);
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
  });

  it('a name edited into the config file by hand: webhooks listen refuses it (exit 2) and prints the command that goes back to Signature, which runs', async () => {
    const file = configFile(cfg.dir);
    const config = JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
    config.profiles.default!.webhookSignatureHeader = 'X Sig';
    writeFileSync(file, JSON.stringify(config));
    const refused = await run('webhooks', 'listen', '--port', '0');
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`The profile's webhook-signature-header "X Sig" is not an HTTP header name.`);
    const printed = /Go back to the documented header \(Signature\) with: payctl (.+)$/m.exec(refused.stderr);
    expect(printed, refused.stderr).not.toBeNull();
    const again = await run(...printed![1]!.split(' '));
    expect(again.code, again.stderr).toBe(0);
    expect(readProfile(cfg.dir)!.webhookSignatureHeader).toBeUndefined();
    const l = await listenInProcess([], { dir: cfg.dir });
    expect(l.stderr()).toContain('Ready: listening');
    await l.stop();
  });

  it('refuses an empty name (exit 2), --json: the error as {"error":{...}}', async () => {
    const r = await run('config', 'set', 'webhook-signature-header', '', '--json');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.message).toBe('"" is not an HTTP header name.');
    expect(readProfile(cfg.dir)!.webhookSignatureHeader).toBeUndefined();
  });
});

describe('the retired token', () => {
  it.each([
    [['config', 'get', 'token']],
    [['config', 'get', 'token-expires-at']],
    [['config', 'set', 'token', 'tok_x']],
    [['config', 'unset', 'token']],
    [['config', 'unset', 'token-expires-at']],
  ])('payctl %j: an unknown setting (exit 2), the settings named without it', async (args) => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const r = await run(...args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Unknown setting "${args[2]}"`);
    expect(r.stderr).toMatch(/Settings: base-url, .*webhook-signature-header/);
    expect(r.stderr).not.toMatch(/Settings: .*token/);
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
  });

  it('an old config file with a token and its expiry: config shows neither, and the next write drops them', async () => {
    const OLD_TOKEN = 'tok_0123456789abcdef0123456789abcdef0123456789abcdef';
    writeFileSync(
      configFile(cfg.dir),
      JSON.stringify({ profiles: { default: { baseUrl: ctx.sb.baseUrl, apiKey: KEY, token: OLD_TOKEN, tokenExpiresAt: '2030-01-01T00:00:00.000Z' } } }),
      { mode: 0o600 },
    );
    const list = await run('config', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    expect(oneJson(list.stdout).settings).toEqual({ 'base-url': ctx.sb.baseUrl, 'api-key': `****${KEY.slice(-4)}` });
    expect(list.stderr).toBe('');
    expectNoSecrets(list, [KEY, OLD_TOKEN]);
    expect(list.stdout).not.toContain('2030-01-01');
    // Reading did not rewrite the file.
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toContain(OLD_TOKEN);

    const set = await run('config', 'set', 'webhook-signature-header', 'X-Signature');
    expect(set.code, set.stderr).toBe(0);
    const text = readFileSync(configFile(cfg.dir), 'utf8');
    expect(text).not.toContain(OLD_TOKEN);
    expect(text).not.toContain('tokenExpiresAt');
    expect(JSON.parse(text).profiles.default).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY, webhookSignatureHeader: 'X-Signature' });
    expect(statSync(configFile(cfg.dir)).mode & 0o777).toBe(0o600);
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

describe('a base URL with a user name and password (the password is a secret)', () => {
  const PASSWORD = 'S3cretPass99';
  const WITH_USER = `https://ops:${PASSWORD}@api.example.com/v2`;
  const MASKED_URL = 'https://****@api.example.com/v2';
  const noPassword = (r: { stdout: string; stderr: string }) => {
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expect(r.stdout + r.stderr).not.toContain('ops:');
  };

  it('edited into the config file: config list, get, status (text and --json) show it masked; nothing is sent (exit 2)', async () => {
    writeProfile(cfg.dir, { baseUrl: WITH_USER, apiKey: KEY });
    const from = ctx.sb.requests().length;
    const list = await run('config', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`base-url  ${MASKED_URL}\n`);
    const listJson = await run('config', 'list', '--json');
    expect(oneJson(listJson.stdout).settings['base-url']).toBe(MASKED_URL);
    const get = await run('config', 'get', 'base-url');
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toBe(`${MASKED_URL}\n`);
    expect(get.stderr).toContain("The base URL's user name and password are shown masked");
    const getJson = await run('config', 'get', 'base-url', '--json');
    expect(oneJson(getJson.stdout)).toEqual({ key: 'base-url', value: MASKED_URL, masked: true });
    const status = await run('status');
    expect(status.code, status.stderr).toBe(2);
    expect(status.stdout).toMatch(/^Base URL +https:\/\/\*{4}@api\.example\.com\/v2$/m);
    expect(status.stderr).toContain('The base URL of profile "default" cannot be used: the base URL must not contain a user name or password.');
    const statusJson = await run('status', '--json');
    expect(oneJson(statusJson.stdout).base_url).toBe(MASKED_URL);
    // The profile's base URL named when its key is withheld from another.
    const other = await run('balances', '--base-url', ctx.sb.baseUrl);
    expect(other.code, other.stderr).toBe(3);
    expect(other.stderr).toContain(`holds a key for ${MASKED_URL}, not for ${ctx.sb.baseUrl}`);
    for (const r of [list, listJson, get, getJson, status, statusJson, other]) noPassword(r);
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('edited into the config file: the refusal says two ways out, and each works as printed', async () => {
    writeProfile(cfg.dir, { baseUrl: WITH_USER, apiKey: KEY });
    const r = await run('balances');
    expect([r.code, r.stdout], r.stderr).toEqual([2, '']);
    expect(r.stderr).toContain(
      "log in to that profile again with the service's base URL (`payctl login --profile default --base-url URL`, the URL ending in /v2), or give this command --base-url with the key for that URL in PAYCTL_API_KEY (the profile's key is sent only to the profile's own base URL).",
    );
    noPassword(r);
    // The second: --base-url, with the key in PAYCTL_API_KEY.
    const flag = await payctl(['balances', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(flag.code, flag.stderr).toBe(0);
    // The first: log in to the profile again with the base URL (the key asked for: here PAYCTL_API_KEY).
    const login = /\(`(payctl login [^`]+)`/.exec(r.stderr)![1]!.replace('URL', ctx.sb.baseUrl);
    const l = await payctl(login.split(' ').slice(1), { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(l.code, l.stderr).toBe(0);
    noPassword(l);
    const b = await run('balances');
    expect(b.code, b.stderr).toBe(0);
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  });

  it('given by --base-url or PAYCTL_BASE_URL, or to config set (even one that does not parse): refused (exit 2), the password never shown', async () => {
    writeProfile(cfg.dir, {});
    const status = await run('status', '--base-url', WITH_USER);
    expect(status.code, status.stderr).toBe(2);
    expect(status.stdout).toMatch(/^Base URL +https:\/\/\*{4}@api\.example\.com\/v2 \(from --base-url\)$/m);
    const env = await payctl(['status', '--json'], { dir: cfg.dir, env: { PAYCTL_BASE_URL: WITH_USER } });
    expect(env.code, env.stderr).toBe(2);
    expect(oneJson(env.stdout).base_url).toBe(MASKED_URL);
    const set = await run('config', 'set', 'base-url', WITH_USER);
    expect(set.code, set.stderr).toBe(2);
    // A password with a slash in it: the URL does not parse, and the refusal quotes what was given.
    const odd = await run('config', 'set', 'base-url', `https://ops:${PASSWORD}/x@api.example.com/v2`);
    expect(odd.code, odd.stderr).toBe(2);
    expect(odd.stderr).toContain('"https://****@api.example.com/v2" is not a valid base URL.');
    // Commands payctl prints carry the base URL of the run: masked there too.
    expect(commandLine({ baseUrl: WITH_USER }, ['history'])).toBe(`payctl history --base-url '${MASKED_URL}'`);
    // A printed config set changes a profile, which a base URL does not choose: it carries none.
    const secret = await payctl(['config', 'set', 'webhook-secret', 'whsec_abcdefgh123'], { dir: cfg.dir, env: { PAYCTL_BASE_URL: WITH_USER } });
    expect(secret.stderr).toContain('payctl config set webhook-secret --stdin');
    expect(secret.stderr).not.toContain('--base-url');
    const policy = await payctl(['config', 'set', 'policy', join(cfg.dir, 'no-such-policy.json')], { dir: cfg.dir, env: { PAYCTL_BASE_URL: WITH_USER } });
    expect(policy.code).toBe(2);
    for (const r of [status, env, set, odd, secret, policy]) noPassword(r);
  });
});

describe('a key kept without a base URL', () => {
  it('a key kept without a base URL (edited by hand): not "pass --base-url" (which would not send it) but log in again or log out, each as printed', async () => {
    writeProfile(cfg.dir, { apiKey: KEY });
    for (const args of [['balances'], ['status']]) {
      const r = await run(...args);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain('Not logged in: profile "default" has no base URL (it holds a key saved without one).');
      expect(r.stderr).toContain(
        "Log in to it again with the service's base URL (`payctl login --base-url URL`, the URL ending in /v2), or remove its key: `payctl logout`.",
      );
    }
    const flag = await run('balances', '--base-url', ctx.sb.baseUrl);
    expect(flag.code, flag.stderr).toBe(3);
    expect(flag.stderr).toContain(`Profile "default" holds a key saved without a base URL, not for ${ctx.sb.baseUrl}: it is not sent there.`);
    const l = await payctl(['login', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(l.code, l.stderr).toBe(0);
    expect((await run('balances')).code).toBe(0);
    writeProfile(cfg.dir, { apiKey: KEY });
    const o = await run('logout');
    expect(o.code, o.stderr).toBe(0);
    expect(readProfile(cfg.dir)).toEqual({});
  });
});

describe('config list of a profile with no settings, or none', () => {
  it('a fresh install (no profile at all): says there are none yet and how to log in (exit 0, nothing on stdout; --json: no profiles)', async () => {
    const r = await run('config', 'list');
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', 'There are no profiles yet. Run `payctl login` to set one up.\n']);
    const j = await run('config', 'list', '--json');
    expect(j.code, j.stderr).toBe(0);
    expect(oneJson(j.stdout)).toEqual({ profile: 'default', profiles: [], settings: {} });
  });

  it('a profile there is, with no settings (after logout and unset): says so (exit 0)', async () => {
    writeProfile(cfg.dir, {});
    const r = await run('config', 'list');
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', 'Profile "default" has no settings. Run `payctl login` to set it up.\n']);
  });

  it('the default profile when only others exist: an error naming them (exit 2), as config get says; each named one lists', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }, 'staging');
    for (const args of [['list'], ['list', '--json'], ['get', 'base-url']]) {
      const r = await run('config', ...args);
      expect([r.code, r.stdout], r.stderr).toEqual([2, '']);
      const said = args.includes('--json') ? JSON.parse(r.stderr).error : { message: r.stderr, hint: r.stderr };
      expect(said.message).toContain('There is no profile "default"');
      expect(said.hint).toContain('Known profiles: staging.');
    }
    const s = await run('config', 'list', '--profile', 'staging');
    expect(s.code, s.stderr).toBe(0);
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

  it('a key given twice in a profile (edited by hand: JSON keeps the last, the editor reads the first): refused naming the key and the file (exit 2), never overwritten, nothing sent', async () => {
    const other = newKey();
    const text = `{"profiles":{"default":{"baseUrl":"${ctx.sb.baseUrl}","apiKey":"${KEY}","apiKey":"${other}"}}}`;
    writeFileSync(configFile(cfg.dir), text, { mode: 0o600 });
    const from = ctx.sb.requests().length;
    for (const args of [['balances'], ['config', 'list'], ['config', 'set', 'webhook-signature-header', 'X-Sig'], ['logout']]) {
      const r = await run(...args);
      expect([r.code, r.stdout], r.stderr).toEqual([2, '']);
      expect(r.stderr).toContain(
        `Error: The config file ${configFile(cfg.dir)} is damaged and cannot be read (the key "apiKey" is given twice in one object: a reader sees the first value, and JSON keeps the last; give it once).`,
      );
      expect(r.stderr).toContain('payctl does not overwrite it');
      expectNoSecrets(r, [KEY, other]);
    }
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(text);
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('a secret written without its quotes: where, in words; none of the secret (V8 quoted ten characters of it)', async () => {
    const secret = 'whsec_Zq81nB0pXeT4';
    const text = `{\n  "profiles": {\n    "default": {\n      "baseUrl": "${ctx.sb.baseUrl}",\n      "webhookSecret": ${secret}\n    }\n  }\n}\n`;
    writeFileSync(configFile(cfg.dir), text, { mode: 0o600 });
    for (const args of [['balances'], ['balances', '--json'], ['config', 'list', '--verbose']]) {
      const r = await payctl(args, { dir: cfg.dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('not valid JSON at line 5, column 24, a letter: a character where none may be, as in a value without its quotes');
      for (let k = 'whsec_'.length; k + 3 <= secret.length; k++) expect(r.stdout + r.stderr).not.toContain(secret.slice(k, k + 3));
    }
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
  it('an empty config.json (0 bytes, or white space) is damage: every command says so (exit 2, no bug report) and none writes over it', async () => {
    for (const [content, why] of [
      ['', 'it is empty (0 bytes)'],
      ['\n  \n', 'it holds only white space'],
    ] as const) {
      writeFileSync(configFile(cfg.dir), content);
      const from = ctx.sb.requests().length;
      for (const args of [
        ['config', 'set', 'base-url', 'https://api.example.com/v2'],
        ['config', 'list'],
        ['balances'],
        ['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl],
        ['logout'],
      ]) {
        const r = await payctl(args, { dir: cfg.dir, input: `${KEY}\n` });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(`Error: The config file ${configFile(cfg.dir)} is damaged and cannot be read (${why}).`);
        expect(r.stderr).not.toContain('This is a bug');
        expect(stackLines(r.stderr)).toEqual([]);
        expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(content);
      }
      expect(since(ctx.sb, from)).toEqual([]);
    }
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

describe('config list and get with the key in an OS keyring that cannot be reached (no D-Bus here)', () => {
  it('every other setting is shown, the key said to be out of reach with what to do; config get api-key alone is exit 2', async () => {
    writeProfile(cfg.dir, { baseUrl: 'https://api.bokumonie.com/v2', secrets: 'keyring', policy: '/srv/payctl/policy.json' });

    const list = await run('config', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('base-url  https://api.bokumonie.com/v2');
    expect(list.stdout).toMatch(/^api-key {3}in the OS keyring, which cannot be reached \(.+\)$/m);
    expect(list.stdout).toContain('policy    /srv/payctl/policy.json');
    expect(list.stderr).toContain('payctl login --profile default --insecure-storage');
    expect(list.stderr).not.toContain('Nothing was sent');

    const json = await run('config', 'list', '--json');
    expect(json.code, json.stderr).toBe(0);
    const doc = oneJson(json.stdout) as { settings: Record<string, string>; api_key_unreachable?: string };
    expect(doc.settings).toEqual({ 'base-url': 'https://api.bokumonie.com/v2', policy: '/srv/payctl/policy.json' });
    expect(doc.api_key_unreachable).toEqual(expect.any(String));

    const base = await run('config', 'get', 'base-url');
    expect(base.code, base.stderr).toBe(0);
    expect(base.stdout).toBe('https://api.bokumonie.com/v2\n');

    const key = await run('config', 'get', 'api-key');
    expect(key.code).toBe(2);
    expect(key.stdout).toBe('');
    expect(key.stderr).toContain('The API key of profile "default" is in the OS keyring, which cannot be reached');
    expect(stackLines(key.stderr)).toEqual([]);
  });
});

describe('config list and get while PAYCTL_API_KEY is set: the key every command sends, marked, the stored one beside it', () => {
  const ENV_KEY = newKey();
  const env = { PAYCTL_API_KEY: `  ${ENV_KEY}\n` };
  const envTail = `****${ENV_KEY.slice(-4)}`;

  it('a profile with a stored key: get and list show the environment key marked, and the stored one; balances sends the environment key', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const get = await payctl(['config', 'get', 'api-key'], { dir: cfg.dir, env });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toBe(`${envTail} (from PAYCTL_API_KEY; stored: ****${KEY.slice(-4)})\n`);
    const json = await payctl(['config', 'get', 'api-key', '--json'], { dir: cfg.dir, env });
    expect(oneJson(json.stdout)).toEqual({ key: 'api-key', value: envTail, masked: true, source: 'env', stored: `****${KEY.slice(-4)}` });
    const list = await payctl(['config', 'list'], { dir: cfg.dir, env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe([`base-url  ${ctx.sb.baseUrl}`, `api-key   ${envTail} (from PAYCTL_API_KEY; stored: ****${KEY.slice(-4)})`, ''].join('\n'));
    const listJson = oneJson((await payctl(['config', 'list', '--json'], { dir: cfg.dir, env })).stdout);
    expect(listJson).toMatchObject({ settings: { 'base-url': ctx.sb.baseUrl, 'api-key': envTail }, api_key_source: 'env', api_key_stored: `****${KEY.slice(-4)}` });
    for (const r of [get, json, list]) expectNoSecrets(r, [KEY, ENV_KEY]);
    // What config shows is what is sent: the sandbox refuses the environment key.
    const sent = await payctl(['balances'], { dir: cfg.dir, env });
    expect(sent.code, sent.stderr).toBe(3);
  });

  it('a profile logged out: exit 0 with the environment key (every command sends it), "none stored"', async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl });
    const get = await payctl(['config', 'get', 'api-key'], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toBe(`****${KEY.slice(-4)} (from PAYCTL_API_KEY; none stored)\n`);
    const json = await payctl(['config', 'get', 'api-key', '--json'], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect([json.code, oneJson(json.stdout)]).toEqual([0, { key: 'api-key', value: `****${KEY.slice(-4)}`, masked: true, source: 'env', stored: null }]);
    const sent = await payctl(['balances'], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(sent.code, sent.stderr).toBe(0);
    // Unset, as before: not set, exit 1.
    const unset = await payctl(['config', 'get', 'api-key'], { dir: cfg.dir });
    expect(unset.code, unset.stderr).toBe(1);
  });

  it('a keyring profile whose keyring cannot be reached: the environment key shown, the stored one said to be out of reach', async () => {
    writeProfile(cfg.dir, { baseUrl: 'https://api.bokumonie.com/v2', secrets: 'keyring' });
    const get = await payctl(['config', 'get', 'api-key'], { dir: cfg.dir, env });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout.startsWith(`${envTail} (from PAYCTL_API_KEY; stored: in the OS keyring, which cannot be reached (`), get.stdout).toBe(true);
    const list = await payctl(['config', 'list'], { dir: cfg.dir, env });
    expect(list.stdout).toContain(`api-key   ${envTail} (from PAYCTL_API_KEY; stored: in the OS keyring, which cannot be reached (`);
    expect(list.stdout.match(/^api-key/gm)).toHaveLength(1);
  });
});
