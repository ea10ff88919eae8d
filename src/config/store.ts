/**
 * The profile store: one JSON file `config.json` in the config folder, mode 0600 in a
 * 0700 folder. Writes go through conf (atomic, with the file mode); reads parse the file
 * directly, so the commands that only read never load conf and its JSON-schema validator
 * (a third of start-up; see `npm run bench`). A damaged file is reported with its path
 * and never overwritten. A file over 1 MiB is refused unread (a profile store is a few
 * KiB), and so is one that others could have written (group- or world-writable, or
 * another user's): it names the base URL every key is sent to. Refused, not fixed: once
 * others could write it, what it says can no longer be trusted, so the user looks first.
 *
 * A profile's API key lives either in the file or, for a profile marked
 * `"secrets": "keyring"`, in the OS keyring (keyring.ts), and then never in the file.
 * Callers see one Profile either way: getProfile fills the key in, updateProfile
 * writes them to where the profile keeps them.
 *
 * A profile read by a name that is no profile is an error naming the profiles there are
 * (known-profiles.ts): every command that reads the run's profile gets it from here, so a
 * typo in --profile or PAYCTL_PROFILE stops every one of them alike, before anything is sent.
 */
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import type Conf from 'conf';
import { timeoutOption } from './command-line.js';
import { ProfileKeyMissing, ProfileSecretsUnreachable } from './profile-secrets.js';

export { ProfileKeyMissing, ProfileSecretsUnreachable };
import { folderKeyring, KeyringUnavailable, keyringService, keyringServices, osKeyring, type Keyring, type KeyringFactory, type SecretName } from './keyring.js';
import { configDir, ensureConfigDir } from './paths.js';
import { folderFault, isFsError } from './folder-fault.js';
import { FILE_NAME, readProfilesFile, type FileShape, type ParsedFile } from './config-file.js';
import { DEFAULT_PROFILE, unknownProfile } from './known-profiles.js';
import { withLockFiles, type LockHost } from './lock-files.js';

/** Where a profile keeps its API key. */
import type { Profile, SecretsStorage } from './profile.js';

export type { Profile, SecretsStorage };

export interface UpdateOptions {
  /** Where the key goes from now on; default: where the profile keeps them now (else the file). */
  secrets?: SecretsStorage;
  /**
   * Moving a profile from the keyring to the file removes its keyring entries; when the
   * keyring cannot be reached they stay there, and this is told why.
   */
  onKeyringLeftover?: (reason: string) => void;
}

/** What updateProfile merges: the fields, or a function of the profile's settings as they are when it is changed. */
export type ProfilePatch = Partial<Profile> | ((current: Profile) => Partial<Profile>);

export interface GetProfileOptions {
  /** false: the file only (a keyring profile comes without its key). */
  readSecrets?: boolean;
  /** A name that is no profile yet gives undefined, not UnknownProfile (login creates it). */
  mayBeNew?: boolean;
}

export interface ConfigStore {
  readonly path: string;
  readonly dir: string;
  /** The keyring service under which this folder's keys are stored. */
  readonly keyringService: string;
  profileNames(): string[];
  /**
   * The profile, with its key read from the keyring for a keyring profile
   * (ProfileSecretsUnreachable, exit 2, when the keyring cannot be reached then; ProfileKeyMissing,
   * exit 2, when it holds no entry for the profile).
   * `{ readSecrets: false }` reads the file only: a keyring profile comes without its key.
   * A name that is no profile is an UnknownProfile (exit 2) naming the known ones, except
   * "default" (undefined: not logged in yet) and, with `{ mayBeNew: true }`, any name
   * (undefined: the caller creates it, as login does, or says itself what it could not do).
   */
  getProfile(name: string, opts?: GetProfileOptions): Profile | undefined;
  /** Replaces the profile; its key goes where `profile.secrets` says (default: where they are now). */
  setProfile(name: string, profile: Profile): Promise<void>;
  /**
   * Merges `patch` into the profile (creating it); keys set to undefined are removed. A key
   * set or removed goes to `opts.secrets`, else where the profile keeps them, else
   * the file; KeyringUnavailable (nothing changed in the file) when the keyring is needed
   * and cannot be reached. A patch that depends on what the profile holds (one route among
   * the others) is a function of the profile as it is in the file when it is changed (its
   * settings, without the key), so that a change made meanwhile by another payctl is kept.
   */
  updateProfile(name: string, patch: ProfilePatch, opts?: UpdateOptions): Promise<Profile>;
  /** Removes the profile, and its keyring entries (KeyringUnavailable, nothing changed, when they cannot be). */
  deleteProfile(name: string): Promise<void>;
}

/**
 * The store from `deps.config()`, even when the profile's keyring cannot be reached:
 * login and logout must work then (they read the profile with `readSecrets: false`).
 */
export function storeDespiteKeyring(config: () => ConfigStore): ConfigStore {
  try {
    return config();
  } catch (err) {
    if (err instanceof ProfileSecretsUnreachable) return err.store;
    throw err;
  }
}

type SecretField = 'apiKey';
type Secrets = Partial<Record<SecretField, string>>;
const SECRET_FIELDS: ReadonlyArray<readonly [SecretField, SecretName]> = [['apiKey', 'api-key']];
/** Keyring entries of earlier versions (the token they exchanged the key for): removed with the key, never read. */
const LEGACY_SECRETS: readonly SecretName[] = ['token'];

class ConfStore implements ConfigStore {
  readonly path: string;
  readonly dir: string;
  readonly keyringService: string;
  #conf: Conf<FileShape> | undefined;
  readonly #openKeyring: KeyringFactory;
  /** PAYCTL_PROFILE, for what an unknown profile's error says. */
  readonly #envProfile: string | undefined;
  #keyring: Keyring | undefined;
  /** Keys of keyring profiles as read or written by this process (one D-Bus round trip per secret, once). */
  readonly #known = new Map<string, Secrets>();
  /** The file's profiles as last parsed, and the file they were read from (#read). */
  #parsed: ParsedFile | undefined;
  /** This process, for the config file's lock. */
  readonly #host: LockHost;
  /** The run's --timeout when not the default: the login commands of its errors carry it. */
  readonly #timeout: string | undefined;

  constructor(dir: string, openKeyring: KeyringFactory = osKeyring, envProfile?: string, host: LockHost = UNJUDGED, timeout?: string) {
    this.#host = host;
    this.#timeout = timeout;
    this.dir = dir;
    this.path = join(dir, FILE_NAME);
    this.keyringService = keyringService(dir);
    this.#openKeyring = openKeyring;
    this.#envProfile = envProfile;
    this.#read(); // a damaged file is reported at once, before anything is sent
  }

  /** The keyring, opened (and its native module loaded) only when a secret is needed there. */
  #kr(): Keyring {
    this.#keyring ??= folderKeyring(this.#openKeyring, keyringServices(this.dir));
    return this.#keyring;
  }

  /** The key of a keyring profile; KeyringUnavailable when the keyring cannot be reached. */
  #keyringSecrets(name: string): Secrets {
    let known = this.#known.get(name);
    if (!known) {
      const kr = this.#kr();
      known = {};
      for (const [field, secret] of SECRET_FIELDS) {
        const value = kr.get(name, secret);
        if (value !== undefined) known[field] = value;
      }
      this.#known.set(name, known);
    }
    return { ...known };
  }

  /**
   * The profiles in the file (config-file.ts). A run reads them several times (the config
   * check at start, the profile, the client's settings), and another payctl may write between
   * two reads (a login in another terminal): each read looks at the file, and parses it again
   * unless it is the same file, unchanged.
   */
  #read(): Record<string, Profile> {
    const { profiles, keep } = readProfilesFile(this.path, this.#parsed);
    this.#parsed = keep;
    return profiles;
  }

  async #write(profiles: Record<string, Profile>): Promise<void> {
    if (!this.#conf) {
      // A file damaged since it was read (emptied, cut short) is reported before conf reads it.
      this.#read();
      const { default: ConfClass } = await import('conf');
      this.#conf = new ConfClass<FileShape>({
        cwd: this.dir,
        configName: 'config',
        projectSuffix: '',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
    }
    this.#read(); // never overwrite a damaged file
    try {
      this.#conf.set('profiles', profiles);
      chmodSync(this.path, 0o600);
    } catch (err) {
      // Written through a temp file in the folder: the folder is named, never that file.
      if (isFsError(err)) throw folderFault(err.path === this.path ? this.path : this.dir, err, `save the config file ${this.path}`);
      throw err;
    }
  }

  profileNames(): string[] {
    return Object.keys(this.#read()).sort();
  }

  getProfile(name: string, opts: GetProfileOptions = {}): Profile | undefined {
    const all = this.#read();
    const p = Object.hasOwn(all, name) ? all[name] : undefined;
    if (!p) {
      if (name === DEFAULT_PROFILE || opts.mayBeNew) return undefined;
      throw unknownProfile(name, Object.keys(all).sort(), name === this.#envProfile, this.#timeout);
    }
    if (p.secrets !== 'keyring') return { ...p };
    const settings = withoutSecrets(p);
    if (opts.readSecrets === false) return { ...settings, secrets: 'keyring' };
    let secrets: Secrets;
    try {
      secrets = this.#keyringSecrets(name);
    } catch (err) {
      if (err instanceof KeyringUnavailable) throw new ProfileSecretsUnreachable(name, err.reason, this, this.#timeout);
      throw err;
    }
    if (secrets.apiKey === undefined) throw new ProfileKeyMissing(name, this, this.#timeout);
    return { ...settings, secrets: 'keyring', ...secrets };
  }

  /**
   * A change of the file (read, changed, written) holding the config file's lock
   * (config/lock-files.ts), so that two payctl changing profiles at once (`config set` in two
   * terminals, a login beside a `sandbox start`) both land: each reads what the other wrote.
   */
  #locked<T>(fn: () => Promise<T>): Promise<T> {
    const folder = join(this.dir, 'locks');
    const target = { path: join(folder, 'config.lock'), what: `The config file ${this.path}`, doing: 'changing a profile' };
    return withLockFiles(folder, [target], fn, { host: this.#host, nothing: 'Nothing was changed.' });
  }

  setProfile(name: string, profile: Profile): Promise<void> {
    return this.#locked(async () => {
      // Every setting it had is removed, then the new ones set: one path for where secrets go.
      const cleared: Partial<Profile> = Object.fromEntries(Object.keys(this.#read()[name] ?? {}).map((k) => [k, undefined]));
      await this.#update(name, { ...cleared, apiKey: undefined, ...profile }, { secrets: profile.secrets });
    });
  }

  updateProfile(name: string, patch: ProfilePatch, opts: UpdateOptions = {}): Promise<Profile> {
    return this.#locked(() => this.#update(name, typeof patch === 'function' ? patch(withoutSecrets(this.#read()[name] ?? {})) : patch, opts));
  }

  async #update(name: string, patch: Partial<Profile>, opts: UpdateOptions): Promise<Profile> {
    const all = this.#read();
    const stored = all[name] ?? {};
    const from: SecretsStorage = stored.secrets === 'keyring' ? 'keyring' : 'file';
    const to: SecretsStorage = opts.secrets ?? from;
    const settings = withoutSecrets(stripUndefined({ ...stored, ...patch }));
    const touched = SECRET_FIELDS.filter(([field]) => Object.hasOwn(patch, field));
    const untouched = SECRET_FIELDS.filter(([field]) => !Object.hasOwn(patch, field));

    // The key after this update, as far as known without asking the keyring.
    const next: Secrets = {};
    for (const [field] of SECRET_FIELDS) {
      const value = Object.hasOwn(patch, field) ? patch[field] : from === 'file' ? stored[field] : undefined;
      if (value !== undefined) next[field] = value;
    }

    if (to === 'file') {
      if (from === 'keyring' && untouched.length) Object.assign(next, pick(this.#keyringSecrets(name), untouched));
      all[name] = { ...settings, ...next };
      await this.#write(all);
      if (from === 'keyring') {
        this.#known.delete(name);
        try {
          for (const secret of [...SECRET_FIELDS.map(([, s]) => s), ...LEGACY_SECRETS]) this.#kr().delete(name, secret);
        } catch (err) {
          if (!(err instanceof KeyringUnavailable)) throw err;
          opts.onKeyringLeftover?.(err.reason);
        }
      }
      return { ...settings, ...next };
    }

    // To the keyring: the keyring first, so that a keyring that cannot be reached leaves the file as it was.
    const write = from === 'file' ? SECRET_FIELDS : touched; // from the file: clear stale entries too
    if (write.length) {
      const kr = this.#kr();
      const set: SecretName[] = [];
      try {
        for (const [field, secret] of write) {
          const value = next[field];
          if (value !== undefined) {
            kr.set(name, secret, value);
            set.push(secret);
          } else {
            kr.delete(name, secret);
            if (secret === 'api-key') for (const legacy of LEGACY_SECRETS) kr.delete(name, legacy);
          }
        }
      } catch (err) {
        // A profile that stays in the file leaves no copy of a secret behind in the keyring.
        if (from === 'file') for (const secret of set) ignoreKeyringFailure(() => kr.delete(name, secret));
        throw err;
      }
    }
    // What the keyring holds for the profile now, when known without asking it.
    const before = this.#known.get(name);
    let now: Secrets | undefined;
    if (from === 'file' || untouched.length === 0) now = { ...next };
    else if (before) now = { ...pick(before, untouched), ...next };
    this.#known.delete(name);
    if (now) this.#known.set(name, now);
    else if (touched.length && Object.keys(next).length === 0) now = this.#keyringSecrets(name); // is anything left?
    // A profile with no key left is a plain profile again. (Unknown `now`: the
    // keyring holds what was just set, or nothing there changed.)
    const inKeyring = now ? Object.keys(now).length > 0 : true;
    all[name] = inKeyring ? { ...settings, secrets: 'keyring' } : settings;
    await this.#write(all);
    if (!inKeyring) return settings;
    let secrets = now ?? next;
    if (!now) {
      try {
        secrets = this.#keyringSecrets(name);
      } catch (err) {
        if (!(err instanceof KeyringUnavailable)) throw err;
      }
    }
    return { ...settings, secrets: 'keyring', ...secrets };
  }

  deleteProfile(name: string): Promise<void> {
    return this.#locked(async () => {
      const all = this.#read();
      if (!(name in all)) return;
      if (all[name]!.secrets === 'keyring') {
        for (const secret of [...SECRET_FIELDS.map(([, s]) => s), ...LEGACY_SECRETS]) this.#kr().delete(name, secret);
        this.#known.delete(name);
      }
      delete all[name];
      await this.#write(all);
    });
  }
}

/** The profile without its key and the storage mark: what a keyring profile keeps in the file. */
function withoutSecrets(p: Profile): Profile {
  const { apiKey: _k, secrets: _s, ...rest } = p;
  return rest;
}

function ignoreKeyringFailure(op: () => unknown): void {
  try {
    op();
  } catch (err) {
    if (!(err instanceof KeyringUnavailable)) throw err;
  }
}

function pick(s: Secrets, fields: ReadonlyArray<readonly [SecretField, SecretName]>): Secrets {
  const out: Secrets = {};
  for (const [field] of fields) if (s[field] !== undefined) out[field] = s[field];
  return out;
}

function stripUndefined(p: Profile): Profile {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined));
}

/**
 * A process that cannot ask whether others exist (a store opened without Deps' host): another
 * holder of the config file's lock is always waited for, never judged gone, unless it was taken
 * before the machine booted.
 */
const UNJUDGED: LockHost = {
  pid: 0,
  kill: () => {
    throw Object.assign(new Error('not asked'), { code: 'EPERM' });
  },
};

/**
 * Opens the store of the config folder; `opts.keyring` replaces the OS keyring (tests),
 * `opts.host` is this process (Deps' host), which lets a lock left by a process that is gone be
 * broken, and `opts.timeoutMs` the run's time limit, which the login its errors print carries.
 */
export function openConfigStore(env: NodeJS.ProcessEnv, opts: { keyring?: KeyringFactory; host?: LockHost; timeoutMs?: number } = {}): ConfigStore {
  const dir = configDir(env);
  ensureConfigDir(dir, env); // a folder that cannot be made: exit 2, naming the cause (folder-fault.ts)
  return new ConfStore(dir, opts.keyring, env.PAYCTL_PROFILE, opts.host, timeoutOption(opts.timeoutMs));
}
