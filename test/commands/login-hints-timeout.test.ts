/**
 * The `payctl login` commands that refusals about a profile print (its key in an OS keyring that
 * cannot be reached, no such profile, a key that cannot be sent, a key kept for another base
 * URL, a base URL that cannot be used) carry the run's --timeout, as every printed command does
 * (README "Printed commands run as printed"): taken back from the output as a POSIX shell splits
 * it. Each is refused before anything is sent, so no service is needed. In process; no D-Bus
 * here, so the OS keyring cannot be reached.
 */
import { describe, expect, it } from 'vitest';
import { useConfigDir, writeProfile, writeProfiles } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { printed } from '../helpers/printed.js';

const cfg = useConfigDir();
const BASE = 'http://127.0.0.1:9/v2';
const KEY = 'sk_test_0123456789abcdef0123456789abcdef';

describe('login commands printed by profile refusals carry --timeout', () => {
  it('the key in an OS keyring that cannot be reached: the --insecure-storage login has --timeout', async () => {
    writeProfile(cfg.dir, { baseUrl: BASE, secrets: 'keyring' }, 'kr');
    const r = await payctl(['balances', '--profile', 'kr', '--timeout', '3'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('The API key of profile "kr" is in the OS keyring, which cannot be reached');
    expect(printed(r.stderr, 'login')).toEqual(['login', '--profile', 'kr', '--timeout', '3', '--insecure-storage']);
  });

  it('no such profile: the login that creates it has --timeout', async () => {
    const r = await payctl(['balances', '--profile', 'staging', '--timeout', '4.5'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('No profile "staging"');
    expect(printed(r.stderr, 'login')).toEqual(['login', '--profile', 'staging', '--timeout', '4.5']);
    // history, which also knows the profiles its journal names, says it alike.
    const h = await payctl(['history', '--profile', 'staging', '--timeout', '4.5'], { dir: cfg.dir });
    expect(h.code, h.stderr).toBe(2);
    expect(printed(h.stderr, 'login')).toEqual(['login', '--profile', 'staging', '--timeout', '4.5']);
  });

  it("a profile's key that cannot be sent: the login that replaces it has --timeout", async () => {
    writeProfile(cfg.dir, { baseUrl: BASE, apiKey: `${KEY}\u0007` }, 'ops');
    const r = await payctl(['balances', '--profile', 'ops', '--timeout', '3'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('Log in again with the key alone: payctl login');
    expect(printed(r.stderr, 'login')).toEqual(['login', '--profile', 'ops', '--timeout', '3']);
  });

  it("a profile's key withheld from another base URL: the login of a profile of its own has --timeout", async () => {
    writeProfiles(cfg.dir, { default: { baseUrl: BASE, apiKey: KEY } });
    const other = 'http://127.0.0.1:10/v2';
    const r = await payctl(['balances', '--base-url', other, '--timeout', '3'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(3);
    expect(printed(r.stderr, 'login')).toEqual(['login', '--profile', '127.0.0.1', '--base-url', other, '--timeout', '3']);
  });

  it("a profile's base URL that cannot be used: the login it names has --timeout", async () => {
    writeProfile(cfg.dir, { baseUrl: 'ftp://127.0.0.1/v2', apiKey: KEY }, 'ops');
    const r = await payctl(['balances', '--profile', 'ops', '--timeout', '3'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("log in to that profile again with the service's base URL (`payctl login --profile ops --timeout 3 --base-url URL`");
  });
});
