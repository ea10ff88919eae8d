/**
 * `payctl logout`: removes the API key from the profile, wherever they are kept
 * (the OS keyring or the config file); base URL and settings stay. A profile that does not
 * exist is an error naming the profiles there are (exit 2). A keyring profile whose entry is
 * not there is said to have had none (nothing removed), and is no keyring profile after.
 */
import { write, type Deps } from '../deps.js';
import { ConfigError, UsageError, refusalOfFlag } from '../errors.js';
import { ProfileKeyMissing, ProfileSecretsUnreachable, storeDespiteKeyring, type ConfigStore } from '../config/store.js';
import { KeyringUnavailable } from '../config/keyring.js';
import { noSuchProfile } from '../config/known-profiles.js';
import { commandLine, invocationOf } from '../config/command-line.js';
import { checkBaseUrl } from '../config/resolve.js';

export async function run(_opts: object, deps: Deps): Promise<number> {
  // A profile whose keyring cannot be reached gets the clear error below, not the one of reading it.
  const store = storeDespiteKeyring(() => deps.config());
  const name = deps.globals.profile;
  // A --base-url logout has no use for is still checked: the login it may print carries it.
  if (deps.globals.baseUrl !== undefined) {
    try {
      checkBaseUrl(deps.globals.baseUrl, 'Nothing was changed.');
    } catch (err) {
      throw err instanceof UsageError ? refusalOfFlag(err, '--base-url') : err;
    }
  }
  const invocation = invocationOf(deps.globals, deps.env);
  // Its own error for a profile that does not exist: what there was not to do.
  const profile = store.getProfile(name, { readSecrets: false, mayBeNew: true });
  if (!profile) throw noSuchProfile(name, store.profileNames(), 'nothing to log out of', commandLine(invocation, ['login']));
  const inKeyring = profile.secrets === 'keyring';
  // A keyring profile whose entry is gone (removed with the keyring's tool) had nothing to remove: said so, never "removed".
  const missing = inKeyring && entryMissing(store, name);
  const had = !!(profile.apiKey || (inKeyring && !missing));
  try {
    await store.updateProfile(name, { apiKey: undefined });
  } catch (err) {
    if (!(err instanceof KeyringUnavailable)) throw err;
    throw new ConfigError(
      `Cannot remove the API key of profile "${name}" from the OS keyring (${err.reason}). Nothing was changed.`,
      `Unlock or start the OS keyring and run \`${commandLine(invocation, ['logout'])}\` again, or remove the entries of service "${store.keyringService}" with your keyring's tool.`,
    );
  }
  const where = inKeyring ? ' from the OS keyring' : '';
  if (deps.globals.json) {
    await write(deps.io.stdout, JSON.stringify({ profile: name, logged_out: had }) + '\n');
  } else if (had) {
    deps.log.success(`Logged out of profile "${name}": API key removed${where}.`);
  } else if (missing) {
    deps.log.info(
      `Profile "${name}" was not logged in: its key was to be in the OS keyring (service ${store.keyringService}), but no entry was there. Nothing was removed; the profile no longer expects one.`,
    );
  } else {
    deps.log.info(`Profile "${name}" was not logged in.`);
  }
  if (deps.env.PAYCTL_API_KEY) {
    deps.log.warn('PAYCTL_API_KEY is still set in the environment and will be used.');
  }
  return 0;
}

/** Whether the keyring holds no key for a keyring profile (false when it cannot be reached: the removal says so then). */
function entryMissing(store: ConfigStore, name: string): boolean {
  try {
    store.getProfile(name);
    return false;
  } catch (err) {
    if (err instanceof ProfileKeyMissing) return true;
    if (err instanceof ProfileSecretsUnreachable) return false;
    throw err;
  }
}
