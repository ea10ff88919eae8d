/**
 * login / logout / status, in process (payctl's main with in-memory streams, the sandbox over real HTTP): each key source, a refused key, token expiry
 * and refresh, a revoked key, and the modes of the config file and folder.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { configFile, expectNoSecrets, lastBearer, newKey, oneJson, readProfile, since, useConfigDir, writeLoggedIn, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const masked = `****${KEY.slice(-4)}`;

afterEach(() => {
  ctx.sb.faults.clear();
  ctx.sb.apiKey = KEY; // undo a revocation
});

/** Every file in the config folder, as text (to look for a key that must not be saved). */
function folderText(dir: string): string {
  if (!existsSync(dir)) return '';
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

describe('login', () => {
  it('takes the key from --api-key-stdin, verifies it live and saves base URL, key, token and expiry', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY + '\nignored second line\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    // No D-Bus here: no OS keyring can be reached, so the key and token go to the file, with a notice.
    expect(r.stderr).toContain(`No OS keyring could be reached (`);
    expect(r.stderr).toContain(`; the key and token are stored in ${configFile(cfg.dir)} (mode 0600). Use --insecure-storage to choose the file without this notice.`);
    expect(r.stderr).toContain(`✓ Logged in to ${ctx.sb.baseUrl} as profile "default" (key ${masked}); key and token stored in ${configFile(cfg.dir)} (mode 0600).`);
    expect(r.stderr).toMatch(/Token valid until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);

    const reqs = since(ctx.sb, from);
    expect(reqs.map((x) => x.line)).toEqual(['GET /v2/auth/token 200']);
    expect(reqs[0]!.headers['api-key']).toBe(KEY);

    const p = readProfile(cfg.dir)!;
    expect(p.baseUrl).toBe(ctx.sb.baseUrl);
    expect(p.apiKey).toBe(KEY);
    expect(p.token).toMatch(/^tok_[0-9a-f]{48}$/);
    // The sandbox issues tokens for 3600 s.
    const ttl = Date.parse(p.tokenExpiresAt!) - Date.now();
    expect(ttl).toBeGreaterThan(3500_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);
    expectNoSecrets(r, [KEY, p.token]);

    // The saved profile works.
    const b = await payctl(['balances', '--json'], { dir: cfg.dir });
    expect(b.code, b.stderr).toBe(0);
    expect(oneJson(b.stdout).data.length).toBe(ctx.sb.wallets().length);
  });

  it('--json prints the profile, base URL, masked key and token expiry on stdout', async () => {
    const r = await payctl(['login', '--api-key-stdin', '--json', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY });
    expect(r.code, r.stderr).toBe(0);
    // No D-Bus here: the fallback's notice is the only thing on stderr.
    expect(r.stderr).toMatch(
      /^Warning: No OS keyring could be reached \(.*\); the key and token are stored in .* \(mode 0600\)\. Use --insecure-storage to choose the file without this notice\.\n$/,
    );
    const out = oneJson(r.stdout);
    expect(out).toEqual({ profile: 'default', base_url: ctx.sb.baseUrl, api_key: masked, token_expires_at: readProfile(cfg.dir)!.tokenExpiresAt, storage: 'file' });
    expectNoSecrets(r, [KEY]);
  });

  it('takes the key from PAYCTL_API_KEY and the base URL from PAYCTL_BASE_URL, into the chosen profile', async () => {
    const r = await payctl(['login', '--profile', 'ops'], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY, PAYCTL_BASE_URL: ctx.sb.baseUrl } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Logged in to ${ctx.sb.baseUrl} as profile "ops" (key ${masked})`);
    expect(readProfile(cfg.dir, 'ops')).toMatchObject({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    expect(readProfile(cfg.dir, 'default')).toBeUndefined();
    expectNoSecrets(r, [KEY]);
  });

  it('without a terminal and without a key: exit 2 with a hint, nothing sent, nothing saved', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['login', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: No API key given.');
    expect(r.stderr).toContain('--api-key-stdin');
    expect(r.stderr).toContain('PAYCTL_API_KEY');
    expect(since(ctx.sb, from)).toEqual([]);
    expect(readProfile(cfg.dir)).toBeUndefined();
  });

  it('an empty first line on stdin is a usage error (exit 2)', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: '\n' + KEY + '\n' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('The API key from standard input is empty.');
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('a refused key: exit 3 and nothing saved', async () => {
    const wrong = newKey();
    const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: wrong + '\n' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: The API key was refused by the service (Invalid API key.).');
    expect(r.stderr).toContain('HTTP 401 UNAUTHORIZED');
    expect(r.stderr).toMatch(/Request ID: req_[0-9a-f]{24}/);
    expect(r.stderr).toContain('payctl login');
    expectNoSecrets(r, [wrong]);
    // Config file absent, or at least no profile and no trace of the key.
    expect(readProfile(cfg.dir)).toBeUndefined();
    expect(folderText(cfg.dir)).not.toContain(wrong);
  });

  it('a refused key leaves an existing profile exactly as it was', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const wrong = newKey();
    const r = await payctl(['login', '--api-key-stdin', '--json'], { dir: cfg.dir, input: wrong });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr).error;
    expect(err).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(err.hint).toContain('payctl login');
    expect(readFileSync(configFile(cfg.dir), 'utf8')).toBe(before);
  });

  it('creates the config file 0600 in a folder 0700, and tightens a looser folder', async () => {
    // A folder payctl creates itself.
    const fresh = join(cfg.dir, 'nested', 'payctl');
    let r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: fresh, input: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    expect(statSync(configFile(fresh)).mode & 0o777).toBe(0o600);

    // A folder that exists with 0755.
    const loose = join(cfg.dir, 'loose');
    mkdirSync(loose, { mode: 0o755 });
    chmodSync(loose, 0o755);
    r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: loose, input: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(loose).mode & 0o777).toBe(0o700);
    expect(statSync(configFile(loose)).mode & 0o777).toBe(0o600);
  });
});

describe('logout', () => {
  it('removes key and token but keeps the base URL; afterwards commands say to log in (exit 3)', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await payctl(['logout'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('✓ Logged out of profile "default": API key and token removed.\n');
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl });

    const again = await payctl(['logout', '--json'], { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
    expect(oneJson(again.stdout)).toEqual({ profile: 'default', logged_out: false });

    const b = await payctl(['balances'], { dir: cfg.dir });
    expect(b.code, b.stderr).toBe(3);
    expect(b.stdout).toBe('');
    expect(b.stderr).toContain('Not logged in');
    expect(b.stderr).toContain('payctl login');
  });

  it('--json reports that the profile was logged in', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await payctl(['logout', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(oneJson(r.stdout)).toEqual({ profile: 'default', logged_out: true });
    expect(readProfile(cfg.dir)?.apiKey).toBeUndefined();
    expect(readProfile(cfg.dir)?.token).toBeUndefined();
  });
});

describe('status', () => {
  it('shows profile, base URL, masked key, token expiry and a live check', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const p = readProfile(cfg.dir)!;
    const r = await payctl(['status'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const expiry = new Date(p.tokenExpiresAt!)
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC');
    expect(r.stdout).toBe(
      [
        'Profile      default',
        `Base URL     ${ctx.sb.baseUrl}`,
        `API key      ${masked}`,
        `Token        stored in the profile, valid until ${expiry}`,
        'Service      reachable',
        `Credentials  valid (${ctx.sb.wallets().length} wallets)`,
        '',
      ].join('\n'),
    );
    expectNoSecrets(r, [KEY, p.token]);
  });

  it('--json: one document with authenticated true and the key masked', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const p = readProfile(cfg.dir)!;
    const r = await payctl(['status', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(oneJson(r.stdout)).toEqual({
      profile: 'default',
      base_url: ctx.sb.baseUrl,
      api_key: masked,
      api_key_source: 'profile',
      token_source: 'profile',
      token_expires_at: p.tokenExpiresAt,
      service: 'reachable',
      credentials: 'valid',
      authenticated: true,
    });
    expectNoSecrets(r, [KEY, p.token]);
  });

  it("with PAYCTL_API_KEY refused: no 'Token valid until' for the profile's token, which the client does not use with another key", async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await payctl(['status'], { dir: cfg.dir, env: { PAYCTL_API_KEY: 'sk_wrong_key_0000000000' } });
    expect(r.code, r.stderr).toBe(3);
    // The client fetches a token with PAYCTL_API_KEY: status says so, not "none" and not the stored one.
    expect(r.stdout).toMatch(/^Token\s+none stored: a new one from PAYCTL_API_KEY for each run \(not saved\)$/m);
    expect(r.stdout).not.toContain('valid until');
    expect(r.stdout).toContain('Service      reachable');
    expect(r.stdout).toContain('Credentials  refused by the service');
    const j = await payctl(['status', '--json'], { dir: cfg.dir, env: { PAYCTL_API_KEY: 'sk_wrong_key_0000000000' } });
    expect(oneJson(j.stdout)).toMatchObject({
      api_key_source: 'env',
      token_source: 'api_key',
      token_expires_at: null,
      service: 'reachable',
      credentials: 'refused',
      authenticated: false,
    });
  });

  it('not logged in: exit 3, "not set", and a hint to log in', async () => {
    const r = await payctl(['status'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toContain('Profile      default');
    expect(r.stdout).toContain('Service      not checked');
    expect(r.stdout).toContain('Credentials  none (not logged in)');
    expect(r.stdout).toMatch(/API key\s+not set/);
    expect(r.stderr).toContain('Not logged in');
    expect(r.stderr).toContain('payctl login');
  });
});

describe('tokens', () => {
  it('an expired token (401) is replaced with a new one from the key; the command still works', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const old = readProfile(cfg.dir)!.token!;
    ctx.sb.expireTokens();
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(oneJson(r.stdout).data).toHaveLength(ctx.sb.wallets().length);

    const reqs = since(ctx.sb, from);
    expect(reqs.map((x) => x.line)).toEqual(['GET /v2/wallets/balances 401', 'GET /v2/auth/token 200', 'GET /v2/wallets/balances 200']);
    expect(reqs[0]!.headers.authorization).toBe(`Bearer ${old}`);
    expect(reqs[1]!.headers['api-key']).toBe(KEY);
    const fresh = reqs[2]!.headers.authorization!.slice('Bearer '.length);
    expect(fresh).not.toBe(old);
    // The new token is saved in the profile and used by the next command without a new fetch.
    expect(readProfile(cfg.dir)!.token).toBe(fresh);
    const from2 = ctx.sb.requests().length;
    const again = await payctl(['balances'], { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(since(ctx.sb, from2).map((x) => x.line)).toEqual(['GET /v2/wallets/balances 200']);
    expect(lastBearer(ctx.sb)).toBe(fresh);
  });

  it('a token about to expire is renewed before the request (no 401 first)', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const p = readProfile(cfg.dir)!;
    writeProfile(cfg.dir, { ...p, tokenExpiresAt: new Date(Date.now() + 5_000).toISOString() });
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const reqs = since(ctx.sb, from);
    expect(reqs.map((x) => x.line)).toEqual(['GET /v2/auth/token 200', 'GET /v2/wallets/balances 200']);
    const used = reqs[1]!.headers.authorization!.slice('Bearer '.length);
    expect(used).not.toBe(p.token);
    const after = readProfile(cfg.dir)!;
    expect(after.token).toBe(used);
    expect(Date.parse(after.tokenExpiresAt!)).toBeGreaterThan(Date.now() + 3500_000);
  });

  it('a revoked key: exit 3 with a hint naming `payctl login`', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    ctx.sb.revokeApiKey();
    ctx.sb.expireTokens();
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: The API key was refused by the service');
    expect(r.stderr).toContain('HTTP 401');
    expect(r.stderr).toContain('`payctl login`');
    expectNoSecrets(r, [KEY]);
    // The old token was tried, then the key, and nothing more.
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/wallets/balances 401', 'GET /v2/auth/token 401']);

    const j = await payctl(['status', '--json'], { dir: cfg.dir });
    expect(j.code, j.stderr).toBe(3);
    expect(oneJson(j.stdout).authenticated).toBe(false);
    const err = JSON.parse(j.stderr).error;
    expect(err.code, err.stderr).toBe('UNAUTHORIZED');
    expect(err.hint).toContain('payctl login');
  });
});
