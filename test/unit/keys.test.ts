import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { READABLE, SETTABLE, applySetting, checkKey, isSecretKey, removeSetting, visibleSetting, visibleSettings } from '../../src/config/keys.js';
import { maskSecret } from '../../src/config/mask.js';
import type { Profile } from '../../src/config/store.js';

function caught(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('maskSecret', () => {
  it.each([
    [undefined, ''],
    ['', ''],
    ['a', '****'],
    ['abcd', '****'],
    ['sk_live_123', '****'], // 11 characters: nothing shown
    ['sk_live_1234', '****1234'], // 12 characters: the last 4
    ['sk_live_abcdefghijklmnop', '****mnop'],
  ])('%j -> %j', (value, out) => {
    expect(maskSecret(value)).toBe(out);
  });

  it('never reveals more than the last 4 characters, and nothing of a short secret', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    for (let len = 1; len <= alphabet.length; len++) {
      const secret = alphabet.slice(0, len);
      const shown = maskSecret(secret).replace(/\*/g, '');
      expect(shown.length).toBeLessThanOrEqual(4);
      if (len < 12) expect(shown).toBe('');
      else expect(shown).toBe(secret.slice(-4));
      expect(maskSecret(secret)).not.toContain(secret.slice(0, Math.max(1, len - 4)));
    }
  });
});

describe('visibleSettings', () => {
  const profile: Profile = {
    baseUrl: 'https://api.example.com/v2',
    apiKey: 'sk_live_abcdefgh1234',
    token: 'eyJhbGciOiJIUzI1NiJ9.payload.sigZ9y8',
    tokenExpiresAt: '2026-11-21T11:15:30.000Z',
    webhookSecret: 'whsec_short',
    routes: { payoutGet: '/payout/{id}', balances: '/wallets' },
  };

  it('lists every setting with secrets masked', () => {
    expect(visibleSettings(profile)).toEqual([
      ['base-url', 'https://api.example.com/v2'],
      ['api-key', '****1234'],
      ['token', '****Z9y8'],
      ['token-expires-at', '2026-11-21T11:15:30.000Z'],
      ['webhook-secret', '****'],
      ['routes.payoutGet', '/payout/{id}'],
      ['routes.balances', '/wallets'],
    ]);
  });

  it('never contains a whole secret', () => {
    const text = JSON.stringify(visibleSettings(profile));
    expect(text).not.toContain(profile.apiKey);
    expect(text).not.toContain(profile.token);
    expect(text).not.toContain(profile.webhookSecret);
    expect(text).not.toContain('sk_live');
    expect(text).not.toContain('whsec');
  });

  it('lists nothing for an empty profile', () => {
    expect(visibleSettings({})).toEqual([]);
  });

  it('visibleSetting gets one, masked (what login keeps too); unknown keys are refused', () => {
    expect(visibleSetting(profile, 'base-url')).toBe('https://api.example.com/v2');
    expect(visibleSetting(profile, 'webhook-secret')).toBe('****');
    expect(visibleSetting(profile, 'routes.payoutGet')).toBe('/payout/{id}');
    expect(visibleSetting(profile, 'routes.payoutsList')).toBeUndefined();
    expect(visibleSetting({}, 'base-url')).toBeUndefined();
    // What config list shows, config get reads: the key and token masked, the expiry as it is.
    expect(visibleSetting(profile, 'api-key')).toBe('****1234');
    expect(visibleSetting(profile, 'token')).toBe('****Z9y8');
    expect(visibleSetting(profile, 'token-expires-at')).toBe('2026-11-21T11:15:30.000Z');
    expect(visibleSetting({}, 'api-key')).toBeUndefined();
    const err = caught(() => visibleSetting(profile, 'colour'));
    expect(err.message).toBe('Unknown setting "colour".');
    expect(err.hint).toBe(`Settings: ${READABLE.join(', ')}.`);
  });
});

describe('checkKey', () => {
  it('knows base-url, webhook-secret, policy and routes.<name>', () => {
    expect(SETTABLE).toEqual([
      'base-url',
      'webhook-secret',
      'policy',
      'routes.authToken',
      'routes.balances',
      'routes.payoutCreate',
      'routes.payoutGet',
      'routes.payoutsList',
      'routes.payoutsSummary',
    ]);
    for (const key of SETTABLE) expect(() => checkKey(key)).not.toThrow();
  });

  it.each(['routes.', 'routes.nope', 'routes.toString', 'routes.__proto__', 'BASE-URL', '', 'api_key'])('refuses %j', (key) => {
    const err = caught(() => checkKey(key));
    expect(err.message).toBe(`Unknown setting "${key}".`);
    expect(err.hint).toBe(`Settings: ${SETTABLE.join(', ')}.`);
    expect(caught(() => checkKey(key, 'read')).hint).toBe(`Settings: ${READABLE.join(', ')}.`);
  });

  it.each(['api-key', 'token', 'token-expires-at'])('reads %j, but refuses to change it, naming login and logout', (key) => {
    expect(() => checkKey(key, 'read')).not.toThrow();
    const err = caught(() => checkKey(key));
    expect(err.message).toBe(`${key} is kept by login and removed by logout: config does not change it.`);
    expect(err.hint).toContain('`payctl login`');
    expect(err.hint).toContain('`payctl logout`');
    // The commands as this run prints them (with its profile).
    expect(caught(() => checkKey(key, 'write', { login: 'payctl login --profile s', logout: 'payctl logout --profile s' })).hint).toContain(
      '`payctl logout --profile s`',
    );
  });

  it('reads every settable key, and what login keeps, in the order config list shows them', () => {
    expect(READABLE).toEqual(['base-url', 'api-key', 'token', 'token-expires-at', ...SETTABLE.slice(1)]);
    for (const key of READABLE) expect(() => checkKey(key, 'read')).not.toThrow();
  });

  it('knows which settings are secrets', () => {
    expect(READABLE.filter(isSecretKey)).toEqual(['api-key', 'token', 'webhook-secret']);
  });
});

describe('applySetting', () => {
  it('checks and normalizes base-url', () => {
    expect(applySetting({}, 'base-url', 'https://api.example.com/v2/')).toEqual({ baseUrl: 'https://api.example.com/v2' });
    expect(applySetting({}, 'base-url', 'http://127.0.0.1:4010/v2')).toEqual({ baseUrl: 'http://127.0.0.1:4010/v2' });
    expect(caught(() => applySetting({}, 'base-url', 'http://example.com/v2')).message).toMatch(/Refusing to send credentials over plain http/);
    expect(caught(() => applySetting({}, 'base-url', 'https://api.example.com')).message).toMatch(/must end in \/v2/);
  });

  it('sets a non-empty webhook secret', () => {
    expect(applySetting({}, 'webhook-secret', 'whsec_1')).toEqual({ webhookSecret: 'whsec_1' });
    expect(caught(() => applySetting({}, 'webhook-secret', '')).message).toBe('The webhook secret cannot be empty.');
  });

  it('adds a route override to the existing ones', () => {
    expect(applySetting({ routes: { balances: '/wallets' } }, 'routes.payoutGet', '/payout/{id}')).toEqual({
      routes: { balances: '/wallets', payoutGet: '/payout/{id}' },
    });
    expect(applySetting({}, 'routes.balances', '/w')).toEqual({ routes: { balances: '/w' } });
  });

  it('refuses a bad route, listing the problems', () => {
    const err = caught(() => applySetting({}, 'routes.payoutGet', 'payout'));
    expect(err.message).toBe('Invalid route for routes.payoutGet.');
    expect(err.problems).toEqual(['route payoutGet must contain {id}', 'a route path starts with "/"']);
  });

  it('refuses an unknown key, and the key that login keeps', () => {
    expect(caught(() => applySetting({}, 'colour', 'x')).message).toBe('Unknown setting "colour".');
    expect(caught(() => applySetting({}, 'api-key', 'x')).message).toBe('api-key is kept by login and removed by logout: config does not change it.');
  });
});

describe('removeSetting', () => {
  it('removes base-url and webhook-secret', () => {
    expect(removeSetting({ baseUrl: 'x' }, 'base-url')).toEqual({ baseUrl: undefined });
    expect(removeSetting({ webhookSecret: 'x' }, 'webhook-secret')).toEqual({ webhookSecret: undefined });
  });

  it('removes one route, and the routes object when it was the last', () => {
    expect(removeSetting({ routes: { balances: '/w', payoutGet: '/p/{id}' } }, 'routes.balances')).toEqual({
      routes: { payoutGet: '/p/{id}' },
    });
    expect(removeSetting({ routes: { balances: '/w' } }, 'routes.balances')).toEqual({ routes: undefined });
    expect(removeSetting({}, 'routes.balances')).toEqual({ routes: undefined });
  });

  it('refuses an unknown key, and the token that login keeps', () => {
    expect(caught(() => removeSetting({}, 'colour')).message).toBe('Unknown setting "colour".');
    expect(caught(() => removeSetting({}, 'token')).message).toBe('token is kept by login and removed by logout: config does not change it.');
  });
});
