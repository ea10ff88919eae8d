import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { ROUTES, isRouteName, joinUrl, resolveRoute, validateRouteOverride } from '../../src/service/routes.js';

describe('resolveRoute', () => {
  it('gives the method and path of each route', () => {
    expect(resolveRoute('authUser')).toEqual({ method: 'GET', path: '/auth/user' });
    expect(resolveRoute('balances')).toEqual({ method: 'GET', path: '/wallets/balances' });
    expect(resolveRoute('payoutCreate')).toEqual({ method: 'POST', path: '/payout' });
    expect(resolveRoute('payoutsList')).toEqual({ method: 'GET', path: '/payout/list' });
    expect(resolveRoute('payoutsSummary')).toEqual({ method: 'POST', path: '/payout/summary' });
    expect(resolveRoute('payoutGet', { transactionId: 'TXN-BOK-FF051A7F00A49EB6AF225D10EA' })).toEqual({
      method: 'GET',
      path: '/payout/TXN-BOK-FF051A7F00A49EB6AF225D10EA',
    });
  });

  it('URL-encodes params', () => {
    expect(resolveRoute('payoutGet', { transactionId: 'a/b c?d#e&f' }).path).toBe('/payout/a%2Fb%20c%3Fd%23e%26f');
    expect(resolveRoute('payoutGet', { transactionId: 'é' }).path).toBe('/payout/%C3%A9');
    expect(resolveRoute('payoutGet', { transactionId: '%2e%2e' }).path).toBe('/payout/%252e%252e');
  });

  it('applies overrides, keeping the method', () => {
    expect(resolveRoute('payoutGet', { transactionId: 'x' }, { payoutGet: '/payouts/{transactionId}/details' })).toEqual({
      method: 'GET',
      path: '/payouts/x/details',
    });
    expect(resolveRoute('balances', {}, { balances: 'wallets' })).toEqual({ method: 'GET', path: '/wallets' });
    expect(resolveRoute('balances', {}, { payoutGet: '/other/{transactionId}' })).toEqual({ method: 'GET', path: '/wallets/balances' });
  });

  it('throws a UsageError for a missing param', () => {
    expect(() => resolveRoute('payoutGet')).toThrow(UsageError);
    expect(() => resolveRoute('payoutGet', {})).toThrow('Route payoutGet (/payout/{transactionId}) needs a value for {transactionId}.');
    expect(() => resolveRoute('balances', {}, { balances: '/w/{walletId}' })).toThrow('needs a value for {walletId}');
  });

  // Regression (src/service/routes.ts, fixed): encodeURIComponent leaves "." and "..", and URL parsing
  // (WHATWG, used by undici) treats them as dot segments, so `payctl payout get ..`
  // requests GET {base}/ instead of a payout. A param must stay one path segment.
  it.each(['.', '..'])('a %j param cannot climb out of its path segment', (id) => {
    let path: string | undefined;
    try {
      path = resolveRoute('payoutGet', { transactionId: id }).path;
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return;
    }
    const url = new URL(joinUrl('https://api.example.com/v2', path));
    expect(url.pathname.startsWith('/v2/payout/')).toBe(true);
    expect(url.pathname.length).toBeGreaterThan('/v2/payout/'.length);
  });
});

describe('joinUrl', () => {
  it('joins without double slashes', () => {
    expect(joinUrl('https://api.example.com/v2', '/payouts')).toBe('https://api.example.com/v2/payouts');
    expect(joinUrl('https://api.example.com/v2/', '/payouts')).toBe('https://api.example.com/v2/payouts');
    expect(joinUrl('https://api.example.com/v2//', '//payouts')).toBe('https://api.example.com/v2/payouts');
    expect(joinUrl('https://api.example.com/v2', 'payouts')).toBe('https://api.example.com/v2/payouts');
  });

  it('keeps a protocol-relative override under the base URL', () => {
    expect(joinUrl('https://api.example.com/v2', '//evil.example.com/x')).toBe('https://api.example.com/v2/evil.example.com/x');
  });

  it('builds the query, dropping undefined and empty values', () => {
    expect(joinUrl('https://api.example.com/v2', '/payouts', { page: 2, limit: 20, status: undefined, walletId: '', currency: 'SLE' })).toBe(
      'https://api.example.com/v2/payouts?page=2&limit=20&currency=SLE',
    );
  });

  it('encodes query values (a + offset stays a +)', () => {
    const url = joinUrl('https://api.example.com/v2', '/payouts', { from: '2026-11-01T00:00:00+05:30', status: 'a&b=c' });
    expect(url).toBe('https://api.example.com/v2/payouts?from=2026-11-01T00%3A00%3A00%2B05%3A30&status=a%26b%3Dc');
    expect(new URL(url).searchParams.get('from')).toBe('2026-11-01T00:00:00+05:30');
  });

  it('keeps 0 as a query value', () => {
    expect(joinUrl('https://h/v2', '/p', { page: 0 })).toBe('https://h/v2/p?page=0');
  });

  it('adds no "?" when every query value is dropped', () => {
    expect(joinUrl('https://h/v2', '/p', { a: undefined, b: '' })).toBe('https://h/v2/p');
    expect(joinUrl('https://h/v2', '/p', {})).toBe('https://h/v2/p');
  });
});

describe('validateRouteOverride', () => {
  it('accepts a good override', () => {
    expect(validateRouteOverride('payoutGet', '/payouts/{transactionId}')).toEqual([]);
    expect(validateRouteOverride('balances', '/wallets')).toEqual([]);
  });

  it('refuses an unknown route name', () => {
    expect(validateRouteOverride('nope', '/x')).toEqual(['unknown route "nope" (known: authUser, balances, payoutCreate, payoutGet, payoutsList, payoutsSummary)']);
    expect(validateRouteOverride('constructor', '/x')).toHaveLength(1);
    expect(validateRouteOverride('__proto__', '/x')).toHaveLength(1);
  });

  it('needs the params of the default path', () => {
    expect(validateRouteOverride('payoutGet', '/payout')).toEqual(['route payoutGet must contain {transactionId}']);
  });

  it('needs a leading slash, and no spaces, ? or #', () => {
    expect(validateRouteOverride('balances', 'wallets')).toEqual(['a route path starts with "/"']);
    expect(validateRouteOverride('balances', '/wallets?x=1')).toEqual(['a route path has no spaces, "?" or "#"']);
    expect(validateRouteOverride('balances', '/wal lets')).toEqual(['a route path has no spaces, "?" or "#"']);
    expect(validateRouteOverride('balances', '/wallets#x')).toEqual(['a route path has no spaces, "?" or "#"']);
  });

  it('lists every problem at once', () => {
    expect(validateRouteOverride('payoutGet', 'payout ?')).toEqual([
      'route payoutGet must contain {transactionId}',
      'a route path starts with "/"',
      'a route path has no spaces, "?" or "#"',
    ]);
  });
});

describe('isRouteName', () => {
  it('knows only the route table', () => {
    for (const name of Object.keys(ROUTES)) expect(isRouteName(name)).toBe(true);
    expect(isRouteName('toString')).toBe(false);
    expect(isRouteName('payoutget')).toBe(false);
  });
});
