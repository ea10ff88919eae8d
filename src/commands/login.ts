/**
 * `payctl login`: checks an API key live with GET /auth/user (the key is the bearer token;
 * there is no token exchange), shows whose it is, and only then saves base URL and key in the
 * profile. Key from --api-key-stdin, else PAYCTL_API_KEY (never silently), else a hidden prompt
 * (login-key.ts); base URL from --base-url, else PAYCTL_BASE_URL, else the profile, else a
 * prompt (default: the service's).
 *
 * The key goes to the OS keyring when one can be reached, else (with a notice) to the 0600
 * config file, like gh; --insecure-storage chooses the file.
 *
 * Login is how a profile is made: `--profile NEW` is no error here (every other command
 * refuses a profile that does not exist). A default profile that only follows the sandbox
 * (`sandbox start` made it: config/sandbox-profile.ts) is replaced, not reused: its base URL is
 * no place to send the key of an account.
 */
import { write, type Deps } from '../deps.js';
import { CancelledError, UsageError, refusalOfFlag } from '../errors.js';
import { checkBaseUrl, resolveSettings, retiredTokenWarning } from '../config/resolve.js';
import { maskBaseUrl, maskSecret } from '../config/mask.js';
import type { Profile } from '../config/profile.js';
import { renderCard } from '../output/text.js';
import { makeStyle } from '../output/style.js';
import { accountJson, accountPairs, kycWarning } from '../output/account.js';
import { storeDespiteKeyring, type ConfigStore, type SecretsStorage } from '../config/store.js';
import { defaultFollowsSandbox } from '../config/sandbox-profile.js';
import { DEFAULT_PROFILE } from '../config/known-profiles.js';
import { KeyringUnavailable } from '../config/keyring.js';
import { commandLine, invocationOf } from '../config/command-line.js';
import { checkConfigWritable } from '../config/paths.js';
import { KEY_SOURCE_JSON, readApiKey } from './login-key.js';
import { freeProfileName } from '../api/session.js';

export interface LoginOptions {
  apiKeyStdin?: boolean;
  /** Store the key in the config file, not the OS keyring. */
  insecureStorage?: boolean;
}

/** The service's own base URL: the prompt's default. */
export const SERVICE_BASE_URL = 'https://api.bokumonie.com/v2';

function checkUrlInput(value: string): true | string {
  try {
    checkBaseUrl(value.trim());
    return true;
  } catch (err) {
    return (err as Error).message;
  }
}

export async function run(opts: LoginOptions, deps: Deps): Promise<number> {
  const { globals, env, io } = deps;
  // Said first, as every command that sends a key says it: login checks the key it is given, never PAYCTL_TOKEN.
  const retired = retiredTokenWarning(env);
  if (retired) deps.log.warn(retired);
  // A profile whose keyring cannot be reached can still log in (that is how it moves to the file).
  const store = storeDespiteKeyring(() => deps.config());
  const stored = store.getProfile(globals.profile, { readSecrets: false, mayBeNew: true });
  // The key is checked with the service only to be saved: not sent when it could not be.
  checkConfigWritable(store.dir, 'log in');
  const sandboxCopy = globals.profile === DEFAULT_PROFILE && defaultFollowsSandbox(store);
  const profile = sandboxCopy ? undefined : stored;

  // What every login this run prints keeps: run as printed, the key goes where this one would have
  // put it. --json only where the key is piped in (login-key.ts): a login printed to be typed at a
  // terminal with --json could not ask for the key (probe E54, 4).
  const kept = opts.insecureStorage ? ['--insecure-storage'] : [];
  const given = resolveSettings(globals, env, profile).baseUrl;
  let baseUrl = given.value;
  if (!baseUrl) {
    if (!io.interactive) {
      // A command that runs as printed: the service's own base URL (a sandbox's is set by `sandbox start`).
      const again = commandLine(invocationOf(globals, env), ['login'], ['--base-url', SERVICE_BASE_URL, ...(opts.apiKeyStdin ? ['--api-key-stdin'] : []), ...kept]);
      throw new UsageError('No base URL to log in to.', [], `To log in to Bokumonie: ${again} (or set PAYCTL_BASE_URL).`);
    }
    baseUrl = (await (await deps.prompter()).input({ message: 'Base URL (ends in /v2):', default: SERVICE_BASE_URL, validate: checkUrlInput })).trim();
  }
  try {
    baseUrl = checkBaseUrl(baseUrl);
  } catch (err) {
    // Given by --base-url: --json names the flag (field), the message as it was.
    throw err instanceof UsageError && given.source === 'flag' ? refusalOfFlag(err, '--base-url') : err;
  }
  // A profile logged in to another base URL is moved only when the person says so, at a terminal
  // (a login meant to add a second service, typed without --profile, would replace the first).
  const moved = sandboxCopy ? undefined : movedFrom(stored, baseUrl);
  if (moved && io.interactive) await confirmMove(globals.profile, moved, baseUrl, { store, deps, kept });

  const { apiKey, keySource } = await readApiKey(opts.apiKeyStdin === true, deps, baseUrl, kept);

  // Verified live before anything is saved: a refused key throws AuthError (exit 3), its hint
  // by where the key came from. The profile's route overrides apply here too (a moved /auth/user).
  const client = await deps.apiWith({ baseUrl, apiKey, routes: profile?.routes ?? {}, keySource, loginOptions: kept });
  const { user } = await client.authUser();
  // The sandbox's webhook secret is not the account's.
  const patch = sandboxCopy ? { baseUrl, apiKey, webhookSecret: undefined } : { baseUrl, apiKey };
  const onKeyringLeftover = (reason: string) =>
    deps.log.warn(`The old key of profile "${globals.profile}" could not be removed from the OS keyring (${reason}); remove it there (service ${store.keyringService}).`);
  let storage: SecretsStorage = opts.insecureStorage ? 'file' : 'keyring';
  try {
    await store.updateProfile(globals.profile, patch, { secrets: storage, onKeyringLeftover });
  } catch (err) {
    if (!(err instanceof KeyringUnavailable) || storage === 'file') throw err;
    storage = 'file';
    await store.updateProfile(globals.profile, patch, { secrets: storage, onKeyringLeftover });
    deps.log.warn(
      `No OS keyring could be reached (${err.reason}); the key is stored in ${store.path} (mode 0600). Use --insecure-storage to choose the file without this notice.`,
    );
  }

  if (globals.json) {
    await write(
      io.stdout,
      JSON.stringify({
        profile: globals.profile,
        base_url: baseUrl,
        api_key: maskSecret(apiKey),
        storage,
        api_key_source: KEY_SOURCE_JSON[keySource],
        account: accountJson(user),
      }) + '\n',
    );
  } else {
    const where = storage === 'keyring' ? 'the OS keyring' : `${store.path} (mode 0600)`;
    deps.log.success(`Logged in to ${baseUrl} as profile "${globals.profile}" (key ${maskSecret(apiKey)}); key stored in ${where}.`);
    if (sandboxCopy) deps.log.info(`Profile "${globals.profile}" pointed at the sandbox until now; profile "sandbox" still does.`);
    deps.log.block(renderCard(accountPairs(user, makeStyle(io.color)), makeStyle(io.color)));
  }
  if (moved && !io.interactive)
    deps.log.warn(`Profile "${globals.profile}" pointed at ${moved} with a key for it; it now points at ${baseUrl}, and that key is replaced.`);
  // Stored, but not what this shell sends: PAYCTL_API_KEY goes instead of any profile's key.
  const envKey = env.PAYCTL_API_KEY?.trim();
  if (envKey && envKey !== apiKey)
    deps.log.warn(`PAYCTL_API_KEY is set in this shell and is sent instead of the key just stored: unset it to use profile "${globals.profile}".`);
  const kyc = kycWarning(user);
  if (kyc) deps.log.warn(kyc);
  return 0;
}

/**
 * Asks before profile `name`, logged in to `moved`, is pointed at `baseUrl` and its key replaced
 * (default no): a No changes nothing, sends nothing, and offers the login of a profile of its own.
 */
async function confirmMove(name: string, moved: string, baseUrl: string, c: { store: ConfigStore; deps: Deps; kept: string[] }): Promise<void> {
  const ok = await (
    await c.deps.prompter()
  ).confirm({ message: `Profile "${name}" is logged in to ${moved}. Point it at ${baseUrl} and replace its key?`, default: false });
  if (ok) return;
  const timeout = invocationOf(c.deps.globals, c.deps.env).timeout;
  const own = commandLine({ profile: freeProfileName(baseUrl, c.store), baseUrl, ...(timeout !== undefined ? { timeout } : {}) }, ['login'], c.kept);
  throw new CancelledError(`Nothing was changed: profile "${name}" still points at ${moved}. To log in to ${baseUrl} beside it, in a profile of its own: ${own}`);
}

/** The other base URL (masked) a profile held a key for, which this login replaces; undefined when it had none or the same. */
function movedFrom(stored: Profile | undefined, baseUrl: string): string | undefined {
  if (!stored?.baseUrl || !(stored.apiKey || stored.secrets === 'keyring')) return undefined;
  let before: string;
  try {
    before = checkBaseUrl(stored.baseUrl);
  } catch {
    before = stored.baseUrl;
  }
  return before === baseUrl ? undefined : maskBaseUrl(stored.baseUrl);
}
