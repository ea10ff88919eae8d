/**
 * `payctl config get <key>`: one setting; exit 1 when it is not set. Secrets (api-key and
 * webhook-secret, the password of a ledger URL, and a user name and password in a base URL) are shown masked, as `config list` shows
 * them, and said to be: payctl never prints one in clear. While PAYCTL_API_KEY is set, api-key is
 * that key (the one every command sends), marked so, with the profile's stored key beside it. A profile that does not exist is an error naming those there are (exit 2).
 */
import { write, type Deps } from '../../deps.js';
import { checkKey, envKeyShown, isSecretKey, profileToShow, visibleSetting, type EnvKeyShown } from '../../config/settings.js';
import { hasPassword } from '../../config/ledger-setting.js';
import { noSuchProfile } from '../../config/known-profiles.js';
import { commandLine, invocationOf } from '../../config/command-line.js';

export async function run(opts: { key: string }, deps: Deps): Promise<number> {
  checkKey(opts.key, 'read');
  const name = deps.globals.profile;
  const { store, profile, keyUnreachable } = profileToShow(() => deps.config(), name);
  if (!profile) throw noSuchProfile(name, store.profileNames(), 'no settings to read', commandLine(invocationOf(deps.globals, deps.env), ['login']));
  // The key every command sends while PAYCTL_API_KEY is set: that one, marked, with the stored one beside it.
  const fromEnv = opts.key === 'api-key' ? envKeyShown(deps.env, profile, keyUnreachable?.said) : undefined;
  if (fromEnv) return envKey(fromEnv, deps);
  // Any other setting reads without the keyring; the key itself cannot be shown.
  if (keyUnreachable && opts.key === 'api-key') throw keyUnreachable;
  const value = visibleSetting(profile, opts.key);
  // A ledger URL is no secret, but its password is; so is the user part of a base URL edited into the file.
  const password = opts.key === 'ledger' && !!profile.ledger && hasPassword(profile.ledger);
  const userPart = opts.key === 'base-url' && value !== profile.baseUrl;
  const secret = isSecretKey(opts.key) || password || userPart;
  if (deps.globals.json) {
    await write(deps.io.stdout, JSON.stringify({ key: opts.key, value: value ?? null, ...(secret ? { masked: true } : {}) }) + '\n');
  } else if (value !== undefined) {
    await write(deps.io.stdout, value + '\n');
    if (password) deps.log.info("The ledger URL's password is shown masked; payctl never prints it in clear.");
    else if (userPart) deps.log.info("The base URL's user name and password are shown masked; payctl never prints them in clear.");
    else if (secret) deps.log.info(`${opts.key} is a secret: shown masked; payctl never prints it in clear.`);
  } else {
    deps.log.info(`${opts.key} is not set in profile "${name}".`);
  }
  return value === undefined ? 1 : 0;
}

/** `config get api-key` while PAYCTL_API_KEY is set: the key sent, masked and marked (exit 0, set or not in the profile). */
async function envKey(shown: EnvKeyShown, deps: Deps): Promise<number> {
  if (deps.globals.json) {
    const stored = shown.stored === undefined ? { stored_unreachable: true } : { stored: shown.stored };
    await write(deps.io.stdout, JSON.stringify({ key: 'api-key', value: shown.value, masked: true, source: 'env', ...stored }) + '\n');
  } else {
    await write(deps.io.stdout, shown.text + '\n');
    deps.log.info('api-key is a secret: shown masked; payctl never prints it in clear. Every command sends the key in PAYCTL_API_KEY while it is set.');
  }
  return 0;
}
