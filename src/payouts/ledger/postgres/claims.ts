/**
 * Claims in the PostgreSQL ledger, dated by the database (docs/architecture.md, "The ledger"):
 * a group of new entries (groups.ts) written in one transaction that first reads the database's
 * clock (`now()`, the transaction's time, to the millisecond), dates every entry with it, signs
 * them (signing.ts), and inserts them with that same `now()` as their created_at. The time a
 * row says, in its column and in its signed entry, is the database's, never the machine's: a
 * machine whose clock is slow or fast dates its payouts in the same day and the same 24 hours
 * as the others, so they count in the daily total and the repeat guard like every other.
 */
import type { Pool } from 'pg';
import { dated } from '../entries.js';
import type { JournalEntry } from '../ledger.js';
import { hearErrors } from './connect.js';
import { claimRows, retried, type Inserted, type StoredRow, type Writer } from './rows.js';
import { DB_NOW } from './schema.js';
import { signedRow } from './signing.js';

/** What claiming one entry came to: made now (the entry as dated and stored), or the row already there (undefined when it is gone), to be verified before use. */
export type Claimed = { inserted: true; entry: JournalEntry } | { inserted: false; existing: StoredRow | undefined };

/** Tries of a transaction that a deadlock or a serialization failure rolled back (as a statement's: rows.ts). */
const ATTEMPTS = 3;

/**
 * `entries` (each (base, payout id) once) claimed where their payout id has no row, in one
 * transaction dated by the database; for those that have one, the row. `clock` is told the
 * database's time the transaction read (PostgresLedger keeps how far it is from this machine's).
 */
export async function claimEntries(pool: Pool, entries: JournalEntry[], writer: Writer, clock: (dbNow: Date) => void): Promise<Claimed[]> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    const heard = hearErrors(client, (err) => (broken = err));
    try {
      // One round trip: the transaction begun and its time read (a simple query of two statements).
      const begun = (await client.query(`BEGIN; SELECT ${DB_NOW} AS now`)) as unknown as Array<{ rows: Array<{ now: Date }> }>;
      const now = begun[1]!.rows[0]!.now;
      clock(now);
      const at = now.toISOString();
      const stored = entries.map((e) => dated(e, at));
      const results: Inserted[] = await claimRows(
        client,
        stored.map((e) => signedRow(e, writer.host, writer.signer)),
        writer,
      );
      await client.query('COMMIT');
      return results.map((r, i) => (r.inserted ? { inserted: true, entry: stored[i]! } : r));
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => (broken ??= e));
      if (attempt < ATTEMPTS && retried(err)) continue;
      throw err;
    } finally {
      heard();
      client.release(broken);
    }
  }
}
