/**
 * The settings `payctl config` reads and writes: base-url, webhook-secret and
 * routes.<name>. Secrets are never printed: only masked.
 */
import { UsageError } from '../errors.js';
import { ROUTES, validateRouteOverride } from '../api/routes.js';
import { checkBaseUrl } from './resolve.js';
import { maskSecret } from './mask.js';
import type { Profile } from './profile.js';

export const SETTABLE = ['base-url', 'webhook-secret', ...Object.keys(ROUTES).map((r) => `routes.${r}`)];

export function checkKey(key: string): void {
  if (key === 'base-url' || key === 'webhook-secret') return;
  if (key.startsWith('routes.')) {
    const name = key.slice('routes.'.length);
    if (Object.hasOwn(ROUTES, name)) return;
  }
  throw new UsageError(`Unknown setting "${key}".`, [], `Settings: ${SETTABLE.join(', ')}.`);
}

/** The profile after setting `key` to `value`, or a UsageError listing what is wrong. */
export function applySetting(profile: Profile, key: string, value: string): Partial<Profile> {
  checkKey(key);
  if (key === 'base-url') return { baseUrl: checkBaseUrl(value) };
  if (key === 'webhook-secret') {
    if (!value) throw new UsageError('The webhook secret cannot be empty.');
    return { webhookSecret: value };
  }
  const name = key.slice('routes.'.length);
  const problems = validateRouteOverride(name, value);
  if (problems.length) throw new UsageError(`Invalid route for ${key}.`, problems);
  return { routes: { ...profile.routes, [name]: value } };
}

export function removeSetting(profile: Profile, key: string): Partial<Profile> {
  checkKey(key);
  if (key === 'base-url') return { baseUrl: undefined };
  if (key === 'webhook-secret') return { webhookSecret: undefined };
  const routes = { ...profile.routes };
  delete routes[key.slice('routes.'.length)];
  return { routes: Object.keys(routes).length ? routes : undefined };
}

/** Every setting of a profile as shown to people: secrets masked. */
export function visibleSettings(p: Profile): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (p.baseUrl) out.push(['base-url', p.baseUrl]);
  if (p.apiKey) out.push(['api-key', maskSecret(p.apiKey)]);
  if (p.token) out.push(['token', maskSecret(p.token)]);
  if (p.tokenExpiresAt) out.push(['token-expires-at', p.tokenExpiresAt]);
  if (p.webhookSecret) out.push(['webhook-secret', maskSecret(p.webhookSecret)]);
  for (const [k, v] of Object.entries(p.routes ?? {})) out.push([`routes.${k}`, v]);
  return out;
}

export function visibleSetting(p: Profile, key: string): string | undefined {
  checkKey(key);
  return visibleSettings(p).find(([k]) => k === key)?.[1];
}
