import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import type { GlobalOptions } from '../../src/deps.js';
import type { Profile } from '../../src/config/store.js';
import { callCredentials, checkBaseUrl, isLoopbackHost, resolveSettings } from '../../src/config/resolve.js';

function globals(over: Partial<GlobalOptions> = {}): GlobalOptions {
  return { profile: 'default', profileChosen: false, baseUrl: undefined, json: false, noInput: false, verbose: false, timeoutMs: 30_000, ...over };
}

const PROFILE: Profile = {
  baseUrl: 'https://profile.example.com/v2',
  apiKey: 'profile-key',
  token: 'profile-token',
  tokenExpiresAt: '2026-11-21T11:15:30.000Z',
  webhookSecret: 'profile-whsec',
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
    expect(s.token).toEqual({ value: 'profile-token', source: 'profile' });
  });

  it('takes the API key from PAYCTL_API_KEY before the profile', () => {
    expect(resolveSettings(globals(), { PAYCTL_API_KEY: 'env-key' }, PROFILE).apiKey).toEqual({ value: 'env-key', source: 'env' });
    expect(resolveSettings(globals(), {}, PROFILE).apiKey).toEqual({ value: 'profile-key', source: 'profile' });
    expect(resolveSettings(globals(), {}, {}).apiKey).toEqual({ value: undefined, source: 'none' });
  });

  it('takes the token from PAYCTL_TOKEN before the profile; the expiry only with the profile token', () => {
    const fromEnv = resolveSettings(globals(), { PAYCTL_TOKEN: 'env-token' }, PROFILE);
    expect(fromEnv.token).toEqual({ value: 'env-token', source: 'env' });
    expect(fromEnv.tokenExpiresAt).toBeUndefined();

    const fromProfile = resolveSettings(globals(), {}, PROFILE);
    expect(fromProfile.token).toEqual({ value: 'profile-token', source: 'profile' });
    expect(fromProfile.tokenExpiresAt).toBe('2026-11-21T11:15:30.000Z');

    const none = resolveSettings(globals(), {}, { tokenExpiresAt: '2026-11-21T11:15:30.000Z' });
    expect(none.token).toEqual({ value: undefined, source: 'none' });
    expect(none.tokenExpiresAt).toBeUndefined();
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

describe('callCredentials: which key and token a call uses', () => {
  const use = (g: Partial<GlobalOptions>, env: NodeJS.ProcessEnv) => {
    const s = resolveSettings(globals(g), env, PROFILE);
    const c = callCredentials(s, PROFILE, s.baseUrl.value);
    return { key: c.apiKey.value, token: c.token.value, save: c.saveTokens, withheld: c.withheld };
  };

  it("the profile's key and token at the profile's URL, new tokens saved", () => {
    expect(use({}, {})).toEqual({ key: 'profile-key', token: 'profile-token', save: true, withheld: false });
  });

  it("PAYCTL_API_KEY: the profile's token (of another key) is not used, nor are new tokens saved", () => {
    expect(use({}, { PAYCTL_API_KEY: 'env-key' })).toEqual({ key: 'env-key', token: undefined, save: false, withheld: false });
  });

  it("another --base-url: the profile's credentials are withheld", () => {
    expect(use({ baseUrl: 'https://other.example.com/v2' }, {})).toEqual({ key: undefined, token: undefined, save: false, withheld: true });
    expect(use({ baseUrl: 'https://other.example.com/v2' }, { PAYCTL_TOKEN: 'env-token' })).toEqual({ key: undefined, token: 'env-token', save: false, withheld: false });
  });

  it("the profile's own URL given again with --base-url: its credentials are used, new tokens not saved", () => {
    expect(use({ baseUrl: 'https://PROFILE.example.com/v2/' }, {})).toEqual({ key: 'profile-key', token: 'profile-token', save: false, withheld: false });
  });
});
