/**
 * Settings of one call, by precedence: flag, then environment, then profile, then default.
 */
import { UsageError } from '../errors.js';
import type { GlobalOptions } from './globals.js';
import type { Profile } from './store.js';

export type Source = 'flag' | 'env' | 'profile' | 'default' | 'none';

export interface Setting<T> {
  value: T | undefined;
  source: Source;
}

export interface Settings {
  profileName: string;
  baseUrl: Setting<string>;
  apiKey: Setting<string>;
  token: Setting<string>;
  tokenExpiresAt: string | undefined;
  routes: Record<string, string>;
  webhookSecret: Setting<string>;
}

function pick<T>(...candidates: Array<[T | undefined, Source]>): Setting<T> {
  for (const [value, source] of candidates) {
    if (value !== undefined && value !== '') return { value, source };
  }
  return { value: undefined, source: 'none' };
}

export function resolveSettings(globals: GlobalOptions, env: NodeJS.ProcessEnv, profile: Profile | undefined): Settings {
  const token = pick<string>([env.PAYCTL_TOKEN, 'env'], [profile?.token, 'profile']);
  return {
    profileName: globals.profile,
    baseUrl: pick([globals.baseUrl, 'flag'], [env.PAYCTL_BASE_URL, 'env'], [profile?.baseUrl, 'profile']),
    apiKey: pick([env.PAYCTL_API_KEY, 'env'], [profile?.apiKey, 'profile']),
    token,
    tokenExpiresAt: token.source === 'profile' ? profile?.tokenExpiresAt : undefined,
    routes: profile?.routes ?? {},
    webhookSecret: pick([env.PAYCTL_WEBHOOK_SECRET, 'env'], [profile?.webhookSecret, 'profile']),
  };
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  // Only the names cli.md lists: *.localhost may be resolved by DNS, off this machine.
  if (LOOPBACK_HOSTS.has(h)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * Checks a base URL before anything is sent: http(s), ends in /v2, and plain http
 * only to a loopback host (keys and tokens travel only over TLS). Returns it without a trailing slash.
 */
export function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`"${raw}" is not a valid base URL.`, [], 'Give a full URL such as https://api.example.com/v2.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`The base URL must use https:// (got ${url.protocol}).`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `Refusing to send credentials over plain http:// to ${url.host}. Nothing was sent.`,
      [],
      'Use https://, or http:// only for a loopback host (localhost, 127.0.0.1, [::1]).',
    );
  }
  if (url.username || url.password) throw new UsageError('The base URL must not contain a user name or password.');
  if (url.search || url.hash) throw new UsageError('The base URL must not contain a query or fragment.');
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/v2')) {
    throw new UsageError(`The base URL must end in /v2 (got ${url.origin}${url.pathname}).`);
  }
  return url.origin + path;
}
