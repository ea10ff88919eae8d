/**
 * One run of a batch at a time (`payout batch`, `plan send`), across the payctl processes of
 * one machine (the local store: a lock file in the config folder's locks/) or of every machine
 * sharing a ledger (PostgreSQL: an advisory lock). What a run decides is not paid again, it
 * decides from the batch's journaled rows (changed-rows.ts, and the identities of its rows):
 * two runs of one batch from two versions of its file (the original and a copy a spreadsheet
 * re-saved), side by side, would each decide before the other journaled anything, and each pay.
 * So a run holds its batch's lock from its plan (the journal read) to its last row, and a
 * second run waits for it (then plans with the first run's rows journaled), up to
 * `waitMs`, then stops (exit 1, nothing sent). A dry run decides nothing and takes no lock.
 *
 * The lock is of what a run is compared with (changed-rows.ts comparedRun): a named batch, its
 * id as a slip leaves it ("Dec-2026" and "dec_2026" are one lock); the batch `default` of runs
 * not named, one lock per file, and one per set of what the rows pay to whom (batch-source.ts
 * rowsKey): a run not named is compared with the last day's batches from any file too, and the
 * copy of a file, sent at the same time as the original, pays the same set.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { comparedRun } from './changed-rows.js';
import { batchIdSlipKey } from './identity.js';
import type { LockedRun } from './ledger/ledger.js';

export type { LockedRun };
import { lockFolder, waitingFor, withLockFilesOf, type LockLabel, type WalletLockOptions } from './wallet-lock.js';

/** The lock's name: the batch id as a slip leaves it, and for `default` the file. */
export function batchLockName(batchId: string, file: string): string {
  const run = comparedRun(batchId, file);
  return `${batchIdSlipKey(run.id)}\n${run.file ?? ''}`;
}

/** The lock's name of a set of rows (a run not named: batch-source.ts rowsKey). */
export function rowsLockName(rows: string): string {
  return `rows\n${rows}`;
}

/** The lock names of a run: its batch's, and for a run not named its rows'. */
export function runLockNames(run: LockedRun): string[] {
  return [batchLockName(run.id, run.file), ...(run.rows !== undefined && comparedRun(run.id, run.file).file !== undefined ? [rowsLockName(run.rows)] : [])];
}

/** The lock file of a batch in a config folder: `batch-<sha256 of its name>.lock`. */
export function batchLockPath(configDir: string, name: string): string {
  return join(lockFolder(configDir), `batch-${createHash('sha256').update(name, 'utf8').digest('hex')}.lock`);
}

export const BATCH_LOCK: LockLabel = { what: (id) => `Batch "${id}"`, doing: 'sending its rows' };

/** Runs `fn` holding batch `run`'s lock file (the local store's Ledger.withBatchLock). */
export function withBatchLockFile<T>(configDir: string, run: LockedRun, fn: () => Promise<T>, opts: WalletLockOptions): Promise<T> {
  const locks = runLockNames(run).map((name) => ({ id: run.id, path: batchLockPath(configDir, name) }));
  return withLockFilesOf(configDir, BATCH_LOCK, locks, fn, opts);
}

/**
 * A batch run's lock as the run takes it: the options (its Ctrl-C, its process, a line on stderr
 * when it has to wait), and `lost`, aborted with the ledger's error when a shared ledger's lock
 * is lost while the run goes on (its connection ended): the run then takes no new rows
 * (send-rows.ts), since another run of the batch may now plan beside it.
 */
export function batchLock(d: { signal: AbortSignal; host: WalletLockOptions['host']; log: { info(line: string): void } }): {
  options: WalletLockOptions;
  lost: AbortSignal;
} {
  const lost = new AbortController();
  return {
    options: {
      signal: d.signal,
      host: d.host,
      onWait: (batchId, h) => d.log.info(waitingFor(h, `sending batch "${batchId}"`)),
      onLost: (cause) => lost.abort(cause),
    },
    lost: lost.signal,
  };
}
