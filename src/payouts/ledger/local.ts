/**
 * The local ledger (docs/architecture.md, "The ledger" and "Idempotency journal"), payctl's
 * embedded default: before a payout request leaves, its payout id, Idempotency-Key and exact
 * body are written and fsynced under <config>/journal/ (0600 in a 0700 folder): a file per
 * payout for single payouts; for batch runs, a line in the run's log (log.ts: group commit, one
 * fsync for the lines of the same moment), the payout's name then being a claim on that log. A
 * rerun finds the entry and sends the same key with the identical body, so a crash, time-out or
 * lost connection can never pay twice. The outcome is recorded when one arrives.
 *
 * This class wires the rooms: names.ts (entry names, legacy names), mac.ts (the key and the signatures),
 * atomic-files.ts (the folder, temp files, links, fsyncs), markers.ts (look-ups by content), gaps.ts (the
 * index of entries made), log.ts, claims-log.ts and log-reader.ts (the batch log), stored.ts (reading an
 * entry) and entries.ts (an entry's life, shared with every store). */
import { existsSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock, type Clock } from '../../clock.js';
import { ConfigError } from '../../errors.js';
import { withWalletLocks, type WalletLockOptions } from '../wallet-lock.js';
import { withBatchLockFile, type LockedRun } from '../batch-lock.js';
import { withResolveLockFiles } from '../resolve-lock.js';
import { JournalFolder, writeError } from './atomic-files.js';
import { journalBase } from './base-url.js';
import { entryZeroKey } from '../sent-body.js';
import { acceptedStands, conflictOf, madeByClaim, newEntry, reused, withOutcome, type JournalConflict } from './entries.js';
import { JournalIndex, type AckKind } from './gaps.js';
import { batchRowSince, inRun } from './ledger.js';
import type { BatchRun, BeginOptions, JournalEntry, JournalGaps, Ledger, LookupKind, Outcome, ScanItem } from './ledger.js';
import { ClaimsLog } from './claims-log.js';
import { LogReader } from './log-reader.js';
import { JournalMac } from './mac.js';
import { Markers } from './markers.js';
import { ENTRY_NAME, EntryNames } from './names.js';
import { TransactionOwners } from './owners.js';
import { entryOrThrow, readEntry } from './stored.js';

export class LocalLedger implements Ledger {
  readonly dir: string;
  readonly folder: string;
  readonly sentFrom = 'from this config folder';
  readonly called = "this config folder's journal";
  readonly #configDir: string;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #folder: JournalFolder;
  readonly #names: EntryNames;
  readonly #mac: JournalMac;
  readonly #markers: Markers;
  readonly #index: JournalIndex;
  readonly #logs: LogReader;
  readonly #owners: TransactionOwners;
  /** What the zero markers of entries an older payctl journaled are made from (zero-marks.ts). */
  readonly #reads = { entries: () => this.#scan(), named: (names: string[]) => this.#named(names) };
  /** Batch runs' rows: claimed through this process's log (claims-log.ts). */
  readonly #claims: ClaimsLog;

  constructor(configDir: string, clock: Pick<Clock, 'now'> = systemClock) {
    this.#configDir = configDir;
    this.folder = configDir;
    this.#clock = clock;
    this.dir = join(configDir, 'journal');
    // A journal this payctl makes has every entry's day and zero markers from its first entry on.
    this.#folder = new JournalFolder(this.dir, () => this.#markers.journalMade());
    this.#names = new EntryNames(this.dir);
    this.#mac = new JournalMac(configDir, this.dir);
    this.#logs = new LogReader(this.dir);
    this.#index = new JournalIndex(configDir, this.#names, this.#mac);
    this.#markers = new Markers(this.#names, this.#logs, this.#index);
    this.#owners = new TransactionOwners(() => this.#scan());
    this.#claims = new ClaimsLog(this.dir, { folder: this.#folder, names: this.#names, mac: this.#mac, markers: this.#markers, index: this.#index });
  }

  #read(file: string, payoutId?: string, transactionId?: string): JournalEntry | undefined {
    return readEntry(file, payoutId, this.#mac, this.#logs, transactionId);
  }

  get(baseUrl: string, payoutId: string): Promise<JournalEntry | undefined> {
    return answered(() => this.#get(baseUrl, payoutId));
  }

  /** `get`, read now: what begin and record decide on within one step. */
  #get(baseUrl: string, payoutId: string): JournalEntry | undefined {
    this.#folder.check();
    const entry = this.#read(this.#names.file(baseUrl, payoutId), payoutId);
    if (entry || journalBase(baseUrl) === baseUrl) return entry;
    // Filed by payctl 0.1 under the base URL exactly as written.
    const legacy = this.#names.asWritten(baseUrl, payoutId);
    if (!this.#names.legacy().has(legacy)) return undefined;
    return this.#read(this.#names.in(legacy), payoutId);
  }

  /**
   * Every entry of the journal, one file read at a time, in no particular order (a listing
   * of 1,000 entries never holds them all). `name` reads the entry again (`byName`); an
   * entry that cannot be read or does not verify comes as its error, so a listing can say
   * so and go on.
   */
  // eslint-disable-next-line @typescript-eslint/require-await -- read synchronously (#scan), one entry per step: a listing of the interface's kind
  async *scan(only?: { transactionId?: string }): AsyncGenerator<ScanItem> {
    yield* this.#scan(only?.transactionId);
  }

  /** `scan`, read synchronously (byTransactionId, the transaction owners); with `transactionId`, as `#named`. */
  *#scan(transactionId?: string): Generator<ScanItem> {
    this.#folder.check();
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new ConfigError(`Cannot read the payout journal ${this.dir}: ${(err as Error).message}`);
    }
    yield* this.#named(names, transactionId);
  }

  /**
   * The entries of these names (entry names only, each once), as `scan` lists them; names with no
   * entry (gone since) are passed over, and with `transactionId` those not accepted with it
   * (stored.ts readEntry: neither parsed nor verified).
   */
  *#named(names: Iterable<string>, transactionId?: string): Generator<ScanItem> {
    let keyed = false;
    for (const name of new Set(names)) {
      if (!ENTRY_NAME.test(name)) continue;
      // The key is the journal's, not an entry's: one lost while entries signed with it are
      // there, or refused, stops a listing as it stops a payout (history said "No journaled
      // payouts match." and passed every entry over, exit 0).
      if (!keyed) this.#mac.ready();
      keyed = true;
      try {
        const entry = this.#read(this.#names.in(name), undefined, transactionId);
        if (entry && !this.#superseded(name, entry)) yield { name, entry };
      } catch (err) {
        yield { name, error: err as Error };
      }
    }
  }

  /**
   * Entries of this base URL journaled on the UTC day of `since` or later, found by their day
   * markers (markers.ts daysFrom); every entry where the markers cannot say. As `scan` lists
   * them: an entry that cannot be read or does not verify comes as its error. With a transaction
   * id, only the entries accepted with it (any other is neither parsed nor verified).
   */
  // eslint-disable-next-line @typescript-eslint/require-await -- read synchronously, one entry per step: a listing of the interface's kind
  async *scanSince(baseUrl: string, since: Date, only?: { transactionId?: string }): AsyncGenerator<ScanItem> {
    this.#folder.check();
    this.#markers.ensureIndex(() => this.#scan());
    const leads = this.#markers.daysFrom(baseUrl, since, () => this.#scan(), only?.transactionId);
    yield* leads === 'unindexed' ? this.#scan(only?.transactionId) : this.#named(leads, only?.transactionId);
  }

  /** The transaction id recorded for a payout id (its accepted outcome), if the journal has one. */
  transactionIdOf(baseUrl: string, payoutId: string): string | undefined {
    const o = this.#get(baseUrl, payoutId)?.outcome;
    return o?.kind === 'accepted' ? o.transactionId : undefined;
  }

  /** TransactionOwners.entry: a scan of the journal. */
  byTransactionId(baseUrl: string, transactionId: string): Promise<JournalEntry | undefined> {
    return answered(() => this.#owners.entry(baseUrl, transactionId));
  }

  /** One entry by its file name (from `scan`); undefined when it is gone since. */
  byName(name: string): Promise<JournalEntry | undefined> {
    return answered(() => (ENTRY_NAME.test(name) ? this.#read(join(this.dir, name)) : undefined));
  }

  /**
   * Found by repeat key and kept when of that batch run; nothing is read at all when no log
   * holds a run of that batch (log-reader.ts ran): the entries of a key that other batches paid
   * month after month are read only for a batch that was sent before.
   */
  findInBatch(baseUrl: string, repeatKey: string, batch: BatchRun): Promise<JournalEntry[]> {
    return answered(() => (this.#logs.ran(batch) ? this.#find(baseUrl, 'repeat', repeatKey).filter((e) => inRun(e, batch)) : []));
  }

  /** Through the lines of the run's logs (batch rows are kept in logs); each entry read and checked. */
  batchRows(baseUrl: string, batch: BatchRun): Promise<JournalEntry[]> {
    const ours = (e: JournalEntry) => journalBase(e.baseUrl) === journalBase(baseUrl) && inRun(e, batch);
    const order = (a: JournalEntry, b: JournalEntry) => a.createdAt.localeCompare(b.createdAt) || (a.payoutId < b.payoutId ? -1 : 1);
    return answered(() => [...this.#named(this.#logs.namesOfRun(batch))].map(entryOrThrow).filter(ours).sort(order));
  }

  /**
   * Found by repeat key and kept when a batch row journaled since `since`; nothing is read at all
   * when no log holds a run that wrote since (log-reader.ts ranSince): a run without --batch-id
   * pays nothing more for this look-up unless a batch was sent in the last day.
   */
  findRecentBatchRows(baseUrl: string, key: string, since: Date, kind: 'repeat' | 'zero' = 'repeat'): Promise<JournalEntry[]> {
    return answered(() => (this.#logs.ranSince(since.getTime()) ? this.#find(baseUrl, kind, key).filter((e) => batchRowSince(e, since)) : []));
  }

  /** Found through the lines of other runs' logs written since (batch rows are kept in logs); each entry read and checked. */
  otherBatchRowsSince(baseUrl: string, repeatKeys: string[], since: Date, except: BatchRun, zeroKeys: string[] = []): Promise<JournalEntry[]> {
    const keyed = (e: JournalEntry) => repeatKeys.includes(e.repeatKey ?? '') || zeroKeys.includes(entryZeroKey(e) ?? '');
    const ours = (e: JournalEntry) => journalBase(e.baseUrl) === journalBase(baseUrl) && keyed(e) && batchRowSince(e, since) && !inRun(e, except);
    return answered(() => [...this.#named(this.#logs.namedSince(since.getTime(), except, repeatKeys, zeroKeys))].map(entryOrThrow).filter(ours));
  }

  /** From the logs' first lines (each log is one batch run), for any base URL. */
  batchSent(_baseUrl: string, id: string): Promise<boolean> {
    return answered(() => this.#logs.ran({ id }));
  }

  expectLookups(baseUrl: string, fingerprint: readonly string[], repeat: readonly string[], zero: readonly string[] = []): void {
    this.#markers.expect(baseUrl, { fingerprint, repeat, zero }, this.#reads);
  }

  /** Entries of this base URL with the given fingerprint or repeat key, oldest first; markers whose entry is gone, or that name another payout, are passed over. */
  find(baseUrl: string, kind: LookupKind, key: string): Promise<JournalEntry[]> {
    return answered(() => this.#find(baseUrl, kind, key));
  }

  #find(baseUrl: string, kind: LookupKind, key: string): JournalEntry[] {
    this.#folder.check();
    const out: JournalEntry[] = [];
    const keyOf = (e: JournalEntry) => (kind === 'fingerprint' ? e.fingerprint : kind === 'repeat' ? e.repeatKey : entryZeroKey(e));
    const matches = (e: JournalEntry | undefined): e is JournalEntry => !!e && journalBase(e.baseUrl) === journalBase(baseUrl) && keyOf(e) === key;
    this.#markers.ensureIndex(() => this.#scan());
    const leads = this.#markers.leadsOf(baseUrl, kind, key, this.#reads);
    if (leads === 'damaged') {
      // The marker cannot say which entries have the key: every entry is read instead (slower,
      // never wrong). Entries that cannot be read are passed over, as in any scan.
      for (const it of this.#scan()) if ('entry' in it && matches(it.entry)) out.push(it.entry);
    } else
      for (const [name, marked] of leads) {
        const listed = [...this.#named([name])].map(entryOrThrow);
        for (const e of listed.length ? listed : [this.#firstWritten(baseUrl, marked, key, name)]) if (matches(e)) out.push(e);
      }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * An entry a marker leads to whose file is gone (deleted, moved aside after a "damaged"
   * refusal, a folder restored from an older backup), read from its marker: the entry as first
   * written, verified (markers.ts firstWritten). A payout typed again without --payout-id after
   * its entry was moved aside was paid twice: its markers still knew it. Undefined when the
   * file is there (passed over for a reason of its own) or no marker holds it.
   */
  #firstWritten(baseUrl: string, kind: LookupKind, key: string, name: string): JournalEntry | undefined {
    if (!ENTRY_NAME.test(name) || existsSync(this.#names.in(name))) return undefined;
    const marker = this.#markers.firstWritten(baseUrl, kind, key, name);
    if (marker === undefined) return undefined;
    try {
      const e = this.#read(marker);
      return e && this.#names.of(e.baseUrl, e.payoutId) === name ? e : undefined;
    } catch {
      // Not verified: the index's record of the missing entry (journalGaps) says it instead.
      return undefined;
    }
  }

  /** Writes the entry durably in its own file (temp file, fsync, rename, fsync of the folder), then retires payctl 0.1's file of the same payout: one payout, one entry. */
  async put(entry: JournalEntry): Promise<void> {
    const name = this.#names.of(entry.baseUrl, entry.payoutId);
    await this.#folder.replace(this.#names.in(name), () => this.#mac.serialize(entry));
    await this.#supersede(entry, name);
  }

  /**
   * payctl 0.1's file of the entry just written under `name` (its name under the base URL as
   * written), removed once that write is durable: left beside it, the old "unknown" entry was
   * listed, resent by reconcile and counted in a daily total as a second payout. The look-up
   * markers are made for the new name first (journals of old keep one per entry, named after
   * its file). Any failure, or a crash, leaves the old file: every read passes it over
   * (#superseded) and the next write retires it, so the outcome already written stands.
   */
  async #supersede(entry: JournalEntry, name: string): Promise<void> {
    const legacy = this.#names.asWritten(entry.baseUrl, entry.payoutId);
    if (legacy === name) return;
    try {
      if (!this.#names.legacy().has(legacy)) return;
      this.#markers.mark(entry, name, this.#names.in(name));
      try {
        unlinkSync(this.#names.in(legacy));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      this.#names.legacy().delete(legacy);
      this.#index.note(name, entry.payoutId);
      await this.#folder.sync();
    } catch {
      // Left in place: superseded all the same.
    }
  }

  /** Whether `entry`, read from `name`, is payctl 0.1's file of a payout since written under its normalized name (a crash before #supersede removed it): passed over. */
  #superseded(name: string, entry: JournalEntry): boolean {
    if (journalBase(entry.baseUrl) === entry.baseUrl) return false;
    const current = this.#names.of(entry.baseUrl, entry.payoutId);
    return name !== current && name === this.#names.asWritten(entry.baseUrl, entry.payoutId) && existsSync(this.#names.in(current));
  }

  conflict(existing: JournalEntry, body: string, idempotencyKey?: string): JournalConflict | undefined {
    return conflictOf(existing, body, idempotencyKey);
  }

  async begin(opts: BeginOptions): Promise<JournalEntry> {
    const existing = opts.absent ? undefined : this.#get(opts.baseUrl, opts.payoutId);
    if (existing) return reused(existing, opts);
    // The index before the entry, and so before the journal key (gaps.ts ensure).
    this.#index.ensure();
    const entry = newEntry(opts);
    let created: boolean;
    try {
      created = opts.log ? await this.#claims.create(entry) : await this.#create(entry);
      if (created && !opts.log) await this.#folder.sync();
    } catch (err) {
      throw writeError(err, this.dir, `Nothing was sent for payout ${opts.payoutId}.`);
    }
    if (created) {
      this.#index.note(this.#names.of(entry.baseUrl, entry.payoutId), entry.payoutId);
      return madeByClaim(entry);
    }
    // Another payctl journaled this payout id a moment ago: send under its key.
    const first = this.#get(opts.baseUrl, opts.payoutId);
    if (!first) throw new ConfigError(`The payout journal entry of ${opts.payoutId} vanished while it was being written.`);
    return reused(first, opts);
  }

  /**
   * Creates the entry in a file of its own if none exists for its payout id, its markers
   * linked to it first: of two processes starting the same payout at once, exactly one
   * chooses the key. Returns false when another was first.
   */
  #create(entry: JournalEntry): Promise<boolean> {
    const name = this.#names.of(entry.baseUrl, entry.payoutId);
    return this.#folder.createExclusive(
      this.#names.in(name),
      () => this.#mac.serialize(entry),
      (tmp) => this.#markers.mark(entry, name, tmp),
    );
  }

  journalGaps(baseUrl?: string, opts: { unacknowledged?: AckKind } = {}): Promise<JournalGaps | undefined> {
    // An index line names the entry's file, whose name is made of its base URL and payout id.
    return answered(() => this.#index.gaps({ ...opts, ...(baseUrl === undefined ? {} : { nameOf: (payoutId) => this.#names.of(baseUrl, payoutId) }) }));
  }

  acknowledgeGaps(baseUrl: string, kind: AckKind): Promise<number> {
    return answered(() => this.#index.acknowledge({ nameOf: (payoutId) => this.#names.of(baseUrl, payoutId) }, kind));
  }

  transactionOwner(baseUrl: string, transactionId: string): Promise<string | undefined> {
    return answered(() => this.#owners.owner(baseUrl, transactionId));
  }

  async record(entry: JournalEntry, outcome: Outcome): Promise<JournalEntry> {
    const stands = acceptedStands(entry, outcome, () => this.#get(entry.baseUrl, entry.payoutId));
    if (stands) return stands;
    const next = withOutcome(entry, outcome);
    const name = this.#names.of(entry.baseUrl, entry.payoutId);
    this.#owners.recorded(next);
    // In the log: written at once, durable with the log's next fsync (LogWriter.appendNow).
    if (this.#claims.has(name)) await this.#claims.appendNow(name, this.#mac.signedJson(next));
    else await this.put(next);
    return next;
  }

  /** The wallets' lock files in the config folder (wallet-lock.ts): every payctl using this config folder waits (another folder's does not). */
  withWalletLocks<T>(walletIds: string[], fn: () => Promise<T>, opts: WalletLockOptions): Promise<T> {
    return withWalletLocks(this.#configDir, walletIds, fn, opts);
  }

  withBatchLock<T>(run: LockedRun, fn: () => Promise<T>, opts: WalletLockOptions): Promise<T> {
    return withBatchLockFile(this.#configDir, run, fn, opts);
  }

  withResolveLocks<T>(ids: string[], fn: () => Promise<T>, opts: WalletLockOptions): Promise<T> {
    return withResolveLockFiles(this.#configDir, ids, fn, opts);
  }

  /** This machine's clock (the one the ledger was given). */
  now(): Promise<Date> {
    return Promise.resolve(this.#clock.now());
  }

  /** Its clock is this machine's: entries are dated by the run's clock (`begin`'s `now`). */
  clockSkew(): number {
    return 0;
  }

  /** Nothing is held open between steps (a batch's log is closed by closeLog). */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /** At the end of a batch run: the log compacted (claims-log.ts). */
  closeLog(): Promise<void> {
    return this.#claims.close();
  }
}

/** A read of the local store made now (as when reads were synchronous), its answer a promise: what it throws rejects. */
function answered<T>(read: () => T): Promise<T> {
  return new Promise((resolve) => resolve(read()));
}
