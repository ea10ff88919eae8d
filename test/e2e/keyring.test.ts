/**
 * Keys in the OS keyring, end to end. Every payctl run of the first part happens inside its
 * own `dbus-run-session` with a real Secret Service (gnome-keyring, unlocked with a fixed
 * password, its keyring files in a temp HOME): login stores the key there (the key is the
 * bearer token: there is no other secret) and the config file does not hold it; balances,
 * status and logout work from there; a `token` entry an earlier version left is never read
 * and goes with logout; and the entries are checked with secret-tool, outside payctl. An entry
 * removed behind payctl's back is said as such (exit 2), and logout claims no removal; a
 * config folder reached through a symlink finds its entries, and those an earlier version kept
 * under the symlink's path. The second part runs with
 * no D-Bus at all, as the other e2e tests do: login falls back to the 0600 file with a
 * notice, --insecure-storage chooses the file without one, and a keyring profile whose
 * keyring cannot be reached gets a clear error and a way out.
 *
 * The keyring tests need gnome-keyring, dbus-run-session and secret-tool (npm test installs them
 * first: scripts/test-prereqs.mjs); without them they fail, never skip.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliEnv } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { BIN, configFile, expectNoSecrets, lastBearer, newKey, oneJson, payctl, readProfile, since, useConfigDir, type Run } from '../helpers/e2e.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const masked = `****${KEY.slice(-4)}`;

afterEach(() => {
  ctx.sb.faults.clear();
  if (ctx.sb.apiKey !== KEY) ctx.sb.revokeApiKey(KEY);
});

const TOOLS = ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'];
const INSTALL = 'apt-get install gnome-keyring dbus-daemon dbus-bin libsecret-tools';

/** The tools missing from this machine: looked for once (they do not come and go during the file). */
let missingTools: string[] | undefined;

/** Fails (never skips) the test when the Secret Service tools are missing. */
function requireKeyringTools(): void {
  const missing = (missingTools ??= TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`], { stdio: 'ignore' }).status !== 0));
  expect(missing, `The keyring tests need a real Secret Service; missing: ${missing.join(', ')}. Install with: ${INSTALL}`).toEqual([]);
}

/** A temp HOME for gnome-keyring's files (its login keyring persists there between sessions). */
let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'payctl-keyring-home-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

/**
 * Runs `cmd` inside a fresh D-Bus session with gnome-keyring's Secret Service started,
 * unlocked, and owning its bus name before the command starts (else D-Bus would start a
 * second, locked daemon). The command's stdout and stderr come back through fds 4 and 3:
 * the session's own fds 1 and 2 (dbus-daemon's log, and any service it starts) go to a
 * log file, so that nothing the session leaves behind can hold the command's output open.
 */
function inSession(cmd: string[], opts: { input?: string; env?: Record<string, string | undefined> } = {}): Promise<Run> {
  const script = [
    'echo -n payctl-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 3>&- 4>&- ||',
    '  { echo "gnome-keyring-daemon --unlock failed" >&3; exit 97; }',
    'for i in $(seq 1 100); do',
    '  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \\',
    '    string:org.freedesktop.secrets 2>/dev/null 3>&- 4>&- | grep -q "boolean true" && exec "$@" >&4 2>&3 3>&- 4>&-',
    '  sleep 0.05',
    'done',
    'echo "the Secret Service did not appear on the session bus" >&3; exit 97',
  ].join('\n');
  const log = join(home, 'session.log');
  const logFd = openSync(log, 'a');
  const started = Date.now();
  const child = spawn('dbus-run-session', ['--', 'bash', '-c', script, 'bash', ...cmd], {
    env: cliEnv(cfg.dir, { HOME: home, ...opts.env }),
    stdio: ['pipe', logFd, logFd, 'pipe', 'pipe'],
  });
  closeSync(logFd); // the child has its own copy
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdio[4]!.on('data', (d: Buffer) => out.push(d));
  child.stdio[3]!.on('data', (d: Buffer) => err.push(d));
  const session = (): string => readFileSync(log, 'utf8');
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${cmd.join(' ')}\nstdout: ${Buffer.concat(out).toString()}\nstderr: ${Buffer.concat(err).toString()}\nsession: ${session()}`));
    }, 20_000);
    child.on('error', (e) => reject(new Error(`cannot run dbus-run-session (${e.message}); install: ${INSTALL}`)));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      const stderrBytes = Buffer.concat(err);
      if (code === 97) reject(new Error(`no Secret Service in the D-Bus session: ${stderrBytes.toString()}\n${session()}`));
      resolvePromise({ code, signal, stdout: stdoutBytes.toString('utf8'), stderr: stderrBytes.toString('utf8'), stdoutBytes, stderrBytes, ms: Date.now() - started });
    });
    child.stdin!.on('error', () => {});
    child.stdin!.end(opts.input ?? '');
  });
}

function payctlInSession(args: string[], opts: { input?: string; env?: Record<string, string | undefined> } = {}): Promise<Run> {
  return inSession([process.execPath, BIN, ...args], opts);
}

/** The service of this config folder's entries: the folder with its symlinks resolved. */
const service = (): string => `payctl:${realpathSync(cfg.dir)}`;

/** The secret secret-tool finds for an account of this config folder (undefined: none). */
async function lookup(account: string): Promise<string | undefined> {
  const r = await inSession(['secret-tool', 'lookup', 'service', service(), 'username', account]);
  if (r.code !== 0) return undefined;
  return r.stdout;
}

/** How many entries the Secret Service holds for this config folder. */
async function entryCount(): Promise<number> {
  const r = await inSession(['secret-tool', 'search', '--all', 'service', service()]);
  return (r.stdout.match(/^secret = /gm) ?? []).length;
}

/**
 * Plants an entry as an earlier payctl left it (the token it exchanged the key for), through
 * the same native module payctl uses, inside a session.
 */
async function plantLegacyToken(profile: string, value: string): Promise<void> {
  await plantEntry(service(), `${profile}/token`, value);
  expect(await lookup(`${profile}/token`)).toBe(value);
}

/** Writes an entry through the same native module payctl uses, inside a session. */
async function plantEntry(svc: string, account: string, value: string): Promise<void> {
  const script =
    "const { Entry } = require('@napi-rs/keyring'); new Entry(process.argv[1], process.argv[2], { linux: { store: 'secret-service' } }).setPassword(process.argv[3]);";
  const r = await inSession([process.execPath, '-e', script, svc, account, value]);
  expect(r.code, r.stderr).toBe(0);
}

/** How many entries the Secret Service holds under a service. */
async function entriesOf(svc: string): Promise<number> {
  const r = await inSession(['secret-tool', 'search', '--all', 'service', svc]);
  return (r.stdout.match(/^secret = /gm) ?? []).length;
}

function fileText(): string {
  return readFileSync(configFile(cfg.dir), 'utf8');
}

describe('with a Secret Service (gnome-keyring under dbus-run-session)', () => {
  it('login stores the key in the keyring, not the file; balances, status and logout work from there', async () => {
    requireKeyringTools();
    const login = await payctlInSession(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { input: KEY + '\n' });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).toContain(`✓ Logged in to ${ctx.sb.baseUrl} as profile "default" (key ${masked}); key stored in the OS keyring.`);
    expect(login.stderr).not.toContain('No OS keyring');
    expect(login.stderr).not.toMatch(/token/i);
    expectNoSecrets(login, [KEY]);

    // The file: base URL and the storage mark; no key, no token, no expiry. Still 0600.
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, secrets: 'keyring' });
    expect(fileText()).not.toContain(KEY);
    expect(fileText()).not.toMatch(/token/i);
    expect(fileText()).toContain('"secrets": "keyring"');
    expect(statSync(configFile(cfg.dir)).mode & 0o777).toBe(0o600);

    // The Secret Service holds the key alone, under this config folder's service (seen by secret-tool, not payctl).
    expect(await lookup('default/api-key')).toBe(KEY);
    expect(await lookup('default/token')).toBeUndefined();
    expect(await entryCount()).toBe(1);

    // A later session (the keyring persisted on disk) uses it: the key itself is the bearer, no exchange first.
    let from = ctx.sb.requests().length;
    const b = await payctlInSession(['balances', '--json']);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toBe('');
    expect(oneJson(b.stdout).data).toHaveLength(ctx.sb.wallets().length);
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/wallets/balances 200']);
    expect(lastBearer(ctx.sb)).toBe(KEY);

    const st = await payctlInSession(['status', '--json']);
    expect(st.code, st.stderr).toBe(0);
    expect(oneJson(st.stdout)).toMatchObject({ profile: 'default', api_key: masked, api_key_source: 'profile', authenticated: true });
    expectNoSecrets(st, [KEY]);

    // A key the service no longer takes: refused at once (exit 3), nothing to refresh, nothing written.
    const before = fileText();
    ctx.sb.revokeApiKey();
    from = ctx.sb.requests().length;
    const refused = await payctlInSession(['balances', '--json']);
    expect(refused.code, refused.stderr).toBe(3);
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/wallets/balances 401']);
    expect(fileText()).toBe(before);
    expect(await lookup('default/api-key')).toBe(KEY);
    ctx.sb.revokeApiKey(KEY);

    // logout removes the entry; the file keeps the base URL only.
    const out = await payctlInSession(['logout']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe('✓ Logged out of profile "default": API key removed from the OS keyring.\n');
    expect(await entryCount()).toBe(0);
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl });
    const after = await payctlInSession(['balances']);
    expect(after.code, after.stderr).toBe(3);
    expect(after.stderr).toContain('Not logged in');
  });

  it("an earlier version's leftovers (a token entry in the keyring, an expiry in the file): never used; the next write drops the expiry; logout deletes the entry", async () => {
    requireKeyringTools();
    const login = await payctlInSession(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { input: KEY });
    expect(login.code, login.stderr).toBe(0);
    const LEGACY = 'tok_0123456789abcdef0123456789abcdef0123456789abcdef';
    await plantLegacyToken('default', LEGACY);
    const file = JSON.parse(fileText());
    file.profiles.default.tokenExpiresAt = '2030-01-01T00:00:00.000Z';
    writeFileSync(configFile(cfg.dir), JSON.stringify(file, null, '\t'), { mode: 0o600 });
    expect(await entryCount()).toBe(2);

    // The profile works, with its key as the bearer: the old token is never sent.
    const from = ctx.sb.requests().length;
    const b = await payctlInSession(['balances', '--json']);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toBe('');
    expect(since(ctx.sb, from).map((x) => x.line)).toEqual(['GET /v2/wallets/balances 200']);
    expect(lastBearer(ctx.sb)).toBe(KEY);
    expect(ctx.sb.requests().some((r) => (r.headers.authorization ?? '').includes(LEGACY))).toBe(false);
    const list = await payctlInSession(['config', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(oneJson(list.stdout).settings).toEqual({ 'base-url': ctx.sb.baseUrl, 'api-key': masked });

    // The next write drops the expiry from the file.
    const set = await payctlInSession(['config', 'set', 'webhook-signature-header', 'X-Signature']);
    expect(set.code, set.stderr).toBe(0);
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, webhookSignatureHeader: 'X-Signature', secrets: 'keyring' });
    expect(fileText()).not.toMatch(/token/i);

    // logout deletes the key and the legacy entry.
    const out = await payctlInSession(['logout']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe('✓ Logged out of profile "default": API key removed from the OS keyring.\n');
    expect(await lookup('default/token')).toBeUndefined();
    expect(await entryCount()).toBe(0);
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, webhookSignatureHeader: 'X-Signature' });
  });

  it('--json reports "storage": "keyring"; --insecure-storage moves the profile to the file and clears its entries', async () => {
    requireKeyringTools();
    const login = await payctlInSession(['login', '--api-key-stdin', '--json', '--base-url', ctx.sb.baseUrl, '--profile', 'ops'], { input: KEY });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toBe('');
    const doc = oneJson(login.stdout);
    expect(doc).toMatchObject({ profile: 'ops', base_url: ctx.sb.baseUrl, api_key: masked, storage: 'keyring' });
    expect(Object.keys(doc)).not.toContain('token_expires_at');
    expect(await lookup('ops/api-key')).toBe(KEY);
    await plantLegacyToken('ops', 'tok_legacy_ops_0123456789abcdef');

    const insecure = await payctlInSession(['login', '--api-key-stdin', '--json', '--insecure-storage', '--profile', 'ops'], { input: KEY });
    expect(insecure.code, insecure.stderr).toBe(0);
    expect(insecure.stderr).toBe('');
    expect(oneJson(insecure.stdout)).toMatchObject({ profile: 'ops', storage: 'file' });
    // The key in the file, every entry of the profile gone from the keyring (the legacy token too).
    expect(readProfile(cfg.dir, 'ops')).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    expect(await entryCount()).toBe(0);
  });

  it('two config folders never share entries', async () => {
    requireKeyringTools();
    const other = mkdtempSync(join(tmpdir(), 'payctl-test-'));
    try {
      const a = await payctlInSession(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { input: KEY });
      expect(a.code, a.stderr).toBe(0);
      // The other folder: a profile of the same name, not logged in.
      const b = await payctlInSession(['status', '--json'], { env: { PAYCTL_CONFIG_DIR: other } });
      expect(b.code, b.stderr).toBe(3);
      expect(oneJson(b.stdout)).toMatchObject({ profile: 'default', api_key: null });
      // No profile there at all: logout says so (exit 2) and touches no entry of the first folder.
      const out = await payctlInSession(['logout'], { env: { PAYCTL_CONFIG_DIR: other } });
      expect(out.code, out.stderr).toBe(2);
      expect(out.stderr).toContain('There is no profile "default": nothing to log out of.');
      expect(await lookup('default/api-key')).toBe(KEY);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('a keyring profile whose entry is not found where the config folder names it', () => {
  it('the entry removed: exit 2 naming the service and the login that fixes it; logout says nothing was removed', async () => {
    requireKeyringTools();
    const login = await payctlInSession(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl, '--profile', 'kr'], { input: KEY });
    expect(login.code, login.stderr).toBe(0);
    const cleared = await inSession(['secret-tool', 'clear', 'service', service(), 'username', 'kr/api-key']);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(await entryCount()).toBe(0);

    const said = `Error: Profile "kr" keeps its key in the OS keyring (service ${service()}), but no entry is there. Nothing was sent.`;
    const from = ctx.sb.requests().length;
    for (const args of [['balances'], ['status'], ['config', 'get', 'api-key']]) {
      const r = await payctlInSession([...args, '--profile', 'kr']);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(said);
      expect(r.stderr).toContain('Log in to it again to store its key: payctl login --profile kr');
      expect(r.stderr).not.toContain('Not logged in');
    }
    expect(since(ctx.sb, from)).toEqual([]);
    const list = await payctlInSession(['config', 'list', '--profile', 'kr']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`api-key   kept in the OS keyring (service ${service()}), but no entry is there`);

    const out = await payctlInSession(['logout', '--profile', 'kr']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toContain('removed from the OS keyring');
    expect(out.stderr).toContain(
      `Profile "kr" was not logged in: its key was to be in the OS keyring (service ${service()}), but no entry was there. Nothing was removed`,
    );
    const json = await payctlInSession(['logout', '--profile', 'kr', '--json']);
    expect(oneJson(json.stdout)).toEqual({ profile: 'kr', logged_out: false });
    expect(readProfile(cfg.dir, 'kr')).toEqual({ baseUrl: ctx.sb.baseUrl });
    const after = await payctlInSession(['balances', '--profile', 'kr']);
    expect(after.code, after.stderr).toBe(3);
    expect(after.stderr).toContain('Not logged in: profile "kr" has no API key.');
  });

  it('the config folder reached through a symlink: the same entries; one stored under the path as given (earlier versions) still found, and logout removes it', async () => {
    requireKeyringTools();
    const link = join(mkdtempSync(join(tmpdir(), 'payctl-link-')), 'cfglink');
    symlinkSync(cfg.dir, link);
    try {
      const login = await payctlInSession(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl, '--profile', 'kr'], { input: KEY });
      expect(login.code, login.stderr).toBe(0);
      const through = await payctlInSession(['balances', '--profile', 'kr', '--json'], { env: { PAYCTL_CONFIG_DIR: link } });
      expect(through.code, through.stderr).toBe(0);
      expect(lastBearer(ctx.sb)).toBe(KEY);

      // A login made through the symlink by an earlier version: its entry under the link's own path.
      const old = `payctl:${link}`;
      const OLD_KEY = newKey();
      ctx.sb.revokeApiKey(OLD_KEY);
      await plantEntry(old, 'ops/api-key', OLD_KEY);
      const file = JSON.parse(fileText());
      file.profiles.ops = { baseUrl: ctx.sb.baseUrl, secrets: 'keyring' };
      writeFileSync(configFile(cfg.dir), JSON.stringify(file, null, '\t'), { mode: 0o600 });
      const legacy = await payctlInSession(['balances', '--profile', 'ops', '--json'], { env: { PAYCTL_CONFIG_DIR: link } });
      expect(legacy.code, legacy.stderr).toBe(0);
      expect(lastBearer(ctx.sb)).toBe(OLD_KEY);
      const out = await payctlInSession(['logout', '--profile', 'ops'], { env: { PAYCTL_CONFIG_DIR: link } });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stderr).toBe('✓ Logged out of profile "ops": API key removed from the OS keyring.\n');
      expect(await entriesOf(old)).toBe(0);
      expect(await lookup('kr/api-key')).toBe(KEY);
    } finally {
      rmSync(join(link, '..'), { recursive: true, force: true });
    }
  });
});

describe('without a keyring (no D-Bus session)', () => {
  const NOTICE = /No OS keyring could be reached \(.+\); the key is stored in (.+) \(mode 0600\)\. Use --insecure-storage to choose the file without this notice\./;

  it('login falls back to the 0600 file with a notice; balances works', async () => {
    const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(NOTICE);
    expect(r.stderr.match(NOTICE)![1]).toBe(configFile(cfg.dir));
    expect(r.stderr).toContain(`✓ Logged in to ${ctx.sb.baseUrl} as profile "default" (key ${masked}); key stored in ${configFile(cfg.dir)} (mode 0600).`);
    expectNoSecrets(r, [KEY]);
    // Base URL and key: nothing else (no token, no expiry).
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    expect(statSync(configFile(cfg.dir)).mode & 0o777).toBe(0o600);

    const b = await payctl(['balances', '--json'], { dir: cfg.dir });
    expect(b.code, b.stderr).toBe(0);
    expect(oneJson(b.stdout).data).toHaveLength(ctx.sb.wallets().length);
  });

  it('--json: the notice on stderr only, "storage": "file" on stdout', async () => {
    const r = await payctl(['login', '--api-key-stdin', '--json', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(NOTICE);
    expect(oneJson(r.stdout)).toMatchObject({ profile: 'default', api_key: masked, storage: 'file' });
  });

  it('--insecure-storage stores in the file without the notice', async () => {
    const r = await payctl(['login', '--api-key-stdin', '--insecure-storage', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe(`✓ Logged in to ${ctx.sb.baseUrl} as profile "default" (key ${masked}); key stored in ${configFile(cfg.dir)} (mode 0600).`);
    expect(r.stderr).not.toContain('keyring');
    expect(readProfile(cfg.dir)!.apiKey).toBe(KEY);
    expect(statSync(configFile(cfg.dir)).mode & 0o777).toBe(0o600);
  });

  it('the native keyring module loads only when a secret is kept there: not for --version, --insecure-storage or a file profile', async () => {
    const loads = (r: Run): boolean => r.stderr.includes('REQUEST @napi-rs/keyring');
    const env = { NODE_DEBUG: 'module' };
    const version = await payctl(['--version'], { dir: cfg.dir, env });
    expect(version.code).toBe(0);
    expect(loads(version)).toBe(false);
    const insecure = await payctl(['login', '--api-key-stdin', '--insecure-storage', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY, env });
    expect(insecure.code, insecure.stderr).toBe(0);
    expect(loads(insecure)).toBe(false);
    const balances = await payctl(['balances', '--json'], { dir: cfg.dir, env });
    expect(balances.code, balances.stderr).toBe(0);
    expect(loads(balances)).toBe(false);
    // The control: a login that tries the keyring does load it.
    const login = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: KEY, env });
    expect(login.code, login.stderr).toBe(0);
    expect(loads(login)).toBe(true);
  });

  it('a keyring profile without its keyring: exit 2 naming the profile; the printed login moves it to the file', async () => {
    requireKeyringTools();
    const login = await payctlInSession(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl, '--profile', 'ops'], { input: KEY });
    expect(login.code, login.stderr).toBe(0);
    expect(readProfile(cfg.dir, 'ops')).toMatchObject({ secrets: 'keyring' });

    const from = ctx.sb.requests().length;
    const b = await payctl(['balances', '--profile', 'ops'], { dir: cfg.dir });
    expect(b.code, b.stderr).toBe(2);
    expect(b.stdout).toBe('');
    expect(b.stderr).toMatch(/Error: The API key of profile "ops" (is|are) in the OS keyring, which cannot be reached \(/);
    expect(b.stderr).toContain('Nothing was sent.');
    expect(since(ctx.sb, from)).toEqual([]);
    const printed = b.stderr.match(/(payctl login \S.*--insecure-storage)/)?.[1];
    expect(printed).toBe('payctl login --profile ops --insecure-storage');

    // logout cannot remove what it cannot reach: it says so and changes nothing.
    const before = fileText();
    const out = await payctl(['logout', '--profile', 'ops'], { dir: cfg.dir });
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toContain('Cannot remove the API key of profile "ops" from the OS keyring');
    expect(out.stderr).toContain('Nothing was changed.');
    expect(fileText()).toBe(before);

    // The printed command, run as printed (the key from the environment).
    const again = await payctl(printed!.split(' ').slice(1), { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('could not be removed from the OS keyring');
    expect(again.stderr).not.toMatch(NOTICE);
    expect(readProfile(cfg.dir, 'ops')).toMatchObject({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
    expect(readProfile(cfg.dir, 'ops')).not.toHaveProperty('secrets');
    const ok = await payctl(['balances', '--profile', 'ops', '--json'], { dir: cfg.dir });
    expect(ok.code, ok.stderr).toBe(0);
  });
});
