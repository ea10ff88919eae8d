/**
 * The PostgreSQL ledger's schema, owned by payctl (docs/architecture.md, "The ledger"): numbered
 * migrations, kept here as SQL, applied on first use in one transaction under an advisory lock
 * (two machines opening a new ledger at once migrate it once), and their version in
 * `payctl_schema_version`. A database a newer payctl migrated past what this one knows is refused.
 */
import type { Pool, PoolClient } from 'pg';
import { ConfigError } from '../../../errors.js';
import { hearErrors } from './connect.js';
import { entryZeroKey } from '../../sent-body.js';

/**
 * The database's clock to the millisecond (a JavaScript date's precision, so that an entry's
 * createdAt says it exactly): constant through a transaction, so the time a claim read and dated
 * its entries with is the time its insert writes (claims.ts).
 */
export const DB_NOW = "date_trunc('milliseconds', now())";

/** The entries table: one row per (normalized base URL, payout id). */
export const ENTRIES = 'payctl_ledger_entries';
export const VERSION_TABLE = 'payctl_schema_version';
/** Plans kept by hash, and their approvals (plans.ts). */
export const PLANS = 'payctl_plans';
export const PLAN_APPROVALS = 'payctl_plan_approvals';
/** The team's policy: its versions and proposals, and their approvals (policies.ts). */
export const POLICIES = 'payctl_policies';
export const POLICY_APPROVALS = 'payctl_policy_approvals';

/**
 * Migration 2: plans by hash (README "Working as a team"). `content` is the plan's content as
 * canonical JSON, exactly what `hash` covers (plans/plan.ts); the maker's columns are copied
 * from it for people reading the table. An approval is one row per plan and approver key,
 * `signed_at` the very text the signature covers.
 */
const PLANS_MIGRATION = `CREATE TABLE ${PLANS} (
  hash text PRIMARY KEY,
  content text NOT NULL,
  maker_name text NOT NULL,
  maker_fingerprint text NOT NULL,
  maker_signature text NOT NULL,
  created_at timestamptz NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now(),
  host text
);
CREATE TABLE ${PLAN_APPROVALS} (
  plan_hash text NOT NULL REFERENCES ${PLANS} (hash),
  fingerprint text NOT NULL,
  name text NOT NULL,
  public_key text NOT NULL,
  signed_at text NOT NULL,
  signature text NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now(),
  host text,
  PRIMARY KEY (plan_hash, fingerprint)
);`;

/**
 * Migration 3: the team's policy (README "Working as a team"). One row per proposal, named by
 * the hash of its content (canonical JSON) and the adopted version it changes (`base_version`,
 * 0 for the first); `version` and `adopted_at` are set when it is adopted (base_version + 1, one
 * row per version). The proposer's signature covers the hash, the base version, their name, key
 * and `proposed_at` (the very text signed). An approval is one row per proposal and approver key.
 */
const POLICIES_MIGRATION = `CREATE TABLE ${POLICIES} (
  hash text NOT NULL,
  base_version integer NOT NULL CHECK (base_version >= 0),
  content text NOT NULL,
  proposer_name text NOT NULL,
  proposer_public_key text NOT NULL,
  proposer_fingerprint text NOT NULL,
  proposed_at text NOT NULL,
  signature text NOT NULL,
  version integer UNIQUE,
  adopted_at timestamptz,
  stored_at timestamptz NOT NULL DEFAULT now(),
  host text,
  PRIMARY KEY (hash, base_version),
  CHECK ((version IS NULL) = (adopted_at IS NULL))
);
CREATE TABLE ${POLICY_APPROVALS} (
  policy_hash text NOT NULL,
  base_version integer NOT NULL,
  fingerprint text NOT NULL,
  name text NOT NULL,
  public_key text NOT NULL,
  signed_at text NOT NULL,
  signature text NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now(),
  host text,
  PRIMARY KEY (policy_hash, base_version, fingerprint),
  FOREIGN KEY (policy_hash, base_version) REFERENCES ${POLICIES} (hash, base_version)
);`;

/**
 * Migration 4: rows dated by the database (README "Working as a team"). No table changes: a
 * claim's created_at, and the createdAt of the entry it signs, are now the database's `now()`
 * in the claim's transaction (claims.ts), where a payctl of schema 3 wrote its machine's clock;
 * and every read checks created_at against the signed entry. The version is what keeps such a
 * payctl from writing rows dated by a wrong clock once one machine has upgraded: it refuses a
 * newer schema ("upgrade payctl on this machine"). Rows it wrote stay valid (their created_at is
 * their entry's). The column's comment says what it holds, for whoever reads the table.
 */
const DATED_BY_DATABASE_MIGRATION = `COMMENT ON COLUMN ${ENTRIES}.created_at IS 'When the payout was claimed, by the database''s clock: now() of the claim''s transaction, to the millisecond, the very time its signed entry says (createdAt). An imported entry keeps its own time; rows written before schema 4 have their machine''s. A row whose created_at differs from its entry does not verify.';`;

/**
 * Migration 5: rows found by zero key (identity.ts zeroKey: the repeat key with an all-digit
 * account's leading zeros dropped), the one key a payout typed again is looked up by whatever
 * zeros either copy kept, where each look-up asked for ~50 repeat keys before. Every row written
 * since has it (rows.ts rowOf); the rows already there are given theirs from their entries by
 * fillZeroKeys in the same transaction. The version keeps an older payctl, which would write rows
 * without it, from writing to the ledger.
 */
const ZERO_KEY_MIGRATION = `ALTER TABLE ${ENTRIES} ADD COLUMN zero_key text;
CREATE INDEX ${ENTRIES}_zero_key ON ${ENTRIES} (base, zero_key) WHERE zero_key IS NOT NULL;`;

/** Rows given their zero key at a time (fillZeroKeys). */
const FILL_PAGE = 2000;

/**
 * The zero key of every row written before migration 5, made from its entry (sent-body.ts
 * entryZeroKey): read a page at a time in key order, written back in one statement a page. A row
 * whose entry cannot be read keeps none (a look-up by zero key cannot find it; reading it fails
 * as before).
 */
async function fillZeroKeys(client: PoolClient): Promise<void> {
  let after: [string, string] | undefined;
  for (;;) {
    const { rows } = await client.query<{ base: string; payout_id: string; entry: string }>(
      after
        ? `SELECT base, payout_id, entry FROM ${ENTRIES} WHERE (base, payout_id) > ($1, $2) ORDER BY base, payout_id LIMIT ${FILL_PAGE}`
        : `SELECT base, payout_id, entry FROM ${ENTRIES} ORDER BY base, payout_id LIMIT ${FILL_PAGE}`,
      after ?? [],
    );
    if (!rows.length) return;
    const keyed = rows.flatMap((r) => {
      let key: string | undefined;
      try {
        const e = JSON.parse(r.entry) as { zeroKey?: unknown; body?: unknown };
        key = typeof e.body === 'string' ? entryZeroKey({ zeroKey: typeof e.zeroKey === 'string' ? e.zeroKey : undefined, body: e.body }) : undefined;
      } catch {
        key = undefined;
      }
      return key ? [{ base: r.base, id: r.payout_id, key }] : [];
    });
    if (keyed.length)
      await client.query(
        `UPDATE ${ENTRIES} AS e SET zero_key = t.key FROM unnest($1::text[], $2::text[], $3::text[]) AS t(base, payout_id, key) WHERE e.base = t.base AND e.payout_id = t.payout_id`,
        [keyed.map((k) => k.base), keyed.map((k) => k.id), keyed.map((k) => k.key)],
      );
    const last = rows.at(-1)!;
    after = [last.base, last.payout_id];
  }
}

/** What a migration does besides its SQL, after it (by migration number). */
const AFTER: Readonly<Record<number, (client: PoolClient) => Promise<void>>> = { 5: fillZeroKeys };

/**
 * Migration n is MIGRATIONS[n - 1]. Never edit one that was released: add the next.
 *
 * 1: the entries. `entry` is the JournalEntry as JSON text, exactly as the ledger returns it
 * (text, not jsonb: the body comes back byte for byte); the other columns are copied from it
 * for look-ups (the key, the outcome's kind and transaction id, the time) and say who wrote it
 * (profile, host). `signer` and `signature` are room for signed rows.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE ${ENTRIES} (
  base text NOT NULL,
  payout_id text NOT NULL,
  idempotency_key text NOT NULL,
  entry text NOT NULL,
  fingerprint text,
  repeat_key text,
  outcome text,
  transaction_id text,
  created_at timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  profile text,
  host text,
  signer text,
  signature text,
  PRIMARY KEY (base, payout_id)
);
CREATE INDEX ${ENTRIES}_fingerprint ON ${ENTRIES} (base, fingerprint) WHERE fingerprint IS NOT NULL;
CREATE INDEX ${ENTRIES}_repeat_key ON ${ENTRIES} (base, repeat_key) WHERE repeat_key IS NOT NULL;
CREATE INDEX ${ENTRIES}_transaction_id ON ${ENTRIES} (base, transaction_id) WHERE transaction_id IS NOT NULL;`,
  PLANS_MIGRATION,
  POLICIES_MIGRATION,
  DATED_BY_DATABASE_MIGRATION,
  ZERO_KEY_MIGRATION,
];

/** The schema version this payctl makes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The advisory lock migrations are applied under (the two-key form: apart from the wallets' one-key locks). */
const MIGRATION_LOCK = [0x70617963, 1] as const; // 'payc'

/**
 * The schema made current: nothing to do when it is (one read), else the migrations this
 * database lacks, applied in one transaction under the migration lock. Returns the version.
 * Throws ConfigError when the database's schema is newer than this payctl's; a failure of the
 * database itself is thrown as it came (the caller says it).
 */
export async function migrate(pool: Pool, masked: string): Promise<{ version: number; dbNow: Date }> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const heard = hearErrors(client);
  try {
    const seen = await currentVersion(client);
    if (seen !== undefined) refuseNewer(seen.version, masked);
    if (seen?.version === SCHEMA_VERSION) return seen;
    await client.query('BEGIN');
    let dbNow: Date;
    try {
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [...MIGRATION_LOCK]);
      await client.query(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      // Read again under the lock: another machine may have migrated meanwhile.
      const now = (await currentVersion(client))!;
      dbNow = now.dbNow;
      refuseNewer(now.version, masked);
      for (let v = now.version + 1; v <= SCHEMA_VERSION; v++) {
        await client.query(MIGRATIONS[v - 1]!);
        await AFTER[v]?.(client);
        await client.query(`INSERT INTO ${VERSION_TABLE} (version) VALUES ($1)`, [v]);
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
    return { version: SCHEMA_VERSION, dbNow };
  } catch (err) {
    if (!(err instanceof ConfigError)) broken = err as Error;
    throw err;
  } finally {
    heard();
    client.release(broken);
  }
}

/**
 * The database's schema version (0: none yet), and its clock read in the same statement (the
 * store measures how far this machine's is from it: store.ts clockSkew); undefined when it has
 * no version table yet.
 */
async function currentVersion(client: PoolClient): Promise<{ version: number; dbNow: Date } | undefined> {
  try {
    const { rows } = await client.query<{ v: number | null; now: Date }>(`SELECT max(version) AS v, ${DB_NOW} AS now FROM ${VERSION_TABLE}`);
    return { version: rows[0]?.v ?? 0, dbNow: rows[0]!.now };
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return undefined; // undefined_table
    throw err;
  }
}

function refuseNewer(version: number, masked: string): void {
  if (version <= SCHEMA_VERSION) return;
  throw new ConfigError(
    `The payout ledger ${masked} has schema version ${version}, and this payctl knows versions up to ${SCHEMA_VERSION}: a newer payctl set it up. Nothing was sent.`,
    'Upgrade payctl on this machine: every machine sharing a ledger needs a payctl that knows its schema.',
  );
}
