/**
 * The settings `payctl config` reads and writes. `config set` and `config unset` change
 * base-url, webhook-secret, webhook-signature-header, policy (the team's spending policy file),
 * ledger (where the payout journal is kept: local or a team's PostgreSQL) and routes.<name>;
 * `config list` and `config get` also read what login keeps (api-key), which login and logout
 * alone change. Secrets (api-key, webhook-secret, a ledger URL's password) are never printed: only masked.
 */
import { UsageError } from '../errors.js';
import { ROUTES, validateRouteOverride } from '../service/routes.js';
import { checkBaseUrl } from './resolve.js';
import { trimKey } from './api-key.js';
import { maskBaseUrl, maskSecret } from './mask.js';
import { checkLedgerSetting, maskLedgerUrl } from './ledger-setting.js';
import type { Profile } from './profile.js';
import { ProfileSecretsUnreachable, storeDespiteKeyring, type ConfigStore } from './store.js';
import { resolve } from 'node:path';
import { closestWords, visibleWord } from '../words.js';
import { commandLine, type Invocation } from './command-line.js';

export const SETTABLE = ['base-url', 'webhook-secret', 'webhook-signature-header', 'policy', 'ledger', ...Object.keys(ROUTES).map((r) => `routes.${r}`)];

/** Kept by `payctl login`, removed by `payctl logout`: read by config, never set by it. */
export const LOGIN_KEYS = ['api-key'];

/** Every setting `config get` reads, in the order `config list` shows them. */
export const READABLE = ['base-url', ...LOGIN_KEYS, ...SETTABLE.slice(1)];

/** Settings shown only masked (the last 4 characters of a long one, at most). */
export const SECRET_KEYS: readonly string[] = ['api-key', 'webhook-secret'];

export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.includes(key);
}

/**
 * The setting login keeps that `key` is, or that a slip of it most likely means (api-key for
 * "api_key" or "API-KEY"), else undefined.
 */
function loginKeyMeant(key: string): string | undefined {
  if (LOGIN_KEYS.includes(key)) return key;
  const close = closestWords(key.toLowerCase().replaceAll('_', '-'), READABLE, (k) => k);
  return close.length > 0 && close.every((k) => LOGIN_KEYS.includes(k)) ? close[0] : undefined;
}

/**
 * Refuses a key config does not know, and (for `set` and `unset`, the default) a key only
 * login and logout change, saying which command does (printed for the run `inv`: with its
 * profile); a slip of such a key ("api_key") is told so at once, not offered a name config set
 * refuses next. `typedValue`: `config set` was given the value on the command line, which for a
 * key login keeps is said to be in the shell's history now.
 */
export function checkKey(key: string, use: 'read' | 'write' = 'write', inv: Invocation = {}, typedValue = false): void {
  if (key === 'base-url' || key === 'webhook-secret' || key === 'webhook-signature-header' || key === 'policy' || key === 'ledger') return;
  if (key.startsWith('routes.')) {
    const name = key.slice('routes.'.length);
    if (Object.hasOwn(ROUTES, name)) return;
  }
  const login = loginKeyMeant(key);
  if (login === key && use === 'read') return;
  if (login !== undefined && use === 'write') {
    const said = login === key ? key : `Unknown setting "${visibleWord(key)}": ${login}, which`;
    const history = typedValue
      ? ' The value given on the command line may now be in your shell history (and was visible to other users in ps): if it is a real key, remove it from the history, and rotate the key if others share this machine.'
      : '';
    throw new UsageError(
      `${said} is kept by login and removed by logout: config does not change it.${history}`,
      [],
      `Run \`${commandLine(inv, ['login'])}\` to save a new key (the key is read from stdin or a hidden prompt, never from the command line), or \`${commandLine(inv, ['logout'])}\` to remove it.`,
    );
  }
  const known = use === 'read' ? READABLE : SETTABLE;
  // A slip ("base_url", "baseurl", "Base-URL") gets the setting it most likely meant, as a mistyped command does.
  const close = closestWords(key.toLowerCase().replaceAll('_', '-'), READABLE, (k) => k);
  const meant = close.length ? `Did you mean ${close.join(' or ')}? ` : '';
  throw new UsageError(`Unknown setting "${visibleWord(key)}".`, [], `${meant}Settings: ${known.join(', ')}.`);
}

/** The profile after setting `key` to `value`, or a UsageError listing what is wrong (its commands printed for the run `inv`). */
export function applySetting(profile: Profile, key: string, value: string, inv: Invocation = {}): Partial<Profile> {
  checkKey(key, 'write', inv);
  if (key === 'base-url') return { baseUrl: checkBaseUrl(value, 'Nothing was saved.') };
  if (key === 'webhook-secret') {
    // Blank (white space only) is as empty: a listener checking with it would take any signature made with it.
    if (!value.trim()) throw new UsageError(value ? 'The webhook secret cannot be blank (white space only).' : 'The webhook secret cannot be empty.');
    return { webhookSecret: value };
  }
  if (key === 'webhook-signature-header') {
    // An HTTP field name (RFC 9110 token): what a sender can put on the wire.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value))
      throw new UsageError(
        `"${visibleWord(value)}" is not an HTTP header name.`,
        [],
        `For example: ${commandLine(inv, ['config', 'set', 'webhook-signature-header'], ['X-Signature'])}`,
      );
    return { webhookSignatureHeader: value };
  }
  // Kept as an absolute path: the profile is used from any folder. The file itself is checked by the command.
  if (key === 'policy') {
    if (!value) throw new UsageError('The policy path cannot be empty.');
    return { policy: resolve(value) };
  }
  if (key === 'ledger') return { ledger: checkLedgerSetting(value) };
  const name = key.slice('routes.'.length);
  const problems = validateRouteOverride(name, value);
  if (problems.length) throw new UsageError(`Invalid route for ${key}.`, problems);
  return { routes: { ...profile.routes, [name]: value } };
}

export function removeSetting(profile: Profile, key: string, inv: Invocation = {}): Partial<Profile> {
  checkKey(key, 'write', inv);
  if (key === 'base-url') return { baseUrl: undefined };
  if (key === 'webhook-secret') return { webhookSecret: undefined };
  if (key === 'webhook-signature-header') return { webhookSignatureHeader: undefined };
  if (key === 'policy') return { policy: undefined };
  if (key === 'ledger') return { ledger: undefined };
  const routes = { ...profile.routes };
  delete routes[key.slice('routes.'.length)];
  return { routes: Object.keys(routes).length ? routes : undefined };
}

/** Every setting of a profile as shown to people: secrets masked. */
export function visibleSettings(p: Profile): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (p.baseUrl) out.push(['base-url', maskBaseUrl(p.baseUrl)]);
  if (p.apiKey) out.push(['api-key', maskSecret(p.apiKey)]);
  if (p.webhookSecret) out.push(['webhook-secret', maskSecret(p.webhookSecret)]);
  if (p.webhookSignatureHeader) out.push(['webhook-signature-header', p.webhookSignatureHeader]);
  if (p.policy) out.push(['policy', p.policy]);
  if (p.ledger) out.push(['ledger', maskLedgerUrl(p.ledger)]);
  for (const [k, v] of Object.entries(p.routes ?? {})) out.push([`routes.${k}`, v]);
  return out;
}

/** One setting as `config list` shows it (secrets masked), or undefined when it is not set. */
export function visibleSetting(p: Profile, key: string): string | undefined {
  checkKey(key, 'read');
  return visibleSettings(p).find(([k]) => k === key)?.[1];
}

/** The api-key `config list` and `config get` show while PAYCTL_API_KEY is set: the key every command sends. */
export interface EnvKeyShown {
  /** `****9999 (from PAYCTL_API_KEY; stored: ****7890)`. */
  text: string;
  /** The masked environment key. */
  value: string;
  /** The profile's own key, masked; null when it holds none; undefined when its keyring cannot be reached. */
  stored: string | null | undefined;
}

/**
 * While PAYCTL_API_KEY is set, every command sends it instead of the profile's key (resolve.ts,
 * flag > environment > profile): `config` shows that key, marked as `status` marks it, and the
 * stored one beside it, so that neither reads as the key in use when it is not.
 * `unreachable`: where the profile's key is when it cannot be read (ProfileSecretsUnreachable's `said`).
 */
export function envKeyShown(env: NodeJS.ProcessEnv, profile: Profile | undefined, unreachable: string | undefined): EnvKeyShown | undefined {
  const key = trimKey(env.PAYCTL_API_KEY);
  if (!key) return undefined;
  const own = trimKey(profile?.apiKey);
  const stored = unreachable !== undefined ? undefined : own ? maskSecret(own) : null;
  const said = unreachable !== undefined ? `stored: ${unreachable}` : stored === null ? 'none stored' : `stored: ${stored}`;
  return { text: `${maskSecret(key)} (from PAYCTL_API_KEY; ${said})`, value: maskSecret(key), stored };
}

/**
 * A profile as `config list` and `config get` show it: with its key, or when the key is in an OS
 * keyring that cannot be reached, without it and why (`keyUnreachable`). Reading the settings
 * needs no keyring: an operator can see where a profile points without unlocking it.
 */
export function profileToShow(config: () => ConfigStore, name: string): { store: ConfigStore; profile: Profile | undefined; keyUnreachable?: ProfileSecretsUnreachable } {
  const store = storeDespiteKeyring(config);
  try {
    return { store, profile: store.getProfile(name) };
  } catch (err) {
    if (!(err instanceof ProfileSecretsUnreachable)) throw err;
    return { store, profile: store.getProfile(name, { readSecrets: false }), keyUnreachable: err };
  }
}
