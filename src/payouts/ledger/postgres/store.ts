/**
 * The PostgreSQL store of the ledger (docs/architecture.md, "The ledger"; issue #30): a team's
 * machines share one database, so what the local store guarantees on one machine holds across
 * all of them. A payout id is claimed by an insert only one machine can win (the primary key
 * (base, payout_id)): whoever comes second gets the first one's key and body. A claim is dated by
 * the database's clock, in its transaction (claims.ts): no machine's clock decides the day or the
 * 24 hours a payout counts in. Outcomes are written as they arrive, an accepted one never replaced
 * by a weaker one (one statement: the row's lock decides). Look-ups are indexed queries; a
 * listing pages through the rows by key. Locks (wallets', batches', resolutions') are advisory
 * locks of the database (locks.ts): they hold between machines too. Every row it writes is signed
 * (signing.ts); every row read is checked before use: one changed outside payctl is never acted on.
 *
 * A database that cannot be reached fails the step that needed it: a claim with a ConfigError saying
 * nothing was sent, an outcome with an error the sender reports as an unknown outcome (any machine
 * can resolve it later). Never a fall-back to the local store. The URL is only ever shown masked.
 */
import type { Pool } from 'pg';
import { systemClock, type Clock } from '../../../clock.js';
import { ConfigError } from '../../../errors.js';
import type { WalletLockOptions } from '../../wallet-lock.js';
import { journalBase } from '../base-url.js';
import { acceptedStands, conflictOf, madeByClaim, newEntry, reused, withOutcome, type JournalConflict } from '../entries.js';
import { batchRowSince, inRun } from '../ledger.js';
import type { BatchRun, BeginOptions, InBatchLookups, LockedRun, JournalEntry, JournalGaps, Ledger, LookupKind, Outcome, ScanItem } from '../ledger.js';
import { LookAhead } from './ahead.js';
import { GroupQueue } from './groups.js';
import { LedgerUnreachable, reasonOf, unreachable, type Connection } from './connect.js';
import { LockTurns, RESOLVE_LOCKS, withAdvisoryLocks, withBatchLocks } from './locks.js';
import { PostgresPlans } from './plans.js';
import { PostgresPolicies } from './policies.js';
import { claimEntries, type Claimed } from './claims.js';
import { insertRows, keyOf, writeOutcomes, type Inserted, type RowValues, type StoredRow, type Writer } from './rows.js';
import { DB_NOW, ENTRIES } from './schema.js';
import * as q from './queries.js';
import { processSigner, signedRow, verifiedEntry, type RowSigner, type VerifyCommand } from './signing.js';
import { allRows, keyOfName, rowsSince, type Query } from './pages.js';
import { entryZeroKey } from '../../sent-body.js';

/** Claims and outcomes: statements of each kind at once (of the pool's 4 connections), rows in one. */
const GROUPS = { inFlight: 2, maxGroup: 500, keyOf };
/** Claims are grouped as entries (dated and signed in their transaction: claims.ts), by the same key. */
const CLAIM_GROUPS = { ...GROUPS, keyOf: (e: JournalEntry) => `${journalBase(e.baseUrl)}\n${e.payoutId}` };

/** What `payctl ledger status` says of a PostgreSQL ledger. */
export interface PostgresLedgerStatus {
  backend: 'postgresql';
  /** The URL, its password masked. */
  url: string;
  schemaVersion: number;
  /** How many entries it holds, under every base URL. */
  entries: number;
}

/** What a store is opened with besides its pool and connection (openPostgresLedger; the constructor says each). */
type StoreOptions = { schemaVersion: number; host?: string; signer?: () => RowSigner; clock?: Pick<Clock, 'now'>; dbNow?: Date; verifyCommand?: VerifyCommand };
export class PostgresLedger implements Ledger {
  readonly sentFrom = "through the team's shared ledger";
  readonly called = "the team's shared ledger";
  /** The URL, its password masked: what messages name. */
  readonly url: string;
  readonly schemaVersion: number;
  readonly #pool: Pool;
  readonly #connection: Connection;
  /** This machine, as rows it makes say (who made it). */
  readonly #host: string | null;
  /** Look-ups answered ahead (prefetch), forgotten at any write. */
  readonly #ahead = new LookAhead();
  /** What signs the rows it writes: asked once, when the first row is written. */
  readonly #signerOf: () => RowSigner;
  #writerMade: Writer | undefined;
  /** Claims of the same moment, one transaction (groups.ts, claims.ts). */
  readonly #claims: GroupQueue<JournalEntry, Claimed>;
  /** Outcomes of the same moment, one statement. */
  readonly #outcomes: GroupQueue<RowValues, boolean>;
  /** This ledger's steps that lock wallets, one at a time (locks.ts). */
  readonly #turns = new LockTurns();
  /** Batch runs' turns, apart from the wallets': a wallet's lock is taken while a batch's is held. */
  readonly #batchTurns = new LockTurns();
  /** Plans by hash (plans.ts). */
  readonly plans: PostgresPlans;
  /** The team's policy (policies.ts). */
  readonly policies: PostgresPolicies;
  #closed: Promise<void> | undefined;
  /** The run's clock, which #skew is measured against. */
  readonly #clock: Pick<Clock, 'now'>;
  /** How far the database's clock is ahead of the run's (ms), as last read (clockSkew). */
  #skew = 0;
  readonly #verify: VerifyCommand | undefined;

  /**
   * `o.signer`: what signs the rows it writes (asked on the first write); without one, a key made
   * for this process. `o.clock`: the run's (default: the system's); `o.dbNow`: the database's
   * time read when it was opened, which the skew starts from. `o.verifyCommand`: the `payctl ledger
   * verify` of this run, said of a row that does not verify (signing.ts verifiedEntry).
   */
  constructor(pool: Pool, connection: Connection, o: StoreOptions) {
    this.#pool = pool;
    this.#connection = connection;
    this.url = connection.masked;
    this.schemaVersion = o.schemaVersion;
    this.#host = o.host ?? null;
    this.#signerOf = o.signer ?? processSigner;
    this.#clock = o.clock ?? systemClock;
    this.#verify = o.verifyCommand;
    if (o.dbNow) this.#heard(o.dbNow);
    this.#claims = new GroupQueue((entries) => claimEntries(this.#pool, entries, this.#writer(), (at) => this.#heard(at)), CLAIM_GROUPS);
    this.#outcomes = new GroupQueue((rows) => writeOutcomes(this.#pool, rows, this.#writer()), GROUPS);
    this.plans = new PostgresPlans(pool, (err, doing) => this.#fault(err, doing, ''), this.#host);
    this.policies = new PostgresPolicies(pool, (err, doing) => this.#fault(err, doing, ''), this.#host);
  }

  /** The row of an entry, signed by this ledger's writer. */
  #row = (e: JournalEntry): RowValues => signedRow(e, this.#writer().host, this.#writer().signer);

  /** Who writes this ledger's rows: this machine and its signer (made on first use). */
  #writer(): Writer {
    this.#writerMade ??= { host: this.#host, signer: this.#signerOf() };
    return this.#writerMade;
  }

  /** The database's time, just read: how far it is from the run's clock kept (clockSkew). */
  #heard(dbNow: Date): void {
    this.#skew = dbNow.getTime() - this.#clock.now().getTime();
  }

  /** How far the database's clock is ahead of the run's (ms; negative: behind), as last read (when opened, by each claim and each `now()`). */
  clockSkew(): number {
    return this.#skew;
  }

  /** An error of payctl's for a failure of the database: which ledger (masked), why, and what that means (`after`). */
  #fault(err: unknown, doing: string, after: string): Error {
    if (err instanceof ConfigError) return err;
    const reason = reasonOf(err, this.#connection);
    if (unreachable(err)) return new LedgerUnreachable(this.url, reason, after);
    return new ConfigError(
      `Cannot ${doing} the payout ledger ${this.url}: ${reason}.${after ? ` ${after}` : ''}`,
      'Check the database (its log says more), then run the same command again: a payout claimed but not sent is sent under its journaled idempotency key then.',
    );
  }

  /** #query for the paged readers (pages.ts). */
  readonly #read: Query = (doing, sql, params, name) => this.#query(doing, sql, params, name);
  /** A statement's rows; `name`d ones (the look-ups of every row of a batch) are parsed and planned once per connection. */
  async #query<R extends object>(doing: string, sql: string, params: unknown[], name?: string): Promise<R[]> {
    try {
      return (await this.#pool.query<R & Record<string, unknown>>({ name, text: sql, values: params })).rows;
    } catch (err) {
      throw this.#fault(err, doing, '');
    }
  }

  /** A claim: the new entry dated by the database's clock (`opts.now` is not used) in the transaction that writes it (claims.ts). */
  async begin(opts: BeginOptions): Promise<JournalEntry> {
    this.#ahead.clear();
    const entry = newEntry(opts);
    const after = `Nothing was sent for payout ${opts.payoutId}.`;
    let claimed: Claimed;
    try {
      claimed = await this.#claims.add(entry);
    } catch (err) {
      throw this.#fault(err, 'write to', after);
    }
    if (claimed.inserted) return madeByClaim(claimed.entry);
    if (claimed.existing !== undefined) return reused(this.entryOf(claimed.existing), opts);
    // Made by a claim (another machine's, or this one's of the same moment) committed while this one's statement ran: read it now.
    const existing = await this.#fresh(opts.baseUrl, opts.payoutId).catch((err: unknown) => {
      throw this.#fault(err, 'read', after);
    });
    if (!existing) throw new ConfigError(`The ledger entry of payout ${opts.payoutId} vanished while it was being written (${this.url}). ${after}`);
    return reused(existing, opts);
  }

  /** The entry of a row read from this ledger, once the row verifies; else a ConfigError naming its payout id (signing.ts). */
  entryOf(row: StoredRow): JournalEntry {
    return verifiedEntry(row, this.url, this.#verify);
  }

  async record(entry: JournalEntry, outcome: Outcome): Promise<JournalEntry> {
    this.#ahead.clear();
    const next = withOutcome(entry, outcome);
    const row = this.#row(next);
    const doing = `record the outcome of payout ${entry.payoutId} in`;
    for (let attempt = 0; attempt < 3; attempt++) {
      let written: boolean;
      try {
        written = await this.#outcomes.add(row);
      } catch (err) {
        throw this.#fault(err, doing, '');
      }
      if (written) return next;
      // An accepted outcome under the same key is there: it stands (entries.ts acceptedStands).
      const current = await this.#fresh(entry.baseUrl, entry.payoutId);
      const stands = acceptedStands(entry, outcome, () => current);
      if (stands) return stands;
    }
    throw new ConfigError(`Cannot record the outcome of payout ${entry.payoutId} in the payout ledger ${this.url}: its entry kept changing.`);
  }

  async get(baseUrl: string, payoutId: string): Promise<JournalEntry | undefined> {
    const ahead = this.#ahead.get(journalBase(baseUrl), payoutId);
    if (ahead !== undefined) return ahead ?? undefined;
    return this.#fresh(baseUrl, payoutId);
  }

  /** The entry as the database holds it now (what the store's writes decide on: never looked ahead). */
  async #fresh(baseUrl: string, payoutId: string): Promise<JournalEntry | undefined> {
    const rows = await this.#query<StoredRow>('read', q.GET, [journalBase(baseUrl), payoutId], 'payctl_get');
    return rows[0] ? this.entryOf(rows[0]) : undefined;
  }

  /**
   * These payout ids, fingerprints, repeat and zero keys looked up in one statement, the answers
   * kept for the look-ups that follow (ahead.ts), a group of a batch's rows at a time, until a write.
   */
  async prefetch(
    baseUrl: string,
    payoutIds: string[],
    fingerprints: string[],
    inBatch?: InBatchLookups,
    repeatKeys: string[] = [],
    zeroKeys: string[] = [],
  ): Promise<void> {
    const base = journalBase(baseUrl);
    const inBatchKeys = inBatch?.repeatKeys ?? [];
    const batchJson = inBatch ? q.runParams(inBatch.batch) : ['null', 'null'];
    const recentZeros = inBatch?.recentSince ? (inBatch.zeroKeys ?? []) : [];
    const params = [base, payoutIds, fingerprints, inBatchKeys, ...batchJson, inBatch?.recentSince ?? null, repeatKeys, zeroKeys, recentZeros];
    const rows = await this.#query<StoredRow>('read', q.PREFETCH, params, 'payctl_prefetch');
    this.#ahead.fill(base, { payoutIds, fingerprints, repeatKeys, zeroKeys, ...(inBatch ? { inBatch } : {}) }, rows, (r) => this.entryOf(r));
  }

  async findInBatch(baseUrl: string, repeatKey: string, batch: BatchRun): Promise<JournalEntry[]> {
    const base = journalBase(baseUrl);
    const ahead = this.#ahead.findInBatch(base, batch, repeatKey);
    const found =
      ahead ?? (await this.#query<StoredRow>('read', q.FIND_IN_BATCH, [base, repeatKey, ...q.runParams(batch)], 'payctl_find_in_batch')).map((r) => this.entryOf(r));
    return found.filter((e) => inRun(e, batch));
  }

  async batchRows(baseUrl: string, batch: BatchRun): Promise<JournalEntry[]> {
    const rows = await this.#query<StoredRow>('read', q.BATCH_ROWS, [journalBase(baseUrl), ...q.runParams(batch)], 'payctl_batch_rows');
    return rows.map((r) => this.entryOf(r)).filter((e) => inRun(e, batch));
  }

  async findRecentBatchRows(baseUrl: string, key: string, since: Date, kind: 'repeat' | 'zero' = 'repeat'): Promise<JournalEntry[]> {
    const base = journalBase(baseUrl);
    const found =
      this.#ahead.findRecent(base, since, key, kind) ??
      (await this.#query<StoredRow>('read', q.FIND_RECENT[kind], [base, key, since], `payctl_find_recent_${kind}`)).map((r) => this.entryOf(r));
    return found.filter((e) => batchRowSince(e, since) && (kind === 'repeat' || entryZeroKey(e) === key));
  }

  async otherBatchRowsSince(baseUrl: string, repeatKeys: string[], since: Date, except: BatchRun, zeroKeys: string[] = []): Promise<JournalEntry[]> {
    if (!repeatKeys.length && !zeroKeys.length) return [];
    const rows = await this.#query<StoredRow>('read', q.OTHER_RECENT, [journalBase(baseUrl), repeatKeys, since, ...q.runParams(except), zeroKeys], 'payctl_other_recent');
    // Found by the zero key column (not signed): counted once its entry has that zero key.
    const keyed = (e: JournalEntry) => repeatKeys.includes(e.repeatKey ?? '') || zeroKeys.includes(entryZeroKey(e) ?? '');
    return rows.map((r) => this.entryOf(r)).filter((e) => batchRowSince(e, since) && !inRun(e, except) && keyed(e));
  }

  /** Read from the entries' text (no column holds the batch id): a scan, asked only when payctl prints a new batch id. */
  async batchSent(baseUrl: string, id: string): Promise<boolean> {
    const [row] = await this.#query<{ sent: boolean }>('read', q.BATCH_SENT, [journalBase(baseUrl), JSON.stringify(id)]);
    return row?.sent === true;
  }

  async find(baseUrl: string, kind: LookupKind, key: string): Promise<JournalEntry[]> {
    const found =
      this.#ahead.find(journalBase(baseUrl), kind, key) ??
      (await this.#query<StoredRow>('read', q.FIND_BY[kind], [journalBase(baseUrl), key], `payctl_find_${kind}`)).map((r) => this.entryOf(r));
    return kind === 'zero' ? found.filter((e) => entryZeroKey(e) === key) : found; // the zero key column is not signed
  }

  async byTransactionId(baseUrl: string, transactionId: string): Promise<JournalEntry | undefined> {
    const rows = await this.#ofTransaction(baseUrl, transactionId);
    return rows[0] ? this.entryOf(rows[0]) : undefined;
  }

  /** The payout id of the row found, once that row verifies. */
  async transactionOwner(baseUrl: string, transactionId: string): Promise<string | undefined> {
    const rows = await this.#ofTransaction(baseUrl, transactionId);
    return rows[0] ? this.entryOf(rows[0]).payoutId : undefined;
  }

  /** The entries whose accepted outcome has this transaction id: the first recorded first. */
  #ofTransaction(baseUrl: string, transactionId: string): Promise<StoredRow[]> {
    return this.#query('read', q.BY_TRANSACTION, [journalBase(baseUrl), transactionId], 'payctl_transaction');
  }

  /**
   * Every entry, a page of rows at a time in key order (never more than a page held); with a transaction id, only the rows accepted
   * with it, in one statement. A row that is not an entry, or does not verify, comes as its error; `name`: the row's key, as JSON.
   */
  async *scan(only?: { transactionId?: string }): AsyncGenerator<ScanItem> {
    const txn = only?.transactionId;
    for await (const r of txn === undefined ? this.rows() : await this.#query<StoredRow>('read', q.ANY_TRANSACTION, [txn], 'payctl_any_transaction')) yield this.#item(r);
  }

  /** A row as a listing gives it: named by its key (as JSON), its entry once it verifies, else why not. */
  #item(r: StoredRow): ScanItem {
    const name = JSON.stringify([r.base, r.payout_id]);
    try {
      return { name, entry: this.entryOf(r) };
    } catch (err) {
      return { name, error: err as Error };
    }
  }

  /**
   * The rows of this base URL created at or after `since` (by their created_at), a page at a time, each checked as `scan`
   * checks it; with a transaction id, only the rows accepted with it (one statement, by the index of transaction ids).
   */
  async *scanSince(baseUrl: string, since: Date, only?: { transactionId?: string }): AsyncGenerator<ScanItem> {
    for await (const r of rowsSince(this.#read, baseUrl, since, only)) yield this.#item(r);
  }

  /** Every row as it is stored, unchecked, a page at a time in key order (scan; `payctl ledger verify` checks each itself). */
  rows(): AsyncGenerator<StoredRow> {
    return allRows(this.#read);
  }

  async byName(name: string): Promise<JournalEntry | undefined> {
    const key = keyOfName(name);
    if (!key) return undefined;
    const rows = await this.#query<StoredRow>('read', q.GET, key, 'payctl_get');
    return rows[0] ? this.entryOf(rows[0]) : undefined;
  }

  conflict(existing: JournalEntry, body: string, idempotencyKey?: string): JournalConflict | undefined {
    return conflictOf(existing, body, idempotencyKey);
  }

  /** The database is its own record: an entry is a row or nothing, none is missing from an index. */
  journalGaps(): Promise<JournalGaps | undefined> {
    return Promise.resolve(undefined);
  }

  /** Every claim and outcome written so far answered. */
  async closeLog(): Promise<void> {
    await Promise.all([this.#claims.settled(), this.#outcomes.settled()]);
  }

  withWalletLocks<T>(walletIds: string[], fn: () => Promise<T>, opts: WalletLockOptions): Promise<T> {
    return withAdvisoryLocks(this.#pool, this.#turns, walletIds, fn, opts, (err, after) => this.#fault(err, 'lock wallets in', after));
  }

  withResolveLocks<T>(ids: string[], fn: () => Promise<T>, opts: WalletLockOptions): Promise<T> {
    return withAdvisoryLocks(this.#pool, this.#turns, ids, fn, opts, (err, after) => this.#fault(err, 'lock a payout in', after), RESOLVE_LOCKS);
  }

  /** An advisory lock, as a wallet's, on a connection of its own for the run's length (POOL_MAX counts it); never in a wallet lock's turn. */
  withBatchLock<T>(run: LockedRun, fn: () => Promise<T>, opts: WalletLockOptions): Promise<T> {
    return withBatchLocks(this.#pool, this.#batchTurns, run, fn, opts, (err, doing, after) => this.#fault(err, doing, after));
  }

  /**
   * The database's clock (to the millisecond, as claims date their entries): the day of a daily
   * total and the start of a 24-hour window are the database's (UTC), not this machine's.
   */
  async now(): Promise<Date> {
    const rows = await this.#query<{ now: Date }>('read the clock of', `SELECT ${DB_NOW} AS now`, []);
    const now = rows[0]!.now;
    this.#heard(now);
    return now;
  }

  /** What `payctl ledger status` shows: the store, the URL (masked), the schema version and the number of entries. */
  async status(): Promise<PostgresLedgerStatus> {
    const rows = await this.#query<{ n: string }>('read', `SELECT count(*) AS n FROM ${ENTRIES}`, []);
    return { backend: 'postgresql', url: this.url, schemaVersion: this.schemaVersion, entries: Number(rows[0]!.n) };
  }

  /**
   * Entries written where their payout id has no row yet, as they are (outcome, time and all:
   * an imported entry keeps the time it was journaled at, which the 24-hour rule and history go
   * by), signed by this ledger's writer: for each, made now, or the row already there, unchecked
   * (entryOf checks it; import.ts). Duplicates in `entries` are the caller's to leave out.
   */
  async insertEntries(entries: JournalEntry[]): Promise<Inserted[]> {
    try {
      const rows = entries.map((e) => this.#row(e));
      return await insertRows(this.#pool, rows, this.#writer());
    } catch (err) {
      throw this.#fault(err, 'write to', '');
    }
  }

  /** The claims answered, then the connections ended. Safe to call twice. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      try {
        await this.closeLog();
      } finally {
        await this.#pool.end();
      }
    })();
    return this.#closed;
  }
}
