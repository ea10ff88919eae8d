/**
 * Builds the API client of one call from the settings (flag > env > profile):
 * base URL checked (https, or http only to loopback), the API key from the profile or
 * the environment (sent only to the profile's own base URL).
 */
import type { Clock } from '../clock.js';
import { AuthError } from '../errors.js';
import { maskBaseUrl, maskSecret } from '../config/mask.js';
import { trimKey } from '../config/api-key.js';
import type { Profile } from '../config/profile.js';
import { callCredentials, callProfile, checkBaseUrl, checkSettingBaseUrl, holdsKey, resolveSettings, retiredTokenWarning, type Settings } from '../config/resolve.js';
import type { ConfigStore } from '../config/store.js';
import type { GlobalOptions } from '../config/globals.js';
import { commandLine, invocationOf, loginCommand } from '../config/command-line.js';
import { ApiClient, maxResponseBytesFrom } from './client.js';
import type { KeySource } from './refused-key.js';

/** What login checks: a base URL, a key, the profile's route overrides, and where the key came from. */
export interface KeyTarget {
  baseUrl: string;
  apiKey: string;
  routes?: Record<string, string>;
  /** PAYCTL_API_KEY ('env'), --api-key-stdin ('stdin'), or a prompt ('given', the default). */
  keySource?: Extract<KeySource, 'env' | 'stdin' | 'given'>;
  /** Options of the login run that a printed login keeps (`--insecure-storage`: the key goes where the person chose). */
  loginOptions?: string[];
}

export interface SessionInputs {
  globals: GlobalOptions;
  env: NodeJS.ProcessEnv;
  store: ConfigStore;
  signal: AbortSignal;
  clock: Clock;
  verbose: ((line: string) => void) | undefined;
  userAgent: string;
  /** Told of every credential in use, so that output can mask it. */
  onSecret?: (secret: string) => void;
  /** A warning for stderr (PAYCTL_TOKEN set but no longer used). */
  warn?: (line: string) => void;
}

export function createApiClient(inp: SessionInputs): ApiClient {
  const { globals, env, store } = inp;
  const inv = invocationOf(globals, env);
  const login = commandLine(inv, ['login']);
  // With PAYCTL_API_KEY set, the profile's own key is not read (a keyring out of reach refuses nothing then).
  const profile = callProfile(store, globals.profile, env);
  const s = resolveSettings(globals, env, profile);
  if (!s.baseUrl.value) {
    // A key kept without a base URL (a file edited by hand) is sent nowhere: --base-url would not send it either.
    const keyed = holdsKey(profile);
    throw new AuthError(`Not logged in: profile "${globals.profile}" has no base URL${keyed ? ' (it holds a key saved without one)' : ''}.`, {
      hint: keyed
        ? `Log in to it again with the service's base URL (\`${login} --base-url URL\`, the URL ending in /v2), or remove its key: \`${commandLine(invocationOf(globals, env), ['logout'])}\`.`
        : `Run \`${login}\`, pass --base-url, or try the sandbox: \`payctl sandbox start --detach\` then use --profile sandbox.`,
    });
  }
  const profileLogin = loginCommand(globals.profile, inv.timeout);
  const baseUrl = checkSettingBaseUrl({ value: s.baseUrl.value, source: s.baseUrl.source }, globals.profile, profileLogin);
  const c = callCredentials(s, profile, baseUrl, { login: profileLogin });
  const retired = retiredTokenWarning(env);
  if (retired) inp.warn?.(retired);
  if (c.withheld) {
    throw new AuthError(
      `Profile "${globals.profile}" holds a key ${profile?.baseUrl ? `for ${maskBaseUrl(profile.baseUrl)}` : 'saved without a base URL'}, not for ${baseUrl}: it is not sent there.`,
      {
        hint: `Set PAYCTL_API_KEY for ${baseUrl}, or log in a profile of its own to it: ${commandLine({ profile: freeProfileName(baseUrl, store), baseUrl, ...(inv.timeout !== undefined ? { timeout: inv.timeout } : {}) }, ['login'])}`,
      },
    );
  }
  if (!c.apiKey.value) {
    throw new AuthError(`Not logged in: profile "${globals.profile}" has no API key.`, {
      hint: `Run \`${login}\` (or set PAYCTL_API_KEY).`,
    });
  }
  return new ApiClient({
    baseUrl,
    routes: s.routes,
    timeoutMs: globals.timeoutMs,
    env,
    signal: inp.signal,
    clock: inp.clock,
    verbose: inp.verbose,
    userAgent: inp.userAgent,
    loginCommand: login,
    invocation: inv,
    maxResponseBytes: maxResponseBytesFrom(env),
    onSecret: inp.onSecret,
    credentials: { apiKey: c.apiKey.value, source: c.apiKey.source === 'env' ? 'env' : 'profile', stored: storedKey(s, profile, baseUrl) },
  });
}

/**
 * For a key from PAYCTL_API_KEY, the key the same run would send with the variable unset (the
 * profile's own, for its own base URL: the one rule, callCredentials), as a refusal names it:
 * `profile "sandbox"'s stored key (****7890)`. Undefined when there is none.
 */
function storedKey(s: Settings, profile: Profile | undefined, baseUrl: string): string | undefined {
  if (s.apiKey.source !== 'env') return undefined;
  // A keyring profile's key is not read while PAYCTL_API_KEY is set (callProfile): named by where it is.
  const own = trimKey(profile?.apiKey);
  const where = own ? maskSecret(own) : profile?.secrets === 'keyring' ? 'in the OS keyring' : undefined;
  if (!where) return undefined;
  // Sent with the variable unset only to the profile's own base URL: callCredentials' one rule, asked with `where` standing for the key.
  const unset = callCredentials({ ...s, apiKey: { value: where, source: 'profile' } }, profile, baseUrl, { check: false });
  return unset.apiKey.value ? `profile "${s.profileName}"'s stored key (${where})` : undefined;
}

/**
 * A client for an explicit base URL and API key (login: verify before saving), with the profile's
 * route overrides; `keySource` (where login read the key) chooses the hint of a refused key.
 */
export function createKeyClient(inp: Omit<SessionInputs, 'store'>, target: KeyTarget): ApiClient {
  const { baseUrl, apiKey, routes = {}, keySource = 'given', loginOptions = [] } = target;
  return new ApiClient({
    baseUrl: checkBaseUrl(baseUrl),
    routes,
    timeoutMs: inp.globals.timeoutMs,
    env: inp.env,
    signal: inp.signal,
    clock: inp.clock,
    verbose: inp.verbose,
    userAgent: inp.userAgent,
    maxResponseBytes: maxResponseBytesFrom(inp.env),
    onSecret: inp.onSecret,
    // A refused key says to log in again: this profile, base URL and time limit, as with any client, and the login's own options.
    loginCommand: commandLine(invocationOf(inp.globals, inp.env), ['login'], loginOptions),
    invocation: invocationOf(inp.globals, inp.env),
    credentials: { apiKey, source: keySource },
  });
}

/**
 * The name of a profile of its own for `baseUrl`: its host's (profileNameFor), unless a profile of
 * that name holds another base URL (`localhost` for another port): run as printed, the login
 * would have replaced that profile's base URL and key. Then the host and port, or a number.
 */
export function freeProfileName(baseUrl: string, store: Pick<ConfigStore, 'getProfile'>): string {
  const name = profileNameFor(baseUrl);
  const free = (n: string) => {
    let url: string | undefined;
    try {
      url = store.getProfile(n, { readSecrets: false, mayBeNew: true })?.baseUrl;
      return url === undefined || checkBaseUrl(url) === baseUrl;
    } catch {
      return false;
    }
  };
  if (free(name)) return name;
  const port = new URL(baseUrl).port;
  // At most 64 characters, as every profile name.
  const withSuffix = (suffix: string) => `${name.slice(0, 64 - suffix.length)}${suffix}`;
  for (const suffix of [...(port ? [`-${port}`] : []), ...Array.from({ length: 98 }, (_, i) => `-${i + 2}`)]) if (free(withSuffix(suffix))) return withSuffix(suffix);
  return name;
}

/** A profile name for a base URL's own profile (its host, as a profile name may be written), in a printed login. */
function profileNameFor(baseUrl: string): string {
  let host = '';
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    // checkBaseUrl read it: not reached
  }
  // An IPv6 address ([::1], [2001:db8::5]): its groups joined by dashes, named as one ("ipv6-1"), never "1-".
  if (host.startsWith('[')) host = `ipv6-${host.slice(1, -1).split(/:+/).filter(Boolean).join('-')}`;
  return (
    host
      .replace(/[^A-Za-z0-9_.-]/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .replace(/[^A-Za-z0-9]+$/, '')
      .slice(0, 64) || 'other'
  );
}
