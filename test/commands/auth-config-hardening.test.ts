/**
 * Credentials and the config file, hardened, in process (payctl's main with in-memory streams)
 * against the sandbox, a proxy in front of it and small node:http services over real HTTP:
 * - a 2xx whose envelope says "Failed" is no success: login saves nothing, status does not call
 *   the key valid, reads exit 1, and a payout stays an unknown outcome (exit 4); the tolerated
 *   forms of a success (the word in any case, no status at all) still are;
 * - an API key is trimmed wherever it comes from (a CRLF key file), and one that still holds a
 *   control character is refused (exit 2) naming where it came from, before anything is sent;
 * - the commands printed for a config file others can write work as printed;
 * - login says PAYCTL_TOKEN is no longer used, as every other command does;
 * - a config file that cannot be read for its permissions (EACCES) is said to be so, with commands
 *   that work as printed: a real EACCES, from a child process without the root's right to read
 *   every file (or as the user it runs as, when not root).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runUnprivileged, tempConfigDir } from '../helpers/cli.js';
import { configFile, expectNoSecrets, lastBearer, newKey, oneJson, readProfile, since, writeLoggedIn, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { configDir, expectNoCrash, heldFor, hostile, journalOf, payoutArgs, sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';

const KEY = newKey();
const MASKED = `****${KEY.slice(-4)}`;
const ctx = useSandbox({ apiKey: KEY });
useHostileCleanups();
afterEach(() => ctx.sb.faults.clear());

/** A service that answers every request HTTP `status` with `body` (a JSON text), recording each. */
function answering(status: number, body: string) {
  return hostile((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
}

const FAILED_200 = '{"status":"Failed","message":"Unauthenticated.","data":null}';

describe('a 2xx whose envelope says "Failed" is no success', () => {
  it('login: exit 1 naming the status and the service\'s message, no "Logged in", nothing saved', async () => {
    const svc = await answering(200, FAILED_200);
    const dir = configDir();
    const r = await payctl(['login', '--api-key-stdin', '--base-url', svc.baseUrl], { dir, input: `${KEY}\n` });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('Error: The service answered HTTP 200 with status "Failed" (Unauthenticated.), not "Successful": payctl does not take it for a success.');
    expect(r.stderr).not.toContain('Logged in');
    expect(svc.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /v2/auth/user']);
    expect(readProfile(dir)).toBeUndefined();
    expectNoSecrets(r, [KEY]);
    expectNoCrash(r);
  });

  it('status: the service "answered with an error (HTTP 200)", the key not judged valid (exit 1; --json authenticated null)', async () => {
    const svc = await answering(200, FAILED_200);
    const dir = configDir();
    writeProfile(dir, { baseUrl: svc.baseUrl, apiKey: KEY });
    const r = await payctl(['status'], { dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^Service {6}answered with an error \(HTTP 200\)$/m);
    expect(r.stdout).toMatch(/^Credentials {2}not checked$/m);
    expect(r.stdout).not.toContain('valid');
    expect(r.stderr).toContain('with status "Failed" (Unauthenticated.), not "Successful"');
    const j = await payctl(['status', '--json'], { dir });
    expect(j.code, j.stderr).toBe(1);
    expect(oneJson(j.stdout)).toMatchObject({ service: 'failed', credentials: 'not_checked', authenticated: null, account: null });
    expect(JSON.parse(j.stderr).error).toMatchObject({ status: 200, message: expect.stringContaining('with status "Failed"') });
  });

  it('every read refuses it (exit 1), "Error" and any letter case alike; a status "successful", "SUCCESS" or none is still a success', async () => {
    const dir = configDir();
    for (const body of [FAILED_200, '{"status":"Error","message":"Internal error; please retry.","data":[]}', '{"status":"failed","data":[]}']) {
      const svc = await answering(200, body);
      writeProfile(dir, { baseUrl: svc.baseUrl, apiKey: KEY });
      for (const args of [['balances'], ['payouts', 'list'], ['summary'], ['payout', 'get', 'TXN-BOK-83BD4FB5EF52C8CB2329510901']]) {
        const r = await payctl(args, { dir });
        expect(r.code, `${args.join(' ')} ${body}: ${r.stderr}`).toBe(1);
        expect(r.stderr).toMatch(/^Error: The service answered HTTP 200 with status "(Failed|Error|failed)"/m);
        expect(r.stdout).toBe('');
        expectNoCrash(r);
      }
    }
    const wallet = { wallet_id: '5553881136', wallet_name: 'Main Wallet', currency: 'SLE', balance: 1469.95 };
    for (const status of ['successful', 'SUCCESS', undefined]) {
      const svc = await answering(200, JSON.stringify({ status, message: 'Balances retrieved', data: [wallet] }));
      writeProfile(dir, { baseUrl: svc.baseUrl, apiKey: KEY });
      const r = await payctl(['balances', '--json'], { dir });
      expect(r.code, `${status}: ${r.stderr}`).toBe(0);
      expect(oneJson(r.stdout).data).toEqual([wallet]);
    }
  });

  it('GET /auth/user answered 200 with no account (no status, "data": null): login saves nothing, status does not call the key valid', async () => {
    const svc = await answering(200, '{"message":"Unauthenticated.","data":null}');
    const dir = configDir();
    const r = await payctl(['login', '--api-key-stdin', '--base-url', svc.baseUrl], { dir, input: KEY });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('Error: The service sent the account that payctl does not understand');
    expect(r.stderr).not.toContain('Logged in');
    expect(readProfile(dir)).toBeUndefined();
    writeProfile(dir, { baseUrl: svc.baseUrl, apiKey: KEY });
    const s = await payctl(['status', '--json'], { dir });
    expect(s.code, s.stderr).toBe(1);
    expect(oneJson(s.stdout)).toMatchObject({ credentials: 'not_checked', authenticated: null, account: null });
  });

  it('payout create answered 201 with the payout but status "Failed": an unknown outcome (exit 4, journaled unknown), never accepted nor refused', async () => {
    const proxy = await sandboxProxy(ctx.sb);
    const dir = configDir();
    const p = await writeLoggedIn(ctx.sb, dir);
    writeProfile(dir, { ...p, baseUrl: proxy.baseUrl });
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const id = `failed-envelope-${randomUUID()}`;
    proxy.rewriteNextPayout((status, raw) => {
      expect(status).toBe(201);
      const answer = JSON.parse(raw) as Record<string, unknown>;
      return { status: 201, body: JSON.stringify({ ...answer, status: 'Failed', message: 'Transfer failed' }), contentType: 'application/json' };
    });
    const r = await payctl(payoutArgs(wallet, id), { dir });
    expect(proxy.rewritten, r.stderr).toBe(1);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`The outcome of payout ${id} is unknown`);
    expect(r.stderr).toContain('with status "Failed" (Transfer failed), not "Successful"');
    expect(r.stderr).toContain('Retry safely');
    expect(r.stdout).toBe('');
    expect(journalOf(dir, id)[0]!.outcome?.kind).toBe('unknown');
    // The service did make it: the journal's key finds it again, once.
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
    expectNoCrash(r);
  });
});

describe('an API key is trimmed wherever it comes from, and refused (exit 2, nothing sent) when it still holds a control character', () => {
  it('PAYCTL_API_KEY read from a CRLF key file (a trailing CR): balances and status work, the key sent without it, its tail printed clean', async () => {
    const dir = configDir();
    writeProfile(dir, { baseUrl: ctx.sb.baseUrl });
    const env = { PAYCTL_API_KEY: `${KEY}\r` };
    const b = await payctl(['balances', '--json'], { dir, env });
    expect(b.code, b.stderr).toBe(0);
    expect(lastBearer(ctx.sb)).toBe(KEY);
    const s = await payctl(['status'], { dir, env });
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(new RegExp(`^API key {6}\\*{4}${KEY.slice(-4)} \\(from the environment\\)$`, 'm'));
    expect(s.stdout).toMatch(/^Credentials {2}valid$/m);
    expect(s.stdout + s.stderr).not.toContain('\r');
    // A profile's key with white space around it (a hand-edited file) is trimmed too.
    writeProfile(dir, { baseUrl: ctx.sb.baseUrl, apiKey: ` ${KEY}\r\n` });
    const p = await payctl(['balances', '--json'], { dir });
    expect(p.code, p.stderr).toBe(0);
    expect(lastBearer(ctx.sb)).toBe(KEY);
  });

  it('PAYCTL_API_KEY with an ESC or a NUL inside: exit 2 naming PAYCTL_API_KEY and the character, nothing sent (balances, payout create)', async () => {
    const dir = configDir();
    writeProfile(dir, { baseUrl: ctx.sb.baseUrl });
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    for (const [bad, named] of [
      [`${KEY.slice(0, 10)}\u001b${KEY.slice(10)}`, 'an escape character (U+001B) at character 11'],
      [`${KEY}\u0000x`, `a NUL character (U+0000) at character ${KEY.length + 1}`],
      [`${KEY.slice(0, 5)} ${KEY.slice(5)}`, 'a space (U+0020) at character 6'],
    ] as const) {
      const from = ctx.sb.requests().length;
      const b = await payctl(['balances'], { dir, env: { PAYCTL_API_KEY: bad } });
      expect(b.code, b.stderr).toBe(2);
      expect(b.stderr).toContain(`Error: PAYCTL_API_KEY contains ${named}: an API key is visible ASCII characters only. Nothing was sent.`);
      expect(b.stderr).toContain("Set PAYCTL_API_KEY to the key alone (white space around it is ignored), or unset it to use the profile's key.");
      expect(b.stderr).not.toContain('Network error');
      const id = `bad-key-${randomUUID()}`;
      const c = await payctl(payoutArgs(wallet, id), { dir, env: { PAYCTL_API_KEY: bad } });
      expect(c.code, c.stderr).toBe(2);
      expect(c.stderr).toContain(`PAYCTL_API_KEY contains ${named}`);
      expect(c.stderr).not.toContain('unknown');
      expect(since(ctx.sb, from)).toEqual([]);
      expect(heldFor(ctx.sb, id)).toEqual([]);
      expectNoCrash(b);
      expectNoCrash(c);
    }
  });

  it("a profile's key with a control character inside: exit 2 naming the profile and where it is kept, with the login that replaces it; status shows the key's tail escaped", async () => {
    const dir = configDir();
    const bad = `${KEY.slice(0, -2)}\u001b${KEY.slice(-1)}`;
    writeProfile(dir, { baseUrl: ctx.sb.baseUrl, apiKey: bad }, 'ops');
    const from = ctx.sb.requests().length;
    const b = await payctl(['balances', '--profile', 'ops'], { dir });
    expect(b.code, b.stderr).toBe(2);
    expect(b.stderr).toContain(
      `Error: The API key of profile "ops" (kept in the config file) contains an escape character (U+001B) at character ${KEY.length - 1}: an API key is visible ASCII characters only. Nothing was sent.`,
    );
    expect(b.stderr).toContain('Log in again with the key alone: payctl login --profile ops');
    const s = await payctl(['status', '--profile', 'ops'], { dir });
    expect(s.code, s.stderr).toBe(2);
    expect(s.stdout).toMatch(new RegExp(`^API key {6}\\*{4}${KEY.slice(-4, -2)}\\\\u001b${KEY.slice(-1)}$`, 'm'));
    expect(s.stdout).toMatch(/^Credentials {2}not checked$/m);
    expect(s.stdout + s.stderr).not.toContain('\u001b');
    expect(s.stderr).toContain('The API key of profile "ops" (kept in the config file) contains an escape character');
    const j = await payctl(['status', '--profile', 'ops', '--json'], { dir });
    expect(j.code, j.stderr).toBe(2);
    expect(oneJson(j.stdout)).toMatchObject({ api_key: `****${KEY.slice(-4, -2)}\\u001b${KEY.slice(-1)}`, authenticated: null });
    expect(since(ctx.sb, from)).toEqual([]);
  });

  it('login given a key with a control character (standard input, PAYCTL_API_KEY): exit 2 naming the source, nothing sent, nothing saved', async () => {
    const dir = configDir();
    const bad = `${KEY.slice(0, 4)}\u001b[2J${KEY.slice(4)}`;
    const from = ctx.sb.requests().length;
    const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir, input: `${bad}\r\n` });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('Error: The API key from standard input contains an escape character (U+001B) at character 5');
    const e = await payctl(['login', '--base-url', ctx.sb.baseUrl], { dir, env: { PAYCTL_API_KEY: bad } });
    expect(e.code, e.stderr).toBe(2);
    expect(e.stderr).toContain('Error: The API key from PAYCTL_API_KEY contains an escape character (U+001B) at character 5');
    expect(since(ctx.sb, from)).toEqual([]);
    expect(readProfile(dir)).toBeUndefined();
    expect(r.stderr + e.stderr).not.toContain('\u001b');
  });
});

/** The indented lines of a hint: the commands it prints for a person to run. */
function printedCommands(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('  ') && !l.startsWith('  - '))
    .map((l) => l.trim());
}

describe('the config file refused for its permissions: the commands printed work as printed', () => {
  it('a config file others can write: `cat` shows it, `chmod 600` makes it private, then payctl uses it (a folder whose name needs quoting)', async () => {
    const c = configDir();
    const dir = join(c, "Mariama's payctl config");
    mkdirSync(dir, { mode: 0o700 });
    await writeLoggedIn(ctx.sb, dir);
    chmodSync(configFile(dir), 0o664);
    const r = await payctl(['balances'], { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Refusing to use the config file ${configFile(dir)}: others can write to it (mode 664)`);
    expect(r.stderr).not.toContain('payctl config list');
    const commands = printedCommands(r.stderr);
    expect(commands).toEqual([`cat '${c}/Mariama'\\''s payctl config/config.json'`, `chmod 600 '${c}/Mariama'\\''s payctl config/config.json'`]);
    for (const line of commands) {
      const sh = spawnSync('sh', ['-c', line], { encoding: 'utf8' });
      expect(sh.status, `${line}: ${sh.stderr}`).toBe(0);
      if (line.startsWith('cat ')) expect(sh.stdout).toContain(ctx.sb.baseUrl);
    }
    const after = await payctl(['balances', '--json'], { dir });
    expect(after.code, after.stderr).toBe(0);
  });

  it('a config file that keeps an API key and that others can read (0644, 0640) is refused; chmod 600, as printed, and it is used', async () => {
    for (const mode of [0o644, 0o640]) {
      const dir = configDir();
      await writeLoggedIn(ctx.sb, dir);
      chmodSync(configFile(dir), mode);
      const from = ctx.sb.requests().length;
      const r = await payctl(['balances'], { dir });
      // Used before, without a word, the key readable by others.
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `Refusing to use the config file ${configFile(dir)}: it keeps profile "default"'s API key, and others can read it (mode ${mode.toString(8)})`,
      );
      expect(r.stderr).not.toContain(ctx.sb.apiKey);
      expect(ctx.sb.requests().length).toBe(from);
      const chmod = printedCommands(r.stderr).find((l) => l.startsWith('chmod 600 '))!;
      expect(spawnSync('sh', ['-c', chmod]).status).toBe(0);
      expect((await payctl(['balances', '--json'], { dir })).code).toBe(0);
    }
  });
});

describe('login and PAYCTL_TOKEN', () => {
  it('login says PAYCTL_TOKEN is no longer used (as status and balances do), and logs in with the key it is given', async () => {
    const dir = configDir();
    const TOKEN = 'tok_env_0123456789abcdef';
    const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir, input: KEY, env: { PAYCTL_TOKEN: TOKEN } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'Warning: PAYCTL_TOKEN is no longer used: the API key itself is the bearer token. Set PAYCTL_API_KEY (or run `payctl login`) and unset PAYCTL_TOKEN.',
    );
    expect(r.stderr).toContain(`Logged in to ${ctx.sb.baseUrl} as profile "default" (key ${MASKED})`);
    expect(lastBearer(ctx.sb)).toBe(KEY);
    expectNoSecrets(r, [KEY, TOKEN]);
  });
});

describe('a config file payctl may not read (EACCES)', () => {
  // readProfilesFile as payctl runs it, in a child process: as root, without the capabilities
  // that let root read any file (setpriv), so that mode 000 is refused for real.
  const bundle = tempConfigDir();
  let script: string;
  beforeAll(async () => {
    await build({
      entryPoints: ['src/config/config-file.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: join(bundle.dir, 'config-file.mjs'),
      logLevel: 'silent',
    });
    script = join(bundle.dir, 'read.mjs');
    writeFileSync(
      script,
      `import { readProfilesFile } from './config-file.mjs';
try {
  const { profiles } = readProfilesFile(process.argv[2], undefined);
  process.stdout.write(JSON.stringify({ profiles }));
} catch (err) {
  process.stdout.write(JSON.stringify({ name: err.name, message: err.message, hint: err.hint, exitCode: err.exitCode }));
}
`,
    );
  });
  afterAll(() => bundle.cleanup());

  it('mode 000: "cannot be read: permission denied", never "damaged"; `ls -l` and `chmod 600` work as printed, and the file reads again', async () => {
    const c = configDir();
    const dir = join(c, 'locked config');
    mkdirSync(dir, { mode: 0o700 });
    writeProfile(dir, { baseUrl: 'https://api.bokumonie.com/v2', apiKey: KEY });
    const file = configFile(dir);
    chmodSync(file, 0o000);
    const got = await runUnprivileged([process.execPath, script, file]);
    expect(got.code, got.stderr).toBe(0);
    const err = JSON.parse(got.stdout) as { name: string; message: string; hint: string; exitCode: number };
    expect(err).toMatchObject({ name: 'ConfigError', exitCode: 2 });
    expect(err.message).toBe(`The config file ${file} cannot be read: permission denied (EACCES). Nothing was sent.`);
    expect(err.message).not.toContain('damaged');
    expect(err.hint).not.toMatch(/Fix it by hand|move it away/);
    const commands = printedCommands(err.hint);
    expect(commands).toEqual([`ls -l '${file}'`, `chmod 600 '${file}'`]);
    for (const line of commands) {
      const sh = await runUnprivileged(['sh', '-c', line]);
      expect(sh.code, `${line}: ${sh.stderr}`).toBe(0);
    }
    const again = await runUnprivileged([process.execPath, script, file]);
    expect(JSON.parse(again.stdout)).toEqual({ profiles: { default: { baseUrl: 'https://api.bokumonie.com/v2', apiKey: KEY } } });
  });
});
