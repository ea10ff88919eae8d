/**
 * The wallets' locks of a PostgreSQL ledger (Ledger.withWalletLocks, wallet-lock.ts): what makes
 * a policy's limits hold across every machine sharing the ledger; and the batches' locks
 * (Ledger.withBatchLock, batch-lock.ts), made the same way, held for a batch run's length. One
 * session-level advisory lock per wallet (its key: 64 bits of the SHA-256 of the wallet id), taken in the keys' order
 * (two runs locking the same wallets cannot deadlock) on one connection of the pool held for the
 * whole step, and released in `finally`; the server also releases them when that connection
 * ends (a payctl killed, a machine gone), so there is never a stale lock to break. That
 * connection ending while the step goes on (the server restarted, an administrator's
 * pg_terminate_backend, a network cut) loses the locks: `opts.onLost` is told why (a batch run
 * then takes no new rows), and the step is never ended by the client's error. A lock held
 * by another is asked for again with a short backoff (pg_try_advisory_lock) until `waitMs`;
 * Ctrl-C stops the wait. Within one process the steps take turns first (LockTurns): a step
 * waiting for a lock would otherwise hold a pooled connection the holder's step needs.
 */
import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { InterruptedError, LocalError, LockHeldError } from '../../../errors.js';
import { sleep } from '../../../clock.js';
import { WALLET_LOCK, type LockLabel, type WalletLockOptions } from '../../wallet-lock.js';
import { hearErrors } from './connect.js';
import { BATCH_LOCK, runLockNames, type LockedRun } from '../../batch-lock.js';
import { RESOLVE_LOCK } from '../../resolve-lock.js';

const DEFAULT_WAIT_MS = 30_000;

/** The advisory lock key of a wallet: the first 64 bits of SHA-256("payctl wallet\n" + id), signed, as text. */
export function walletLockKey(walletId: string): string {
  return lockKey(`payctl wallet\n${walletId}`);
}

/** The advisory lock key of a batch (batch-lock.ts batchLockName): as a wallet's, of "payctl batch\n" + its name. */
export function batchLockKey(name: string): string {
  return lockKey(`payctl batch\n${name}`);
}

/** The advisory lock key of a resolution (resolve-lock.ts resolveLockIds): as a wallet's, of "payctl resolve\n" + its id. */
export const RESOLVE_LOCKS: LockKind = { ...RESOLVE_LOCK, key: (id) => lockKey(`payctl resolve\n${id}`) };

function lockKey(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest().readBigInt64BE(0).toString();
}

/** A kind of lock: what it guards, as messages say it, and the advisory lock key of a locked thing's id. */
export interface LockKind extends LockLabel {
  key(id: string): string;
  /** Held for a long step (a batch run): its connection is kept from sitting idle (keepAwake). */
  long?: boolean;
}

const WALLET_LOCKS: LockKind = { ...WALLET_LOCK, key: walletLockKey };

/** Says what went wrong with the ledger in a message of payctl's (the URL masked). */
export type Fault = (err: unknown, after: string) => Error;

/**
 * Runs `fn` holding the advisory locks of every wallet in `walletIds` (duplicates once), then
 * releases them, whatever `fn` does. Throws LocalError (exit 1) when a lock stays held past
 * `waitMs`, InterruptedError on Ctrl-C, the ledger's fault when the database cannot be reached;
 * nothing of `fn` ran then.
 */
export async function withAdvisoryLocks<T>(
  pool: Pool,
  turns: LockTurns,
  ids: string[],
  fn: () => Promise<T>,
  opts: WalletLockOptions,
  fault: Fault,
  kind: LockKind = WALLET_LOCKS,
): Promise<T> {
  const locks = [...new Map(ids.map((id) => [kind.key(id), id])).entries()].sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1));
  if (!locks.length) return fn();
  if (opts.signal?.aborted) throw interrupted(kind, locks[0]![1]);
  const deadline = Date.now() + (opts.waitMs ?? DEFAULT_WAIT_MS);
  // Told once, whether the wait is for this process's turn or for another machine.
  let told = false;
  const o: WalletLockOptions = {
    ...opts,
    onWait: (walletId, holder) => {
      if (!told) opts.onWait?.(walletId, holder);
      told = true;
    },
  };
  const done = await turns.take(kind, locks[0]![1], deadline, o);
  try {
    return await holding(pool, locks, deadline, fn, o, fault, kind);
  } finally {
    done();
  }
}

/** `fn` run holding the advisory locks `locks` (sorted), on one connection of the pool. */
async function holding<T>(
  pool: Pool,
  locks: Array<[string, string]>,
  deadline: number,
  fn: () => Promise<T>,
  opts: WalletLockOptions,
  fault: Fault,
  kind: LockKind,
): Promise<T> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw fault(err, 'Nothing was sent.');
  }
  let held = false;
  let broken: Error | undefined;
  // The connection ending while `fn` runs: the locks are gone with it.
  const heard = hearErrors(client, (err) => {
    broken = err;
    opts.onLost?.(err);
  });
  try {
    for (const [key, id] of locks) {
      held = true; // from the first attempt on: unlocking after a failure is harmless
      await acquire(client, key, id, deadline, opts, fault, kind);
    }
    const awake = kind.long ? await keepAwake(client) : undefined;
    try {
      return await fn();
    } finally {
      if (awake) clearInterval(awake);
    }
  } finally {
    if (held) {
      try {
        await client.query('SELECT pg_advisory_unlock_all()');
      } catch (err) {
        // The connection is gone, and its locks with it: it is not given back to the pool.
        broken ??= err as Error;
      }
    }
    heard();
    client.release(broken);
  }
}

/**
 * A server that ends sessions idle for idle_session_timeout (PostgreSQL 14 and later; a
 * database's or a role's setting) would end a long step's connection, its lock with it: a query
 * at half that time keeps it busy. Nothing when the server sets no such time.
 */
async function keepAwake(client: PoolClient): Promise<NodeJS.Timeout | undefined> {
  let ms: number;
  try {
    const { rows } = await client.query<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = 'idle_session_timeout'");
    ms = Number(rows[0]?.setting ?? 0);
  } catch {
    return undefined; // said by the step's next query, if the connection is gone
  }
  if (!(ms > 0)) return undefined;
  const timer = setInterval(() => void client.query('SELECT 1').catch(() => {}), Math.max(ms / 2, 100));
  timer.unref();
  return timer;
}

async function acquire(client: PoolClient, key: string, id: string, deadline: number, opts: WalletLockOptions, fault: Fault, kind: LockKind): Promise<void> {
  const waitedFrom = Date.now();
  let delay = 5;
  for (;;) {
    if (opts.signal?.aborted) throw interrupted(kind, id);
    let got: boolean;
    try {
      got = (await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS got', [key])).rows[0]!.got;
    } catch (err) {
      throw fault(err, 'Nothing was sent.');
    }
    if (got) return;
    const now = Date.now();
    if (now >= deadline) {
      throw heldTooLong(kind, id, await holderOf(client, key));
    }
    if (now - waitedFrom >= 1000) opts.onWait?.(id, undefined);
    // A short backoff with jitter: holders keep a wallet's lock for milliseconds (a count and the claims).
    await sleep(Math.min(deadline - now, delay + Math.random() * delay), opts.signal, () => interrupted(kind, id));
    delay = Math.min(delay * 2, 100);
  }
}

/**
 * The turns of one ledger's steps that lock wallets, first come first served: one at a time
 * holds (or waits for) the database's locks. A step's wait for its turn counts in its `waitMs`
 * and stops on Ctrl-C.
 */
export class LockTurns {
  #last: Promise<void> = Promise.resolve();

  /** Resolves when it is this step's turn, with what ends it; throws as a lock held too long would. */
  async take(kind: LockKind, id: string, deadline: number, opts: WalletLockOptions): Promise<() => void> {
    const before = this.#last;
    let end!: () => void;
    const mine = new Promise<void>((resolve) => (end = resolve));
    this.#last = before.then(() => mine);
    let timer: NodeJS.Timeout | undefined;
    let told: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await Promise.race([
        before,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(heldTooLong(kind, id, 'another step of this payctl')), Math.max(deadline - Date.now(), 0));
          told = setTimeout(() => opts.onWait?.(id, undefined), 1000);
          onAbort = () => reject(interrupted(kind, id));
          opts.signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } catch (err) {
      end(); // the steps after this one wait for the one before it only
      throw err;
    } finally {
      clearTimeout(timer);
      clearTimeout(told);
      if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
    }
    return end;
  }
}

function heldTooLong(kind: LockKind, id: string, holder: string | undefined): LocalError {
  return new LockHeldError(
    `${kind.what(id)} is locked by another payctl${holder ? ` (${holder})` : ''}: it is ${kind.doing}. Nothing was sent.`,
    'Run the command again when that one has finished. A lock of a payctl that is gone is released by the database when its connection ends.',
  );
}

/** Who holds a wallet's lock, as the server knows it: where it connected from and since when; undefined when it cannot say. */
async function holderOf(client: PoolClient, key: string): Promise<string | undefined> {
  const k = BigInt.asUintN(64, BigInt(key));
  try {
    const { rows } = await client.query<{ addr: string | null; since: Date | null }>(
      `SELECT a.client_addr::text AS addr, a.backend_start AS since FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid`,
      [(k >> 32n).toString(), (k & 0xffffffffn).toString()],
    );
    const r = rows[0];
    if (!r) return undefined;
    return [r.addr ? `connected from ${r.addr}` : 'connected through a local socket', r.since ? `since ${r.since.toISOString()}` : ''].filter(Boolean).join(', ');
  } catch {
    return undefined;
  }
}

function interrupted(kind: LockKind, id: string): InterruptedError {
  const what = kind.what(id);
  return new InterruptedError(`Interrupted while waiting for the lock of ${what[0]!.toLowerCase()}${what.slice(1)}. Nothing was sent.`);
}

/**
 * A batch run's advisory locks (its batch's, and its rows'), each said as the batch it is of,
 * on a connection of its own for the run's length; `fault` words a database failure (what was
 * being done, and after what).
 */
export function withBatchLocks<T>(
  pool: Pool,
  turns: LockTurns,
  run: LockedRun,
  fn: () => Promise<T>,
  opts: WalletLockOptions,
  fault: (err: unknown, doing: string, after: string) => Error,
): Promise<T> {
  const kind = { ...BATCH_LOCK, what: () => BATCH_LOCK.what(run.id), key: (name: string) => batchLockKey(name), long: true };
  const onLost = opts.onLost && ((err: Error) => opts.onLost!(fault(err, "hold a batch's lock in", '')));
  const onWait = opts.onWait && ((_name: string, holder: Parameters<NonNullable<WalletLockOptions['onWait']>>[1]) => opts.onWait!(run.id, holder));
  return withAdvisoryLocks(
    pool,
    turns,
    runLockNames(run),
    fn,
    { ...opts, onLost, ...(onWait ? { onWait } : {}) },
    (err, after) => fault(err, 'lock a batch in', after),
    kind,
  );
}
