/**
 * The errors of a keyring profile whose key cannot be read (store.ts getProfile): the keyring
 * cannot be reached, or it holds no entry for the profile. Both exit 2 naming the profile, with
 * what to do; the store still serves what needs no secret (login, logout, config list).
 */
import { ConfigError } from '../errors.js';
import { loginCommand } from './command-line.js';
import type { ConfigStore } from './store.js';

/** A keyring profile whose key cannot be read: what to do, for this profile. */
export class ProfileSecretsUnreachable extends ConfigError {
  readonly profile: string;
  readonly reason: string;
  /** Where the key is, as `config list` says it in place of the key. */
  readonly said: string;
  /**
   * What makes the key readable, as a clause another message can carry before its own command
   * ("…; then: payctl history reconcile …"): the hint's fix, without "run the command again".
   */
  readonly remedy: string;
  /** The store itself still works for what needs no secret (login and logout use it). */
  readonly store: ConfigStore;
  /** `timeout`: the run's --timeout when not the default, which the printed login carries. */
  constructor(profile: string, reason: string, store: ConfigStore, timeout?: string, words?: { message: string; hint: string; said: string; remedy: string }) {
    const insecure = loginCommand(profile, timeout, ['--insecure-storage']);
    super(
      words?.message ?? `The API key of profile "${profile}" is in the OS keyring, which cannot be reached (${reason}). Nothing was sent.`,
      words?.hint ?? `Unlock or start the OS keyring and run the command again, or keep this profile's key in the config file (mode 0600) instead: ${insecure}`,
    );
    this.profile = profile;
    this.reason = reason;
    this.said = words?.said ?? `in the OS keyring, which cannot be reached (${reason})`;
    this.remedy = words?.remedy ?? `unlock or start the OS keyring, or keep this profile's key in the config file (mode 0600) instead: ${insecure}`;
    this.store = store;
  }
}

/**
 * A keyring profile whose entry is not there (removed with the keyring's own tool, or a keyring
 * made anew): exit 2 like a keyring that cannot be reached (README "login"), never "not logged
 * in" (exit 3), which hides that the config file still says the key is there.
 */
export class ProfileKeyMissing extends ProfileSecretsUnreachable {
  constructor(profile: string, store: ConfigStore, timeout?: string) {
    const reason = `no entry for it in service ${store.keyringService}`;
    super(profile, reason, store, timeout, {
      message: `Profile "${profile}" keeps its key in the OS keyring (service ${store.keyringService}), but no entry is there. Nothing was sent.`,
      hint: `Log in to it again to store its key: ${loginCommand(profile, timeout)}`,
      said: `kept in the OS keyring (service ${store.keyringService}), but no entry is there`,
      remedy: `log in to it again to store its key: ${loginCommand(profile, timeout)}`,
    });
  }
}
