/**
 * A config folder payctl may not write, with the built binary: `payctl login` checks the key
 * with the service only to save it, so it says it cannot save it before the key leaves (exit 2,
 * nothing sent), and the `chmod` it prints, run as printed, lets the same login save the key.
 * The runs are made as root without the capabilities that let root write any file (setpriv),
 * else as the user the tests run as, so that the folder's mode is obeyed for real. `config set`
 * and `logout` there say the same (exit 2, the folder and the chmod; before: exit 1 naming the
 * temp file `config.json.tmp-...` they had made, with no hint). No home folder to be found (an
 * empty HOME, a user the password database does not know): refused, exit 2, nothing written
 * under the working folder (before: the API key's folder `.config/payctl` was made there). A
 * HOME that does not exist (a service account's /nonexistent): the missing home is said, naming
 * HOME, with PAYCTL_CONFIG_DIR (before: "payctl cannot write to /" and `chmod u+w /`).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, readableBin, runCli, runUnprivileged, tempConfigDir } from '../helpers/cli.js';
import { readProfile } from '../helpers/e2e.js';
import { useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const base = tempConfigDir();
afterAll(() => {
  for (const d of ['locked config', 'closed']) if (existsSync(join(base.dir, d))) chmodSync(join(base.dir, d), 0o700);
  base.cleanup();
});

describe('login to a config folder payctl may not write', () => {
  it('exit 2 before the key is sent; the chmod printed, run as printed, and the same login saves the key', async () => {
    const dir = join(base.dir, 'locked config');
    mkdirSync(dir, { mode: 0o500 });
    chmodSync(dir, 0o500);
    const env = cliEnv(dir);
    const login = [process.execPath, BIN, 'login', '--api-key-stdin', '--insecure-storage', '--base-url', ctx.sb.baseUrl];
    const from = ctx.sb.requests().length;
    const r = await runUnprivileged(login, { env, input: `${ctx.sb.apiKey}\n` });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Error: Cannot log in: payctl cannot write to ${dir} (permission denied (EACCES)), where it would be saved. Nothing was sent.`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(ctx.sb.requests().length).toBe(from);

    const chmod = /^ {2}(chmod u\+w .*)$/m.exec(r.stderr)![1]!;
    expect(chmod).toBe(`chmod u+w '${dir}'`);
    const sh = await runUnprivileged(['sh', '-c', chmod], { env });
    expect(sh.code, sh.stderr).toBe(0);
    const again = await runUnprivileged(login, { env, input: `${ctx.sb.apiKey}\n` });
    expect(again.code, again.stderr).toBe(0);
    expect(readProfile(dir)).toEqual({ baseUrl: ctx.sb.baseUrl, apiKey: ctx.sb.apiKey });
  });
});

describe('a relative config folder (PAYCTL_CONFIG_DIR=-rel)', () => {
  it('the commands printed name it by its absolute path: run as printed from another folder, they work', async () => {
    const work = join(base.dir, 'work');
    mkdirSync(join(work, '-rel'), { recursive: true, mode: 0o700 });
    const file = join(work, '-rel', 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: { default: { baseUrl: ctx.sb.baseUrl, apiKey: ctx.sb.apiKey } } }), { mode: 0o644 });
    chmodSync(file, 0o644);
    const env = cliEnv(undefined, { PAYCTL_CONFIG_DIR: '-rel' });
    const r = await runCli(['config', 'list'], { cwd: work, env: { PAYCTL_CONFIG_DIR: '-rel' } });
    expect(r.code, r.stderr).toBe(2);
    const chmod = /^ {2}(chmod 600 .*)$/m.exec(r.stderr)![1]!;
    expect(chmod).toBe(`chmod 600 ${file}`);
    // Pasted in another folder, where "-rel" is not there (and would read as options).
    const sh = await runUnprivileged(['sh', '-c', chmod], { env });
    expect(sh.code, sh.stderr).toBe(0);
    const again = await runCli(['config', 'list'], { cwd: work, env: { PAYCTL_CONFIG_DIR: '-rel' } });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('config set and logout in a config folder payctl may not write', () => {
  it('exit 2 naming the folder, never its temp file, with the chmod; run as printed, the same command works', async () => {
    const dir = join(base.dir, 'closed');
    mkdirSync(join(dir, 'locks'), { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { baseUrl: ctx.sb.baseUrl, apiKey: ctx.sb.apiKey } } }), { mode: 0o600 });
    chmodSync(dir, 0o500);
    const env = cliEnv(dir);
    const said = (doing: string) =>
      `Error: Cannot ${doing}: payctl cannot write to ${dir} (permission denied (EACCES)). Nothing was changed.\nMake it writable:\n  chmod u+w ${dir}\nor choose another config folder with PAYCTL_CONFIG_DIR.\n`;
    const set = await runUnprivileged([process.execPath, BIN, 'config', 'set', 'webhook-signature-header', 'X-C'], { env });
    expect(set.code, set.stderr).toBe(2);
    expect(set.stderr).toBe(said(`save the config file ${join(dir, 'config.json')}`));
    const logout = await runUnprivileged([process.execPath, BIN, 'logout'], { env });
    expect(logout.code, logout.stderr).toBe(2);
    expect(logout.stderr).toBe(said(`save the config file ${join(dir, 'config.json')}`));
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'locks']);

    const sh = await runUnprivileged(['sh', '-c', /^ {2}(chmod u\+w .*)$/m.exec(set.stderr)![1]!], { env });
    expect(sh.code, sh.stderr).toBe(0);
    const again = await runUnprivileged([process.execPath, BIN, 'config', 'set', 'webhook-signature-header', 'X-C'], { env });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('no home folder to be found', () => {
  it('an empty HOME for a user the password database does not know: exit 2, nothing written under the working folder', () => {
    const work = join(base.dir, 'open work');
    mkdirSync(work, { mode: 0o777 });
    chmodSync(work, 0o777); // anyone may write here: the old code made .config/payctl in it
    const env = cliEnv(undefined, { HOME: '', XDG_CONFIG_HOME: '.cfgrel' });
    const r = spawnSync(
      'setpriv',
      ['--reuid=54321', '--regid=54321', '--clear-groups', '--', process.execPath, readableBin(), 'config', 'set', 'webhook-signature-header', 'X'],
      {
        cwd: work,
        env,
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('Error: Cannot find your home folder: HOME is empty and the password database has no home folder for this user');
    expect(r.stderr).toContain('Set HOME to your home folder, or PAYCTL_CONFIG_DIR to the config folder (an absolute path).');
    expect(readdirSync(work)).toEqual([]);
  });

  it('a HOME that does not exist (as a service account has): its home named, PAYCTL_CONFIG_DIR offered, never chmod (probe B53, 6)', () => {
    const home = `/nonexistent-payctl-${process.pid}`;
    const env = cliEnv(undefined, { HOME: home });
    delete env.PAYCTL_CONFIG_DIR;
    delete env.XDG_CONFIG_HOME;
    const r = spawnSync(
      'setpriv',
      ['--reuid=54321', '--regid=54321', '--clear-groups', '--', process.execPath, readableBin(), 'config', 'set', 'webhook-signature-header', 'X'],
      {
        cwd: '/',
        env,
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Error: Cannot make the config folder ${home}/.config/payctl: the home folder ${home} (HOME) does not exist. Nothing was changed.`);
    expect(r.stderr).toContain('Set PAYCTL_CONFIG_DIR to a folder this user may write');
    expect(r.stderr).not.toContain('chmod');
    expect(existsSync(home)).toBe(false);
  });
});

describe('a config folder on a file system that takes no new folder (probe E54, 1)', () => {
  it("/proc: exit 2 naming it, at once (before: Node's recursive mkdir retried for ever at full CPU, deaf to SIGTERM)", () => {
    for (const args of [['balances'], ['config', 'set', 'webhook-signature-header', 'X-A']]) {
      const r = spawnSync(process.execPath, [BIN, ...args], {
        env: { ...cliEnv('/proc/payctl-e54'), PAYCTL_CONFIG_DIR: '/proc/payctl-e54' },
        encoding: 'utf8',
        timeout: 20_000,
        killSignal: 'SIGKILL',
      });
      expect(r.signal, 'killed after 20 s: it hung').toBeNull();
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain('Cannot make the config folder /proc/payctl-e54: /proc takes no new folder');
    }
  });
});
