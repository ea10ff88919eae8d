import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, existsSync, mkdirSync, chmodSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { openConfigStore } from '../../src/config/store.js';

let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'payctl-store-'));
  dir = join(root, 'nested', 'payctl');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('openConfigStore', () => {
  it('creates the folder 0700 and the file 0600 under PAYCTL_CONFIG_DIR', async () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    expect(store.dir).toBe(dir);
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(mode(dir)).toBe(0o700);
    await store.updateProfile('default', { baseUrl: 'https://api.example.com/v2', apiKey: 'k' });
    expect(existsSync(store.path)).toBe(true);
    expect(mode(store.path)).toBe(0o600);
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
      profiles: { default: { baseUrl: 'https://api.example.com/v2', apiKey: 'k' } },
    });
  });

  it('uses $XDG_CONFIG_HOME/payctl without PAYCTL_CONFIG_DIR', () => {
    const store = openConfigStore({ XDG_CONFIG_HOME: root });
    expect(store.path).toBe(join(root, 'payctl', 'config.json'));
    expect(mode(join(root, 'payctl'))).toBe(0o700);
  });

  it('tightens a looser folder that it owns', () => {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    expect(mode(dir)).toBe(0o700);
  });

  it('keeps the file 0600 when it already existed with a looser mode', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'config.json');
    writeFileSync(file, '{}', { mode: 0o644 });
    chmodSync(file, 0o644);
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    await store.updateProfile('default', { apiKey: 'k' });
    expect(mode(file)).toBe(0o600);
  });

  it('starts empty', () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    expect(store.profileNames()).toEqual([]);
    expect(store.getProfile('default')).toBeUndefined();
  });

  it('updateProfile merges into the profile and removes keys set to undefined', async () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    expect(await store.updateProfile('default', { baseUrl: 'https://a.example.com/v2', apiKey: 'key-1', webhookSignatureHeader: 'X-Signature' })).toEqual({
      baseUrl: 'https://a.example.com/v2',
      apiKey: 'key-1',
      webhookSignatureHeader: 'X-Signature',
    });
    const next = await store.updateProfile('default', { webhookSignatureHeader: undefined, policy: undefined, apiKey: 'key-2' });
    expect(next).toEqual({ baseUrl: 'https://a.example.com/v2', apiKey: 'key-2' });
    expect(store.getProfile('default')).toEqual({ baseUrl: 'https://a.example.com/v2', apiKey: 'key-2' });
    const onDisk = JSON.parse(readFileSync(store.path, 'utf8'));
    expect(onDisk.profiles.default).toEqual({ baseUrl: 'https://a.example.com/v2', apiKey: 'key-2' });
    expect(Object.keys(onDisk.profiles.default)).not.toContain('webhookSignatureHeader');
  });

  it('setProfile replaces a profile; getProfile returns a copy', async () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    await store.updateProfile('work', { baseUrl: 'https://a.example.com/v2', apiKey: 'k' });
    await store.setProfile('work', { webhookSecret: 'whsec', apiKey: undefined });
    expect(store.getProfile('work')).toEqual({ webhookSecret: 'whsec' });
    const copy = store.getProfile('work')!;
    copy.apiKey = 'mutated';
    expect(store.getProfile('work')).toEqual({ webhookSecret: 'whsec' });
  });

  it('keeps routes as a nested object', async () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    await store.updateProfile('default', { routes: { payoutGet: '/payout/{id}' } });
    expect(store.getProfile('default')).toEqual({ routes: { payoutGet: '/payout/{id}' } });
  });

  it('profileNames are sorted; deleteProfile removes one and ignores unknown names', async () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    await store.updateProfile('work', { apiKey: 'w' });
    await store.updateProfile('default', { apiKey: 'd' });
    await store.updateProfile('sandbox', { apiKey: 's' });
    expect(store.profileNames()).toEqual(['default', 'sandbox', 'work']);
    await store.deleteProfile('sandbox');
    expect(store.profileNames()).toEqual(['default', 'work']);
    expect(store.getProfile('sandbox', { mayBeNew: true })).toBeUndefined();
    // Read by a name no profile has (a typo): refused, naming the known ones.
    expect(() => store.getProfile('sandbox')).toThrow(/No profile "sandbox"\. Known profiles: default, work\./);
    await store.deleteProfile('nope');
    expect(store.profileNames()).toEqual(['default', 'work']);
  });

  it('is read back by a second store on the same folder', async () => {
    await openConfigStore({ PAYCTL_CONFIG_DIR: dir }).updateProfile('default', { apiKey: 'persisted' });
    expect(openConfigStore({ PAYCTL_CONFIG_DIR: dir }).getProfile('default')).toEqual({ apiKey: 'persisted' });
  });

  it('does not treat a dotted profile name as a path', async () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    await store.updateProfile('a.b', { apiKey: 'x' });
    expect(store.profileNames()).toEqual(['a.b']);
    expect(JSON.parse(readFileSync(store.path, 'utf8')).profiles['a.b']).toEqual({ apiKey: 'x' });
  });
});

describe('a damaged config file', () => {
  const DAMAGED: Array<[string, string]> = [
    ['invalid JSON', '{"profiles": {"default": {"apiKey": "k"'],
    ['a profile that is not an object', '{"profiles": {"x": 5}}'],
    ['profiles that is a list', '{"profiles": ["a"]}'],
    ['a setting of the wrong type', '{"profiles": {"default": {"apiKey": 42}}}'],
    ['a route that is not a string', '{"profiles": {"default": {"routes": {"payout": null}}}}'],
    ['routes that are a list', '{"profiles": {"default": {"routes": ["/payout"]}}}'],
    ['a secrets storage of another name', '{"profiles": {"default": {"secrets": "vault"}}}'],
    ['a list at the top', '[{"profiles": {}}]'],
  ];

  function damaged(content: string): string {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'config.json');
    writeFileSync(file, content, { mode: 0o600 });
    return file;
  }

  function expectConfigError(err: unknown, file: string): void {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain(file);
    expect((err as ConfigError).message).toMatch(/is damaged and cannot be read/);
    expect((err as ConfigError).exitCode).toBe(2);
  }

  it.each(DAMAGED)('%s: reading throws a ConfigError naming the file and leaves it unchanged', (_, content) => {
    const file = damaged(content);
    const err = caught(() => {
      const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
      store.profileNames();
    });
    expectConfigError(err, file);
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it.each(DAMAGED)('%s: an attempted updateProfile throws and does not overwrite it', async (_, content) => {
    const file = damaged(content);
    let err: unknown;
    try {
      const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
      await store.updateProfile('default', { apiKey: 'new' });
    } catch (e) {
      err = e;
    }
    expectConfigError(err, file);
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it.each(DAMAGED)('%s: deleteProfile and setProfile do not overwrite it', async (_, content) => {
    const file = damaged(content);
    // Opening the store already reads (and refuses) the damaged file.
    await expect(async () => await openConfigStore({ PAYCTL_CONFIG_DIR: dir }).deleteProfile('x')).rejects.toThrow(ConfigError);
    await expect(async () => await openConfigStore({ PAYCTL_CONFIG_DIR: dir }).setProfile('x', { apiKey: 'k' })).rejects.toThrow(ConfigError);
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('the invalid-JSON error gives a hint and no stack-trace text', () => {
    const file = damaged('not json');
    const err = caught(() => openConfigStore({ PAYCTL_CONFIG_DIR: dir }).profileNames()) as ConfigError;
    expectConfigError(err, file);
    expect(err.message).not.toContain('\n');
    expect(err.hint).toMatch(/payctl does not overwrite it/);
  });

  it('names the bad field of a wrong shape', () => {
    damaged('{"profiles": {"x": 5}}');
    const err = caught(() => openConfigStore({ PAYCTL_CONFIG_DIR: dir }).profileNames()) as ConfigError;
    expect(err.message).toMatch(/\(profiles\.x: /);
  });

  it.each([
    ['{"profiles": {"x": 5}}', 'profiles.x: Invalid input: expected object, received number'],
    ['{"profiles": ["a"]}', 'profiles: Invalid input: expected record, received array'],
    ['{"profiles": {"default": {"apiKey": 42}}}', 'profiles.default.apiKey: Invalid input: expected string, received number'],
    ['{"profiles": {"default": {"baseUrl": null}}}', 'profiles.default.baseUrl: Invalid input: expected string, received null'],
    ['{"profiles": {"default": {"routes": {"payout": null}}}}', 'profiles.default.routes.payout: Invalid input: expected string, received null'],
    ['{"profiles": {"default": {"routes": ["/payout"]}}}', 'profiles.default.routes: Invalid input: expected record, received array'],
    ['{"profiles": {"default": {"secrets": "vault"}}}', 'profiles.default.secrets: Invalid option: expected one of "keyring"|"file"'],
    ['"profiles"', 'top level: Invalid input: expected object, received string'],
  ])('%s: says where and what (%s)', (content, problem) => {
    damaged(content);
    const err = caught(() => openConfigStore({ PAYCTL_CONFIG_DIR: dir }).profileNames()) as ConfigError;
    expect(err.message).toContain(`(${problem}).`);
  });

  it('keeps other top-level keys and drops unknown keys of a profile, as before', () => {
    damaged('{"profiles": {"default": {"baseUrl": "https://api.example.com/v2", "colour": "blue"}}, "other": 1}');
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    expect(store.getProfile('default')).toEqual({ baseUrl: 'https://api.example.com/v2' });
  });
});

describe('reading the file again', () => {
  const profileWith = (apiKey: string) => JSON.stringify({ profiles: { default: { baseUrl: 'https://api.example.com/v2', apiKey } } });

  it('sees what another payctl wrote since, even in place and at the same size', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, 'config.json');
    const settle = (): void => utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    writeFileSync(path, profileWith('key_aaaa'), { mode: 0o600 });
    settle(); // last modified a minute ago: a read may keep what it parsed
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    expect(store.getProfile('default')?.apiKey).toBe('key_aaaa');
    // Same inode, same size: only the times say it changed.
    writeFileSync(path, profileWith('key_bbbb'));
    expect(store.getProfile('default')?.apiKey).toBe('key_bbbb');
    // Replaced by a rename (as conf writes), with a damaged file: reported, not the old profiles.
    writeFileSync(`${path}.new`, '{"profiles": ', { mode: 0o600 });
    renameSync(`${path}.new`, path);
    expect(caught(() => store.getProfile('default'))).toBeInstanceOf(ConfigError);
    writeFileSync(path, profileWith('key_cccc'));
    expect(store.getProfile('default')?.apiKey).toBe('key_cccc');
  });

  it("hands each caller a record of its own: a change to one is not the next read's", async () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    await store.updateProfile('default', { baseUrl: 'https://api.example.com/v2', apiKey: 'k' });
    await store.updateProfile('other', { baseUrl: 'https://api.example.com/v2', apiKey: 'k2' });
    expect(store.profileNames()).toEqual(['default', 'other']);
    await store.deleteProfile('other');
    expect(store.profileNames()).toEqual(['default']);
    const p = store.getProfile('default')!;
    p.apiKey = 'changed by the caller';
    expect(store.getProfile('default')?.apiKey).toBe('k');
  });
});

describe('a config file written by a version that kept a token', () => {
  const OLD = {
    profiles: {
      default: {
        baseUrl: 'https://api.example.com/v2',
        apiKey: 'sk_live_default_key',
        token: 'tok_old_default',
        tokenExpiresAt: '2026-11-21T11:15:30.000Z',
        webhookSecret: 'whsec_1',
      },
      ops: { baseUrl: 'https://ops.example.com/v2', apiKey: 'sk_live_ops_key', token: 'tok_old_ops', tokenExpiresAt: '2026-11-21T11:15:30.000Z' },
      // The token only (the key given by PAYCTL_API_KEY): a profile all the same.
      bare: { baseUrl: 'https://bare.example.com/v2', token: 'tok_old_bare' },
    },
  };

  function writeOld(): string {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(OLD, null, '\t'), { mode: 0o600 });
    return file;
  }

  it('is read: the profiles work, with no token or expiry in them, and reading leaves the file as it was', () => {
    const file = writeOld();
    const before = readFileSync(file, 'utf8');
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    expect(store.profileNames()).toEqual(['bare', 'default', 'ops']);
    expect(store.getProfile('default')).toEqual({ baseUrl: 'https://api.example.com/v2', apiKey: 'sk_live_default_key', webhookSecret: 'whsec_1' });
    expect(store.getProfile('ops')).toEqual({ baseUrl: 'https://ops.example.com/v2', apiKey: 'sk_live_ops_key' });
    expect(store.getProfile('bare')).toEqual({ baseUrl: 'https://bare.example.com/v2' });
    expect(store.getProfile('default', { readSecrets: false })).not.toHaveProperty('token');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('the next write drops them from every profile, keeping everything else', async () => {
    const file = writeOld();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    // A write to one profile rewrites the file: the others lose their token too.
    await store.updateProfile('ops', { webhookSignatureHeader: 'X-Signature' });
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('token');
    expect(text).not.toContain('tokenExpiresAt');
    expect(text).not.toContain('tok_old');
    expect(JSON.parse(text)).toEqual({
      profiles: {
        default: { baseUrl: 'https://api.example.com/v2', apiKey: 'sk_live_default_key', webhookSecret: 'whsec_1' },
        ops: { baseUrl: 'https://ops.example.com/v2', apiKey: 'sk_live_ops_key', webhookSignatureHeader: 'X-Signature' },
        bare: { baseUrl: 'https://bare.example.com/v2' },
      },
    });
    expect(mode(file)).toBe(0o600);
    expect(openConfigStore({ PAYCTL_CONFIG_DIR: dir }).getProfile('ops')).toEqual({
      baseUrl: 'https://ops.example.com/v2',
      apiKey: 'sk_live_ops_key',
      webhookSignatureHeader: 'X-Signature',
    });
  });

  it('deleting another profile is a write too: the token goes', async () => {
    const file = writeOld();
    await openConfigStore({ PAYCTL_CONFIG_DIR: dir }).deleteProfile('bare');
    const onDisk = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(onDisk.profiles)).toEqual(['default', 'ops']);
    expect(onDisk.profiles.default).toEqual({ baseUrl: 'https://api.example.com/v2', apiKey: 'sk_live_default_key', webhookSecret: 'whsec_1' });
    expect(readFileSync(file, 'utf8')).not.toContain('tok_old');
  });

  it('a token that is not a string is still a damaged file (never silently dropped and overwritten)', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'config.json');
    const content = '{"profiles": {"default": {"apiKey": "k", "token": 42}}}';
    writeFileSync(file, content, { mode: 0o600 });
    expect(caught(() => openConfigStore({ PAYCTL_CONFIG_DIR: dir }).profileNames())).toBeInstanceOf(ConfigError);
    await expect(async () => await openConfigStore({ PAYCTL_CONFIG_DIR: dir }).updateProfile('default', { apiKey: 'new' })).rejects.toThrow(ConfigError);
    expect(readFileSync(file, 'utf8')).toBe(content);
  });
});

describe('the config file lock', () => {
  const host = { pid: process.pid, kill: (pid: number, sig: 0) => void process.kill(pid, sig) };

  it('a lock left by a process that is gone is broken; one held by a live process is waited for, then named', async () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { host });
    await store.updateProfile('default', { baseUrl: 'https://api.bokumonie.com/v2' });
    const lock = join(dir, 'locks', 'config.lock');
    // A pid far above any this machine hands out: no such process.
    writeFileSync(lock, JSON.stringify({ pid: 2 ** 30, host: hostname(), started: new Date().toISOString(), nonce: 'x' }) + '\n', { mode: 0o600 });
    await store.updateProfile('default', { policy: '/tmp/policy.json' });
    expect(store.getProfile('default')).toEqual({ baseUrl: 'https://api.bokumonie.com/v2', policy: '/tmp/policy.json' });
    expect(existsSync(lock)).toBe(false);

    // This test's own process holds it (another store of it, mid-change): waited for, then it lands.
    const other = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { host });
    await Promise.all([
      other.updateProfile('default', (p) => ({ routes: { ...p.routes, balances: '/b' } })),
      store.updateProfile('default', (p) => ({ routes: { ...p.routes, authUser: '/a' } })),
    ]);
    expect(store.getProfile('default')?.routes).toEqual({ balances: '/b', authUser: '/a' });
  });

  it('a store opened without the process (pid unknown) lets go of its lock after each change: none is left to wait for', async () => {
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir });
    await store.updateProfile('default', { baseUrl: 'https://api.bokumonie.com/v2' });
    expect(readdirSync(join(dir, 'locks'))).toEqual([]);
    await store.setProfile('ops', { baseUrl: 'https://api.bokumonie.com/v2', apiKey: 'k' });
    await store.deleteProfile('ops');
    expect(readdirSync(join(dir, 'locks'))).toEqual([]);
  });
});
