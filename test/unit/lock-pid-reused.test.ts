/**
 * A lock file whose pid now belongs to another program (pids are reused, after a reboot too):
 * taken over at once, as for a dead pid, when /proc shows that the process of that pid started
 * at another time than the lock says its holder did, or (a lock written without that time)
 * after the lock was taken. A holder payctl cannot check (on another machine) is still waited
 * for, but the refusal does not call it "another payctl" without saying it could not be
 * checked, and names every lock file that holder keeps. Real files, a real `sleep` process in
 * the holder's place, the /proc of this machine (Linux).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { LocalError } from '../../src/errors.js';
import { procStat } from '../../src/host.js';
import { lockFolder, walletLockPath, withWalletLocks, type WalletLockOptions } from '../../src/payouts/wallet-lock.js';

const host: WalletLockOptions['host'] = { pid: process.pid, kill: (pid, signal) => void process.kill(pid, signal) };
let cfg: ReturnType<typeof tempConfigDir>;
let sleeper: ChildProcess | undefined;

beforeEach(() => {
  cfg = tempConfigDir();
  mkdirSync(lockFolder(cfg.dir), { recursive: true, mode: 0o700 });
});
afterEach(() => {
  sleeper?.kill('SIGKILL');
  sleeper = undefined;
  cfg.cleanup();
});

/** A program that is not payctl, started now: what got a crashed payctl's pid. */
async function otherProgram(): Promise<number> {
  sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => sleeper!.once('spawn', resolve).once('error', reject));
  return sleeper.pid!;
}

function plant(wallet: string, holder: Record<string, unknown>): string {
  const path = walletLockPath(cfg.dir, wallet);
  writeFileSync(path, JSON.stringify({ host: hostname(), nonce: 'a1b2c3d4e5f60718', ...holder }) + '\n', { mode: 0o600 });
  return path;
}

it('lock files name when their process started, and a lock whose pid runs another process now is taken at once', async () => {
  // What this process writes: its pid, and when it started as /proc says.
  let written: { pid: number; pidStart?: number } | undefined;
  await withWalletLocks(cfg.dir, ['601'], async () => void (written = JSON.parse(readFileSync(walletLockPath(cfg.dir, '601'), 'utf8'))), { host });
  expect(written).toMatchObject({ pid: process.pid, pidStart: procStat(process.pid)!.startTicks });

  // A payctl that took the lock a second ago and died; its pid now runs `sleep`, which started at another time.
  const started = new Date(Date.now() - 1000).toISOString();
  const crashed = procStat(process.pid)!.startTicks;
  const pid = await otherProgram();
  plant('602', { pid, started, pidStart: crashed });
  const began = Date.now();
  let ran = false;
  await withWalletLocks(cfg.dir, ['602'], async () => void (ran = true), { host, waitMs: 20_000 });
  expect(ran).toBe(true);
  expect(Date.now() - began).toBeLessThan(2_000);
  expect(readdirSync(lockFolder(cfg.dir))).toEqual([]);
});

it('a lock written without its process start time: taken when the process of its pid started after the lock was taken', async () => {
  const pid = await otherProgram();
  // Taken three minutes ago (after this machine booted), by a payctl that did not write when its process started.
  plant('603', { pid, started: new Date(Date.now() - 180_000).toISOString() });
  const began = Date.now();
  await withWalletLocks(cfg.dir, ['603'], async () => {}, { host, waitMs: 20_000 });
  expect(Date.now() - began).toBeLessThan(2_000);
  expect(readdirSync(lockFolder(cfg.dir))).toEqual([]);
});

it('the process that took a lock is still waited for, and named as the payctl holding it', async () => {
  const pid = await otherProgram();
  // Its own start time: it is the holder (as a payctl that took the lock and still runs).
  const path = plant('604', { pid, started: new Date().toISOString(), pidStart: procStat(pid)!.startTicks });
  const waits: string[] = [];
  const err = await withWalletLocks(cfg.dir, ['604'], async () => {}, { host, waitMs: 1_300, onWait: (_w, h) => waits.push(`${h?.pid} ${h?.unchecked}`) }).catch(
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LocalError);
  expect((err as Error).message).toMatch(new RegExp(`^Wallet 604 is locked by another payctl \\(pid ${pid} on `));
  expect((err as LocalError).hint).toBe(`Run the command again when that one has finished. If no payctl is running, remove the lock file: ${path}`);
  expect(waits).toEqual([`${pid} undefined`]);
});

it('a holder payctl cannot check (another machine): waited for, said as not checked, every lock file of it named', async () => {
  const holder = { pid: 4242, host: 'other-machine', started: new Date().toISOString(), pidStart: 12345 };
  const a = plant('605', holder);
  const b = plant('606', holder);
  const waits: Array<string | undefined> = [];
  const err = await withWalletLocks(cfg.dir, ['605', '606'], async () => {}, { host, waitMs: 1_300, onWait: (_w, h) => waits.push(h?.unchecked) }).catch(
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LocalError);
  const [first, second] = [a, b].sort();
  const what = first === a ? 'Wallet 605' : 'Wallet 606';
  expect((err as Error).message).toBe(
    `${what} is locked by pid 4242 on other-machine, since ${holder.started}; payctl could not check that it is the payctl that took the lock (it runs on other-machine, not on this machine). If it is, it is checking the policy's limits and journaling payouts from this wallet. Nothing was sent.`,
  );
  expect((err as LocalError).hint).toBe(
    `Run the command again when that one has finished. If no payctl is running (after a reboot, its pid may be another program's), remove its lock files: ${first} ${second}`,
  );
  expect(waits).toEqual(['it runs on other-machine, not on this machine']);
});
