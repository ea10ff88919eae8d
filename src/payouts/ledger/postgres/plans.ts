/**
 * The plans of a team's PostgreSQL ledger (README "Working as a team"; schema.ts, migration 2):
 * a plan stored once by its hash when it is made, found by hash or a prefix of it from any
 * machine, and its approvals, one row per plan and approver key. What a row says is checked by
 * whoever reads it, as a plan file is (plans/plan.ts: the hash against the content, the maker's
 * signature; plans/approvals.ts: each approval's signature): the table is a place to find a plan,
 * never a reason to trust one. Its stored_at, the database's clock when plan create stored it,
 * only ever moves "after the plan was made" earlier than the plan's own time says (plan/source.ts
 * madeAt): a maker's clock set ahead cannot hide a payout paid after the plan.
 */
import type { Pool } from 'pg';
import type { Approval } from '../../../plans/signatures.js';
import type { PlanStore, StoredPlan } from '../ledger.js';
import { PLAN_APPROVALS, PLANS } from './schema.js';

/** What a failed statement becomes: the ledger's error, naming it (masked). */
export type Fault = (err: unknown, doing: string) => Error;

export class PostgresPlans implements PlanStore {
  readonly #pool: Pool;
  readonly #fault: Fault;
  readonly #host: string | null;

  constructor(pool: Pool, fault: Fault, host: string | null) {
    this.#pool = pool;
    this.#fault = fault;
    this.#host = host;
  }

  async #query<R extends object>(doing: string, sql: string, params: unknown[]): Promise<R[]> {
    try {
      return (await this.#pool.query<R & Record<string, unknown>>(sql, params)).rows;
    } catch (err) {
      throw this.#fault(err, doing);
    }
  }

  async put(plan: Parameters<PlanStore['put']>[0]): Promise<boolean> {
    const rows = await this.#query<{ hash: string }>(
      'store the plan in',
      `INSERT INTO ${PLANS} (hash, content, maker_name, maker_fingerprint, maker_signature, created_at, host)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (hash) DO NOTHING RETURNING hash`,
      [plan.hash, plan.content, plan.maker.name, plan.maker.fingerprint, plan.makerSignature, plan.createdAt, this.#host],
    );
    return rows.length === 1;
  }

  async matching(prefix: string, limit: number): Promise<string[]> {
    const rows = await this.#query<{ hash: string }>('read the plans of', `SELECT hash FROM ${PLANS} WHERE left(hash, length($1)) = $1 ORDER BY hash LIMIT $2`, [
      prefix,
      limit,
    ]);
    return rows.map((r) => r.hash);
  }

  async get(hash: string): Promise<StoredPlan | undefined> {
    // stored_at is the database's now() when plan create stored it (its column's default), to the millisecond as entries are dated.
    const plans = await this.#query<{ content: string; maker_signature: string; stored_at: string }>(
      'read the plans of',
      `SELECT content, maker_signature, to_char(stored_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS stored_at FROM ${PLANS} WHERE hash = $1`,
      [hash],
    );
    if (!plans[0]) return undefined;
    const approvals = await this.#query<Approval>(
      'read the plans of',
      `SELECT name, public_key, fingerprint, signed_at, signature FROM ${PLAN_APPROVALS} WHERE plan_hash = $1 ORDER BY stored_at, fingerprint`,
      [hash],
    );
    return {
      hash,
      content: plans[0].content,
      makerSignature: plans[0].maker_signature,
      storedAt: plans[0].stored_at,
      approvals: approvals.map((a) => ({ name: a.name, public_key: a.public_key, fingerprint: a.fingerprint, signed_at: a.signed_at, signature: a.signature })),
    };
  }

  async approve(hash: string, a: Approval): Promise<boolean> {
    const rows = await this.#query<{ fingerprint: string }>(
      'store the approval in',
      `INSERT INTO ${PLAN_APPROVALS} (plan_hash, fingerprint, name, public_key, signed_at, signature, host)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (plan_hash, fingerprint) DO NOTHING RETURNING fingerprint`,
      [hash, a.fingerprint, a.name, a.public_key, a.signed_at, a.signature, this.#host],
    );
    return rows.length === 1;
  }
}
