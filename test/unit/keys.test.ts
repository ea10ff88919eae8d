import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { READABLE, SETTABLE, applySetting, checkKey, isSecretKey, removeSetting, visibleSetting, visibleSettings } from '../../src/config/settings.js';
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
    webhookSecret: 'whsec_short',
    webhookSignatureHeader: 'X-Signature',
    routes: { payoutGet: '/payouts/{transactionId}', balances: '/wallets' },
  };

  it('lists every setting with secrets masked', () => {
    expect(visibleSettings(profile)).toEqual([
      ['base-url', 'https://api.example.com/v2'],
      ['api-key', '****1234'],
      ['webhook-secret', '****'],
      ['webhook-signature-header', 'X-Signature'],
      ['routes.payoutGet', '/payouts/{transactionId}'],
      ['routes.balances', '/wallets'],
    ]);
  });

  it('never contains a whole secret', () => {
    const text = JSON.stringify(visibleSettings(profile));
    expect(text).not.toContain(profile.apiKey);
    expect(text).not.toContain(profile.webhookSecret);
    expect(text).not.toContain('sk_live');
    expect(text).not.toContain('whsec');
  });

  it('lists nothing for an empty profile', () => {
    expect(visibleSettings({})).toEqual([]);
  });

  it('shows no token of an old profile (read from a file of an earlier version)', () => {
    const old = { ...profile, token: 'eyJhbGciOiJIUzI1NiJ9.payload.sigZ9y8', tokenExpiresAt: '2026-11-21T11:15:30.000Z' } as Profile;
    expect(visibleSettings(old).map(([k]) => k)).toEqual(['base-url', 'api-key', 'webhook-secret', 'webhook-signature-header', 'routes.payoutGet', 'routes.balances']);
    expect(JSON.stringify(visibleSettings(old))).not.toMatch(/Z9y8|2026-11-21/);
  });

  it('visibleSetting gets one, masked (what login keeps too); unknown keys are refused', () => {
    expect(visibleSetting(profile, 'base-url')).toBe('https://api.example.com/v2');
    expect(visibleSetting(profile, 'webhook-secret')).toBe('****');
    expect(visibleSetting(profile, 'webhook-signature-header')).toBe('X-Signature');
    expect(visibleSetting({}, 'webhook-signature-header')).toBeUndefined();
    expect(visibleSetting(profile, 'routes.payoutGet')).toBe('/payouts/{transactionId}');
    expect(visibleSetting(profile, 'routes.payoutsList')).toBeUndefined();
    expect(visibleSetting({}, 'base-url')).toBeUndefined();
    // What config list shows, config get reads: the key masked.
    expect(visibleSetting(profile, 'api-key')).toBe('****1234');
    expect(visibleSetting({}, 'api-key')).toBeUndefined();
    const err = caught(() => visibleSetting(profile, 'colour'));
    expect(err.message).toBe('Unknown setting "colour".');
    expect(err.hint).toBe(`Settings: ${READABLE.join(', ')}.`);
  });
});

describe('checkKey', () => {
  it('knows base-url, webhook-secret, webhook-signature-header, policy, ledger and routes.<name>', () => {
    expect(SETTABLE).toEqual([
      'base-url',
      'webhook-secret',
      'webhook-signature-header',
      'policy',
      'ledger',
      'routes.authUser',
      'routes.balances',
      'routes.payoutCreate',
      'routes.payoutGet',
      'routes.payoutsList',
      'routes.payoutsSummary',
    ]);
    for (const key of SETTABLE) expect(() => checkKey(key)).not.toThrow();
  });

  it.each(['routes.', 'routes.nope', 'routes.toString', 'routes.__proto__', 'routes.authToken', ''])('refuses %j', (key) => {
    const err = caught(() => checkKey(key));
    expect(err.message).toBe(`Unknown setting "${key}".`);
    expect(err.hint).toBe(`Settings: ${SETTABLE.join(', ')}.`);
    expect(caught(() => checkKey(key, 'read')).hint).toBe(`Settings: ${READABLE.join(', ')}.`);
  });

  it.each([
    ['BASE-URL', 'base-url'],
    ['base_url', 'base-url'],
    ['webhook-secrte', 'webhook-secret'],
  ])('refuses %j, and asks whether it meant %j', (key, meant) => {
    const err = caught(() => checkKey(key));
    expect(err.message).toBe(`Unknown setting "${key}".`);
    expect(err.hint).toBe(`Did you mean ${meant}? Settings: ${SETTABLE.join(', ')}.`);
    expect(caught(() => checkKey(key, 'read')).hint).toBe(`Did you mean ${meant}? Settings: ${READABLE.join(', ')}.`);
  });

  it('refuses "api_key" to change as what login keeps (config set refuses api-key too); to read, asks whether it meant api-key', () => {
    const err = caught(() => checkKey('api_key'));
    expect(err.message).toBe('Unknown setting "api_key": api-key, which is kept by login and removed by logout: config does not change it.');
    expect(err.hint).toContain('Run `payctl login` to save a new key');
    expect(caught(() => checkKey('api_key', 'read')).hint).toBe(`Did you mean api-key? Settings: ${READABLE.join(', ')}.`);
  });

  it.each(['token', 'token-expires-at'])('refuses %j (the retired token and its expiry) as an unknown setting, to read or to change', (key) => {
    for (const use of ['read', 'write'] as const) {
      const err = caught(() => checkKey(key, use));
      expect(err.message).toBe(`Unknown setting "${key}".`);
      expect(err.exitCode).toBe(2);
      expect(err.hint).toBe(`Settings: ${(use === 'read' ? READABLE : SETTABLE).join(', ')}.`);
    }
    expect(caught(() => visibleSetting({ apiKey: 'sk_live_abcdefgh1234' }, key)).message).toBe(`Unknown setting "${key}".`);
  });

  it.each(['api-key'])('reads %j, but refuses to change it, naming login and logout', (key) => {
    expect(() => checkKey(key, 'read')).not.toThrow();
    const err = caught(() => checkKey(key));
    expect(err.message).toBe(`${key} is kept by login and removed by logout: config does not change it.`);
    expect(err.hint).toContain('`payctl login`');
    expect(err.hint).toContain('`payctl logout`');
    // The commands as this run prints them (with its profile).
    expect(caught(() => checkKey(key, 'write', { profile: 's' })).hint).toContain('`payctl logout --profile s`');
  });

  it('reads every settable key, and what login keeps, in the order config list shows them', () => {
    expect(READABLE).toEqual(['base-url', 'api-key', ...SETTABLE.slice(1)]);
    expect(READABLE).not.toContain('token');
    expect(READABLE).not.toContain('token-expires-at');
    for (const key of READABLE) expect(() => checkKey(key, 'read')).not.toThrow();
  });

  it('knows which settings are secrets', () => {
    expect(READABLE.filter(isSecretKey)).toEqual(['api-key', 'webhook-secret']);
    expect(isSecretKey('webhook-signature-header')).toBe(false);
  });
});

describe('applySetting', () => {
  it('checks and normalizes base-url', () => {
    expect(applySetting({}, 'base-url', 'https://api.example.com/v2/')).toEqual({ baseUrl: 'https://api.example.com/v2' });
    expect(applySetting({}, 'base-url', 'http://127.0.0.1:4010/v2')).toEqual({ baseUrl: 'http://127.0.0.1:4010/v2' });
    expect(caught(() => applySetting({}, 'base-url', 'http://example.com/v2')).message).toBe(
      'Refusing to send credentials over plain http:// to example.com. Nothing was saved.',
    );
    expect(caught(() => applySetting({}, 'base-url', 'https://api.example.com')).message).toMatch(/must end in \/v2/);
  });

  it('sets a non-empty webhook secret', () => {
    expect(applySetting({}, 'webhook-secret', 'whsec_1')).toEqual({ webhookSecret: 'whsec_1' });
    expect(caught(() => applySetting({}, 'webhook-secret', '')).message).toBe('The webhook secret cannot be empty.');
  });

  it.each(['Signature', 'X-Signature', 'x-bokumonie-signature', 'X_Sig.v2', "a!#$%&'*+.^_`|~9"])('sets webhook-signature-header %j as given', (name) => {
    expect(applySetting({}, 'webhook-signature-header', name)).toEqual({ webhookSignatureHeader: name });
  });

  it.each(['', ' ', 'X Signature', 'X-Signature:', 'Sig\nX-Other: 1', 'Sig\r\n', '(sig)', 'sig"', 'Sïg', 'a/b', 'a@b', 'a,b'])(
    'refuses %j as a webhook signature header (not an HTTP header name)',
    (name) => {
      const err = caught(() => applySetting({}, 'webhook-signature-header', name));
      // Echoed with what it holds written out, never dropped: "Sig\u000aX-Other: 1", "S\u00efg".
      const shown = name.replace('\n', '\\u000a').replace('\r', '\\u000d').replace('ï', '\\u00ef');
      expect(err.message).toBe(`"${shown}" is not an HTTP header name.`);
      expect(err.exitCode).toBe(2);
      expect(err.hint).toBe('For example: payctl config set webhook-signature-header X-Signature');
    },
  );

  it('adds a route override to the existing ones', () => {
    expect(applySetting({ routes: { balances: '/wallets' } }, 'routes.payoutGet', '/payouts/{transactionId}')).toEqual({
      routes: { balances: '/wallets', payoutGet: '/payouts/{transactionId}' },
    });
    expect(applySetting({}, 'routes.balances', '/w')).toEqual({ routes: { balances: '/w' } });
  });

  it('refuses a bad route, listing the problems', () => {
    const err = caught(() => applySetting({}, 'routes.payoutGet', 'payout'));
    expect(err.message).toBe('Invalid route for routes.payoutGet.');
    expect(err.problems).toEqual(['route payoutGet must contain {transactionId}', 'a route path starts with "/"']);
  });

  it('refuses an unknown key (the retired token too), and the key that login keeps', () => {
    expect(caught(() => applySetting({}, 'colour', 'x')).message).toBe('Unknown setting "colour".');
    expect(caught(() => applySetting({}, 'token', 'x')).message).toBe('Unknown setting "token".');
    expect(caught(() => applySetting({}, 'token-expires-at', 'x')).message).toBe('Unknown setting "token-expires-at".');
    expect(caught(() => applySetting({}, 'api-key', 'x')).message).toBe('api-key is kept by login and removed by logout: config does not change it.');
  });
});

describe('removeSetting', () => {
  it('removes base-url, webhook-secret and webhook-signature-header', () => {
    expect(removeSetting({ baseUrl: 'x' }, 'base-url')).toEqual({ baseUrl: undefined });
    expect(removeSetting({ webhookSecret: 'x' }, 'webhook-secret')).toEqual({ webhookSecret: undefined });
    expect(removeSetting({ webhookSignatureHeader: 'X-Signature' }, 'webhook-signature-header')).toEqual({ webhookSignatureHeader: undefined });
  });

  it('removes one route, and the routes object when it was the last', () => {
    expect(removeSetting({ routes: { balances: '/w', payoutGet: '/p/{transactionId}' } }, 'routes.balances')).toEqual({
      routes: { payoutGet: '/p/{transactionId}' },
    });
    expect(removeSetting({ routes: { balances: '/w' } }, 'routes.balances')).toEqual({ routes: undefined });
    expect(removeSetting({}, 'routes.balances')).toEqual({ routes: undefined });
  });

  it('refuses an unknown key (the retired token too), and the key that login keeps', () => {
    expect(caught(() => removeSetting({}, 'colour')).message).toBe('Unknown setting "colour".');
    expect(caught(() => removeSetting({}, 'token')).message).toBe('Unknown setting "token".');
    expect(caught(() => removeSetting({}, 'api-key')).message).toBe('api-key is kept by login and removed by logout: config does not change it.');
  });
});
