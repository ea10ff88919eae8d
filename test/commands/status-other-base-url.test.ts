/**
 * `status --base-url` of another origin than the profile's, in process against two sandboxes over
 * real HTTP: the profile's key is not sent there (exit 3, nothing reaches it), and the card says
 * so: not "none (not logged in)" (the profile is logged in, to another base URL) but that its key
 * is for that other base URL. The error names the login of a profile of its own, which works as
 * printed; status there is then valid.
 */
import { describe, expect, it } from 'vitest';
import { newKey, readProfile, since, writeLoggedIn, writeProfiles, useConfigDir } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { shellSplit } from '../helpers/pty.js';
import { useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const KEY2 = newKey();
/** Another service: a second sandbox, another base URL, with a key of its own. */
const other = useSandbox({ apiKey: KEY2 });
const cfg = useConfigDir();

describe("status for another base URL than the profile's", () => {
  it("says the profile's key is for its own base URL and not sent here, and the login it prints works as printed", async () => {
    await writeLoggedIn(ctx.sb, cfg.dir);
    const from = other.sb.requests().length;
    const r = await payctl(['status', '--base-url', other.sb.baseUrl], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^API key\s+the profile's is not sent to this base URL$/m);
    expect(r.stdout).toMatch(new RegExp(`^Credentials\\s+not sent: the profile's key is for ${ctx.sb.baseUrl}, not this base URL$`, 'm'));
    expect(r.stdout).not.toContain('not logged in');
    // The same refusal as every other command's, with the login that works there.
    expect(r.stderr).toContain(`Error: Profile "default" holds a key for ${ctx.sb.baseUrl}, not for ${other.sb.baseUrl}: it is not sent there.`);
    expect(since(other.sb, from)).toEqual([]);
    const login = /log in a profile of its own to it: (payctl .*)$/m.exec(r.stderr)?.[1];
    expect(login, r.stderr).toBeDefined();
    const made = await payctl(shellSplit(login!).slice(1), { dir: cfg.dir, prompts: [{ password: /^API key:$/, answer: KEY2 }] });
    expect(made.code, made.stderr).toBe(0);
    expect(readProfile(cfg.dir, '127.0.0.1')).toMatchObject({ baseUrl: other.sb.baseUrl });
    const there = await payctl(['status', '--profile', '127.0.0.1'], { dir: cfg.dir });
    expect(there.code, there.stderr).toBe(0);
    expect(there.stdout).toMatch(/^Credentials\s+valid$/m);
  });

  it('a key saved without a base URL: the card says so', async () => {
    writeProfiles(cfg.dir, { default: { apiKey: newKey() } });
    const r = await payctl(['status', '--base-url', other.sb.baseUrl], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^Credentials\s+not sent: the profile's key was saved without a base URL$/m);
  });

  it('a profile with no key at all is still "not logged in"', async () => {
    writeProfiles(cfg.dir, { default: { baseUrl: ctx.sb.baseUrl } });
    const r = await payctl(['status', '--base-url', other.sb.baseUrl], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^Credentials\s+none \(not logged in\)$/m);
  });
});
