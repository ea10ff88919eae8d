/**
 * The team's policy in a team's PostgreSQL ledger (README "Working as a team"; schema.ts,
 * migration 3): its versions and the proposals to change it, each stored once by its hash and the
 * version it changes, with their approvals, one row per proposal and approver key. A change
 * (a proposal, an approval, an adoption) is one transaction under an advisory lock every machine
 * takes for it, so two machines never adopt two versions of one number, and what decides it
 * (plans/team-policy.ts, through the caller) reads the rows as they are under that lock. What a
 * row says is checked by whoever reads it: the table is a place to find the policy, never a
 * reason to trust it. An approval row that does not hold (written outside payctl) is nobody's:
 * its key's owner approving stores theirs in its place (the row judged, matched by all its
 * columns, as the table keeps one row per proposal and fingerprint); one that holds is never
 * replaced (the caller judges, under the lock).
 */
import type { Pool, PoolClient } from 'pg';
import { CliError } from '../../../errors.js';
import type { Approval } from '../../../plans/signatures.js';
import type { PolicyStore, PolicyWrite, StoredPolicy } from '../ledger.js';
import type { Fault } from './plans.js';
import { POLICIES, POLICY_APPROVALS } from './schema.js';
import { hearErrors } from './connect.js';

/** The advisory lock a change of the team's policy is made under (the two-key form, apart from the wallets' and the migrations'). */
const POLICY_LOCK = [0x70617963, 3] as const; // 'payc'

const ROWS = `SELECT hash, base_version, content, proposer_name, proposer_public_key, proposer_fingerprint, proposed_at, signature, version,
  to_char(adopted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS adopted_at
  FROM ${POLICIES} ORDER BY version NULLS LAST, stored_at, hash`;
const APPROVALS = `SELECT policy_hash, base_version, name, public_key, fingerprint, signed_at, signature FROM ${POLICY_APPROVALS} ORDER BY stored_at, fingerprint`;

interface PolicyRowRead {
  hash: string;
  base_version: number;
  content: string;
  proposer_name: string;
  proposer_public_key: string;
  proposer_fingerprint: string;
  proposed_at: string;
  signature: string;
  version: number | null;
  adopted_at: string | null;
}

type ApprovalRead = Approval & { policy_hash: string; base_version: number };

type Queryable = Pick<Pool | PoolClient, 'query'>;

export class PostgresPolicies implements PolicyStore {
  readonly #pool: Pool;
  readonly #fault: Fault;
  readonly #host: string | null;

  constructor(pool: Pool, fault: Fault, host: string | null) {
    this.#pool = pool;
    this.#fault = fault;
    this.#host = host;
  }

  async all(): Promise<StoredPolicy[]> {
    try {
      return await readAll(this.#pool);
    } catch (err) {
      throw this.#fault(err, "read the team's policy in");
    }
  }

  async change<T>(decide: (rows: StoredPolicy[]) => { writes: PolicyWrite[]; result: T }): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw this.#fault(err, "change the team's policy in");
    }
    let broken: Error | undefined;
    const heard = hearErrors(client);
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [...POLICY_LOCK]);
      const { writes, result } = decide(await readAll(client));
      for (const w of writes) await this.#write(client, w);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      // A decision's refusal is payctl's own error, as it came; the database's is the ledger's.
      if (err instanceof CliError) throw err;
      throw this.#fault(err, "change the team's policy in");
    } finally {
      heard();
      client.release(broken);
    }
  }

  async #write(client: PoolClient, w: PolicyWrite): Promise<void> {
    if (w.kind === 'propose') {
      const r = w.row;
      await client.query(
        `INSERT INTO ${POLICIES} (hash, base_version, content, proposer_name, proposer_public_key, proposer_fingerprint, proposed_at, signature, version, adopted_at, host)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $9::integer IS NULL THEN NULL ELSE now() END, $10)`,
        [r.hash, r.baseVersion, r.content, r.proposer.name, r.proposer.public_key, r.proposer.fingerprint, r.proposedAt, r.signature, r.version, this.#host],
      );
    } else if (w.kind === 'approve') {
      await this.#approve(client, w);
    } else {
      const done = await client.query(`UPDATE ${POLICIES} SET version = $3, adopted_at = now() WHERE hash = $1 AND base_version = $2 AND version IS NULL`, [
        w.hash,
        w.baseVersion,
        w.version,
      ]);
      if (done.rowCount !== 1) throw new Error(`the proposal ${w.hash} was not found to adopt`);
    }
  }

  /** A new approval row, or (w.replaces) the one judged not to hold, replaced only when it is still as judged. */
  async #approve(client: PoolClient, w: Extract<PolicyWrite, { kind: 'approve' }>): Promise<void> {
    const a = w.approval;
    const values = [w.hash, w.baseVersion, a.fingerprint, a.name, a.public_key, a.signed_at, a.signature, this.#host];
    if (!w.replaces) {
      await client.query(
        `INSERT INTO ${POLICY_APPROVALS} (policy_hash, base_version, fingerprint, name, public_key, signed_at, signature, host) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        values,
      );
      return;
    }
    const r = w.replaces;
    const done = await client.query(
      `UPDATE ${POLICY_APPROVALS} SET name = $4, public_key = $5, signed_at = $6, signature = $7, host = $8, stored_at = now()
       WHERE policy_hash = $1 AND base_version = $2 AND fingerprint = $3 AND name = $9 AND public_key = $10 AND signed_at = $11 AND signature = $12`,
      [...values, r.name, r.public_key, r.signed_at, r.signature],
    );
    if (done.rowCount !== 1) throw new Error(`the approval row of ${a.fingerprint} changed under payctl`);
  }
}

/** Every row with its approvals. */
async function readAll(db: Queryable): Promise<StoredPolicy[]> {
  const rows = (await db.query<PolicyRowRead>(ROWS)).rows;
  const approvals = (await db.query<ApprovalRead>(APPROVALS)).rows;
  return rows.map((r) => ({
    hash: r.hash,
    content: r.content,
    baseVersion: r.base_version,
    version: r.version,
    proposer: { name: r.proposer_name, public_key: r.proposer_public_key, fingerprint: r.proposer_fingerprint },
    proposedAt: r.proposed_at,
    signature: r.signature,
    adoptedAt: r.adopted_at,
    approvals: approvals
      .filter((a) => a.policy_hash === r.hash && a.base_version === r.base_version)
      .map((a) => ({ name: a.name, public_key: a.public_key, fingerprint: a.fingerprint, signed_at: a.signed_at, signature: a.signature })),
  }));
}
