/**
 * Exclusive lock files in a config folder, across the payctl processes of one machine: one
 * mechanism for the wallets' locks (payouts/wallet-lock.ts: a policy's limits under races) and
 * the config file's (store.ts: two commands changing profiles at once, neither change lost).
 *
 * A lock file is created with O_CREAT|O_EXCL|O_NOFOLLOW (0600) and holds the holder's pid,
 * host, start time and a nonce. Locks are taken in the order of their file names (so two
 * runs locking the same files cannot deadlock), waited for with a short backoff up to a
 * bound, and released in `finally`. A lock whose holder is gone (its pid dead on this host, a
 * zombie, or another process now: one that started after the lock was taken, or not when the
 * lock says its process started; or the lock taken before this machine booted) is stale and is
 * broken, but only by the process
 * that holds its `.break` guard, which reads the lock again under the guard: the lock cannot
 * change meanwhile (its dead holder will not release it, and only a guard holder removes
 * another's lock), so a fresh lock made by someone else is never removed by mistake.
 */
import { closeSync, constants, lstatSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { hostname, uptime } from 'node:os';
import { dirname } from 'node:path';
import { procStat } from '../host.js';
import { checkFolder } from './paths.js';
import { openRegular, RefusedFile, type OpenedFile } from './regular-file.js';
import { shellQuote } from './shell.js';
import { sleep } from '../clock.js';
import { folderFault, makeFolders } from './folder-fault.js';
import { diskFull, fsFault } from './fs-fault.js';
import { ConfigError, InterruptedError, LockHeldError } from '../errors.js';

/** Who holds a lock, as its file says. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  started: string;
  /** When its process started, in clock ticks after the boot (Linux's /proc): with the pid, that process and no other. */
  pidStart?: number;
  /** Why payctl could not check that the pid is still the process that took the lock (it may be another program now); absent when checked. */
  unchecked?: string;
}

/** This process, and how to ask whether another exists: Deps' host (only the entry touches the process). */
export interface LockHost {
  pid: number;
  kill(pid: number, signal: 0): void;
}

/** One lock file, and how messages name what it guards. */
export interface LockTarget {
  path: string;
  /** What the lock guards, as a sentence starts with it: "Wallet 6643665465", "The config file /home/a/.config/payctl/config.json". */
  what: string;
  /** What its holder does meanwhile: "checking the policy's limits and journaling payouts from this wallet". */
  doing: string;
}

export interface LockOptions {
  /** Ctrl-C: stops the wait (exit 130; nothing was done). */
  signal?: AbortSignal;
  /** How long to wait for a lock another run holds before giving up (default 30 s). */
  waitMs?: number;
  /** Told once when a lock is still held after about a second: the caller says who it waits for. */
  onWait?: (target: LockTarget, holder: LockHolder | undefined) => void;
  host: LockHost;
  /** What was not done when the lock cannot be had, ending every such message: "Nothing was sent." */
  nothing: string;
}

const DEFAULT_WAIT_MS = 30_000;
/** A lock file without readable contents is being written (they follow its creation at once); older than this, it is left over. */
const UNWRITTEN_GRACE_MS = 5_000;
/** Lock files are tiny: more than this is not one payctl wrote. */
const MAX_LOCK_BYTES = 4096;
/** A clock tick of /proc's start times: Linux shows 100 a second to programs on every architecture. */
const TICK_MS = 10;
/** Times of this machine's clock compared with a lock's `started`: the clock may have been set meanwhile. */
const CLOCK_SLACK_MS = 60_000;

/**
 * Runs `fn` holding the lock of every target in `folder` (the same path once), then releases
 * them, whatever `fn` does. Throws LocalError (exit 1) naming the holder when a lock stays held
 * past `waitMs`, InterruptedError when `signal` aborts the wait; nothing of `fn` ran then.
 */
export async function withLockFiles<T>(folder: string, targets: LockTarget[], fn: () => Promise<T>, opts: LockOptions): Promise<T> {
  const locks = [...new Map(targets.map((t) => [t.path, t])).values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (locks.length) prepareFolder(folder, opts.nothing);
  const deadline = Date.now() + (opts.waitMs ?? DEFAULT_WAIT_MS);
  const held: Array<{ path: string; nonce: string }> = [];
  try {
    for (const [i, t] of locks.entries()) held.push(await acquire(t, locks.slice(i + 1), deadline, opts));
    return await fn();
  } finally {
    for (const h of held.reverse()) release(h.path, h.nonce);
  }
}

/** The lock folder, made 0700; refused (exit 2) when it is a symlink, another user's or writable by others. */
function prepareFolder(dir: string, nothing: string): void {
  makeFolders(dir, `make the lock folder ${dir}`, `. ${nothing}`);
  checkFolder(dir, 'lock folder');
}

/** What a lock file of this process holds: its pid, host, when it started and the nonce (none: a `.break` guard). */
function holderText(host: LockHost, nonce?: string): string {
  const pidStart = host.pid > 0 ? procStat(host.pid)?.startTicks : undefined;
  return (
    JSON.stringify({ pid: host.pid, host: hostname(), started: new Date().toISOString(), ...(pidStart !== undefined ? { pidStart } : {}), ...(nonce ? { nonce } : {}) }) +
    '\n'
  );
}

/** Takes `t`'s lock; `rest`, the locks still to take after it, are named too when the same holder keeps them. */
async function acquire(t: LockTarget, rest: LockTarget[], deadline: number, opts: LockOptions): Promise<{ path: string; nonce: string }> {
  const { host, nothing } = opts;
  // node:crypto only when a lock is taken: a read (`balances --json`) loads this module with the
  // config store and takes no lock, and loading node:crypto cost its start 2-4 ms.
  const { randomBytes } = await import('node:crypto');
  const nonce = randomBytes(8).toString('hex');
  const content = holderText(host, nonce);
  const waitedFrom = Date.now();
  let told = false;
  let delay = 5;
  for (;;) {
    if (opts.signal?.aborted) throw interrupted(t, nothing);
    if (createExclusive(t.path, content, nothing)) return { path: t.path, nonce };
    const seen = readLock(t.path, nothing);
    if (!seen) continue; // released meanwhile: try again at once
    const verdict = judge(seen, host);
    if (verdict === 'gone') {
      breakStale(t.path, host, nothing);
      continue;
    }
    const holder = seen.holder && (verdict === 'running' ? seen.holder : { ...seen.holder, unchecked: verdict.unchecked });
    const now = Date.now();
    if (now >= deadline) throw heldError(t, holder, rest, nothing);
    if (!told && now - waitedFrom >= 1000) {
      told = true;
      opts.onWait?.(t, holder);
    }
    // A short backoff with jitter: holders keep a lock for milliseconds (a count and a journal write).
    await sleep(Math.min(deadline - now, delay + Math.random() * delay), opts.signal, () => interrupted(t, nothing));
    delay = Math.min(delay * 2, 100);
  }
}

/** The refusal when `t` stays locked: who holds it (said as not checked to be a payctl when it could not be) and every lock file it keeps of this run's. */
function heldError(t: LockTarget, h: LockHolder | undefined, rest: LockTarget[], nothing: string): LockHeldError {
  const files = [t.path, ...rest.filter((o) => h && sameHolder(o.path, h)).map((o) => o.path)];
  const remove = files.length === 1 ? `remove the lock file: ${files[0]}` : `remove its lock files: ${files.join(' ')}`;
  if (h?.unchecked) {
    return new LockHeldError(
      `${t.what} is locked by pid ${h.pid} on ${h.host}, since ${h.started}; payctl could not check that it is the payctl that took the lock (${h.unchecked}). If it is, it is ${t.doing}. ${nothing}`,
      `Run the command again when that one has finished. If no payctl is running (after a reboot, its pid may be another program's), ${remove}`,
    );
  }
  return new LockHeldError(
    `${t.what} is locked by another payctl (${h ? `pid ${h.pid} on ${h.host}, since ${h.started}` : 'a lock file being written'}): it is ${t.doing}. ${nothing}`,
    `Run the command again when that one has finished. If no payctl is running, ${remove}`,
  );
}

/** Whether the lock file at `path` is held by `h`'s process too (a run's other locks, left by the same crash). */
function sameHolder(path: string, h: LockHolder): boolean {
  try {
    const o = readLock(path, '')?.holder;
    return o !== undefined && o.pid === h.pid && o.host === h.host;
  } catch {
    return false;
  }
}

/**
 * How a lock's holder is waited for (`onWait`): "another payctl (pid 42) that is sending batch
 * "x"", or, when its pid could not be checked to be that payctl, the pid as what holds the lock.
 */
export function waitingFor(h: LockHolder | undefined, doing: string): string {
  if (h?.unchecked)
    return `Waiting for pid ${h.pid} on ${h.host}, which holds the lock (payctl could not check that it is a payctl: ${h.unchecked}); a payctl there would be ${doing}…`;
  return `Waiting for another payctl${h ? ` (pid ${h.pid})` : ''} that is ${doing}…`;
}

function interrupted(t: LockTarget, nothing: string): InterruptedError {
  return new InterruptedError(`Interrupted while waiting for the lock of ${t.what[0]!.toLowerCase()}${t.what.slice(1)}. ${nothing}`);
}

/** Creates the lock file exclusively with its contents; false when it exists. */
function createExclusive(path: string, content: string, nothing: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannotMake(path, err, nothing);
  }
  try {
    writeSync(fd, content);
  } catch (err) {
    // A full disk: the lock file made but left empty would read as one being written, and make
    // the next run wait for it. It is taken away; the run says why it stopped.
    closeSync(fd);
    unlinkQuietly(path);
    throw cannotMake(path, err, nothing);
  }
  closeSync(fd);
  return true;
}

/** The lock file not made: a full disk said as such; else its folder named with the real cause and what would help (folder-fault.ts). */
function cannotMake(path: string, err: unknown, nothing: string): ConfigError {
  if (diskFull(err))
    return new ConfigError(`Cannot make the lock file ${path}: ${fsFault(err)}. ${nothing}`, 'Free some space on that disk and run the same command again.');
  return folderFault(dirname(path), err, `make the lock file ${path}`, `. ${nothing}`);
}

interface SeenLock {
  /** Undefined when the contents cannot be read as a holder (being written, or damaged). */
  holder: (LockHolder & { nonce?: string }) | undefined;
  ino: number;
  mtimeMs: number;
}

/** The lock file as it is now; undefined when there is none. Never follows a symlink, never blocks (a named pipe there hung every command that locks). */
function readLock(path: string, nothing: string): SeenLock | undefined {
  let f: OpenedFile | undefined;
  try {
    f = openRegular(path);
  } catch (err) {
    throw new ConfigError(
      `Cannot read the lock file ${path}: ${err instanceof RefusedFile ? `it ${err.why}` : (err as Error).message}. ${nothing}`,
      // A folder there is not removed by rm: its contents are the person's to look at first.
      err instanceof RefusedFile && err.why.startsWith('is a folder')
        ? 'payctl never makes one; move it away.'
        : `payctl never makes one; remove it: rm ${shellQuote(path)}`,
    );
  }
  if (!f) return undefined;
  try {
    const buf = Buffer.alloc(MAX_LOCK_BYTES);
    const n = readSync(f.fd, buf, 0, MAX_LOCK_BYTES, 0);
    return { holder: parseHolder(buf.subarray(0, n).toString('utf8')), ino: f.st.ino, mtimeMs: f.st.mtimeMs };
  } finally {
    closeSync(f.fd);
  }
}

function parseHolder(text: string): (LockHolder & { nonce?: string }) | undefined {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    // pid 0: a holder that could not tell its pid (a store opened without the process: tests).
    if (!Number.isSafeInteger(v.pid) || (v.pid as number) < 0 || typeof v.host !== 'string' || typeof v.started !== 'string') return undefined;
    const pidStart = Number.isSafeInteger(v.pidStart) ? (v.pidStart as number) : undefined;
    return {
      pid: v.pid as number,
      host: v.host,
      started: v.started,
      nonce: typeof v.nonce === 'string' ? v.nonce : undefined,
      ...(pidStart !== undefined ? { pidStart } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether a lock's holder is surely gone: on this host, its pid is not running or is a zombie,
 * or the process of that pid is another now (pids are reused: it started at another time than
 * the lock says, or after the lock was taken), or the lock was taken before the machine last
 * booted. 'running': its process is the one that took it (or this process, or one that did not
 * say its pid). Otherwise why payctl cannot tell: a holder on another host (a config folder
 * shared over the network), or a system that does not show when a process started. Both are
 * waited for. Contents not readable for longer than a holder takes to write them: left over.
 */
function judge(seen: SeenLock, host: LockHost): 'gone' | 'running' | { unchecked: string } {
  const h = seen.holder;
  if (!h) return Date.now() - seen.mtimeMs > UNWRITTEN_GRACE_MS ? 'gone' : 'running';
  if (h.host !== hostname()) return { unchecked: `it runs on ${h.host}, not on this machine` };
  const bootedAt = Date.now() - uptime() * 1000;
  if (Date.parse(h.started) < bootedAt - CLOCK_SLACK_MS) return 'gone';
  if (h.pid === host.pid || h.pid === 0) return 'running'; // this process, or one that did not say: never judged gone
  try {
    host.kill(h.pid, 0);
  } catch (err) {
    // EPERM: it exists (another user's process); only ESRCH says it is gone.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return 'gone';
  }
  const stat = procStat(h.pid);
  if (!stat) return { unchecked: 'this system does not show when a process started' };
  if (stat.state === 'Z' || stat.state === 'X') return 'gone';
  if (h.pidStart !== undefined) return stat.startTicks === h.pidStart ? 'running' : 'gone';
  // A lock of a payctl that did not write when its process started: one started after the lock was taken is another.
  return bootedAt + stat.startTicks * TICK_MS > Date.parse(h.started) + CLOCK_SLACK_MS ? 'gone' : 'running';
}

/**
 * Removes a stale lock, holding its `.break` guard (made exclusively): the lock is read again
 * under the guard and removed only if it is the same file and still stale. Another process
 * breaking it at the same time finds the guard taken and simply tries again. A guard left by a
 * process that died in the microseconds it holds one is removed when its holder is gone.
 */
function breakStale(path: string, host: LockHost, nothing: string): void {
  const guard = `${path}.break`;
  if (!createExclusive(guard, holderText(host), nothing)) {
    const g = readLock(guard, nothing);
    if (g && judge(g, host) === 'gone') unlinkQuietly(guard);
    return;
  }
  try {
    const again = readLock(path, nothing);
    if (!again || judge(again, host) !== 'gone') return;
    // The same file as just read (not one made since): nobody but a guard holder removes a lock.
    if (lstatSync(path, { throwIfNoEntry: false })?.ino === again.ino) unlinkQuietly(path);
  } finally {
    unlinkQuietly(guard);
  }
}

/** Removes our own lock: only if the file still holds our nonce (it was never taken over). */
function release(path: string, nonce: string): void {
  try {
    const seen = readLock(path, '');
    if (seen?.holder?.nonce === nonce) unlinkQuietly(path);
  } catch {
    // A lock we cannot read is not removed: at worst it is left for the stale check.
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}
