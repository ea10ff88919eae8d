/**
 * What a shared ledger keeps for a team besides its entries (ledger.ts Ledger.plans and
 * Ledger.policies): four-eyes plans with their approvals, and the team's spending policy with its
 * versions and proposals. Only the shapes: postgres/plans.ts and postgres/policies.ts hold the SQL.
 */
import type { Approval } from '../../plans/signatures.js';

/** A plan as a shared ledger keeps it: what its hash covers, the maker's signature, and its approvals. */
export interface StoredPlan {
  /** `sha256:<hex>`, as plans/plan.ts computes it. */
  hash: string;
  /** The plan's content (everything its hash covers) as canonical JSON (plans/canonical.ts). */
  content: string;
  makerSignature: string;
  /**
   * When the ledger stored it (plan create), by the database's clock (ISO, to the millisecond):
   * "after the plan was made" goes by the earlier of this and the plan's own time, its maker's
   * clock, or by this alone when that clock was behind (plan/source.ts madeAt).
   */
  storedAt: string;
  /** Oldest first. Each is checked where it counts (plans/approvals.ts), as a plan file's are. */
  approvals: Approval[];
}

/**
 * The plans of a shared ledger (README "Working as a team"). A plan is stored once, by hash;
 * an approval once per plan and approver key. Reads and writes fail as the ledger's do (a
 * ConfigError naming it, masked).
 */
export interface PlanStore {
  /** Stores a plan just made; false when a plan of that hash is there already. */
  put(plan: { hash: string; content: string; makerSignature: string; maker: { name: string; fingerprint: string }; createdAt: string }): Promise<boolean>;
  /** The hashes of stored plans that start with `prefix` (`sha256:` and hex digits), at most `limit`, in order. */
  matching(prefix: string, limit: number): Promise<string[]>;
  /** The plan of this hash with its approvals; undefined when none is stored. */
  get(hash: string): Promise<StoredPlan | undefined>;
  /**
   * Stores an approval of the plan of this hash; false when this key's approval of it is there
   * already. One there that does not hold (signatures.ts approvalHolds) is replaced by this one.
   */
  approve(hash: string, approval: Approval): Promise<boolean>;
}

/**
 * A version of the team's policy, or a proposal to change it, as a shared ledger keeps it: what
 * its hash covers, who proposed it (signed), and its approvals. A proposal is named by its hash
 * and the version it changes; it is adopted as the next version or never.
 */
export interface StoredPolicy {
  /** `sha256:<hex>` of `content`. */
  hash: string;
  /** The policy as canonical JSON (plans/canonical.ts): exactly what `hash` covers. */
  content: string;
  /** The adopted version it was proposed to change; 0 when there was none. */
  baseVersion: number;
  /** Its version once adopted (baseVersion + 1); null while it is a proposal. */
  version: number | null;
  proposer: { name: string; public_key: string; fingerprint: string };
  /** The very text the proposer's signature covers (ISO time). */
  proposedAt: string;
  /** The proposer's Ed25519 signature (plans/team-policy.ts proposalMessage), base64. */
  signature: string;
  /** When it was adopted (the database's clock, ISO); null while it is a proposal. */
  adoptedAt: string | null;
  /** Oldest first; each signed over the hash and the version it changes. */
  approvals: Approval[];
}

/** What one change of the team's policy writes (PolicyStore.change). */
export type PolicyWrite =
  | { kind: 'propose'; row: Omit<StoredPolicy, 'approvals' | 'adoptedAt'> }
  /** `replaces`: the stored row under the same fingerprint that does not hold, which this one takes the place of. */
  | { kind: 'approve'; hash: string; baseVersion: number; approval: Approval; replaces?: Approval }
  | { kind: 'adopt'; hash: string; baseVersion: number; version: number };

/**
 * The team's policy in a shared ledger (README "Working as a team"). Rows are only a place to
 * find a policy: whoever reads them checks them (plans/team-policy.ts). Reads and writes fail
 * as the ledger's do (a ConfigError naming it, masked).
 */
export interface PolicyStore {
  /** Every version and proposal with its approvals: adopted ones by version, then proposals oldest first. */
  all(): Promise<StoredPolicy[]>;
  /**
   * One change in one transaction, under a lock every machine takes for it: `decide` is given
   * every row as stored now and returns what to write and its answer; when it throws, nothing
   * is written.
   */
  change<T>(decide: (rows: StoredPolicy[]) => { writes: PolicyWrite[]; result: T }): Promise<T>;
}
