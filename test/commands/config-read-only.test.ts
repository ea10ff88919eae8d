/**
 * A config folder on a read-only file system (a real read-only bind mount, as root, as
 * journal-read-only.test.ts makes one): every command that writes the config folder (config
 * set|unset, logout, sandbox start, a login into a folder still to be made) says it cannot write
 * to the folder, naming the real cause (EROFS) and the remount that would help, exit 2 (before:
 * "Cannot make the lock folder ...: ENOENT: no such file or directory", and sandbox start exit 1
 * with Node's raw error: Node's recursive mkdir names no other cause). Writable again, the same
 * command works.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl } from '../helpers/in-process.js';

const cleanups: Array<() => void> = [];
let root: string;
let cfg: string;

beforeEach(() => {
  const t = tempConfigDir();
  cleanups.push(() => t.cleanup());
  root = join(t.dir, 'ro');
  cfg = join(root, 'cfg');
  mkdirSync(cfg, { recursive: true, mode: 0o700 });
  const profile = { baseUrl: 'http://127.0.0.1:9/v2', apiKey: 'sk_test_readonly1234567890', webhookSignatureHeader: 'X-Old' };
  writeFileSync(join(cfg, 'config.json'), JSON.stringify({ profiles: { default: profile } }), { mode: 0o600 });
});

afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** `folder` made read-only in place (a bind mount of itself, remounted read-only) until the returned undo. */
function readOnly(folder: string): () => void {
  execFileSync('mount', ['--bind', folder, folder]);
  execFileSync('mount', ['-o', 'remount,ro,bind', folder]);
  let mounted = true;
  const undo = () => {
    if (mounted) execFileSync('umount', [folder]);
    mounted = false;
  };
  cleanups.push(undo);
  return undo;
}

/** The refusal every command gives: the folder, EROFS, the remount hint, exit 2. */
function expectReadOnly(r: { code: number | null; stderr: string }, doing: string, folder: string, after = 'Nothing was changed.'): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(`Error: Cannot ${doing}: payctl cannot write to ${folder} (the file system is read-only (EROFS)). ${after}`);
  expect(r.stderr).toContain(
    `Its file system is mounted read-only (findmnt -T ${folder} names the mount): remount it read-write, or choose another config folder with PAYCTL_CONFIG_DIR.`,
  );
  expect(r.stderr).not.toContain('ENOENT');
  expect(r.stderr).not.toMatch(/\.tmp/);
}

describe('a config folder on a read-only file system', () => {
  it('config set, config unset and logout: exit 2 naming the folder and EROFS; writable again, they work', async () => {
    const writable = readOnly(root);
    const lockFolder = `make the lock folder ${join(cfg, 'locks')}`;
    expectReadOnly(await payctl(['config', 'set', 'webhook-signature-header', 'X-Sig'], { dir: cfg }), lockFolder, cfg);
    expectReadOnly(await payctl(['config', 'unset', 'webhook-signature-header'], { dir: cfg }), lockFolder, cfg);
    expectReadOnly(await payctl(['logout'], { dir: cfg }), lockFolder, cfg);
    writable();
    const set = await payctl(['config', 'set', 'webhook-signature-header', 'X-Sig'], { dir: cfg });
    expect(set.code, set.stderr).toBe(0);
    // The lock folder there now: its lock file cannot be made, and the lock folder is named.
    readOnly(root);
    const locks = join(cfg, 'locks');
    expectReadOnly(await payctl(['logout'], { dir: cfg }), `make the lock file ${join(locks, 'config.lock')}`, locks);
  });

  it('sandbox start: exit 2 naming the folder and EROFS, nothing started', async () => {
    readOnly(root);
    const r = await payctl(['sandbox', 'start', '--detach', '--port', '0'], { dir: cfg });
    expectReadOnly(r, `write the sandbox log ${join(cfg, 'sandbox.log')}`, cfg, 'The sandbox was not started.');
  });

  it('a config folder still to be made there: exit 2 naming the folder that refused it, not "its folder does not exist"', async () => {
    readOnly(root);
    const fresh = join(root, 'newcfg');
    expectReadOnly(await payctl(['config', 'set', 'webhook-signature-header', 'X-Sig'], { dir: fresh }), `make the config folder ${fresh}`, root);
    expect(existsSync(fresh)).toBe(false);
  });
});
