/**
 * The OS credential store (macOS Keychain, Windows Credential Manager, the Secret Service
 * on Linux) for a profile's API key and token, through @napi-rs/keyring. The native module
 * is loaded only when a secret is first read or written: `--version`, `--help` and every
 * command on a profile kept in the config file never load it.
 *
 * One service per config folder (`payctl:<absolute folder, symlinks resolved>`; entries under
 * the folder's name as given, which earlier versions used, are still read), so two config
 * folders never share entries; one account per profile and secret (`<profile>/api-key`, `<profile>/token`).
 * Any failure to load the module or to reach the store is a `KeyringUnavailable` with a
 * short reason (the first line of the native message).
 */
import { createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Entry as NativeEntry } from '@napi-rs/keyring';
import { ConfigError } from '../errors.js';

export type SecretName = 'api-key' | 'token';

/** The secrets of one config folder, by profile. Every method throws `KeyringUnavailable`. */
export interface Keyring {
  readonly service: string;
  get(profile: string, secret: SecretName): string | undefined;
  set(profile: string, secret: SecretName, value: string): void;
  /** True when an entry was there and is gone. */
  delete(profile: string, secret: SecretName): boolean;
}

/** Opens the keyring of a service; tests inject a fake. */
export type KeyringFactory = (service: string) => Keyring;

/** The OS keyring could not be loaded or reached (exit 2 if nothing handles it). */
export class KeyringUnavailable extends ConfigError {
  readonly reason: string;
  constructor(reason: string) {
    super(`The OS keyring cannot be reached (${reason}).`);
    this.reason = reason;
  }
}

/**
 * The service name of a config folder's entries: the folder with its symbolic links resolved,
 * so that one folder reached by two paths (a symlinked PAYCTL_CONFIG_DIR) has one set of entries.
 * A folder that cannot be resolved (not there yet) is named as given, made absolute.
 */
export function keyringService(configDir: string): string {
  return `payctl:${realFolder(configDir)}`;
}

/**
 * Every service a config folder's entries may be under, the one written first: its resolved
 * name (keyringService), then the name as given, which versions before it used (a login made
 * through a symlink kept its key there: still found, so nobody loses a login).
 */
export function keyringServices(configDir: string): string[] {
  return [...new Set([keyringService(configDir), `payctl:${resolve(configDir)}`])];
}

function realFolder(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return resolve(dir);
  }
}

/**
 * One config folder's entries over its services (keyringServices): read from the first that
 * holds one, written to the first (the copy under an older name removed), deleted from all.
 */
export function folderKeyring(open: KeyringFactory, services: readonly string[]): Keyring {
  const [first, ...older] = services.map((s) => open(s));
  if (!older.length) return first!;
  return {
    service: first!.service,
    get: (profile, secret) => {
      for (const kr of [first!, ...older]) {
        const value = kr.get(profile, secret);
        if (value !== undefined) return value;
      }
      return undefined;
    },
    set: (profile, secret, value) => {
      first!.set(profile, secret, value);
      for (const kr of older) kr.delete(profile, secret);
    },
    delete: (profile, secret) => [first!, ...older].map((kr) => kr.delete(profile, secret)).some(Boolean),
  };
}

export function accountOf(profile: string, secret: SecretName): string {
  return `${profile}/${secret}`;
}

function reasonOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.trim() || 'unknown error';
}

type Native = typeof import('@napi-rs/keyring');
let native: Native | undefined;

/**
 * Loaded with require, not import(): reading a profile is synchronous, and the module is
 * CommonJS with a platform-specific binary (esbuild must not bundle it either).
 */
function loadNative(): Native {
  if (!native) {
    try {
      native = createRequire(import.meta.url)('@napi-rs/keyring') as Native;
    } catch (err) {
      throw new KeyringUnavailable(`the keyring module cannot be loaded: ${reasonOf(err)}`);
    }
  }
  return native;
}

class OsKeyring implements Keyring {
  readonly #entries = new Map<string, NativeEntry>();
  constructor(readonly service: string) {}

  #entry(profile: string, secret: SecretName): NativeEntry {
    const account = accountOf(profile, secret);
    let e = this.#entries.get(account);
    if (!e) {
      const { Entry } = loadNative();
      // Linux: the Secret Service only. The default falls back to the kernel keyring,
      // which forgets everything at logout or reboot.
      e = new Entry(this.service, account, { linux: { store: 'secret-service' } });
      this.#entries.set(account, e);
    }
    return e;
  }

  #call<T>(op: () => T): T {
    try {
      return op();
    } catch (err) {
      if (err instanceof KeyringUnavailable) throw err;
      throw new KeyringUnavailable(reasonOf(err));
    }
  }

  get(profile: string, secret: SecretName): string | undefined {
    return this.#call(() => this.#entry(profile, secret).getPassword() ?? undefined);
  }

  set(profile: string, secret: SecretName, value: string): void {
    this.#call(() => this.#entry(profile, secret).setPassword(value));
  }

  delete(profile: string, secret: SecretName): boolean {
    return this.#call(() => this.#entry(profile, secret).deletePassword());
  }
}

export const osKeyring: KeyringFactory = (service) => new OsKeyring(service);
