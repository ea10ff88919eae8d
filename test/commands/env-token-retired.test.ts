/**
 * PAYCTL_TOKEN, retired (issue #26: the API key itself is the bearer token), in process against
 * the sandbox over real HTTP: a value in it is never a credential (not even a valid key), a
 * warning says so without echoing it, and logout no longer says it "will be used". An old
 * config file's token is read past and dropped at the next write (logout).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { configFile, expectNoSecrets, newKey, oneJson, readProfile, since, useConfigDir, writeLoggedIn } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { warningsOf } from '../helpers/stderr-json.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const WARNING = 'Warning: PAYCTL_TOKEN is no longer used: the API key itself is the bearer token. Set PAYCTL_API_KEY (or run `payctl login`) and unset PAYCTL_TOKEN.';

afterEach(() => ctx.sb.faults.clear());

describe('PAYCTL_TOKEN is no credential', () => {
  it('alone (even holding a valid key): not logged in (exit 3), the warning, nothing sent', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, env: { PAYCTL_TOKEN: KEY } });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(WARNING);
    expect(r.stderr).toContain('Not logged in');
    expect(since(ctx.sb, from)).toEqual([]);
    expectNoSecrets(r, [KEY]);
  });

  it('with PAYCTL_API_KEY: the key is the bearer, the token is never sent', async () => {
    const TOKEN = 'tok_env_0123456789abcdef';
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances', '--json', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, env: { PAYCTL_TOKEN: TOKEN, PAYCTL_API_KEY: KEY } });
    expect(r.code, r.stderr).toBe(0);
    // Under --json the warning is a JSON line of its own (src/output/log.ts).
    expect(warningsOf(r.stderr)).toEqual([WARNING.replace(/^Warning: /, '')]);
    const reqs = since(ctx.sb, from);
    expect(reqs.map((x) => x.line)).toEqual(['GET /v2/wallets/balances 200']);
    expect(reqs[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(reqs)).not.toContain(TOKEN);
    expectNoSecrets(r, [KEY, TOKEN]);
  });

  it("another --base-url: the profile's key stays withheld; PAYCTL_TOKEN does not stand in for it (exit 3, nothing sent)", async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const other = ctx.sb.baseUrl.replace('127.0.0.1', 'localhost');
    const from = ctx.sb.requests().length;
    const r = await payctl(['balances', '--base-url', other], { dir: cfg.dir, env: { PAYCTL_TOKEN: KEY } });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(WARNING);
    expect(r.stderr).toContain(`Set PAYCTL_API_KEY for ${other}`);
    expect(r.stderr).not.toMatch(/PAYCTL_API_KEY or PAYCTL_TOKEN/);
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('no warning when PAYCTL_TOKEN is not set', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const r = await payctl(['balances', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('logout', () => {
  it('warns that PAYCTL_API_KEY is still set; says nothing of PAYCTL_TOKEN being used', async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const withKey = await payctl(['logout'], { dir: cfg.dir, env: { PAYCTL_API_KEY: KEY } });
    expect(withKey.code, withKey.stderr).toBe(0);
    expect(withKey.stderr).toContain('PAYCTL_API_KEY is still set in the environment and will be used.');
    expectNoSecrets(withKey, [KEY]);

    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    const withToken = await payctl(['logout'], { dir: cfg.dir, env: { PAYCTL_TOKEN: 'tok_env_0123456789abcdef' } });
    expect(withToken.code, withToken.stderr).toBe(0);
    expect(withToken.stderr).not.toContain('will be used');
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl });
  });

  it("of an old config file's profile: the key removed and the token and expiry gone from the file", async () => {
    writeFileSync(
      configFile(cfg.dir),
      JSON.stringify({ profiles: { default: { baseUrl: ctx.sb.baseUrl, apiKey: KEY, token: 'tok_old_0123456789abcdef', tokenExpiresAt: '2030-01-01T00:00:00.000Z' } } }),
      { mode: 0o600 },
    );
    const r = await payctl(['logout', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(oneJson(r.stdout)).toEqual({ profile: 'default', logged_out: true });
    expect(readProfile(cfg.dir)).toEqual({ baseUrl: ctx.sb.baseUrl });
    expect(readFileSync(configFile(cfg.dir), 'utf8')).not.toMatch(/tok_old|tokenExpiresAt/);
  });
});
