/**
 * An exclusive lock per wallet, across the payctl processes of one machine: what makes a
 * policy's limits hold under races. Checking `daily_total` (and the same-day sums of the
 * approval tiers) and journaling the payouts that check let through happen while the
 * wallets' locks are held, so two payctl runs never both count the journal before either
 * has added to it. Sending happens after: the journaled claim already counts. `plan send`
 * checks under them, whatever the policy, that no payout of its plan pays what another paid
 * after the plan was made (commands/plan/send.ts refusePaidSince): of two plans paying the
 * same people sent at once, the second sees the first's claims.
 *
 * One lock file per wallet in `<config folder>/locks/`, named by the SHA-256 of the wallet
 * id alone (any id gives a short, safe file name). Not of the base URL too: the journal the
 * limits are counted from is one per config folder, and a base URL written two ways (a
 * trailing slash, the host's case) would give one wallet two locks; locking one wallet id
 * across services costs a few milliseconds of waiting, never a missed count. The lock files
 * themselves (exclusive creation, waits, stale holders) are config/lock-files.ts's.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { waitingFor, withLockFiles, type LockHolder, type LockHost } from '../config/lock-files.js';

export type { LockHolder } from '../config/lock-files.js';
export { waitingFor } from '../config/lock-files.js';

export interface WalletLockOptions {
  /** Ctrl-C: stops the wait (exit 130; nothing was sent). */
  signal?: AbortSignal;
  /** How long to wait for a lock another run holds before giving up (default 30 s). */
  waitMs?: number;
  /** Told once when a lock is still held after about a second: the caller says who it waits for. */
  onWait?: (walletId: string, holder: LockHolder | undefined) => void;
  /** This process and how to ask whether another exists: Deps' host (only the entry touches the process). */
  host: LockHost;
  /**
   * Told, once, when the locks are lost while `fn` runs (a shared ledger's connection ended:
   * postgres/locks.ts), with the error (the shared ledger's withBatchLock words it as a ledger
   * fault); `fn` goes on. Lock files are never lost this way.
   */
  onLost?: (cause: Error) => void;
}

/** The lock folder of a config folder. */
export function lockFolder(configDir: string): string {
  return join(configDir, 'locks');
}

/** The lock file of a wallet: `wallet-<sha256 of the id>.lock`. */
export function walletLockPath(configDir: string, walletId: string): string {
  return join(lockFolder(configDir), `wallet-${createHash('sha256').update(walletId, 'utf8').digest('hex')}.lock`);
}

/**
 * What a kind of lock guards, as its messages say it (lock files here, PostgreSQL's advisory
 * locks in ledger/postgres/locks.ts).
 */
export interface LockLabel {
  /** The locked thing as a sentence starts with it: "Wallet 6643665465", "Batch "nov30"". */
  what(id: string): string;
  /** What its holder does meanwhile. */
  doing: string;
}

export const WALLET_LOCK: LockLabel = {
  what: (id) => `Wallet ${id}`,
  doing: "checking the policy's limits and journaling payouts from this wallet",
};

/**
 * Runs `fn` holding the locks of every wallet in `walletIds` (duplicates once), then releases
 * them, whatever `fn` does (`runLockOptions(deps)` gives the options of a command's run). Throws
 * LocalError (exit 1) naming the holder when a lock stays held past `waitMs`, InterruptedError
 * when `signal` aborts the wait; nothing of `fn` ran then.
 */
export function withWalletLocks<T>(configDir: string, walletIds: string[], fn: () => Promise<T>, opts: WalletLockOptions): Promise<T> {
  return withLockFilesOf(
    configDir,
    WALLET_LOCK,
    walletIds.map((id) => ({ id, path: walletLockPath(configDir, id) })),
    fn,
    opts,
  );
}

/** Runs `fn` holding the lock files `locks` of things labelled by `label` (each by its id), as withWalletLocks. */
export function withLockFilesOf<T>(
  configDir: string,
  label: LockLabel,
  locks: Array<{ id: string; path: string }>,
  fn: () => Promise<T>,
  opts: WalletLockOptions,
): Promise<T> {
  const ids = new Map(locks.map((l) => [l.path, l.id]));
  return withLockFiles(
    lockFolder(configDir),
    locks.map((l) => ({ path: l.path, what: label.what(l.id), doing: label.doing })),
    fn,
    {
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.waitMs !== undefined ? { waitMs: opts.waitMs } : {}),
      ...(opts.onWait ? { onWait: (t, holder) => opts.onWait!(ids.get(t.path)!, holder) } : {}),
      host: opts.host,
      nothing: 'Nothing was sent.',
    },
  );
}

/**
 * Whether a policy counts the day's payouts (a `daily_total`, or approval tiers, which count
 * what a wallet sent the same recipient today): then its check and the journaling of what it
 * lets through are done under the wallets' locks. Without one, `payout batch` locks nothing (no
 * cost), `payout create` only for its repeat guard, and `plan send` for its check of what was
 * paid since the plan was made.
 */
export function policyCountsTheDay(policy: { dailyTotal: ReadonlyMap<string, unknown>; approvals: ReadonlyMap<string, unknown> } | undefined): boolean {
  return !!policy && (policy.dailyTotal.size > 0 || policy.approvals.size > 0);
}

/** The lock options of a command's run: its Ctrl-C, its process, and a line on stderr when it has to wait. */
export function runLockOptions(d: { signal: AbortSignal; host: WalletLockOptions['host']; log: { info(line: string): void } }): WalletLockOptions {
  return {
    signal: d.signal,
    host: d.host,
    onWait: (walletId, h) => d.log.info(waitingFor(h, `checking the policy's limits for wallet ${walletId}`)),
  };
}
