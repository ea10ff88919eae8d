/**
 * An exclusive lock per wallet, across the payctl processes of one machine: what makes a
 * policy's limits hold under races. Checking `daily_total` (and the same-day sums of the
 * approval tiers) and journaling the payouts that check let through happen while the
 * wallets' locks are held, so two payctl runs never both count the journal before either
 * has added to it. Sending happens after: the journaled claim already counts.
 *
 * One lock file per wallet in `<config folder>/locks/`, named by the SHA-256 of the wallet
 * id alone (any id gives a short, safe file name). Not of the base URL too: the journal the
 * limits are counted from is one per config folder, and a base URL written two ways (a
 * trailing slash, the host's case) would give one wallet two locks; locking one wallet id
 * across services costs a few milliseconds of waiting, never a missed count.
 *
 * A lock file is created with O_CREAT|O_EXCL|O_NOFOLLOW (0600) and holds the holder's pid,
 * host, start time and a nonce. Locks are taken in the order of their file names (so two
 * runs locking the same wallets cannot deadlock), waited for with a short backoff up to a
 * bound, and released in `finally`. A lock whose holder is gone (its pid dead on this host,
 * or started before this machine booted) is stale and is broken, but only by the process
 * that holds its `.break` guard, which reads the lock again under the guard: the lock cannot
 * change meanwhile (its dead holder will not release it, and only a guard holder removes
 * another's lock), so a fresh lock made by someone else is never removed by mistake.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { hostname, uptime } from 'node:os';
import { join } from 'node:path';
import { checkFolder } from '../config/paths.js';
import { ConfigError, InterruptedError, LocalError } from '../errors.js';

/** Who holds a lock, as its file says. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  started: string;
}

export interface WalletLockOptions {
  /** Ctrl-C: stops the wait (exit 130; nothing was sent). */
  signal?: AbortSignal;
  /** How long to wait for a lock another run holds before giving up (default 30 s). */
  waitMs?: number;
  /** Told once when a lock is still held after about a second: the caller says who it waits for. */
  onWait?: (walletId: string, holder: LockHolder | undefined) => void;
  /** This process and how to ask whether another exists: Deps' host (only the entry touches the process). */
  host: { pid: number; kill(pid: number, signal: 0): void };
}

const DEFAULT_WAIT_MS = 30_000;
/** A lock file without readable contents is being written (they follow its creation at once); older than this, it is left over. */
const UNWRITTEN_GRACE_MS = 5_000;
/** Lock files are tiny: more than this is not one payctl wrote. */
const MAX_LOCK_BYTES = 4096;

/** The lock folder of a config folder. */
export function lockFolder(configDir: string): string {
  return join(configDir, 'locks');
}

/** The lock file of a wallet: `wallet-<sha256 of the id>.lock`. */
export function walletLockPath(configDir: string, walletId: string): string {
  return join(lockFolder(configDir), `wallet-${createHash('sha256').update(walletId, 'utf8').digest('hex')}.lock`);
}

/**
 * Runs `fn` holding the locks of every wallet in `walletIds` (duplicates once), then releases
 * them, whatever `fn` does (`runLockOptions(deps)` gives the options of a command's run). Throws LocalError (exit 1) naming the holder when a lock stays held
 * past `waitMs`, InterruptedError when `signal` aborts the wait; nothing of `fn` ran then.
 */
export async function withWalletLocks<T>(configDir: string, walletIds: string[], fn: () => Promise<T>, opts: WalletLockOptions): Promise<T> {
  const locks = [...new Map(walletIds.map((id) => [walletLockPath(configDir, id), id])).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (locks.length) prepareFolder(lockFolder(configDir));
  const host = opts.host;
  const deadline = Date.now() + (opts.waitMs ?? DEFAULT_WAIT_MS);
  const held: Array<{ path: string; nonce: string }> = [];
  try {
    for (const [path, walletId] of locks) held.push(await acquire(path, walletId, host, deadline, opts));
    return await fn();
  } finally {
    for (const h of held.reverse()) release(h.path, h.nonce);
  }
}

/** The lock folder, made 0700; refused (exit 2) when it is a symlink, another user's or writable by others. */
function prepareFolder(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new ConfigError(`Cannot make the lock folder ${dir}: ${(err as Error).message}. Nothing was sent.`);
  }
  checkFolder(dir, 'lock folder');
}

async function acquire(
  path: string,
  walletId: string,
  host: WalletLockOptions['host'],
  deadline: number,
  opts: WalletLockOptions,
): Promise<{ path: string; nonce: string }> {
  const nonce = randomBytes(8).toString('hex');
  const content = JSON.stringify({ pid: host.pid, host: hostname(), started: new Date().toISOString(), nonce }) + '\n';
  const waitedFrom = Date.now();
  let told = false;
  let delay = 5;
  for (;;) {
    if (opts.signal?.aborted) throw new InterruptedError(`Interrupted while waiting for the lock of wallet ${walletId}. Nothing was sent.`);
    if (createExclusive(path, content)) return { path, nonce };
    const seen = readLock(path);
    if (!seen) continue; // released meanwhile: try again at once
    if (isStale(seen, host)) {
      breakStale(path, host);
      continue;
    }
    const now = Date.now();
    if (now >= deadline) {
      const h = seen.holder;
      throw new LocalError(
        `Wallet ${walletId} is locked by another payctl (${h ? `pid ${h.pid} on ${h.host}, since ${h.started}` : 'a lock file being written'}): it is checking the policy's limits and journaling payouts from this wallet. Nothing was sent.`,
        `Run the command again when that one has finished. If no payctl is running, remove the lock file: ${path}`,
      );
    }
    if (!told && now - waitedFrom >= 1000) {
      told = true;
      opts.onWait?.(walletId, seen.holder);
    }
    // A short backoff with jitter: holders keep a lock for milliseconds (a count and a journal write).
    await sleep(Math.min(deadline - now, delay + Math.random() * delay), opts.signal);
    delay = Math.min(delay * 2, 100);
  }
}

/** Creates the lock file exclusively with its contents; false when it exists. */
function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new ConfigError(`Cannot make the lock file ${path}: ${(err as Error).message}. Nothing was sent.`);
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

interface SeenLock {
  /** Undefined when the contents cannot be read as a holder (being written, or damaged). */
  holder: (LockHolder & { nonce?: string }) | undefined;
  ino: number;
  mtimeMs: number;
}

/** The lock file as it is now; undefined when there is none. Never follows a symlink. */
function readLock(path: string): SeenLock | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ConfigError(
      `Cannot read the lock file ${path}: ${code === 'ELOOP' ? 'it is a symbolic link' : (err as Error).message}. Nothing was sent.`,
      `payctl never makes one; remove it: rm ${path}`,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ConfigError(`The lock file ${path} is not a file. Nothing was sent.`, `payctl never makes one; remove it.`);
    const buf = Buffer.alloc(MAX_LOCK_BYTES);
    const n = readSync(fd, buf, 0, MAX_LOCK_BYTES, 0);
    return { holder: parseHolder(buf.subarray(0, n).toString('utf8')), ino: st.ino, mtimeMs: st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function parseHolder(text: string): (LockHolder & { nonce?: string }) | undefined {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (!Number.isSafeInteger(v.pid) || (v.pid as number) <= 0 || typeof v.host !== 'string' || typeof v.started !== 'string') return undefined;
    return { pid: v.pid as number, host: v.host, started: v.started, nonce: typeof v.nonce === 'string' ? v.nonce : undefined };
  } catch {
    return undefined;
  }
}

/**
 * Whether a lock's holder is surely gone: on this host, its pid is not running, or it was
 * taken before the machine last booted (a pid from before a reboot may belong to anything
 * now). A holder on another host (a config folder shared over the network) is never judged:
 * it is waited for. Contents not readable for longer than a holder takes to write them: left over.
 */
function isStale(seen: SeenLock, host: WalletLockOptions['host']): boolean {
  const h = seen.holder;
  if (!h) return Date.now() - seen.mtimeMs > UNWRITTEN_GRACE_MS;
  if (h.host !== hostname()) return false;
  const bootedAt = Date.now() - uptime() * 1000;
  if (Date.parse(h.started) < bootedAt - 60_000) return true;
  if (h.pid === host.pid) return false; // this process: never its own stale lock
  try {
    host.kill(h.pid, 0);
    return false;
  } catch (err) {
    // EPERM: it exists (another user's process); only ESRCH says it is gone.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes a stale lock, holding its `.break` guard (made exclusively): the lock is read again
 * under the guard and removed only if it is the same file and still stale. Another process
 * breaking it at the same time finds the guard taken and simply tries again. A guard left by a
 * process that died in the microseconds it holds one is removed when its holder is gone.
 */
function breakStale(path: string, host: WalletLockOptions['host']): void {
  const guard = `${path}.break`;
  const content = JSON.stringify({ pid: host.pid, host: hostname(), started: new Date().toISOString() }) + '\n';
  if (!createExclusive(guard, content)) {
    const g = readLock(guard);
    if (g && isStale(g, host)) unlinkQuietly(guard);
    return;
  }
  try {
    const again = readLock(path);
    if (!again || !isStale(again, host)) return;
    // The same file as just read (not one made since): nobody but a guard holder removes a lock.
    if (lstatSync(path, { throwIfNoEntry: false })?.ino === again.ino) unlinkQuietly(path);
  } finally {
    unlinkQuietly(guard);
  }
}

/** Removes our own lock: only if the file still holds our nonce (it was never taken over). */
function release(path: string, nonce: string): void {
  try {
    const seen = readLock(path);
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

/** Waits `ms`, or until `signal` aborts (then throws InterruptedError). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new InterruptedError('Interrupted while waiting for a wallet lock. Nothing was sent.'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new InterruptedError('Interrupted while waiting for a wallet lock. Nothing was sent.'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Whether a policy counts the day's payouts (a `daily_total`, or approval tiers, which count
 * what a wallet sent the same recipient today): then its check and the journaling of what it
 * lets through are done under the wallets' locks. Without one, nothing is locked (no cost).
 */
export function policyCountsTheDay(policy: { dailyTotal: ReadonlyMap<string, unknown>; approvals: ReadonlyMap<string, unknown> } | undefined): boolean {
  return !!policy && (policy.dailyTotal.size > 0 || policy.approvals.size > 0);
}

/** The lock options of a command's run: its Ctrl-C, its process, and a line on stderr when it has to wait. */
export function runLockOptions(d: { signal: AbortSignal; host: WalletLockOptions['host']; log: { info(line: string): void } }): WalletLockOptions {
  return {
    signal: d.signal,
    host: d.host,
    onWait: (walletId, h) => d.log.info(`Waiting for another payctl${h ? ` (pid ${h.pid})` : ''} that is checking the policy's limits for wallet ${walletId}…`),
  };
}
