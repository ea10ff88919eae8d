/**
 * login / logout / status, in process (payctl's main with in-memory streams, the sandbox over real HTTP): each key source, the
 * account shown from GET /auth/user, a refused key, the key sent as the bearer (no token exchange), PAYCTL_TOKEN retired, a
 * revoked key, route overrides, and the modes of the config file and folder.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { configFile, expectNoSecrets, lastBearer, newKey, oneJson, readProfile, since, useConfigDir, writeLoggedIn, writeProfile } from '../helpers/e2e.js';
import { writeFileSync } from 'node:fs';
import { payctl } from '../helpers/in-process.js';
import { shellSplit } from '../helpers/pty.js';
import { stderrDocs, warningsOf } from '../helpers/stderr-json.js';

const KEY = newKey();
// One test points login at a route the service does not have (a route override): its request is not held to openapi/v2.yaml.
const ctx = useSandbox({ apiKey: KEY, offContractPaths: /^\/v2\/auth\/whoami$/ });
const cfg = useConfigDir();
const masked = `****${KEY.slice(-4)}`;

afterEach(() => {
  ctx.sb.faults.clear();
  ctx.sb.apiKey = KEY; // undo a revocation
});

/** The account the sandbox says the key belongs to (GET /auth/user, asked directly). */
async function account(): Promise<Record<string, string>> {
  const res = await fetch(`${ctx.sb.baseUrl}/auth/user`, { headers: { Authorization: `Bearer ${KEY}`, Accept: 'application/json' } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Record<string, string> }).data;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Every file in the config folder, as text (to look for a key that must not be saved). */
function folderText(dir: string): string {
  if (!existsSync(dir)) return '';
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

describe('login', () => {
  it('takes the key from --api-key-stdin, checks it with GET /auth/user (the key is the bearer), shows the account and saves base URL and key', async () => {
    const who = await account();
    const from = ctx.sb.requests().length;
    const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY + '\nignored second line\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    // No D-Bus here: no OS keyring can be reached, so the key goes to the file, with a notice.
    expect(r.stderr).toContain(`No OS keyring could be reached (`);
    expect(r.stderr).toContain(`; the key is stored in ${configFile(cfg.dir)} (mode 0600). Use --insecure-storage to choose the file without this notice.`);
    expect(r.stderr).toContain(`✓ Logged in to ${ctx.sb.baseUrl} as profile "default" (key ${masked}); key stored in ${configFile(cfg.dir)} (mode 0600).`);
    expect(r.stderr).toMatch(new RegExp(`^Business\\s+${who.businessName}$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^Email\\s+${who.email}$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^Wallet ID\\s+${who.walletId}$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^KYC\\s+${who.kycStatus}$`, 'm'));
    expect(r.stderr).not.toContain('Token');

    const reqs = since(ctx.sb, from);
    expect(reqs.map((x) => x.line)).toEqual(['GET /v2/auth/user 200']);
    expect(reqs[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(reqs[0]!.headers['idempotency-key']).toMatch(UUID);
    expect(reqs[0]!.headers['api-key']).toBeUndefined();

    const p = readProfile(cfg.dir)!;
    expect(p).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    expectNoSecrets(r, [KEY]);

    // The saved profile works, sending the key itself as the bearer.
    const b = await payctl(['balances', '--json'], { dir: cfg.dir });
    expect(b.code, b.stderr).toBe(0);
    expect(oneJson(b.stdout).data.length).toBe(ctx.sb.wallets().length);
    expect(lastBearer(ctx.sb)).toBe(KEY);
  });

  it('a KYC status other than verified is shown as a warning, and the key is still saved', async () => {
    const kyc = await fetch(`${ctx.sb.url}/_sandbox/account`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kycStatus: 'Pending' }),
    });
    try {
      expect(kyc.status).toBeLessThan(300);
      const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^KYC\s+Pending \(not verified\)$/m);
      expect(r.stderr).toContain('Warning: The account\'s KYC status is "Pending", not verified: the service may refuse payouts until it is.');
      expect(readProfile(cfg.dir)?.apiKey).toBe(KEY);
    } finally {
      await fetch(`${ctx.sb.url}/_sandbox/account`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kycStatus: 'Verified' }) });
    }
  });

  it("honours the profile's route override for /auth/user, like every other command", async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, routes: { authUser: '/auth/whoami' } });
    const from = ctx.sb.requests().length;
    const r = await payctl(['login', '--api-key-stdin'], { dir: cfg.dir, input: KEY });
    // The sandbox has no /auth/whoami: the override was used (404), and nothing was saved.
    expect(r.code, r.stderr).toBe(1);
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/auth/whoami 404']);
    expect(readProfile(cfg.dir)?.apiKey).toBeUndefined();
  });

  it('--json prints the profile, base URL, masked key and the account on stdout', async () => {
    const r = await payctl(['login', '--api-key-stdin', '--json', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY });
    expect(r.code, r.stderr).toBe(0);
    // No D-Bus here: the fallback's notice is the only thing on stderr, a JSON line under --json.
    expect(stderrDocs(r.stderr)).toHaveLength(1);
    expect(warningsOf(r.stderr)[0]).toMatch(
      /^No OS keyring could be reached \(.*\); the key is stored in .* \(mode 0600\)\. Use --insecure-storage to choose the file without this notice\.$/,
    );
    const who = await account();
    const out = oneJson(r.stdout);
    expect(out).toEqual({
      profile: 'default',
      base_url: ctx.sb.baseUrl,
      api_key: masked,
      storage: 'file',
      api_key_source: 'stdin',
      account: {
        business_name: who.businessName,
        first_name: who.firstName,
        last_name: who.lastName,
        email: who.email,
        wallet_id: who.walletId,
        account_status: who.status,
        kyc_status: who.kycStatus,
        kyc_verified: true,
      },
    });
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

  it('a key copied with its quotes, or from a curl command: exit 2 saying so, nothing sent (in quotes it reached the service, and its 401 read as a revoked key)', async () => {
    for (const [input, said] of [
      [`"${KEY}"`, 'is in quotes ("...")'],
      [`Authorization: Bearer ${KEY}`, 'is a header line ("Authorization: ...")'],
      [`Bearer ${KEY}`, 'starts with "Bearer ", the Authorization header\'s word before the key'],
    ] as const) {
      const from = ctx.sb.requests().length;
      const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: `${input}\n` });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`Error: The API key from standard input ${said}: an API key is the key alone. Nothing was sent.`);
      expect(since(ctx.sb, from)).toEqual([]);
      expectNoSecrets(r, [KEY]);
      expect(readProfile(cfg.dir)).toBeUndefined();
    }
  });

  it('a refused key: exit 3 and nothing saved', async () => {
    const wrong = newKey();
    const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: wrong + '\n' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: The service refused the API key (Unauthenticated.).');
    expect(r.stderr).toContain('HTTP 401');
    expect(r.stderr).toContain('payctl login');
    expectNoSecrets(r, [wrong]);
    // Config file absent, or at least no profile and no trace of the key.
    expect(readProfile(cfg.dir)).toBeUndefined();
    expect(folderText(cfg.dir)).not.toContain(wrong);
  });

  it('a refused key into a named profile, with --base-url and --timeout: the login it asks for names all three', async () => {
    const r = await payctl(['login', '--api-key-stdin', '--profile', 'newp', '--base-url', ctx.sb.baseUrl, '--timeout', '9'], { dir: cfg.dir, input: newKey() + '\n' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`Pipe a valid key to \`payctl login --profile newp --base-url ${ctx.sb.baseUrl} --timeout 9 --api-key-stdin\`.`);
  });

  it('a refused key leaves an existing profile exactly as it was', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const before = readFileSync(configFile(cfg.dir), 'utf8');
    const wrong = newKey();
    const r = await payctl(['login', '--api-key-stdin', '--json'], { dir: cfg.dir, input: wrong });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr).error;
    expect(err).toMatchObject({ status: 401 });
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
  it('removes the key but keeps the base URL; afterwards commands say to log in (exit 3)', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await payctl(['logout'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('✓ Logged out of profile "default": API key removed.\n');
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
  });

  it('a bad --base-url is refused (exit 2) and nothing is removed; the login printed for a missing profile runs as printed', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await payctl(['logout', '--base-url', 'notaurl'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('"notaurl" is not a valid base URL.');
    expect(readProfile(cfg.dir)?.apiKey).toBe(KEY);
    const none = await payctl(['logout', '--profile', 'other', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir });
    expect(none.code, none.stderr).toBe(2);
    const login = /run `(payctl login [^`]*)`/.exec(none.stderr)?.[1];
    expect(login, none.stderr).toBe(`payctl login --profile other --base-url ${ctx.sb.baseUrl}`);
    const made = await payctl(shellSplit(login!).slice(1), { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(made.code, made.stderr).toBe(0);
  });
});

describe('status', () => {
  it('shows profile, base URL, masked key, a live check and whose the key is', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const who = await account();
    const from = ctx.sb.requests().length;
    const r = await payctl(['status'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'Profile      default',
        `Base URL     ${ctx.sb.baseUrl}`,
        `API key      ${masked}`,
        'Service      reachable',
        'Credentials  valid',
        `Business     ${who.businessName}`,
        `Name         ${who.firstName} ${who.lastName}`,
        `Email        ${who.email}`,
        `Wallet ID    ${who.walletId}`,
        `Account      ${who.status}`,
        `KYC          ${who.kycStatus}`,
        '',
      ].join('\n'),
    );
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/auth/user 200']);
    expectNoSecrets(r, [KEY]);
  });

  it('--json: one document with authenticated true, the key masked and the account', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const who = await account();
    const r = await payctl(['status', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(oneJson(r.stdout)).toEqual({
      profile: 'default',
      base_url: ctx.sb.baseUrl,
      api_key: masked,
      api_key_source: 'profile',
      service: 'reachable',
      credentials: 'valid',
      authenticated: true,
      account: {
        business_name: who.businessName,
        first_name: who.firstName,
        last_name: who.lastName,
        email: who.email,
        wallet_id: who.walletId,
        account_status: who.status,
        kyc_status: who.kycStatus,
        kyc_verified: true,
      },
    });
    expectNoSecrets(r, [KEY]);
  });

  it("with PAYCTL_API_KEY refused: the environment's key was checked, and refused", async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const wrong = 'sk_wrong_key_0000000000';
    const from = ctx.sb.requests().length;
    const r = await payctl(['status'], { dir: cfg.dir, env: { PAYCTL_API_KEY: wrong } });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^API key\s+\*+0000 \(from the environment\)$/m);
    expect(r.stdout).toContain('Service      reachable');
    expect(r.stdout).toContain('Credentials  refused by the service');
    expect(r.stderr).toContain('PAYCTL_API_KEY was refused');
    expect(since(ctx.sb, from)[0]!.headers.authorization).toBe(`Bearer ${wrong}`);
    const j = await payctl(['status', '--json'], { dir: cfg.dir, env: { PAYCTL_API_KEY: wrong } });
    expect(oneJson(j.stdout)).toMatchObject({ api_key_source: 'env', service: 'reachable', credentials: 'refused', authenticated: false, account: null });
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

describe('the key is the bearer token', () => {
  it('every request carries Authorization: Bearer <key> and a fresh Idempotency-Key; nothing asks for a token', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const from = ctx.sb.requests().length;
    for (let i = 0; i < 2; i++) expect((await payctl(['balances'], { dir: cfg.dir })).code).toBe(0);
    const reqs = since(ctx.sb, from);
    expect(reqs.map((x) => x.line)).toEqual(['GET /v2/wallets/balances 200', 'GET /v2/wallets/balances 200']);
    for (const q of reqs) expect(q.headers.authorization).toBe(`Bearer ${KEY}`);
    const keys = reqs.map((q) => q.headers['idempotency-key']);
    for (const k of keys) expect(k).toMatch(UUID);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('an old profile holding a token from an earlier payctl still works: the key is sent, the token never', async () => {
    writeFileSync(
      configFile(cfg.dir),
      JSON.stringify({ profiles: { default: { baseUrl: ctx.sb.baseUrl, apiKey: KEY, token: 'tok_old_0000', tokenExpiresAt: '2030-01-01T00:00:00Z' } } }),
      { mode: 0o600 },
    );
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(since(ctx.sb, from)[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('PAYCTL_TOKEN is no longer used: a warning says so and the key is sent', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances', '--json'], { dir: cfg.dir, env: { PAYCTL_TOKEN: 'tok_from_env_1234' } });
    expect(r.code, r.stderr).toBe(0);
    expect(warningsOf(r.stderr)).toEqual([expect.stringContaining('PAYCTL_TOKEN is no longer used: the API key itself is the bearer token. Set PAYCTL_API_KEY')]);
    expect(since(ctx.sb, from)[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expectNoSecrets(r, ['tok_from_env_1234']);
  });

  it('a revoked key: exit 3 with a hint naming `payctl login`, one request and no retry', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    ctx.sb.revokeApiKey();
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: The service refused the API key');
    expect(r.stderr).toContain('HTTP 401');
    expect(r.stderr).toContain('`payctl login`');
    expectNoSecrets(r, [KEY]);
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/wallets/balances 401']);

    const j = await payctl(['status', '--json'], { dir: cfg.dir });
    expect(j.code, j.stderr).toBe(3);
    expect(oneJson(j.stdout).authenticated).toBe(false);
    const err = JSON.parse(j.stderr).error;
    expect(err.status).toBe(401);
    expect(err.hint).toContain('payctl login');
  });
});
