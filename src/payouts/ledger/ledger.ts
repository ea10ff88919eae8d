/**
 * The ledger (docs/architecture.md, "The ledger"): where payctl keeps what it journals about
 * each payout, behind one interface. A payout id is claimed with its Idempotency-Key and exact
 * body before its request leaves (one writer per payout id: the first claim wins, a later one
 * gets the first one's entry); its outcome is recorded when one arrives; entries are found by
 * payout id, by what they pay (fingerprint), by the repeat guard's key and by transaction id,
 * and listed for `payctl history` and the policy's daily total.
 *
 * The local store (local.ts, the embedded default) keeps it in files of the config folder; a
 * second store (a team's PostgreSQL) implements the same interface. Nothing here names files:
 * an entry's `name` is a handle for `byName`, meaningful only to the ledger that gave it.
 */
import type { WalletLockOptions } from '../wallet-lock.js';
import type { JournalConflict } from './entries.js';
import type { PlanStore, PolicyStore } from './team-stores.js';

export type { PlanStore, PolicyStore, PolicyWrite, StoredPlan, StoredPolicy } from './team-stores.js';

export type Outcome =
  | {
      kind: 'accepted';
      status: number;
      transactionId: string | undefined;
      fee: string | undefined;
      replayed: boolean;
      at: string;
      /** Found by looking the payout up (history reconcile, the 24-hour rule), not by sending it. */
      lookedUp?: true;
      /** The payout's status at the service when it was looked up (Pending, Successful, ...). */
      payoutStatus?: string;
      /** When payoutStatus was read (payouts/settle.ts noteSettled): a later read that contradicts it says when. */
      statusReadAt?: string;
      /**
       * A look-up's (lookedUp): when a request for the payout last left before it, kept from the
       * outcome it replaces (entry-age.ts keepLastSent), so that reading a payout back never moves
       * the 24-hour repeat window back to its first attempt.
       */
      lastSent?: string;
      /**
       * "Already made": the service refused it because the payout id was used before (a 422
       * DUPLICATE_PAYOUT_ID), so a payout with this id exists, made by an earlier attempt under
       * another key (a lost journal, an earlier payctl). Kept as accepted so that everything that
       * must not send it again, and daily_total, treats it as paid; no transaction id is known.
       */
      alreadyMade?: { code: string; message: string };
    }
  | { kind: 'rejected'; status: number; code: string | undefined; message: string; at: string }
  | {
      kind: 'unknown';
      reason: string;
      at: string;
      /**
       * Its payout may have been made at any time before it was journaled (its payout id was used
       * before: used-before.ts): searches of the payout list for it, and `--made-by`, take records of any time.
       */
      anyTime?: true;
    }
  /** Looked up after an unknown outcome: the service has no payout with this id (404 NOT_FOUND). */
  | { kind: 'not-made'; at: string };

export interface JournalEntry {
  /** 2: with an HMAC (`mac` when stored). 1: written by payctl 0.1, adopted when the key was made. */
  version: 1 | 2;
  payoutId: string;
  baseUrl: string;
  idempotencyKey: string;
  /** The exact request body, byte for byte. */
  body: string;
  /**
   * When it was journaled: just before its first attempt left, by the ledger's clock (Ledger.now):
   * the run's for the local store, the database's for a shared one (the claim's transaction
   * time, never the machine's). An entry imported into a shared ledger keeps the time it had.
   */
  createdAt: string;
  /**
   * The profile of the run that journaled it. Absent in entries written before payctl
   * recorded it (they still verify: the HMAC covers the fields an entry has).
   */
  profile?: string;
  /**
   * 'env': the run's API key came from PAYCTL_API_KEY, not the profile's saved key, so the
   * profile does not tell whose account sent it (no part of the key is kept): its sender is not
   * known (sender-profile.ts). Absent: the profile's key, or journaled before payctl recorded it.
   */
  keyFrom?: 'env';
  /**
   * The id of the API key that sent it (config/key-id.ts keyIdOf: a hash, no part of the key),
   * from the profile or PAYCTL_API_KEY: a run whose key has another id did not send it
   * (sender-profile.ts). Absent in entries journaled before payctl recorded it.
   */
  keyId?: string;
  /** The batch run that sent it: its id, the file (absolute path) and the row, and how it was run. */
  batch?: EntryBatch;
  /** What it pays, without its id (identity.ts): finds the same payout under other ids. */
  fingerprint?: string;
  /** Same wallet, account, amount and currency (identity.ts): finds a payout typed twice. */
  repeatKey?: string;
  /** The repeat key, an all-digit account's leading zeros dropped (identity.ts zeroKey); absent before 29 November (sent-body.ts entryZeroKey). */
  zeroKey?: string;
  outcome?: Outcome;
}

/** Entries this ledger recorded that are gone (Ledger.journalGaps). */
export interface JournalGaps {
  /** How many entries the ledger's own record names that it no longer holds. */
  missing: number;
  /** How many entries that record names in all. */
  recorded: number;
  /** The payout ids of the first missing ones (at most 10). */
  payoutIds: string[];
  /** Lines of that record that did not verify (planted, damaged, or signed with another key): passed over. */
  unverified: number;
  /** Why the record was not read, or not to its end (a file that is not one payctl writes): said as a warning. */
  unread?: string;
  /**
   * The journal was lost whole, its record with it (a config folder whose journal key remains
   * while its index and every entry are gone): entries of unknown number, of any base URL.
   * With `unacknowledged: 'total'`, only until acknowledged for the daily total.
   */
  journalLost?: boolean;
}

/** What a new entry may say about where it came from (indexed for look-ups by content). */
export interface EntryOrigin {
  batch?: EntryBatch;
  fingerprint?: string;
  repeatKey?: string;
  zeroKey?: string;
}

/** The options a batch was run with that its resume must repeat, when they were not the defaults. */
export interface RunOptions {
  /** The report's absolute path, when it was not the one beside the file (--report, or moved off another run's). */
  report?: string;
  /** --concurrency. */
  concurrency?: number;
}

/** A batch row's run, as its entry keeps it: the batch id, the file (absolute path), the row and the run's options. */
export type EntryBatch = { id: string; file: string; row: number } & RunOptions;

/**
 * A batch run as entries name it: its batch id and the file (absolute path) it was sent from.
 * As a look-up (findInBatch), `file` left out means every file the batch was sent from.
 */
export interface BatchRun {
  id: string;
  file?: string;
}

/** A batch run as it is locked: its id and file, and for a run without --batch-id what its rows pay (batch-lock.ts). */
export type LockedRun = Required<BatchRun> & { rows?: string | undefined };

/** Whether `e` is a row of `run` (of any of its files when the run names none). */
export function inRun(e: JournalEntry, run: BatchRun): boolean {
  return e.batch?.id === run.id && (run.file === undefined || e.batch.file === run.file);
}

/** Repeat keys a batch's rows will be looked up by (findInBatch; and findRecentBatchRows since `recentSince`). */
export interface InBatchLookups {
  batch: BatchRun;
  repeatKeys: string[];
  recentSince?: Date;
  /** Zero keys (identity.ts zeroKey) of batch rows since `recentSince` (findRecentBatchRows by zero key). */
  zeroKeys?: string[];
}

/** Whether `e` is a row of a batch run journaled at or after `since` (Ledger.findRecentBatchRows). */
export function batchRowSince(e: JournalEntry, since: Date): boolean {
  return e.batch !== undefined && Date.parse(e.createdAt) >= since.getTime();
}

/** The look-up keys an entry may carry besides its payout id (by `zero` key: those whose sent-body.ts entryZeroKey it is). */
export type LookupKind = 'fingerprint' | 'repeat' | 'zero';

/** One entry of a listing (`scan`), or why it could not be read; `name` reads it again (`byName`). */
export type ScanItem = { name: string; entry: JournalEntry } | { name: string; error: Error };

/** What `begin` claims. */
export interface BeginOptions {
  baseUrl: string;
  payoutId: string;
  body: string;
  idempotencyKey?: string;
  /**
   * The run's clock now: the local store dates a new entry with it. A shared store dates it by
   * its database's clock instead (the claim's transaction time), so that no machine's clock
   * decides which day or 24 hours a payout counts in.
   */
  now: Date;
  origin?: EntryOrigin;
  /** The profile of the run, shown by `payctl history`. */
  profile?: string;
  /** 'env' when the run's API key came from PAYCTL_API_KEY (JournalEntry.keyFrom; sender-profile.ts keyFromOf). */
  keyFrom?: 'env';
  /** The id of the run's API key (JournalEntry.keyId). */
  keyId?: string;
  /**
   * One of many rows claimed together (a batch run): the ledger may commit it with the claims
   * of the same moment (group commit), and `closeLog` ends the run's group.
   */
  log?: boolean;
  /**
   * A payout whose id was made up for this one request (a plain `payout create`): a random key.
   * Otherwise, without `idempotencyKey`, the key is derived from the base URL, the payout id
   * and the body (identity.ts derivedIdempotencyKey), the same wherever it is journaled.
   */
  randomKey?: boolean;
  /**
   * The caller looked this payout id up a moment ago and found no entry: not looked up
   * again. (One made since by another process is still found: the claim fails, and that
   * entry is the one sent.)
   */
  absent?: boolean;
}

/**
 * Where journal entries are kept. Base URLs are compared as `journalBase` normalizes them
 * (base-url.ts). Reads are asynchronous (a store may be across the network); only `conflict`,
 * a comparison, is not. An entry that does not verify rejects with a ConfigError where one is
 * asked for, and comes as an error in a listing.
 */
export interface Ledger {
  /**
   * Where its entries were sent from, as messages say it: "from this config folder" (the local
   * store: its journal is one config folder's, PAYCTL_CONFIG_DIR, not the machine's), "through the
   * team's shared ledger" (PostgreSQL), as in "already sent today from this config folder".
   */
  readonly sentFrom: string;
  /** The ledger as messages name it: "this config folder's journal", "the team's shared ledger". */
  readonly called: string;
  /** The local store's config folder, named where a message counts from it (the daily total); none for a shared ledger. */
  readonly folder?: string;
  /**
   * The entry to send: the journaled one when this payout id was seen before (its key and
   * body reused), else a new one, durable before this resolves, dated by the ledger's clock
   * (BeginOptions.now) and told by `claimedNow` (entries.ts). Throws `JournalConflict` when
   * the same payout id was journaled with other details or another key.
   */
  begin(opts: BeginOptions): Promise<JournalEntry>;
  /**
   * Records an outcome; returns the entry as it now stands. An accepted outcome already
   * recorded (another payctl sending the same payout under the same key) is never replaced
   * by a weaker one.
   */
  record(entry: JournalEntry, outcome: Outcome): Promise<JournalEntry>;
  /**
   * A hint before many look-ups (a batch's plan, a group of rows at a time): these payout ids,
   * fingerprints, repeat keys within a batch run (and of any batch since a time), and
   * `repeatKeys` and `zeroKeys` of any entry (repeats.ts samePayoutsSent, recentRepeats), under
   * this base URL may be asked for next (get, find, findInBatch, findRecentBatchRows). A store on a server answers them in one
   * round trip and keeps the answers until its next write; the local store, whose look-ups are
   * files, has none.
   */
  prefetch?(baseUrl: string, payoutIds: string[], fingerprints: string[], inBatch?: InBatchLookups, repeatKeys?: string[], zeroKeys?: string[]): Promise<void>;
  /**
   * The local store's form of that hint, for a batch's plan (batch-lookahead.ts): these
   * fingerprints, repeat keys and zero keys under this base URL may be asked next. It lists its look-up
   * markers once, not a file look-up per key, and answers the keys it found no marker of without
   * asking again, until its next write (markers.ts expect).
   */
  expectLookups?(baseUrl: string, fingerprints: readonly string[], repeatKeys: readonly string[], zeroKeys?: readonly string[]): void;
  /** The entry of this payout id under this base URL, if any. */
  get(baseUrl: string, payoutId: string): Promise<JournalEntry | undefined>;
  /** Entries of this base URL with the given fingerprint, repeat key or zero key, oldest first. */
  find(baseUrl: string, kind: LookupKind, key: string): Promise<JournalEntry[]>;
  /**
   * Entries of this base URL with this repeat key journaled as rows of `batch` (its id, and the
   * file it was sent from when it names one), oldest first: a resumed file's rows that are
   * payouts the batch sent before, changed since (changed-rows.ts). Cheap when the batch was
   * never sent (from that file).
   */
  findInBatch(baseUrl: string, repeatKey: string, batch: BatchRun): Promise<JournalEntry[]>;
  /**
   * Every entry of this base URL journaled as a row of `batch` (as findInBatch), oldest first: a
   * resumed file's row whose amount changed since is found by the account its batch paid
   * (changed-rows.ts). Read once a run, and only for a batch that was sent (from that file).
   */
  batchRows(baseUrl: string, batch: BatchRun): Promise<JournalEntry[]>;
  /**
   * Entries of this base URL with this repeat key (`kind` zero: zero key) journaled as rows of
   * any batch run at or after `since`, oldest first: a run without --batch-id compared with every
   * batch of the last day (changed-rows.ts). Cheap when no batch was sent since.
   */
  findRecentBatchRows(baseUrl: string, key: string, since: Date, kind?: 'repeat' | 'zero'): Promise<JournalEntry[]>;
  /**
   * Entries of this base URL with any of these repeat keys or zero keys journaled as rows of a batch run
   * other than `except` at or after `since`: a run without --batch-id looking, once a group of
   * its rows is journaled and before any is sent, for other runs paying them meanwhile
   * (paid-meanwhile.ts checkMeanwhile). Read fresh, never from a look-ahead, so that it sees every
   * row another run journaled before it was asked.
   */
  otherBatchRowsSince(baseUrl: string, repeatKeys: string[], since: Date, except: BatchRun, zeroKeys?: string[]): Promise<JournalEntry[]>;
  /**
   * Whether batch `id` sent any row under this base URL (the local store may also answer yes
   * for a batch of another base URL): a batch id payctl prints for paying a file again must be
   * one never sent, or its run would be compared with that batch's rows (changed-rows.ts).
   */
  batchSent(baseUrl: string, id: string): Promise<boolean>;
  /** The entry of this base URL whose accepted outcome has this transaction id. */
  byTransactionId(baseUrl: string, transactionId: string): Promise<JournalEntry | undefined>;
  /**
   * The payout id that transaction `transactionId` was recorded for under this base URL, if
   * any (read once per process, kept up to date by `record` from the moment it is called): for
   * answers that resolve an unknown outcome, a transaction id already given to another payout
   * is not this one's.
   */
  transactionOwner(baseUrl: string, transactionId: string): Promise<string | undefined>;
  /**
   * Every entry, one at a time, in no particular order (for history, reconcile and the
   * policy's daily total; `for await`): a listing of many entries never holds them all.
   * `only.transactionId`: as scanSince's, of any base URL (lookup-elsewhere.ts).
   */
  scan(only?: { transactionId?: string }): AsyncGenerator<ScanItem>;
  /**
   * The entries of this base URL journaled at or after `since`, as `scan` lists them (the policy's
   * daily total): without reading the older ones where the store can. It may list others too
   * (older ones, other base URLs): the caller checks each. `only.transactionId`: only entries
   * accepted with that transaction id are wanted (send-result.ts recentOwner), and the store may
   * leave any other out, unread and unverified (a day's entries are many).
   */
  scanSince(baseUrl: string, since: Date, only?: { transactionId?: string }): AsyncGenerator<ScanItem>;
  /** One entry by the name a listing gave it; undefined when it is gone since. */
  byName(name: string): Promise<JournalEntry | undefined>;
  /** Why `body` (and `idempotencyKey`, if given) cannot be sent under an existing entry; undefined when it can. */
  conflict(existing: JournalEntry, body: string, idempotencyKey?: string): JournalConflict | undefined;
  /**
   * Entries this ledger recorded that are gone (deleted, restored from an older backup); undefined
   * when none is. With `baseUrl`, only entries filed under that base URL count as missing; with
   * `unacknowledged`, not those acknowledged for that purpose by `acknowledgeGaps`.
   */
  journalGaps(baseUrl?: string, opts?: { unacknowledged?: 'repeat' | 'total' }): Promise<JournalGaps | undefined>;
  /**
   * Records that the entries of `baseUrl` missing now are known to be gone, for one purpose:
   * `repeat` (a payout sent with --allow-repeat after the repeat guard named them: the guard no
   * longer refuses for them) or `total` (a run with --acknowledge-missing: a policy's daily total
   * goes on without what they paid). Returns how many. Only a store that can lose entries has it.
   */
  acknowledgeGaps?(baseUrl: string, kind: 'repeat' | 'total'): Promise<number>;
  /** At the end of a batch run: the group of `begin({ log: true })` claims closed, after every write. */
  closeLog(): Promise<void>;
  /**
   * Runs `fn` holding the lock of every wallet in `walletIds` (duplicates once), then releases
   * them, whatever `fn` does: what makes a policy's limits hold under races. Every payctl that
   * counts its daily totals from this ledger is excluded meanwhile: of one machine for the local
   * store (lock files in its config folder), of every machine sharing it for a shared one.
   * Locks are taken in one order (no deadlock), waited for up to `opts.waitMs` (then LocalError,
   * exit 1), and Ctrl-C (`opts.signal`) stops the wait (InterruptedError); nothing of `fn` ran
   * then. `opts.onWait` is told once when a lock is still held after about a second.
   */
  withWalletLocks<T>(walletIds: string[], fn: () => Promise<T>, opts: WalletLockOptions): Promise<T>;
  /**
   * Runs `fn` holding the lock of batch `run` (its id, and the file it is sent from), then
   * releases it, whatever `fn` does: one run of a batch at a time, so that each plans with the
   * rows the one before journaled (batch-lock.ts). Of one machine for the local store, of every
   * machine sharing it for a shared one. Waited for, stopped and said as withWalletLocks. With
   * `rows` (a run without --batch-id: what its rows pay, batch-source.ts rowsKey), that set's
   * lock too.
   */
  withBatchLock<T>(run: LockedRun, fn: () => Promise<T>, opts: WalletLockOptions): Promise<T>;
  /**
   * Runs `fn` holding the resolution locks `ids` (resolve-lock.ts resolveLockIds: a payout id,
   * and a transaction id recorded for it), then releases them, whatever `fn` does: one
   * resolution of a payout of unknown outcome at a time. Of one machine for the local store, of
   * every machine sharing it for a shared one. Waited for, stopped and said as withWalletLocks.
   */
  withResolveLocks<T>(ids: string[], fn: () => Promise<T>, opts: WalletLockOptions): Promise<T>;
  /**
   * The ledger's clock: the one its entries are dated by, and so the day a daily total counts and
   * the start of a 24-hour window. This machine's for the local store; the database's (`now()`)
   * for a shared one, so that machines whose clocks differ date and count one day.
   */
  now(): Promise<Date>;
  /**
   * How far the ledger's clock is ahead of the run's (ms; negative: behind), as last measured:
   * 0 for the local store, whose clock is the run's; a shared store measures it when it is
   * opened and each time it reads its database's clock. What compares an entry's time with the
   * present where asking `now()` each time would cost a round trip (the 24-hour rule of every
   * payout sent) reads the run's clock moved by it: `ledgerNow`.
   */
  clockSkew(): number;
  /**
   * The plans kept in this ledger, found by hash from any machine sharing it (`plan create`,
   * `plan show|approve|send <hash>`): a shared ledger's; absent for the local store.
   */
  readonly plans?: PlanStore;
  /**
   * The team's spending policy kept in this ledger, its versions and the proposals to change it
   * (`payctl policy propose|approve|show`; plans/team-policy.ts judges them): a shared ledger's;
   * absent for the local store.
   */
  readonly policies?: PolicyStore;
  /** Ends what the ledger holds open (a shared store's connections); the ledger is not used after. */
  close?(): Promise<void>;
}
