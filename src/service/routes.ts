/**
 * The route table of the documented service (docs/service.md): the only place that knows
 * paths. A profile may override a path (`payctl config set routes.payoutGet /payouts/{transactionId}`);
 * methods are fixed.
 */
import { UsageError } from '../errors.js';

export const ROUTES = {
  authUser: { method: 'GET', path: '/auth/user' },
  balances: { method: 'GET', path: '/wallets/balances' },
  payoutCreate: { method: 'POST', path: '/payout' },
  payoutGet: { method: 'GET', path: '/payout/{transactionId}' },
  payoutsList: { method: 'GET', path: '/payout/list' },
  payoutsSummary: { method: 'POST', path: '/payout/summary' },
} as const;

export type RouteName = keyof typeof ROUTES;
export type Method = (typeof ROUTES)[RouteName]['method'];

export function isRouteName(name: string): name is RouteName {
  return Object.hasOwn(ROUTES, name);
}

export interface ResolvedRoute {
  method: Method;
  path: string;
}

/** The route's method and path with `{params}` filled in (URL-encoded) and overrides applied. */
export function resolveRoute(name: RouteName, params: Record<string, string> = {}, overrides: Record<string, string> = {}): ResolvedRoute {
  const template = overrides[name] ?? ROUTES[name].path;
  const path = template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new UsageError(`Route ${name} (${template}) needs a value for {${key}}.`);
    // "." and ".." would be read as path steps and reach another endpoint.
    if (value === '.' || value === '..') throw new UsageError(`"${value}" is not a valid ${key}.`);
    return encodeURIComponent(value);
  });
  return { method: ROUTES[name].method, path: path.startsWith('/') ? path : '/' + path };
}

/** Joins a base URL ending in /v2 and a path without double slashes. */
export function joinUrl(baseUrl: string, path: string, query?: Record<string, string | number | undefined>): string {
  const url = baseUrl.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '');
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') q.set(k, String(v));
  const qs = q.toString();
  return qs ? `${url}?${qs}` : url;
}

/** Checks a route override given with `config set routes.<name> <path>`. */
export function validateRouteOverride(name: string, path: string): string[] {
  const problems: string[] = [];
  if (!isRouteName(name)) problems.push(`unknown route "${name}" (known: ${Object.keys(ROUTES).join(', ')})`);
  else {
    const needed = [...ROUTES[name].path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    for (const p of needed) if (!path.includes(`{${p}}`)) problems.push(`route ${name} must contain {${p}}`);
  }
  if (!path.startsWith('/')) problems.push('a route path starts with "/"');
  if (/\s|\?|#/.test(path)) problems.push('a route path has no spaces, "?" or "#"');
  return problems;
}
