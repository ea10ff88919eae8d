/**
 * The plans of a team's PostgreSQL ledger (README "Working as a team"; schema.ts, migration 2):
 * a plan stored once by its hash when it is made, found by hash or a prefix of it from any
 * machine, and its approvals, one row per plan and approver key. What a row says is checked by
 * whoever reads it, as a plan file is (plans/plan.ts: the hash against the content, the maker's
 * signature; plans/approvals.ts: each approval's signature): the table is a place to find a plan,
 * never a reason to trust one. An approval row that does not hold is nobody's: its key's owner
 * approving stores theirs in its place (approve), and a row that holds is never replaced. Its
 * stored_at, the database's clock when plan create stored it, dates "after the plan was made"
 * when it is earlier than the plan's own time (a maker's clock set ahead cannot hide a payout
 * paid after the plan) or more than 5 minutes later (a maker's clock that was behind):
 * plan/source.ts madeAt.
 */
import type { Pool } from 'pg';
import { approvalHolds, type Approval } from '../../../plans/signatures.js';
import type { PlanStore, StoredPlan } from '../ledger.js';
import { PLAN_APPROVALS, PLANS } from './schema.js';

/** How many times an approval is tried against a row of its key that keeps changing (someone writing it outside payctl). */
const REPLACE_TRIES = 5;

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

  /**
   * A new row; or, when this key's row is there and does not hold (approvalHolds: written or
   * changed outside payctl, a garbage signature under a listed approver's public fingerprint),
   * the approval in its place, if it holds itself. A row that holds is never replaced: false.
   * Read, judged, then replaced by one UPDATE that matches only the very row judged (all its
   * columns), so the check and the replacement are one: two stores racing (one person in two
   * terminals) leave one approval that holds, and the second is told it is there (false).
   * Approvers with other keys write other rows and never meet.
   */
  async approve(hash: string, a: Approval): Promise<boolean> {
    for (let tries = 0; tries < REPLACE_TRIES; tries++) {
      const inserted = await this.#query<{ fingerprint: string }>(
        'store the approval in',
        `INSERT INTO ${PLAN_APPROVALS} (plan_hash, fingerprint, name, public_key, signed_at, signature, host)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (plan_hash, fingerprint) DO NOTHING RETURNING fingerprint`,
        [hash, a.fingerprint, a.name, a.public_key, a.signed_at, a.signature, this.#host],
      );
      if (inserted.length === 1) return true;
      const [stored] = await this.#query<Approval>(
        'read the plans of',
        `SELECT name, public_key, fingerprint, signed_at, signature FROM ${PLAN_APPROVALS} WHERE plan_hash = $1 AND fingerprint = $2`,
        [hash, a.fingerprint],
      );
      if (!stored) continue; // taken out meanwhile: stored anew
      if (approvalHolds(hash, stored) || !approvalHolds(hash, a)) return false;
      const replaced = await this.#query<{ fingerprint: string }>(
        'store the approval in',
        `UPDATE ${PLAN_APPROVALS} SET name = $3, public_key = $4, signed_at = $5, signature = $6, host = $7, stored_at = now()
         WHERE plan_hash = $1 AND fingerprint = $2 AND name = $8 AND public_key = $9 AND signed_at = $10 AND signature = $11 RETURNING fingerprint`,
        [hash, a.fingerprint, a.name, a.public_key, a.signed_at, a.signature, this.#host, stored.name, stored.public_key, stored.signed_at, stored.signature],
      );
      if (replaced.length === 1) return true;
    }
    throw this.#fault(new Error(`the approval row of ${a.fingerprint} kept changing under payctl`), 'store the approval in');
  }
}
