/**
 * One resolution of a payout of unknown outcome at a time (`history reconcile`: its resends,
 * `--resend`, `--made-by`), across the payctl processes of one machine (the local store: lock
 * files in the config folder's locks/) or of every machine sharing a ledger (PostgreSQL: advisory
 * locks). A person given two choices for one payout (`--made-by TXN`, `--resend`) can run both at
 * once from two terminals: each read the entry unknown before the other recorded anything, and
 * the payout was recorded as made by the transaction found and then paid again by the resend.
 * Two `--made-by` naming one transaction for two payouts each saw it owned by none. So a
 * resolution holds the lock of its payout id (and of the transaction it records, for `--made-by`),
 * reads the entry again under it, and records before releasing it: the second sees the first's
 * outcome. A lock per payout id of any base URL, and per transaction id: a base URL written two
 * ways costs a wait, never a miss.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { lockFolder, waitingFor, withLockFilesOf, type LockLabel, type WalletLockOptions } from './wallet-lock.js';

/** What a resolution lock guards, as its messages say it (its ids are "Payout P", "Transaction T"). */
export const RESOLVE_LOCK: LockLabel = {
  what: (id) => id,
  doing: 'resolving the outcome of a payout (history reconcile)',
};

/**
 * How long a resolution waits for a payout another payctl is resolving (its resend may take minutes)
 * before it leaves it, still unknown: a run over every unknown payout (goes on with the others),
 * and `--made-by` (exit 4).
 */
export const BUSY_WAIT_MS = 3_000;

/** The lock ids of resolving `payoutId` (recording it as made by `transactionId`, if given). */
export function resolveLockIds(payoutId: string, transactionId?: string): string[] {
  return [`Payout ${payoutId}`, ...(transactionId !== undefined ? [`Transaction ${transactionId}`] : [])];
}

/** Runs `fn` holding the resolution lock files `ids` (resolveLockIds) of a config folder (the local store's Ledger.withResolveLocks). */
export function withResolveLockFiles<T>(configDir: string, ids: string[], fn: () => Promise<T>, opts: WalletLockOptions): Promise<T> {
  const path = (id: string) => join(lockFolder(configDir), `resolve-${createHash('sha256').update(id, 'utf8').digest('hex')}.lock`);
  return withLockFilesOf(
    configDir,
    RESOLVE_LOCK,
    ids.map((id) => ({ id, path: path(id) })),
    fn,
    opts,
  );
}

/**
 * The lock options of a resolution: its Ctrl-C, its process, and a line on stderr when it has to
 * wait; `busy`: one that leaves a payout another payctl resolves after BUSY_WAIT_MS, not the
 * default 30 s.
 */
export function resolveLockOptions(d: { signal: AbortSignal; host: WalletLockOptions['host']; log: { info(line: string): void } }, busy = false): WalletLockOptions {
  return {
    signal: d.signal,
    host: d.host,
    ...(busy ? { waitMs: BUSY_WAIT_MS } : {}),
    onWait: (id, h) => d.log.info(waitingFor(h, `resolving the outcome of ${id[0]!.toLowerCase()}${id.slice(1)}`)),
  };
}
