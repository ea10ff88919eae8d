/**
 * The profile store with its API key in a keyring: an injected fake keyring records
 * every call and can be made unreachable, so each rule of where secrets go is checked
 * without D-Bus (test/e2e/keyring.test.ts does the same against a real Secret Service).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { KeyringUnavailable, keyringService, osKeyring, type Keyring, type KeyringFactory } from '../../src/config/keyring.js';
import { openConfigStore, ProfileSecretsUnreachable, storeDespiteKeyring, type ConfigStore } from '../../src/config/store.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-keyring-store-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** An in-memory keyring shared by every store of the test; `down` makes every call fail. */
function fakeKeyring() {
  const entries = new Map<string, string>();
  const calls: string[] = [];
  const opened: string[] = [];
  const state = { down: undefined as string | undefined };
  const factory: KeyringFactory = (service) => {
    opened.push(service);
    const at = (p: string, s: string) => `${service} ${p}/${s}`;
    const check = (op: string, p: string, s: string) => {
      calls.push(`${op} ${p}/${s}`);
      if (state.down) throw new KeyringUnavailable(state.down);
    };
    const kr: Keyring = {
      service,
      get: (p, s) => (check('get', p, s), entries.get(at(p, s))),
      set: (p, s, v) => (check('set', p, s), void entries.set(at(p, s), v)),
      delete: (p, s) => (check('delete', p, s), entries.delete(at(p, s))),
    };
    return kr;
  };
  return { factory, entries, calls, opened, state, service: keyringService(dir) };
}

function onDisk(store: ConfigStore): any {
  return JSON.parse(readFileSync(store.path, 'utf8')).profiles;
}

const URL_A = 'https://a.example.com/v2';

describe('a profile in the keyring', () => {
  it('login-style update: the key to the keyring; the file holds the mark, no secret, and stays 0600', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    const saved = await store.updateProfile('default', { baseUrl: URL_A, apiKey: 'key-1' }, { secrets: 'keyring' });
    expect(saved).toEqual({ baseUrl: URL_A, apiKey: 'key-1', secrets: 'keyring' });
    expect([...kr.entries]).toEqual([[`${kr.service} default/api-key`, 'key-1']]);
    expect(kr.calls.filter((c) => c.startsWith('set'))).toEqual(['set default/api-key']);
    expect(onDisk(store)).toEqual({ default: { baseUrl: URL_A, secrets: 'keyring' } });
    expect(readFileSync(store.path, 'utf8')).not.toContain('key-1');
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it('getProfile fills the key from the keyring, once per process, and never reads a legacy token entry', async () => {
    const kr = fakeKeyring();
    await openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }).updateProfile('default', { baseUrl: URL_A, apiKey: 'key-1' }, { secrets: 'keyring' });
    // What an earlier version left there: the token it exchanged the key for.
    kr.entries.set(`${kr.service} default/token`, 'tok-legacy');
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    kr.calls.length = 0;
    expect(store.getProfile('default')).toEqual({ baseUrl: URL_A, apiKey: 'key-1', secrets: 'keyring' });
    expect(store.getProfile('default')).toEqual({ baseUrl: URL_A, apiKey: 'key-1', secrets: 'keyring' });
    expect(kr.calls).toEqual(['get default/api-key']);
    // Reading the file only asks the keyring nothing.
    expect(store.getProfile('default', { readSecrets: false })).toEqual({ baseUrl: URL_A, secrets: 'keyring' });
  });

  it('an old keyring profile (expiry still in the file, token in the keyring) is read without either; the next write drops the expiry', async () => {
    const kr = fakeKeyring();
    kr.entries.set(`${kr.service} default/api-key`, 'key-1');
    kr.entries.set(`${kr.service} default/token`, 'tok-legacy');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ profiles: { default: { baseUrl: URL_A, tokenExpiresAt: '2030-01-01T00:00:00.000Z', secrets: 'keyring' } } }),
      {
        mode: 0o600,
      },
    );
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    expect(store.getProfile('default')).toEqual({ baseUrl: URL_A, apiKey: 'key-1', secrets: 'keyring' });
    await store.updateProfile('default', { webhookSignatureHeader: 'X-Signature' });
    expect(onDisk(store)).toEqual({ default: { baseUrl: URL_A, webhookSignatureHeader: 'X-Signature', secrets: 'keyring' } });
    expect(kr.entries.get(`${kr.service} default/api-key`)).toBe('key-1');
  });

  it('a new key on a file profile stays in the file and never opens the keyring', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('default', { baseUrl: URL_A, apiKey: 'key-1' });
    await store.updateProfile('default', { apiKey: 'key-2' });
    expect(store.getProfile('default')).toEqual({ baseUrl: URL_A, apiKey: 'key-2' });
    expect(onDisk(store).default.apiKey).toBe('key-2');
    expect(kr.opened).toEqual([]);
    expect(kr.calls).toEqual([]);
  });

  it('settings other than secrets (config set) never ask the keyring, even one that cannot be reached', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('default', { baseUrl: URL_A, apiKey: 'key-1' }, { secrets: 'keyring' });
    kr.state.down = 'locked';
    const other = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    kr.calls.length = 0;
    await other.updateProfile('default', { webhookSecret: 'whsec', webhookSignatureHeader: 'X-Signature' });
    expect(onDisk(other)).toEqual({ default: { baseUrl: URL_A, webhookSecret: 'whsec', webhookSignatureHeader: 'X-Signature', secrets: 'keyring' } });
    expect(kr.calls.filter((c) => !c.startsWith('get'))).toEqual([]);
  });

  it('logout (the key removed): its entry deleted, the mark dropped', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('default', { baseUrl: URL_A, apiKey: 'key-1' }, { secrets: 'keyring' });
    const saved = await store.updateProfile('default', { apiKey: undefined });
    expect(saved).toEqual({ baseUrl: URL_A });
    expect(kr.entries.size).toBe(0);
    expect(onDisk(store)).toEqual({ default: { baseUrl: URL_A } });
    expect(store.getProfile('default')).toEqual({ baseUrl: URL_A });
  });

  it("logout deletes a legacy token entry too (and only this profile's)", async () => {
    const kr = fakeKeyring();
    await openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }).updateProfile('default', { baseUrl: URL_A, apiKey: 'key-1' }, { secrets: 'keyring' });
    await openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }).updateProfile('ops', { baseUrl: URL_A, apiKey: 'key-ops' }, { secrets: 'keyring' });
    kr.entries.set(`${kr.service} default/token`, 'tok-legacy');
    kr.entries.set(`${kr.service} ops/token`, 'tok-legacy-ops');
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }); // nothing read yet
    kr.calls.length = 0;
    expect(await store.updateProfile('default', { apiKey: undefined })).toEqual({ baseUrl: URL_A });
    expect(kr.calls).toContain('delete default/token');
    expect(kr.calls.filter((c) => c === 'get default/token')).toEqual([]);
    expect([...kr.entries.keys()].sort()).toEqual([`${kr.service} ops/api-key`, `${kr.service} ops/token`]);
    expect(onDisk(store).default).toEqual({ baseUrl: URL_A });
  });

  it('keyring to file (--insecure-storage): the key into the file, entries deleted (a legacy token entry too)', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('default', { baseUrl: URL_A, apiKey: 'key-1' }, { secrets: 'keyring' });
    kr.entries.set(`${kr.service} default/token`, 'tok-legacy');
    await store.updateProfile('default', { apiKey: 'key-2' }, { secrets: 'file' });
    expect(onDisk(store)).toEqual({ default: { baseUrl: URL_A, apiKey: 'key-2' } });
    expect(kr.entries.size).toBe(0);
    expect(readFileSync(store.path, 'utf8')).not.toContain('tok-legacy');
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it('keyring to file keeps the key when the patch does not set it (read from the keyring first)', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('default', { apiKey: 'key-1' }, { secrets: 'keyring' });
    kr.entries.set(`${kr.service} default/token`, 'tok-legacy');
    await openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }).updateProfile('default', { webhookSecret: 'whsec' }, { secrets: 'file' });
    expect(onDisk(store)).toEqual({ default: { apiKey: 'key-1', webhookSecret: 'whsec' } });
    expect(kr.entries.size).toBe(0);
  });

  it('file to keyring: the key out of the file, into the keyring (a stale entry replaced)', async () => {
    const kr = fakeKeyring();
    kr.entries.set(`${kr.service} default/api-key`, 'stale');
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('default', { baseUrl: URL_A, apiKey: 'key-1' });
    await store.updateProfile('default', {}, { secrets: 'keyring' });
    expect(onDisk(store)).toEqual({ default: { baseUrl: URL_A, secrets: 'keyring' } });
    expect([...kr.entries]).toEqual([[`${kr.service} default/api-key`, 'key-1']]);
    expect(openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }).getProfile('default')).toEqual({ baseUrl: URL_A, apiKey: 'key-1', secrets: 'keyring' });
  });

  it('file to keyring without a key: stale entries cleared (a legacy token too), the profile stays in the file', async () => {
    const kr = fakeKeyring();
    kr.entries.set(`${kr.service} default/api-key`, 'stale');
    kr.entries.set(`${kr.service} default/token`, 'tok-legacy');
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('default', { baseUrl: URL_A });
    await store.updateProfile('default', {}, { secrets: 'keyring' });
    expect(kr.entries.size).toBe(0);
    expect(onDisk(store)).toEqual({ default: { baseUrl: URL_A } });
  });

  it('setProfile replaces a keyring profile, keeping it in the keyring', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('work', { baseUrl: URL_A, apiKey: 'key-1' }, { secrets: 'keyring' });
    await store.setProfile('work', { apiKey: 'key-2', webhookSecret: 'whsec' });
    expect(onDisk(store)).toEqual({ work: { webhookSecret: 'whsec', secrets: 'keyring' } });
    expect([...kr.entries]).toEqual([[`${kr.service} work/api-key`, 'key-2']]);
  });

  it('deleteProfile deletes the entries too (a legacy token entry included)', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('work', { apiKey: 'w-key' }, { secrets: 'keyring' });
    kr.entries.set(`${kr.service} work/token`, 'w-tok');
    await store.updateProfile('default', { apiKey: 'd-key' }, { secrets: 'keyring' });
    await store.deleteProfile('work');
    expect(store.profileNames()).toEqual(['default']);
    expect([...kr.entries.keys()]).toEqual([`${kr.service} default/api-key`]);
  });

  it('two config folders use two services; a relative folder is made absolute', async () => {
    const kr = fakeKeyring();
    const other = mkdtempSync(join(tmpdir(), 'payctl-keyring-store-'));
    try {
      await openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }).updateProfile('default', { apiKey: 'a' }, { secrets: 'keyring' });
      await openConfigStore({ PAYCTL_CONFIG_DIR: other }, { keyring: kr.factory }).updateProfile('default', { apiKey: 'b' }, { secrets: 'keyring' });
      expect(kr.opened).toEqual([`payctl:${resolve(dir)}`, `payctl:${resolve(other)}`]);
      expect(openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }).getProfile('default')?.apiKey).toBe('a');
      expect(openConfigStore({ PAYCTL_CONFIG_DIR: other }, { keyring: kr.factory }).getProfile('default')?.apiKey).toBe('b');
      expect(keyringService(relative(process.cwd(), dir))).toBe(`payctl:${resolve(dir)}`);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('a keyring that cannot be reached', () => {
  it('updateProfile to the keyring throws KeyringUnavailable and leaves the file as it was', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('default', { baseUrl: URL_A });
    const before = readFileSync(store.path, 'utf8');
    kr.state.down = 'DBus error: no session bus';
    const err = await store.updateProfile('default', { apiKey: 'key-1' }, { secrets: 'keyring' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeyringUnavailable);
    expect((err as KeyringUnavailable).reason).toBe('DBus error: no session bus');
    expect((err as KeyringUnavailable).exitCode).toBe(2);
    expect(readFileSync(store.path, 'utf8')).toBe(before);
  });

  it('a keyring that refuses the write (reading and deleting work) leaves no key behind for a profile that stays in the file', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    const flaky: KeyringFactory = (service) => {
      const inner = kr.factory(service);
      return {
        ...inner,
        set() {
          throw new KeyringUnavailable('locked');
        },
      };
    };
    const other = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: flaky });
    await store.updateProfile('default', { baseUrl: URL_A });
    await expect(other.updateProfile('default', { apiKey: 'key-1' }, { secrets: 'keyring' })).rejects.toThrow(KeyringUnavailable);
    expect(kr.entries.size).toBe(0);
    expect(onDisk(store)).toEqual({ default: { baseUrl: URL_A } });
  });

  it('getProfile of a keyring profile: a ConfigError (exit 2) naming the profile, the reason and the way out', async () => {
    const kr = fakeKeyring();
    await openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }).updateProfile('ops', { baseUrl: URL_A, apiKey: 'key-1' }, { secrets: 'keyring' });
    kr.state.down = 'locked';
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    let err: unknown;
    try {
      store.getProfile('ops');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProfileSecretsUnreachable);
    expect(err).toBeInstanceOf(ConfigError);
    const e = err as ProfileSecretsUnreachable;
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(/^The API key of profile "ops" (is|are) in the OS keyring, which cannot be reached \(locked\)\. Nothing was sent\.$/);
    expect(`${e.message} ${e.hint}`).not.toMatch(/token/i);
    expect(e.hint).toContain('Unlock or start the OS keyring');
    expect(e.hint).toContain('payctl login --profile ops --insecure-storage');
    // What needs no secret still works, through the same store.
    expect(e.store).toBe(store);
    expect(store.getProfile('ops', { readSecrets: false })).toEqual({ baseUrl: URL_A, secrets: 'keyring' });
    expect(storeDespiteKeyring(() => store.getProfile('ops') as never)).toBe(store);
    expect(() =>
      storeDespiteKeyring(() => {
        throw new ConfigError('other');
      }),
    ).toThrow('other');
  });

  it('a file profile never needs the keyring: other profiles in the keyring do not matter', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('ops', { apiKey: 'k' }, { secrets: 'keyring' });
    await store.updateProfile('default', { apiKey: 'plain' });
    kr.state.down = 'locked';
    kr.calls.length = 0;
    expect(openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }).getProfile('default')).toEqual({ apiKey: 'plain' });
    expect(kr.calls).toEqual([]);
  });

  it('moving to the file still works; the entries left behind are reported', async () => {
    const kr = fakeKeyring();
    await openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory }).updateProfile('default', { baseUrl: URL_A, apiKey: 'old' }, { secrets: 'keyring' });
    kr.state.down = 'locked';
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    const leftovers: string[] = [];
    await store.updateProfile('default', { apiKey: 'new' }, { secrets: 'file', onKeyringLeftover: (r) => leftovers.push(r) });
    expect(onDisk(store)).toEqual({ default: { baseUrl: URL_A, apiKey: 'new' } });
    expect(leftovers).toEqual(['locked']);
    expect(store.getProfile('default')).toEqual({ baseUrl: URL_A, apiKey: 'new' });
  });

  it('logout and deleteProfile of a keyring profile throw and change nothing', async () => {
    const kr = fakeKeyring();
    const store = openConfigStore({ PAYCTL_CONFIG_DIR: dir }, { keyring: kr.factory });
    await store.updateProfile('default', { baseUrl: URL_A, apiKey: 'k' }, { secrets: 'keyring' });
    kr.entries.set(`${kr.service} default/token`, 'tok-legacy');
    const before = readFileSync(store.path, 'utf8');
    kr.state.down = 'locked';
    await expect(store.updateProfile('default', { apiKey: undefined })).rejects.toThrow(KeyringUnavailable);
    await expect(store.deleteProfile('default')).rejects.toThrow(KeyringUnavailable);
    expect(readFileSync(store.path, 'utf8')).toBe(before);
    expect(kr.entries.size).toBe(2);
  });
});

describe('the OS keyring (osKeyring)', () => {
  it('a session bus that is not there: KeyringUnavailable with a one-line reason, at once', () => {
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(dir, 'no-bus')}`;
    try {
      const kr = osKeyring(keyringService(dir));
      const started = Date.now();
      let err: unknown;
      try {
        kr.get('default', 'api-key');
      } catch (e) {
        err = e;
      }
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(err).toBeInstanceOf(KeyringUnavailable);
      const reason = (err as KeyringUnavailable).reason;
      expect(reason.length).toBeGreaterThan(0);
      expect(reason).not.toContain('\n');
      expect((err as KeyringUnavailable).message).toBe(`The OS keyring cannot be reached (${reason}).`);
    } finally {
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
    }
  });
});
