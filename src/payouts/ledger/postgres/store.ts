/**
 * The PostgreSQL store of the ledger (docs/architecture.md, "The ledger"; issue #30): a team's
 * machines share one database, so what the local store guarantees on one machine holds across
 * all of them. A payout id is claimed by an insert only one machine can win (the primary key
 * (base, payout_id)): whoever comes second gets the first one's key and body. Outcomes are
 * written as they arrive, an accepted one never replaced by a weaker one (one statement: the
 * row's lock decides). Look-ups are indexed queries; a listing pages through the rows by key.
 * The wallets' locks are advisory locks of the database (locks.ts), so the policy's limits hold
 * between machines too.
 *
 * A database that cannot be reached fails the step that needed it: a claim with a ConfigError
 * saying nothing was sent, an outcome with an error the sender reports as an unknown outcome
 * (any machine can resolve it later). Never a fall-back to the local store. The URL is only
 * ever shown masked.
 */
import type { Pool } from 'pg';
import { ConfigError } from '../../../errors.js';
import type { WalletLockOptions } from '../../wallet-lock.js';
import { journalBase } from '../base-url.js';
import { acceptedStands, conflictOf, newEntry, reused, withOutcome, type JournalConflict } from '../entries.js';
import type { BeginOptions, JournalEntry, JournalGaps, Ledger, LookupKind, Outcome, ScanItem } from '../ledger.js';
import { GroupQueue } from './groups.js';
import { LedgerUnreachable, reasonOf, unreachable, type Connection } from './connect.js';
import { LockTurns, withAdvisoryLocks } from './locks.js';
import { entryOfRow, insertRows, keyOf, rowOf, writeOutcomes, type Inserted, type RowValues } from './rows.js';
import { ENTRIES } from './schema.js';

const GET = `SELECT entry FROM ${ENTRIES} WHERE base = $1 AND payout_id = $2`;
/** Rows a listing reads at a time. */
const PAGE = 500;
/** Claims and outcomes: statements of each kind at once (of the pool's 4 connections), rows in one. */
const GROUPS = { inFlight: 2, maxGroup: 500, keyOf };

/** What `payctl ledger status` says of a PostgreSQL ledger. */
export interface PostgresLedgerStatus {
  backend: 'postgresql';
  /** The URL, its password masked. */
  url: string;
  schemaVersion: number;
  /** How many entries it holds, under every base URL. */
  entries: number;
}

export class PostgresLedger implements Ledger {
  readonly sentFrom = "through the team's shared ledger";
  /** The URL, its password masked: what messages name. */
  readonly url: string;
  readonly schemaVersion: number;
  readonly #pool: Pool;
  readonly #connection: Connection;
  /** This machine, as rows it makes say (who made it). */
  readonly #host: string | null;
  /** Claims of the same moment, one statement (groups.ts). */
  readonly #claims: GroupQueue<RowValues, Inserted>;
  /** Outcomes of the same moment, one statement. */
  readonly #outcomes: GroupQueue<RowValues, boolean>;
  /** This ledger's steps that lock wallets, one at a time (locks.ts). */
  readonly #turns = new LockTurns();
  #closed: Promise<void> | undefined;

  constructor(pool: Pool, connection: Connection, o: { schemaVersion: number; host?: string }) {
    this.#pool = pool;
    this.#connection = connection;
    this.url = connection.masked;
    this.schemaVersion = o.schemaVersion;
    this.#host = o.host ?? null;
    this.#claims = new GroupQueue((rows) => insertRows(this.#pool, rows, this.#host), GROUPS);
    this.#outcomes = new GroupQueue((rows) => writeOutcomes(this.#pool, rows, this.#host), GROUPS);
  }

  /** An error of payctl's for a failure of the database: which ledger (masked), why, and what that means (`after`). */
  #fault(err: unknown, doing: string, after: string): Error {
    if (err instanceof ConfigError) return err;
    const reason = reasonOf(err, this.#connection);
    if (unreachable(err)) return new LedgerUnreachable(this.url, reason, after);
    return new ConfigError(
      `Cannot ${doing} the payout ledger ${this.url}: ${reason}.${after ? ` ${after}` : ''}`,
      'Check the database (its log says more), then run the same command again: a payout claimed but not sent is sent under its journaled key then.',
    );
  }

  /** A statement's rows; `name`d ones (the look-ups of every row of a batch) are parsed and planned once per connection. */
  async #query<R extends object>(doing: string, sql: string, params: unknown[], name?: string): Promise<R[]> {
    try {
      return (await this.#pool.query<R & Record<string, unknown>>({ name, text: sql, values: params })).rows;
    } catch (err) {
      throw this.#fault(err, doing, '');
    }
  }

  async begin(opts: BeginOptions): Promise<JournalEntry> {
    const entry = newEntry(opts);
    const after = `Nothing was sent for payout ${opts.payoutId}.`;
    let claimed: Inserted;
    try {
      claimed = await this.#claims.add(rowOf(entry));
    } catch (err) {
      throw this.#fault(err, 'write to', after);
    }
    if (claimed.inserted) return entry;
    if (claimed.existing !== undefined) return reused(this.#entry(claimed.existing, opts.payoutId), opts);
    // Made by a claim (another machine's, or this one's of the same moment) committed while this one's statement ran: read it now.
    const existing = await this.get(opts.baseUrl, opts.payoutId).catch((err: unknown) => {
      throw this.#fault(err, 'read', after);
    });
    if (!existing) throw new ConfigError(`The ledger entry of payout ${opts.payoutId} vanished while it was being written (${this.url}). ${after}`);
    return reused(existing, opts);
  }

  #entry(text: string, payoutId: string): JournalEntry {
    return entryOfRow(text, payoutId, this.url);
  }

  async record(entry: JournalEntry, outcome: Outcome): Promise<JournalEntry> {
    const next = withOutcome(entry, outcome);
    const row = rowOf(next);
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
      const current = await this.get(entry.baseUrl, entry.payoutId);
      const stands = acceptedStands(entry, outcome, () => current);
      if (stands) return stands;
    }
    throw new ConfigError(`Cannot record the outcome of payout ${entry.payoutId} in the payout ledger ${this.url}: its entry kept changing.`);
  }

  async get(baseUrl: string, payoutId: string): Promise<JournalEntry | undefined> {
    const rows = await this.#query<{ entry: string }>('read', GET, [journalBase(baseUrl), payoutId], 'payctl_get');
    return rows[0] ? this.#entry(rows[0].entry, payoutId) : undefined;
  }

  async find(baseUrl: string, kind: LookupKind, key: string): Promise<JournalEntry[]> {
    const column = kind === 'fingerprint' ? 'fingerprint' : 'repeat_key';
    const rows = await this.#query<{ entry: string; payout_id: string }>(
      'read',
      `SELECT payout_id, entry FROM ${ENTRIES} WHERE base = $1 AND ${column} = $2 ORDER BY created_at, payout_id`,
      [journalBase(baseUrl), key],
      `payctl_find_${column}`,
    );
    return rows.map((r) => this.#entry(r.entry, r.payout_id));
  }

  async byTransactionId(baseUrl: string, transactionId: string): Promise<JournalEntry | undefined> {
    const rows = await this.#ofTransaction(baseUrl, transactionId);
    return rows[0] ? this.#entry(rows[0].entry, rows[0].payout_id) : undefined;
  }

  async transactionOwner(baseUrl: string, transactionId: string): Promise<string | undefined> {
    return (await this.#ofTransaction(baseUrl, transactionId))[0]?.payout_id;
  }

  /** The entries whose accepted outcome has this transaction id: the first recorded first. */
  #ofTransaction(baseUrl: string, transactionId: string): Promise<Array<{ entry: string; payout_id: string }>> {
    return this.#query(
      'read',
      `SELECT payout_id, entry FROM ${ENTRIES} WHERE base = $1 AND transaction_id = $2 AND outcome = 'accepted' ORDER BY created_at, payout_id LIMIT 1`,
      [journalBase(baseUrl), transactionId],
      'payctl_transaction',
    );
  }

  /**
   * Every entry, a page of rows at a time in the order of their keys (base URL, payout id): a
   * listing of 100,000 entries never holds more than one page. A row that is not an entry comes
   * as its error. `name` is the row's key, as JSON.
   */
  async *scan(): AsyncGenerator<ScanItem> {
    let after: [string, string] | undefined;
    for (;;) {
      const rows = await this.#query<{ base: string; payout_id: string; entry: string }>(
        'read',
        after
          ? `SELECT base, payout_id, entry FROM ${ENTRIES} WHERE (base, payout_id) > ($1, $2) ORDER BY base, payout_id LIMIT ${PAGE}`
          : `SELECT base, payout_id, entry FROM ${ENTRIES} ORDER BY base, payout_id LIMIT ${PAGE}`,
        after ?? [],
      );
      for (const r of rows) {
        const name = JSON.stringify([r.base, r.payout_id]);
        try {
          yield { name, entry: this.#entry(r.entry, r.payout_id) };
        } catch (err) {
          yield { name, error: err as Error };
        }
      }
      if (rows.length < PAGE) return;
      const last = rows[rows.length - 1]!;
      after = [last.base, last.payout_id];
    }
  }

  async byName(name: string): Promise<JournalEntry | undefined> {
    let key: unknown;
    try {
      key = JSON.parse(name);
    } catch {
      return undefined;
    }
    if (!Array.isArray(key) || key.length !== 2 || typeof key[0] !== 'string' || typeof key[1] !== 'string') return undefined;
    const rows = await this.#query<{ entry: string }>('read', GET, key, 'payctl_get');
    return rows[0] ? this.#entry(rows[0].entry, key[1]) : undefined;
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

  /** The database's clock: the day of a daily total is the database's (UTC), not this machine's. */
  async now(): Promise<Date> {
    const rows = await this.#query<{ now: Date }>('read the clock of', 'SELECT now() AS now', []);
    return rows[0]!.now;
  }

  /** What `payctl ledger status` shows: the store, the URL (masked), the schema version and the number of entries. */
  async status(): Promise<PostgresLedgerStatus> {
    const rows = await this.#query<{ n: string }>('read', `SELECT count(*) AS n FROM ${ENTRIES}`, []);
    return { backend: 'postgresql', url: this.url, schemaVersion: this.schemaVersion, entries: Number(rows[0]!.n) };
  }

  /**
   * Entries written where their payout id has no row yet, as they are (outcome and all): for
   * each, made now, or the entry text already there (import.ts). Duplicates in `entries` are
   * the caller's to leave out.
   */
  async insertEntries(entries: JournalEntry[]): Promise<Inserted[]> {
    try {
      return await insertRows(this.#pool, entries.map(rowOf), this.#host);
    } catch (err) {
      throw this.#fault(err, 'write to', '');
    }
  }

  /** The claims answered, then the connections ended. Safe to call twice. */
  close(): Promise<void> {
    this.#closed ??= this.closeLog().finally(() => this.#pool.end());
    return this.#closed;
  }
}
