/**
 * A journal entry as a row of the PostgreSQL ledger, and back (docs/architecture.md, "The
 * ledger"): the entry's JSON text as it is (its body byte for byte), the columns look-ups use
 * copied from it, and the statements that write rows, many at once: a batch's claims of the
 * same moment are one statement (groups.ts), an import's too (import.ts). Each row is signed by
 * whoever writes it (signing.ts): the statements take its signature with the other columns, and
 * the writer's host and public key once for all of them.
 */
import type { Pool } from 'pg';
import { ConfigError } from '../../../errors.js';
import { journalBase } from '../base-url.js';
import type { JournalEntry } from '../ledger.js';
import { DB_NOW, ENTRIES } from './schema.js';
import type { RowSigner } from './signing.js';
import { isKeyId } from '../../../config/key-id.js';
import { entryZeroKey } from '../../sent-body.js';

/** The columns of a row, in the order of the statements below. */
export type RowValues = [
  base: string,
  payoutId: string,
  idempotencyKey: string,
  entry: string,
  fingerprint: string | null,
  repeatKey: string | null,
  outcome: string | null,
  transactionId: string | null,
  createdAt: string | null,
  profile: string | null,
  /** Over signing.ts rowMessage; null until signing.ts signedRow signs it. */
  signature: string | null,
  /** The entry's zero key (sent-body.ts entryZeroKey): a look-up column like the others, not signed, checked by every look-up by it. */
  zeroKey: string | null,
];

/** A row as it is read, every column the check needs (NULL where the database holds none). */
export interface StoredRow {
  base: string;
  payout_id: string;
  entry: string;
  idempotency_key: string | null;
  fingerprint: string | null;
  repeat_key: string | null;
  /** Made from the entry (its zeroKey, or its body for an entry journaled before zero keys): never trusted alone (store.ts find). */
  zero_key: string | null;
  outcome: string | null;
  transaction_id: string | null;
  /** When the row was made (a claim: the database's clock; an import: the entry's own time), as the client reads a timestamptz. */
  created_at: Date | string | null;
  profile: string | null;
  host: string | null;
  signer: string | null;
  signature: string | null;
}

/** The columns every read selects: a StoredRow. */
export const ROW_COLUMNS =
  'base, payout_id, entry, idempotency_key, fingerprint, repeat_key, zero_key, outcome, transaction_id, created_at, profile, host, signer, signature';

/** The columns copied from an entry for look-ups (and checked against it when a row is read: signing.ts). */
export function copiedColumns(e: JournalEntry): Pick<StoredRow, 'base' | 'idempotency_key' | 'fingerprint' | 'repeat_key' | 'outcome' | 'transaction_id'> {
  const o = e.outcome;
  return {
    base: journalBase(e.baseUrl),
    idempotency_key: e.idempotencyKey,
    fingerprint: e.fingerprint ?? null,
    repeat_key: e.repeatKey ?? null,
    outcome: o?.kind ?? null,
    transaction_id: (o?.kind === 'accepted' && o.transactionId) || null,
  };
}

/**
 * Whether a row's created_at is its entry's createdAt (checked when a row is read: signing.ts):
 * the column the daily total and the 24-hour windows find rows by is a copy of the signed entry's
 * time, so one moved in the database is caught as a changed look-up column. An entry whose time
 * is not a time (none payctl writes) was dated by the database when written (rowOf): nothing to
 * compare.
 */
export function sameCreatedAt(e: JournalEntry, column: StoredRow['created_at']): boolean {
  const t = Date.parse(e.createdAt);
  if (!Number.isFinite(t)) return true;
  const c = column instanceof Date ? column.getTime() : typeof column === 'string' ? Date.parse(column) : NaN;
  return c === t;
}

/** The row of an entry, not yet signed: its key (the base URL normalized, the payout id), its JSON text, and the columns copied from it. */
export function rowOf(e: JournalEntry): RowValues {
  const c = copiedColumns(e);
  const created = Date.parse(e.createdAt);
  return [
    c.base,
    e.payoutId,
    e.idempotencyKey,
    JSON.stringify(e),
    c.fingerprint,
    c.repeat_key,
    c.outcome,
    c.transaction_id,
    Number.isFinite(created) ? new Date(created).toISOString() : null,
    e.profile ?? null,
    null,
    entryZeroKey(e) ?? null,
  ];
}

/**
 * The entry a row holds; a ConfigError when its text is not an entry of that payout (damaged,
 * or written by something other than payctl): where one is asked for, that rejects; in a
 * listing it comes as the item's error.
 */
export function entryOfRow(text: string, payoutId: string, masked: string): JournalEntry {
  let e: JournalEntry;
  try {
    e = JSON.parse(text) as JournalEntry;
  } catch (err) {
    throw new ConfigError(`The entry of payout ${payoutId} in the ledger ${masked} is not JSON (${(err as Error).message}): it was not written by payctl.`);
  }
  if (
    !e ||
    typeof e !== 'object' ||
    e.payoutId !== payoutId ||
    typeof e.baseUrl !== 'string' ||
    typeof e.idempotencyKey !== 'string' ||
    typeof e.body !== 'string' ||
    typeof e.createdAt !== 'string' ||
    // The id of the key that sent it decides who may resend it (sender-profile.ts): never guessed at.
    (e.keyId !== undefined && !isKeyId(e.keyId))
  ) {
    throw new ConfigError(`The entry of payout ${payoutId} in the ledger ${masked} is not a payout journal entry: it was not written by payctl.`);
  }
  return e;
}

/** What can run a statement: the pool (any of its connections), or one connection (a transaction's). */
export type Queryable = Pick<Pool, 'query'>;

/** What inserting one entry came to: made now, or the row already there (undefined when it is gone), to be verified before use. */
export type Inserted = { inserted: true } | { inserted: false; existing: StoredRow | undefined };

/** Who writes the rows of a statement: this machine's name and the key that signed them (signing.ts signedRow). */
export interface Writer {
  host: string | null;
  signer: RowSigner;
}

/**
 * Entries inserted where their (base, payout id) has no row, in one statement; for those that
 * have one, the row's entry text, read after (one more statement, only then). Each (base,
 * payout id) must appear once.
 */
export async function insertRows(pool: Queryable, rows: RowValues[], writer: Writer): Promise<Inserted[]> {
  return insertedOr(pool, rows, await manyRows(pool, 'payctl_insert_rows', INSERT_ROWS, rows, writer));
}

/**
 * Claims (claims.ts): as insertRows, on one connection in its transaction, each row's created_at
 * the transaction's `now()` to the millisecond (what the claim dated its entries with before
 * signing them), not its entry's. Tried once: the transaction is what is tried again.
 */
export async function claimRows(client: Queryable, rows: RowValues[], writer: Writer): Promise<Inserted[]> {
  return insertedOr(client, rows, await manyRows(client, 'payctl_claim_rows', CLAIM_ROWS, rows, writer, 1));
}

/** For each row, made (its key in `made`), or the row already there: read in one statement, only for those. */
async function insertedOr(db: Queryable, rows: RowValues[], made: Set<string>): Promise<Inserted[]> {
  const others = rows.filter((r) => !made.has(keyOf(r)));
  const existing = new Map<string, StoredRow>();
  if (others.length) {
    const { rows: found } = await db.query<StoredRow>({
      name: 'payctl_read_rows',
      text: READ_ROWS,
      values: [others.map((r) => r[0]), others.map((r) => r[1])],
    });
    for (const f of found) existing.set(`${f.base}\n${f.payout_id}`, f);
  }
  return rows.map((r) => (made.has(keyOf(r)) ? { inserted: true } : { inserted: false, existing: existing.get(keyOf(r)) }));
}

/**
 * Outcomes written, in one statement: each row of (base, payout id) set to its new text (made
 * if it is gone), unless the new outcome is not accepted and the row holds an accepted one
 * under the same key (the never-weaken rule: entries.ts acceptedStands), which the row's lock
 * decides. For each, whether it was written. Each (base, payout id) must appear once.
 */
export async function writeOutcomes(pool: Pool, rows: RowValues[], writer: Writer): Promise<boolean[]> {
  const written = await manyRows(pool, 'payctl_write_outcomes', WRITE_OUTCOMES, rows, writer);
  return rows.map((r) => written.has(keyOf(r)));
}

/** A row's key, (base, payout id), as one string. */
export function keyOf(r: RowValues): string {
  return `${r[0]}\n${r[1]}`;
}

/**
 * One statement over many rows (its input `unnest`ed from one array per column): the keys of
 * the rows it returned. The rows go to the database in one order for every caller (sorted by
 * key), so that two machines' statements over the same payout ids wait for each other instead
 * of deadlocking; a deadlock or serialization failure all the same (which rolled the statement
 * back whole) is tried again. Named: parsed and planned once per connection.
 */
async function manyRows(db: Queryable, name: string, text: string, rows: RowValues[], writer: Writer, attempts = 3): Promise<Set<string>> {
  const sorted = [...rows].sort(compareKeys);
  const columns = Array.from({ length: 12 }, (_, c) => sorted.map((r) => r[c] ?? null));
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows: out } = await db.query<{ base: string; payout_id: string }>({ name, text, values: [...columns, writer.host, writer.signer.publicKey] });
      return new Set(out.map((r) => `${r.base}\n${r.payout_id}`));
    } catch (err) {
      if (attempt < attempts && retried(err)) continue;
      throw err;
    }
  }
}

/** A deadlock or a serialization failure: the statement (or transaction) was rolled back whole, and is tried again. */
export function retried(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === '40P01' || code === '40001';
}

function compareKeys(a: RowValues, b: RowValues): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/** Rows inserted from one array per column, `createdAt` the expression their created_at is (the input's column is `created_at`). */
const insertFromInput = (
  createdAt: string,
) => `INSERT INTO ${ENTRIES} AS e (base, payout_id, idempotency_key, entry, fingerprint, repeat_key, outcome, transaction_id, created_at, profile, signature, zero_key, host, signer)
SELECT base, payout_id, idempotency_key, entry, fingerprint, repeat_key, outcome, transaction_id, ${createdAt}, profile, signature, zero_key, $13, $14
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::text[], $12::text[])
  WITH ORDINALITY AS t(base, payout_id, idempotency_key, entry, fingerprint, repeat_key, outcome, transaction_id, created_at, profile, signature, zero_key, n)
ORDER BY n`;

/** Entries as they are, each dated by its own time (an import; an outcome whose row is gone): the database's clock only for one that has none. */
const INSERT_FROM_INPUT = insertFromInput('coalesce(created_at, now())');

const INSERT_ROWS = `${INSERT_FROM_INPUT}
ON CONFLICT (base, payout_id) DO NOTHING
RETURNING base, payout_id`;

/** A claim's rows: dated by the database itself, in the transaction that read the time their entries say (claims.ts). */
const CLAIM_ROWS = `${insertFromInput(DB_NOW)}
ON CONFLICT (base, payout_id) DO NOTHING
RETURNING base, payout_id`;

const READ_ROWS = `SELECT ${ROW_COLUMNS} FROM ${ENTRIES} WHERE (base, payout_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`;

const WRITE_OUTCOMES = `${INSERT_FROM_INPUT}
ON CONFLICT (base, payout_id) DO UPDATE SET
  idempotency_key = excluded.idempotency_key, entry = excluded.entry, fingerprint = excluded.fingerprint, repeat_key = excluded.repeat_key, zero_key = excluded.zero_key,
  outcome = excluded.outcome, transaction_id = excluded.transaction_id, created_at = excluded.created_at, recorded_at = now(),
  profile = excluded.profile, host = excluded.host, signer = excluded.signer, signature = excluded.signature
WHERE NOT (excluded.outcome IS DISTINCT FROM 'accepted' AND e.outcome IS NOT DISTINCT FROM 'accepted' AND e.idempotency_key = excluded.idempotency_key)
RETURNING base, payout_id`;
