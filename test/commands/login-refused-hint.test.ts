/**
 * login with a key the service refuses (401, the sandbox over real HTTP, in process): the hint
 * says where the refused key came from and prints a login that works as printed under what the
 * hint says. PAYCTL_API_KEY: change or unset it (the printed login, run while it is still set,
 * would send the same key again); --api-key-stdin: the printed login keeps it; a prompt: as before.
 * A login run with --insecure-storage prints logins that keep it (run as printed on a machine
 * with a keyring, the key would otherwise go there, not to the file the person chose).
 */
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { newKey, readProfile, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { shellSplit } from '../helpers/pty.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();

/** The login command a hint prints (between backticks). */
function printedLogin(stderr: string): string[] {
  const line = /`(payctl login [^`]*)`/.exec(stderr)?.[1];
  expect(line, stderr).toBeDefined();
  return shellSplit(line!).slice(1);
}

describe('login with a refused key: the hint follows where the key came from', () => {
  it('from PAYCTL_API_KEY: says it was refused and to change or unset it; unset, the printed login works', async () => {
    const args = ['login', '--profile', 'prod', '--base-url', ctx.sb.baseUrl];
    const r = await payctl(args, { dir: cfg.dir, env: { PAYCTL_API_KEY: newKey() } });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('Error: The service refused the API key (Unauthenticated.).');
    expect(r.stderr).toContain(`PAYCTL_API_KEY was refused: set a valid key, or unset it and run \`payctl login --profile prod --base-url ${ctx.sb.baseUrl}\`.`);
    // Not the hint that sent the operator round in a loop: run as printed, it took the same key again.
    expect(r.stderr).not.toContain('with a valid key');
    expect(readProfile(cfg.dir, 'prod')).toBeUndefined();
    // With PAYCTL_API_KEY unset, the printed login asks for the key at a terminal.
    const again = await payctl(printedLogin(r.stderr), { dir: cfg.dir, prompts: [{ password: /^API key:$/, answer: KEY }] });
    expect(again.code, again.stderr).toBe(0);
    expect(readProfile(cfg.dir, 'prod')).toMatchObject({ baseUrl: ctx.sb.baseUrl });
  });

  it('from --api-key-stdin: the printed login keeps --api-key-stdin, and works with a valid key piped in', async () => {
    const r = await payctl(['login', '--api-key-stdin', '--profile', 'prod', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: newKey() + '\n' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`The key may be wrong or revoked. Pipe a valid key to \`payctl login --profile prod --base-url ${ctx.sb.baseUrl} --api-key-stdin\`.`);
    expect(r.stderr).not.toContain('PAYCTL_API_KEY');
    const again = await payctl(printedLogin(r.stderr), { dir: cfg.dir, input: KEY + '\n' });
    expect(again.code, again.stderr).toBe(0);
    expect(readProfile(cfg.dir, 'prod')).toMatchObject({ baseUrl: ctx.sb.baseUrl });
  });

  it('from a prompt: run the printed login with a valid key, which works as printed', async () => {
    const args = ['login', '--profile', 'prod', '--base-url', ctx.sb.baseUrl];
    const r = await payctl(args, { dir: cfg.dir, prompts: [{ password: /^API key:$/, answer: newKey() }] });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`The key may be wrong or revoked. Run \`payctl login --profile prod --base-url ${ctx.sb.baseUrl}\` with a valid key.`);
    expect(r.stderr).not.toContain('PAYCTL_API_KEY');
    const again = await payctl(printedLogin(r.stderr), { dir: cfg.dir, prompts: [{ password: /^API key:$/, answer: KEY }] });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('login --insecure-storage: every login it prints keeps --insecure-storage', () => {
  it('a refused key from PAYCTL_API_KEY, from --api-key-stdin and from a prompt', async () => {
    const args = ['login', '--profile', 'work', '--base-url', ctx.sb.baseUrl, '--timeout', '9', '--insecure-storage'];
    const want = ['login', '--profile', 'work', '--base-url', ctx.sb.baseUrl, '--timeout', '9', '--insecure-storage'];
    const env = await payctl(args, { dir: cfg.dir, env: { PAYCTL_API_KEY: newKey() } });
    expect(env.code, env.stderr).toBe(3);
    expect(printedLogin(env.stderr)).toEqual(want);
    const piped = await payctl([...args, '--api-key-stdin'], { dir: cfg.dir, input: newKey() + '\n' });
    expect(piped.code, piped.stderr).toBe(3);
    expect(printedLogin(piped.stderr)).toEqual([...want, '--api-key-stdin']);
    const prompted = await payctl(args, { dir: cfg.dir, prompts: [{ password: /^API key:$/, answer: newKey() }] });
    expect(prompted.code, prompted.stderr).toBe(3);
    expect(printedLogin(prompted.stderr)).toEqual(want);
    // Run as printed with a valid key: kept in the file, as the person chose.
    const again = await payctl(printedLogin(piped.stderr), { dir: cfg.dir, input: KEY + '\n' });
    expect(again.code, again.stderr).toBe(0);
    expect(readProfile(cfg.dir, 'work')).toMatchObject({ baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  });

  it('no base URL to log in to (no terminal): the printed login keeps it', async () => {
    const r = await payctl(['login', '--profile', 'fresh', '--api-key-stdin', '--insecure-storage'], { dir: cfg.dir, input: KEY + '\n' });
    expect(r.code, r.stderr).toBe(2);
    const line = /To log in to Bokumonie: (payctl login .*) \(or set PAYCTL_BASE_URL\)/.exec(r.stderr)?.[1];
    expect(line, r.stderr).toBeDefined();
    expect(shellSplit(line!).slice(1)).toEqual(['login', '--profile', 'fresh', '--base-url', 'https://api.bokumonie.com/v2', '--api-key-stdin', '--insecure-storage']);
  });
});

describe('a command with a refused PAYCTL_API_KEY: unsetting it is enough when the profile holds a key', () => {
  it("names the profile's stored key (masked), not a login; unset, the stored key works", async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY, secrets: 'file' }, 'sandbox');
    const r = await payctl(['balances', '--profile', 'sandbox'], { dir: cfg.dir, env: { PAYCTL_API_KEY: newKey() } });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`PAYCTL_API_KEY was refused: set a valid key, or unset it to use profile "sandbox"'s stored key (****${KEY.slice(-4)}).`);
    expect(r.stderr).not.toContain('payctl login');
    const unset = await payctl(['balances', '--profile', 'sandbox'], { dir: cfg.dir });
    expect(unset.code, unset.stderr).toBe(0);
  });

  it("a profile without a key, or a base URL given that is not the profile's: the login, as before", async () => {
    writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl }, 'bare');
    const bare = await payctl(['balances', '--profile', 'bare'], { dir: cfg.dir, env: { PAYCTL_API_KEY: newKey() } });
    expect(bare.code, bare.stderr).toBe(3);
    expect(bare.stderr).toContain('PAYCTL_API_KEY was refused: set a valid key, or unset it and run `payctl login --profile bare`.');
    writeProfile(cfg.dir, { baseUrl: 'https://api.bokumonie.com/v2', apiKey: KEY, secrets: 'file' }, 'prod');
    const other = await payctl(['balances', '--profile', 'prod', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, env: { PAYCTL_API_KEY: newKey() } });
    expect(other.code, other.stderr).toBe(3);
    expect(other.stderr).not.toContain('stored key');
  });
});
