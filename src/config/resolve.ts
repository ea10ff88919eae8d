/**
 * Settings of one call, by precedence: flag, then environment, then profile, then default.
 */
import { RefusedError, UsageError, refusalOfFlag } from '../errors.js';
import type { GlobalOptions } from './globals.js';
import type { Profile } from './profile.js';
import type { ConfigStore } from './store.js';
import { checkApiKey, trimKey } from './api-key.js';
import { shellQuote } from './shell.js';
import { maskBaseUrl } from './mask.js';

export type Source = 'flag' | 'env' | 'profile' | 'default' | 'none';

export interface Setting<T> {
  value: T | undefined;
  source: Source;
}

export interface Settings {
  profileName: string;
  baseUrl: Setting<string>;
  apiKey: Setting<string>;
  routes: Record<string, string>;
  webhookSecret: Setting<string>;
  /** The header that carries a webhook's signature (flag aside: `webhooks listen --signature-header`). */
  webhookSignatureHeader: Setting<string>;
}

function pick<T>(...candidates: Array<[T | undefined, Source]>): Setting<T> {
  for (const [value, source] of candidates) {
    if (value !== undefined && value !== '') return { value, source };
  }
  return { value: undefined, source: 'none' };
}

/** The profile of a run: --profile, else PAYCTL_PROFILE, else "default". */
export function profileChoice(flag: string | undefined, env: NodeJS.ProcessEnv): Setting<string> & { value: string } {
  // A flag is taken as typed, even empty: the name check then refuses it.
  if (flag !== undefined) return { value: flag, source: 'flag' };
  if (env.PAYCTL_PROFILE) return { value: env.PAYCTL_PROFILE, source: 'env' };
  return { value: 'default', source: 'default' };
}

/** A base URL given to the run itself (--base-url, else PAYCTL_BASE_URL), above any profile's. */
export function givenBaseUrl(globals: Pick<GlobalOptions, 'baseUrl'>, env: NodeJS.ProcessEnv): Setting<string> {
  return pick([globals.baseUrl, 'flag'], [env.PAYCTL_BASE_URL, 'env']);
}

/**
 * The run's profile as a call reads it (api/session.ts): with its stored key, unless
 * PAYCTL_API_KEY holds one, which is sent instead (resolveSettings). Then the stored key is not
 * read: a profile whose OS keyring cannot be reached is not refused for a key it would not send
 * (probe 56-K finding 4). Every other setting, and every check of the key sent, is as ever.
 */
export function callProfile(store: Pick<ConfigStore, 'getProfile'>, name: string, env: NodeJS.ProcessEnv): Profile | undefined {
  return store.getProfile(name, trimKey(env.PAYCTL_API_KEY) ? { readSecrets: false } : {});
}

export function resolveSettings(globals: GlobalOptions, env: NodeJS.ProcessEnv, profile: Profile | undefined): Settings {
  const given = givenBaseUrl(globals, env);
  return {
    profileName: globals.profile,
    baseUrl: given.value !== undefined ? given : pick([profile?.baseUrl, 'profile']),
    // Trimmed from every source, as login trims what it saves (config/api-key.ts).
    apiKey: pick([trimKey(env.PAYCTL_API_KEY), 'env'], [trimKey(profile?.apiKey), 'profile']),
    routes: profile?.routes ?? {},
    webhookSecret: pick([env.PAYCTL_WEBHOOK_SECRET, 'env'], [profile?.webhookSecret, 'profile']),
    webhookSignatureHeader: pick([profile?.webhookSignatureHeader, 'profile']),
  };
}

/**
 * Which key a call sends, decided once (the client, `status` and `login` ask here): the
 * profile's key belongs to the profile's own base URL, so another URL given by flag or
 * environment gets only a key from the environment (like gh, which binds a token to its host).
 */
export interface CallCredentials {
  apiKey: Setting<string>;
  /** The profile holds a key, withheld because the base URL is another. */
  withheld: boolean;
}

/**
 * `check` (the default) refuses a key that cannot be sent (exit 2, nothing sent: checkApiKey),
 * naming PAYCTL_API_KEY or the profile (with `login`, the run's login of that profile, as
 * command-line.ts loginCommand prints it); `status` passes false to show the key (masked)
 * first, then gets the same refusal from the client.
 */
export function callCredentials(s: Settings, profile: Profile | undefined, baseUrl: string | undefined, opts: { check?: boolean; login?: string } = {}): CallCredentials {
  const none: Setting<string> = { value: undefined, source: 'none' };
  const foreign = s.baseUrl.source !== 'profile' && !sameBaseUrl(baseUrl, profile?.baseUrl);
  const apiKey = foreign && s.apiKey.source === 'profile' ? none : s.apiKey;
  if (apiKey.value !== undefined && opts.check !== false) checkKeyOf(apiKey.value, apiKey.source, s.profileName, profile, opts.login);
  return { apiKey, withheld: foreign && !apiKey.value && !!trimKey(profile?.apiKey) };
}

/** Whether a profile keeps a key: in the file, or in the OS keyring (a keyring profile always holds one). */
export function holdsKey(profile: Profile | undefined): boolean {
  return !!trimKey(profile?.apiKey) || profile?.secrets === 'keyring';
}

/**
 * The other side of callCredentials' rule: a profile that holds a key keeps the base URL it was
 * stored for, so `config set base-url` cannot hand the key to another origin (as gh keeps a
 * token with its host). Refused (exit 2, nothing saved), with the two ways that do work: log in
 * to the new base URL (a key for it is asked for), or log out first.
 */
export function checkKeyStays(name: string, profile: Profile | undefined, baseUrl: string, commands: { login: string; logout: string }): void {
  if (!holdsKey(profile) || sameBaseUrl(baseUrl, profile?.baseUrl)) return;
  const home = profile?.baseUrl ? `a key for ${maskBaseUrl(profile.baseUrl)}` : 'a key and no base URL';
  throw new RefusedError(
    `Profile "${name}" holds ${home}: the key is not moved to ${baseUrl}. Nothing was saved.`,
    [],
    `To use ${baseUrl}, log in to it with its own key: ${commands.login}\nOr remove this profile's key first: ${commands.logout}`,
  );
}

/**
 * And the same rule for `config unset base-url`: a profile that holds a key keeps its base URL
 * (the key would be left for no service, and no later `config set base-url` could give it one).
 * Refused (exit 2, nothing changed), with the logout that removes the key first.
 */
export function checkKeyKeepsBaseUrl(name: string, profile: Profile | undefined, logout: string): void {
  if (!holdsKey(profile) || !profile?.baseUrl) return;
  throw new RefusedError(
    `Profile "${name}" holds a key for ${maskBaseUrl(profile.baseUrl)}: its base URL stays while the key does. Nothing was changed.`,
    [],
    `Remove this profile's key first: ${logout}`,
  );
}

/** checkApiKey for the key a call would send: from PAYCTL_API_KEY, or kept by the profile (in the keyring or the file; `login` logs in to it again). */
function checkKeyOf(key: string, source: Source, profileName: string, profile: Profile | undefined, login = `payctl login --profile ${shellQuote(profileName)}`): void {
  if (source === 'env') {
    checkApiKey(key, 'PAYCTL_API_KEY', "Set PAYCTL_API_KEY to the key alone (white space around it is ignored), or unset it to use the profile's key.");
    return;
  }
  const where = profile?.secrets === 'keyring' ? 'the OS keyring' : 'the config file';
  checkApiKey(key, `the API key of profile "${profileName}" (kept in ${where})`, `Log in again with the key alone: ${login}`);
}

/** PAYCTL_TOKEN was the token of versions that exchanged the key for one; the key is the bearer now. */
export function retiredTokenWarning(env: NodeJS.ProcessEnv): string | undefined {
  return env.PAYCTL_TOKEN
    ? 'PAYCTL_TOKEN is no longer used: the API key itself is the bearer token. Set PAYCTL_API_KEY (or run `payctl login`) and unset PAYCTL_TOKEN.'
    : undefined;
}

function sameBaseUrl(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  try {
    return checkBaseUrl(b) === checkBaseUrl(a);
  } catch {
    return false;
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  // Only the names README.md lists (Security notes): *.localhost may be resolved by DNS, off this machine.
  if (LOOPBACK_HOSTS.has(h)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * checkBaseUrl for a run's resolved base URL: one kept by the profile or set in PAYCTL_BASE_URL
 * is refused saying where it came from and how to set it right, never "run --help for usage"
 * (nothing typed was wrong). `login`: the run's login of that profile (command-line.ts loginCommand).
 */
export function checkSettingBaseUrl(
  setting: Setting<string> & { value: string },
  profileName: string,
  login = `payctl login --profile ${shellQuote(profileName)}`,
): string {
  try {
    return checkBaseUrl(setting.value);
  } catch (err) {
    // Given by --base-url: --json names the flag (field), the message as it was.
    if (err instanceof UsageError && setting.source === 'flag' && !err.issues.length) throw refusalOfFlag(err, '--base-url');
    if (!(err instanceof UsageError) || (setting.source !== 'profile' && setting.source !== 'env')) throw err;
    const where = setting.source === 'profile' ? `The base URL of profile "${profileName}"` : 'PAYCTL_BASE_URL';
    const fix =
      setting.source === 'profile'
        ? `It was saved in the config file (${'`'}payctl config get base-url --profile ${shellQuote(profileName)}${'`'} shows it): log in to that profile again with the service's base URL (${'`'}${login} --base-url URL${'`'}, the URL ending in /v2), or give this command --base-url with the key for that URL in PAYCTL_API_KEY (the profile's key is sent only to the profile's own base URL).`
        : 'Set PAYCTL_BASE_URL to a URL such as https://api.bokumonie.com/v2, or unset it.';
    throw new UsageError(`${where} cannot be used: ${err.message.charAt(0).toLowerCase()}${err.message.slice(1)}`, err.issues, err.hint ? `${err.hint}\n${fix}` : fix);
  }
}

/**
 * Checks a base URL before anything is sent: http(s), ends in /v2, and plain http
 * only to a loopback host (keys and tokens travel only over TLS). Returns it without a trailing slash.
 * `nothing`: what a refusal says was not done ("Nothing was sent.", for `config set` "Nothing was saved.").
 */
export function checkBaseUrl(raw: string, nothing = 'Nothing was sent.'): string {
  // A host and path without a scheme ("api.bokumonie.com/v2", "localhost:4010/v2", which URL
  // reads as the scheme "localhost:"): the URL it most likely means.
  const bare = /^([a-z0-9.-]+)(?::\d+)?\//i.exec(raw.trim());
  const guess = bare ? `${isLoopbackHost(bare[1]!) ? 'http' : 'https'}://${raw.trim()}` : undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `"${maskBaseUrl(raw)}" is not a valid base URL.`,
      [],
      guess ? `Did you mean ${guess}?` : 'Give a full URL such as https://api.bokumonie.com/v2.',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`The base URL must use https:// (got ${url.protocol}).`, [], guess ? `Did you mean ${guess}?` : undefined);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `Refusing to send credentials over plain http:// to ${url.host}. ${nothing}`,
      [],
      'Use https://, or http:// only for a loopback host (localhost, 127.0.0.1, [::1]).',
    );
  }
  if (url.username || url.password) throw new UsageError('The base URL must not contain a user name or password.');
  if (url.search || url.hash) throw new UsageError('The base URL must not contain a query or fragment.');
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/v2')) {
    // Only where the URL meant is plain: the service's root, or /V2 in other letter case (never /v1/v2).
    const meant = /\/v2$/i.test(path) ? `${url.origin}${path.slice(0, -3)}/v2` : path === '' ? `${url.origin}/v2` : undefined;
    throw new UsageError(`The base URL must end in /v2 (got ${url.origin}${url.pathname}).`, [], meant ? `Did you mean ${meant}?` : undefined);
  }
  return url.origin + path;
}
