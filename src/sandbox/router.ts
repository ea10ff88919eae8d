/**
 * The /v2 routes the sandbox serves, made from the documented route table
 * (src/service/routes.ts, docs/service.md "Documentation pages"): a method and a path give the
 * route's name and its path parameters; a path that a route has under another method gives the
 * methods it takes (a 405); anything else, nothing (a 404). Paths without parameters are tried
 * first, so `/payout/list` is never read as `/payout/{transactionId}`.
 */
import { ROUTES, type RouteName } from '../service/routes.js';

/** Where the API lives on the sandbox: the base URL is the sandbox's URL and this. */
export const API_PREFIX = '/v2';

interface CompiledRoute {
  name: RouteName;
  method: string;
  pattern: RegExp;
}

export type RouteMatch = { kind: 'route'; name: RouteName; params: string[] } | { kind: 'method'; allowed: string[] } | { kind: 'none' };

/** `/payout/{transactionId}` -> /^\/v2\/payout\/([^/]+)$/: a parameter is one path segment, still URL-encoded. */
function compile(name: RouteName): CompiledRoute {
  const { method, path } = ROUTES[name];
  const source = path
    .split(/(\{\w+\})/)
    .map((part) => (/^\{\w+\}$/.test(part) ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
    .join('');
  return { name, method, pattern: new RegExp(`^${API_PREFIX.replace(/\//g, '\\/')}${source}$`) };
}

const NAMES = Object.keys(ROUTES) as RouteName[];
const hasParams = (name: RouteName) => ROUTES[name].path.includes('{');
const TABLE: readonly CompiledRoute[] = [...NAMES.filter((n) => !hasParams(n)), ...NAMES.filter(hasParams)].map(compile);

/** Whether a path (without its query) is one of the API's. */
export function isApiPath(path: string): boolean {
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}

/** The route `method` and `path` name, the methods the path takes under other methods, or none. */
export function matchRoute(method: string, path: string): RouteMatch {
  for (const r of TABLE) {
    if (r.method !== method) continue;
    const m = r.pattern.exec(path);
    if (m) return { kind: 'route', name: r.name, params: m.slice(1) };
  }
  const allowed = [...new Set(TABLE.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  return allowed.length ? { kind: 'method', allowed } : { kind: 'none' };
}
