/**
 * The per-wallet lock (src/payouts/wallet-lock.ts) with real files and real processes: a lock
 * file made 0600 and removed after, whatever the work did; one holder at a time; locks taken in
 * one order (no deadlock); a lock held by another process waited for, then refused naming its
 * pid, or taken once that process lets go; a holder killed with SIGKILL (its lock left behind)
 * taken over; a lock from before the machine booted taken over; Ctrl-C stops the wait; a
 * symlink in the lock's place is never followed. The child holding a lock runs the module
 * itself, bundled with esbuild.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { ConfigError, InterruptedError, LocalError } from '../../src/errors.js';
import { lockFolder, walletLockPath, withWalletLocks, type WalletLockOptions } from '../../src/payouts/wallet-lock.js';

const host: WalletLockOptions['host'] = { pid: process.pid, kill: (pid, signal) => void process.kill(pid, signal) };
const bundle = tempConfigDir();
let childScript: string;
let cfg: ReturnType<typeof tempConfigDir>;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  // The module as the child runs it, and a child that holds one wallet's lock until its stdin closes.
  await build({
    entryPoints: ['src/payouts/wallet-lock.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: join(bundle.dir, 'wallet-lock.mjs'),
    logLevel: 'silent',
  });
  childScript = join(bundle.dir, 'holder.mjs');
  writeFileSync(
    childScript,
    `import { withWalletLocks } from './wallet-lock.mjs';
const [dir, wallet] = process.argv.slice(2);
await withWalletLocks(dir, [wallet], async () => {
  process.stdout.write('held\\n');
  await new Promise((resolve) => process.stdin.on('end', resolve).resume());
}, { host: { pid: process.pid, kill: (pid, signal) => process.kill(pid, signal) } });
process.stdout.write('released\\n');
`,
  );
});

afterAll(() => bundle.cleanup());

beforeEach(() => {
  cfg = tempConfigDir();
});

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  cfg.cleanup();
});

/** A child process holding `wallet`'s lock in the test's config folder (resolves once it holds it). */
async function childHolding(wallet: string): Promise<{ child: ChildProcessWithoutNullStreams; exited: Promise<string> }> {
  const child = spawn(process.execPath, [childScript, cfg.dir, wallet], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<string>((resolve) => child.on('close', () => resolve(out)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('held\n')) resolve();
    });
    child.on('close', (code) => reject(new Error(`the child exited (${code}) before holding the lock: ${err}`)));
  });
  return { child, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('withWalletLocks', () => {
  it('holds a 0600 lock file naming this process while the work runs, and removes it after, also when the work throws', async () => {
    const path = walletLockPath(cfg.dir, '1234567890');
    const seen = await withWalletLocks(
      cfg.dir,
      ['1234567890'],
      async () => {
        const st = lstatSync(path);
        const holder = JSON.parse(readFileSync(path, 'utf8')) as { pid: number; host: string; started: string };
        return { mode: st.mode & 0o777, isFile: st.isFile(), holder, folderMode: lstatSync(lockFolder(cfg.dir)).mode & 0o777 };
      },
      { host },
    );
    expect(seen.isFile).toBe(true);
    expect(seen.mode).toBe(0o600);
    expect(seen.folderMode).toBe(0o700);
    expect(seen.holder.pid).toBe(process.pid);
    expect(typeof seen.holder.host).toBe('string');
    expect(Date.parse(seen.holder.started)).toBeGreaterThan(Date.now() - 60_000);
    expect(existsSync(path)).toBe(false);

    await expect(withWalletLocks(cfg.dir, ['1234567890'], () => Promise.reject(new Error('the work failed')), { host })).rejects.toThrow('the work failed');
    expect(readdirSync(lockFolder(cfg.dir))).toEqual([]);
  });

  it('one holder at a time: 12 runs on one wallet never overlap; runs locking two wallets in opposite orders do not deadlock', async () => {
    let inside = 0;
    let most = 0;
    const work = async () => {
      inside++;
      most = Math.max(most, inside);
      await sleep(5);
      inside--;
    };
    await Promise.all(Array.from({ length: 12 }, () => withWalletLocks(cfg.dir, ['77'], work, { host })));
    expect(most).toBe(1);

    most = 0;
    await Promise.all(Array.from({ length: 10 }, (_, i) => withWalletLocks(cfg.dir, i % 2 ? ['A', 'B'] : ['B', 'A', 'B'], work, { host, waitMs: 10_000 })));
    expect(most).toBe(1);
    expect(readdirSync(lockFolder(cfg.dir))).toEqual([]);
  });

  it('a lock another process holds: refused after the wait naming its pid (exit 1), the work never run', async () => {
    const { child } = await childHolding('555');
    let ran = false;
    const started = Date.now();
    const err = await withWalletLocks(
      cfg.dir,
      ['555'],
      async () => {
        ran = true;
      },
      { host, waitMs: 300 },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalError);
    expect((err as LocalError).exitCode).toBe(1);
    expect((err as Error).message).toContain(`pid ${child.pid}`);
    expect((err as Error).message).toContain('Nothing was sent.');
    expect((err as LocalError).hint).toContain(walletLockPath(cfg.dir, '555'));
    expect(ran).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('waits for another process, says so once, and takes the lock when that process lets go', async () => {
    const { child, exited } = await childHolding('556');
    const waits: Array<number | undefined> = [];
    const order: string[] = [];
    const mine = withWalletLocks(cfg.dir, ['556'], async () => void order.push('mine'), { host, waitMs: 20_000, onWait: (_w, h) => waits.push(h?.pid) });
    await sleep(1300);
    expect(order).toEqual([]);
    order.push('child lets go');
    child.stdin.end();
    await mine;
    expect(await exited).toContain('released');
    expect(order).toEqual(['child lets go', 'mine']);
    expect(waits).toEqual([child.pid]);
  });

  it('a holder killed with SIGKILL leaves its lock file: taken over at once, as its pid is gone, by one of the runs waiting', async () => {
    const { child, exited } = await childHolding('557');
    child.kill('SIGKILL');
    await exited;
    expect(existsSync(walletLockPath(cfg.dir, '557'))).toBe(true);
    // Ten runs find it stale at once: one breaks it, and they still hold the lock one at a time.
    let inside = 0;
    let most = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 10 }, () =>
        withWalletLocks(
          cfg.dir,
          ['557'],
          async () => {
            most = Math.max(most, ++inside);
            await sleep(2);
            inside--;
          },
          { host, waitMs: 5_000 },
        ),
      ),
    );
    expect(most).toBe(1);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(readdirSync(lockFolder(cfg.dir))).toEqual([]);
  });

  it('a lock taken before the machine booted is stale even if its pid now runs; contents left unwritten are waited for a moment, then stale', async () => {
    const path = walletLockPath(cfg.dir, '558');
    mkdirSync(lockFolder(cfg.dir), { recursive: true, mode: 0o700 });
    // pid 1 always runs: only the start time says this lock is from before the boot.
    writeFileSync(path, JSON.stringify({ pid: 1, host: hostname(), started: '1970-01-02T00:00:00.000Z' }), { mode: 0o600 });
    await withWalletLocks(cfg.dir, ['558'], async () => {}, { host, waitMs: 2_000 });

    // Empty, just made: a holder about to write its contents. Refused after a short wait.
    writeFileSync(path, '', { mode: 0o600 });
    await expect(withWalletLocks(cfg.dir, ['558'], async () => {}, { host, waitMs: 200 })).rejects.toBeInstanceOf(LocalError);
    // Empty and a minute old: left over.
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    await withWalletLocks(cfg.dir, ['558'], async () => {}, { host, waitMs: 2_000 });
    expect(readdirSync(lockFolder(cfg.dir))).toEqual([]);
  });

  it('Ctrl-C stops the wait at once (exit 130), the work never run', async () => {
    await childHolding('559');
    const ac = new AbortController();
    let ran = false;
    const waiting = withWalletLocks(
      cfg.dir,
      ['559'],
      async () => {
        ran = true;
      },
      { host, signal: ac.signal, waitMs: 20_000 },
    ).catch((e: unknown) => e);
    await sleep(200);
    const abortedAt = Date.now();
    ac.abort();
    const err = await waiting;
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as InterruptedError).exitCode).toBe(130);
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(ran).toBe(false);
  });

  it('a symlink in place of the lock file is not followed: refused (exit 2), its target untouched', async () => {
    const target = join(cfg.dir, 'target.txt');
    writeFileSync(target, 'keep me');
    mkdirSync(lockFolder(cfg.dir), { recursive: true, mode: 0o700 });
    symlinkSync(target, walletLockPath(cfg.dir, '560'));
    const err = await withWalletLocks(cfg.dir, ['560'], async () => {}, { host, waitMs: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('symbolic link');
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });
});
