import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import type { GlobalOptions } from '../../src/deps.js';
import type { Profile } from '../../src/config/store.js';
import { callCredentials, checkBaseUrl, isLoopbackHost, resolveSettings, retiredTokenWarning } from '../../src/config/resolve.js';

function globals(over: Partial<GlobalOptions> = {}): GlobalOptions {
  return { profile: 'default', profileChosen: false, baseUrl: undefined, json: false, noInput: false, verbose: false, timeoutMs: 30_000, ...over };
}

const PROFILE: Profile = {
  baseUrl: 'https://profile.example.com/v2',
  apiKey: 'profile-key',
  webhookSecret: 'profile-whsec',
  webhookSignatureHeader: 'X-Signature',
  routes: { payoutGet: '/payout/{id}' },
};

describe('resolveSettings', () => {
  it('takes the base URL from the flag first', () => {
    const s = resolveSettings(globals({ baseUrl: 'https://flag.example.com/v2' }), { PAYCTL_BASE_URL: 'https://env.example.com/v2' }, PROFILE);
    expect(s.baseUrl).toEqual({ value: 'https://flag.example.com/v2', source: 'flag' });
  });

  it('then from PAYCTL_BASE_URL, then the profile, else none', () => {
    expect(resolveSettings(globals(), { PAYCTL_BASE_URL: 'https://env.example.com/v2' }, PROFILE).baseUrl).toEqual({
      value: 'https://env.example.com/v2',
      source: 'env',
    });
    expect(resolveSettings(globals(), {}, PROFILE).baseUrl).toEqual({ value: 'https://profile.example.com/v2', source: 'profile' });
    expect(resolveSettings(globals(), {}, undefined).baseUrl).toEqual({ value: undefined, source: 'none' });
  });

  it('ignores empty flag and env values', () => {
    const s = resolveSettings(globals({ baseUrl: '' }), { PAYCTL_BASE_URL: '', PAYCTL_API_KEY: '', PAYCTL_TOKEN: '' }, PROFILE);
    expect(s.baseUrl).toEqual({ value: 'https://profile.example.com/v2', source: 'profile' });
    expect(s.apiKey).toEqual({ value: 'profile-key', source: 'profile' });
  });

  it('takes the API key from PAYCTL_API_KEY before the profile', () => {
    expect(resolveSettings(globals(), { PAYCTL_API_KEY: 'env-key' }, PROFILE).apiKey).toEqual({ value: 'env-key', source: 'env' });
    expect(resolveSettings(globals(), {}, PROFILE).apiKey).toEqual({ value: 'profile-key', source: 'profile' });
    expect(resolveSettings(globals(), {}, {}).apiKey).toEqual({ value: undefined, source: 'none' });
  });

  it('PAYCTL_TOKEN is no credential: the key still comes from PAYCTL_API_KEY or the profile, and no setting holds it', () => {
    const withProfile = resolveSettings(globals(), { PAYCTL_TOKEN: 'env-token' }, PROFILE);
    expect(withProfile.apiKey).toEqual({ value: 'profile-key', source: 'profile' });
    expect(JSON.stringify(withProfile)).not.toContain('env-token');

    const withEnvKey = resolveSettings(globals(), { PAYCTL_TOKEN: 'env-token', PAYCTL_API_KEY: 'env-key' }, PROFILE);
    expect(withEnvKey.apiKey).toEqual({ value: 'env-key', source: 'env' });
    expect(JSON.stringify(withEnvKey)).not.toContain('env-token');

    const alone = resolveSettings(globals(), { PAYCTL_TOKEN: 'env-token' }, undefined);
    expect(alone.apiKey).toEqual({ value: undefined, source: 'none' });
    expect(JSON.stringify(alone)).not.toContain('env-token');
    expect(Object.keys(alone).sort()).toEqual(['apiKey', 'baseUrl', 'profileName', 'routes', 'webhookSecret', 'webhookSignatureHeader']);
  });

  it('a profile read from an old config file (token and expiry still in it) resolves without them', () => {
    const old = { ...PROFILE, token: 'old-profile-token', tokenExpiresAt: '2026-11-21T11:15:30.000Z' } as Profile;
    const s = resolveSettings(globals(), {}, old);
    expect(s.apiKey).toEqual({ value: 'profile-key', source: 'profile' });
    expect(JSON.stringify(s)).not.toContain('old-profile-token');
    expect(JSON.stringify(callCredentials(s, old, s.baseUrl.value))).not.toContain('old-profile-token');
  });

  it("takes the webhook signature header from the profile, else none (the listener's default applies)", () => {
    expect(resolveSettings(globals(), {}, PROFILE).webhookSignatureHeader).toEqual({ value: 'X-Signature', source: 'profile' });
    expect(resolveSettings(globals(), {}, {}).webhookSignatureHeader).toEqual({ value: undefined, source: 'none' });
    expect(resolveSettings(globals(), {}, undefined).webhookSignatureHeader).toEqual({ value: undefined, source: 'none' });
  });

  it('carries the profile name, routes and webhook secret', () => {
    const s = resolveSettings(globals({ profile: 'work' }), {}, PROFILE);
    expect(s.profileName).toBe('work');
    expect(s.routes).toEqual({ payoutGet: '/payout/{id}' });
    expect(s.webhookSecret).toEqual({ value: 'profile-whsec', source: 'profile' });
    expect(resolveSettings(globals(), { PAYCTL_WEBHOOK_SECRET: 'env-whsec' }, PROFILE).webhookSecret).toEqual({
      value: 'env-whsec',
      source: 'env',
    });
    expect(resolveSettings(globals(), {}, undefined).routes).toEqual({});
  });
});

describe('checkBaseUrl', () => {
  it.each([
    ['https://api.example.com/v2', 'https://api.example.com/v2'],
    ['https://api.example.com/v2/', 'https://api.example.com/v2'],
    ['https://api.example.com/v2///', 'https://api.example.com/v2'],
    ['https://API.Example.com:8443/v2', 'https://api.example.com:8443/v2'],
    ['https://api.example.com:443/v2', 'https://api.example.com/v2'],
    ['https://api.example.com/pay/v2', 'https://api.example.com/pay/v2'],
    ['http://localhost/v2', 'http://localhost/v2'],
    ['http://LOCALHOST:4010/v2/', 'http://localhost:4010/v2'],
    ['http://127.0.0.1:4010/v2', 'http://127.0.0.1:4010/v2'],
    ['http://127.5.6.7/v2', 'http://127.5.6.7/v2'],
    ['http://[::1]:4010/v2', 'http://[::1]:4010/v2'],
  ])('accepts %s as %s', (raw, out) => {
    expect(checkBaseUrl(raw)).toBe(out);
  });

  it.each([
    ['http://10.0.0.1/v2', /Refusing to send credentials over plain http:\/\/ to 10\.0\.0\.1\. Nothing was sent\./],
    ['http://example.com/v2', /plain http:\/\/ to example\.com/],
    ['http://127.0.0.1.evil.com/v2', /plain http:\/\/ to 127\.0\.0\.1\.evil\.com/],
    ['http://localhost.evil.com/v2', /plain http:\/\/ to localhost\.evil\.com/],
    ['http://evil.com/localhost/v2', /plain http:\/\//],
    ['http://[::2]/v2', /plain http:\/\//],
    ['http://[::ffff:10.0.0.1]/v2', /plain http:\/\//],
    ['http://128.0.0.1/v2', /plain http:\/\//],
    ['https://api.example.com', /must end in \/v2 \(got https:\/\/api\.example\.com\/\)/],
    ['https://api.example.com/v1', /must end in \/v2/],
    ['https://api.example.com/v2x', /must end in \/v2/],
    ['https://api.example.com/notv2', /must end in \/v2/],
    ['https://user:pass@api.example.com/v2', /must not contain a user name or password/],
    ['https://user@api.example.com/v2', /must not contain a user name or password/],
    ['https://api.example.com/v2?x=1', /must not contain a query or fragment/],
    ['https://api.example.com/v2#frag', /must not contain a query or fragment/],
    ['ftp://api.example.com/v2', /must use https:\/\/ \(got ftp:\)/],
    ['file:///etc/v2', /must use https:\/\//],
    ['api.example.com/v2', /is not a valid base URL/],
    ['', /is not a valid base URL/],
  ])('refuses %s with a UsageError', (raw, why) => {
    let err: unknown;
    try {
      checkBaseUrl(raw);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(why);
    expect((err as UsageError).exitCode).toBe(2);
  });

  it.each([
    ['https://api.bokumonie.com', 'Did you mean https://api.bokumonie.com/v2?'],
    ['https://api.bokumonie.com/V2', 'Did you mean https://api.bokumonie.com/v2?'],
    ['api.bokumonie.com/v2', 'Did you mean https://api.bokumonie.com/v2?'],
    ['localhost:4010/v2', 'Did you mean http://localhost:4010/v2?'],
    ['127.0.0.1:4010/v2', 'Did you mean http://127.0.0.1:4010/v2?'],
    ['https://api.bokumonie.com/v1', undefined],
    ['https://api.bokumonie.com/v2x', undefined],
    ['', 'Give a full URL such as https://api.bokumonie.com/v2.'],
  ])('refuses %j with the URL it most likely means, where that is plain', (raw, hint) => {
    expect(() => checkBaseUrl(raw)).toThrow(UsageError);
    try {
      checkBaseUrl(raw);
    } catch (e) {
      expect((e as UsageError).hint).toBe(hint);
    }
  });

  it('never echoes the password of a refused http URL', () => {
    let err: unknown;
    try {
      checkBaseUrl('http://user:hunter2@example.com/v2');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect(`${(err as UsageError).message} ${(err as UsageError).hint ?? ''}`).not.toContain('hunter2');
  });
});

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.5.6.7', '127.255.255.255', '[::1]', '::1'])('%s is loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(true);
  });

  it.each([
    'localhost.evil.com',
    'localhostevil.com',
    'evil-localhost',
    '127.0.0.1.evil.com',
    'evil.com.127.0.0.1',
    '127.0.0',
    '128.0.0.1',
    '10.0.0.1',
    '0.0.0.0',
    '[::2]',
    'example.com',
    '',
  ])('%s is not loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(false);
  });

  it('does not treat names under .localhost as loopback (they may be resolved by DNS, off this machine)', () => {
    expect(isLoopbackHost('api.localhost')).toBe(false);
    expect(() => checkBaseUrl('http://api.localhost/v2')).toThrow(UsageError);
  });
});

describe('callCredentials: which key a call sends', () => {
  const use = (g: Partial<GlobalOptions>, env: NodeJS.ProcessEnv, profile: Profile | undefined = PROFILE) => {
    const s = resolveSettings(globals(g), env, profile);
    const c = callCredentials(s, profile, s.baseUrl.value);
    return { key: c.apiKey.value, withheld: c.withheld };
  };

  it("the profile's key at the profile's URL", () => {
    expect(use({}, {})).toEqual({ key: 'profile-key', withheld: false });
  });

  it("PAYCTL_API_KEY before the profile's key", () => {
    expect(use({}, { PAYCTL_API_KEY: 'env-key' })).toEqual({ key: 'env-key', withheld: false });
  });

  it("another --base-url: the profile's key is withheld; PAYCTL_API_KEY is sent there", () => {
    expect(use({ baseUrl: 'https://other.example.com/v2' }, {})).toEqual({ key: undefined, withheld: true });
    expect(use({ baseUrl: 'https://other.example.com/v2' }, { PAYCTL_API_KEY: 'env-key' })).toEqual({ key: 'env-key', withheld: false });
    // A profile with no key has nothing to withhold.
    expect(use({ baseUrl: 'https://other.example.com/v2' }, {}, { baseUrl: PROFILE.baseUrl })).toEqual({ key: undefined, withheld: false });
  });

  it('another --base-url with only PAYCTL_TOKEN set: no credential is taken from it (the key stays withheld)', () => {
    expect(use({ baseUrl: 'https://other.example.com/v2' }, { PAYCTL_TOKEN: 'env-token' })).toEqual({ key: undefined, withheld: true });
    expect(use({}, { PAYCTL_TOKEN: 'env-token' }, {})).toEqual({ key: undefined, withheld: false });
  });

  it("the profile's own URL given again with --base-url: its key is used", () => {
    expect(use({ baseUrl: 'https://PROFILE.example.com/v2/' }, {})).toEqual({ key: 'profile-key', withheld: false });
  });

  it('returns only the key and whether it was withheld', () => {
    const s = resolveSettings(globals(), { PAYCTL_TOKEN: 'env-token' }, PROFILE);
    expect(Object.keys(callCredentials(s, PROFILE, s.baseUrl.value)).sort()).toEqual(['apiKey', 'withheld']);
  });
});

describe('retiredTokenWarning: PAYCTL_TOKEN is no longer used', () => {
  it('says so when PAYCTL_TOKEN is set, pointing at PAYCTL_API_KEY and login, never echoing the token', () => {
    const text = retiredTokenWarning({ PAYCTL_TOKEN: 'tok_secret_value_1234' });
    expect(text).toBe('PAYCTL_TOKEN is no longer used: the API key itself is the bearer token. Set PAYCTL_API_KEY (or run `payctl login`) and unset PAYCTL_TOKEN.');
    expect(text).not.toContain('tok_secret_value_1234');
  });

  it('is silent when PAYCTL_TOKEN is unset or empty, whatever else is set', () => {
    expect(retiredTokenWarning({})).toBeUndefined();
    expect(retiredTokenWarning({ PAYCTL_TOKEN: '' })).toBeUndefined();
    expect(retiredTokenWarning({ PAYCTL_API_KEY: 'env-key' })).toBeUndefined();
  });
});
