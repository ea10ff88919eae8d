/**
 * The team's spending policy kept in a shared ledger (README "Working as a team": the team's
 * policy), judged here: its content and hash, the proposer's and approvers' signatures, which
 * version is in force, and what a change needs. The ledger's rows (StoredPolicy) are checked
 * whenever they are read: a hash that no longer matches its content, a signature that no longer
 * verifies, or a version adopted without the approvals the version before it asked is refused
 * (a ConfigError naming it), never used and never taken for "no policy". An approval row whose
 * signature does not hold is the one exception: anyone who can write the table can store one
 * (under a listed approver's fingerprint, or a made-up one), so it is left out (leftOut: never
 * counted, shown as left out, never a reason to refuse), and the real key's owner approving
 * stores theirs in its place (policy approve); one that holds is never replaced.
 *
 * Who may propose a change (unlistedProposer): when the policy in force lists any member, a key
 * it lists (any role); a second key of one person, not listed, would otherwise let them propose
 * and approve their own change. `policy propose` refuses such a key, `policy approve` refuses
 * such a proposal, and a version adopted from one is refused when read (teamPolicyOf).
 *
 * The approvals a change needs: as many distinct approvers of the policy in force (people it
 * lists with the role "approver", not the person who proposed the change) as the largest
 * `required` of any of its approval tiers, and at least 1 when it lists any member. The first
 * policy of a ledger (none in force) is adopted at once, and so is a change of a policy that
 * lists no members and no tiers (it guards nothing).
 */
import { createHash } from 'node:crypto';
import { ConfigError } from '../errors.js';
import type { StoredPolicy } from '../payouts/ledger/ledger.js';
import { CanonicalError, canonicalJson } from './canonical.js';
import { signText, verifyText, type SigningKey } from './keys.js';
import { examinePolicyValue, policyJsonFault, type Member, type Policy } from './policy-file.js';
import { keyTwice } from '../config/json-scan.js';
import { fingerprintHolds, type Approval } from './signatures.js';

/** A version of the team's policy in force, read and checked. */
export interface TeamPolicy {
  version: number;
  policy: Policy;
  row: StoredPolicy;
}

/** How messages name a version of the team's policy (Policy.file). */
export const teamPolicyLabel = (version: number) => `v${version} in the shared ledger`;

/** `sha256:<hex>` of a policy's canonical content. */
export function contentHash(content: string): string {
  return `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;
}

/** A policy file's text as the ledger keeps it (canonical JSON); a usage problem when it cannot be one. */
export function canonicalPolicy(text: string): { content: string } | { problem: string } {
  // A byte order mark before the JSON is passed over, as config set policy reads the file.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    const value: unknown = JSON.parse(body);
    const twice = keyTwice(body);
    if (twice) return { problem: twice };
    return { content: canonicalJson(value) };
  } catch (err) {
    if (err instanceof CanonicalError) return { problem: `${err.message}: write amounts as strings ("1000.00")` };
    return { problem: policyJsonFault(body) };
  }
}

/** What a proposer signs: the hash, the version it changes, their name, key and the time. */
export function proposalMessage(p: Pick<StoredPolicy, 'hash' | 'baseVersion' | 'proposer' | 'proposedAt'>): string {
  const { name, public_key } = p.proposer;
  return canonicalJson({ purpose: 'payctl-policy-proposal-v1', hash: p.hash, base_version: p.baseVersion, name, public_key, proposed_at: p.proposedAt });
}

/** What an approver of a change signs: its hash and the version it changes, with their name, key and the time. */
export function policyApprovalMessage(hash: string, baseVersion: number, a: Pick<Approval, 'name' | 'public_key' | 'signed_at'>): string {
  return canonicalJson({ purpose: 'payctl-policy-approval-v1', hash, base_version: baseVersion, name: a.name, public_key: a.public_key, signed_at: a.signed_at });
}

/** A proposal signed by `key`: the row to store (adopted as `version`, or null for a proposal). */
export function signedProposal(key: SigningKey, content: string, baseVersion: number, at: string, version: number | null): Omit<StoredPolicy, 'approvals' | 'adoptedAt'> {
  const row = {
    hash: contentHash(content),
    content,
    baseVersion,
    version,
    proposer: { name: key.name, public_key: key.publicKey, fingerprint: key.fingerprint },
    proposedAt: at,
  };
  return { ...row, signature: signText(key, proposalMessage(row)) };
}

/** This key's approval of the proposal (hash, base version), signed at `at`. */
export function signPolicyApproval(key: SigningKey, hash: string, baseVersion: number, at: string): Approval {
  const a = { name: key.name, public_key: key.publicKey, fingerprint: key.fingerprint, signed_at: at };
  return { ...a, signature: signText(key, policyApprovalMessage(hash, baseVersion, a)) };
}

/** Whether an approval of this proposal is signed over it by the key it names. */
export function policyApprovalHolds(row: Pick<StoredPolicy, 'hash' | 'baseVersion'>, a: Approval): boolean {
  return fingerprintHolds(a) && verifyText(a.public_key, policyApprovalMessage(row.hash, row.baseVersion, a), a.signature);
}

/** How a row is named in messages: "version 2 (sha256:…)" or "the proposal sha256:… (a change to version 1)". */
export function rowName(row: StoredPolicy): string {
  return row.version !== null ? `version ${row.version} (${row.hash})` : `the proposal ${row.hash} (a change to version ${row.baseVersion})`;
}

/**
 * Why a row cannot be used (changed outside payctl), or undefined when it checks; its policy when
 * it does. Its approvals are not judged here: one that does not hold is left out (leftOut).
 */
export function checkRow(row: StoredPolicy): { policy: Policy; problem?: undefined } | { problem: string } {
  if (contentHash(row.content) !== row.hash) return { problem: 'its content no longer matches its hash' };
  if (!fingerprintHolds(row.proposer) || !verifyText(row.proposer.public_key, proposalMessage(row), row.signature))
    return { problem: "its proposer's signature does not verify" };
  if (row.version !== null && row.version !== row.baseVersion + 1) return { problem: `it is numbered ${row.version} but changes version ${row.baseVersion}` };
  let raw: unknown;
  try {
    raw = JSON.parse(row.content);
  } catch {
    return { problem: 'its content is not JSON' };
  }
  const r = examinePolicyValue(raw, teamPolicyLabel(row.version ?? row.baseVersion + 1));
  if (!r.policy) return { problem: `its content is not a valid policy (${r.problems.join('; ')})` };
  return { policy: r.policy };
}

/** A row that cannot be used: exit 2, naming it. */
export function refusedRow(row: StoredPolicy, problem: string, after = 'Nothing was sent or changed.'): ConfigError {
  return new ConfigError(
    `The team's policy in the shared ledger cannot be used: ${rowName(row)} was changed outside payctl (${problem}). ${after}`,
    'Have whoever looks after the database restore the policy rows (payctl_policies, payctl_policy_approvals) from a backup; payctl sends nothing under a team policy it cannot check.',
  );
}

/** How many approvals a change of `current` needs (the module's opening comment). */
export function approvalsForChange(current: Policy | undefined): number {
  if (!current) return 0;
  let n = 0;
  for (const tiers of current.approvals.values()) for (const t of tiers) n = Math.max(n, t.required);
  return current.members.size > 0 ? Math.max(n, 1) : n;
}

/** The approvals of a row whose signatures hold: the only ones that can count. */
export const holdingApprovals = (row: Pick<StoredPolicy, 'hash' | 'baseVersion' | 'approvals'>): Approval[] => row.approvals.filter((a) => policyApprovalHolds(row, a));

/** The approvals of a row that do not hold (written outside payctl): never counted, never a refusal. */
export const leftOut = (row: Pick<StoredPolicy, 'hash' | 'baseVersion' | 'approvals'>): Approval[] => row.approvals.filter((a) => !policyApprovalHolds(row, a));

/** Why a left-out approval does not count, as `policy show` says it. */
export const LEFT_OUT_WHY = 'its signature does not verify (written outside payctl; left out: it counts for nothing)';

/** The person who proposed a change, as `current` lists them (undefined: not listed). */
const proposerOf = (current: Policy, row: { proposer: { fingerprint: string } }) => current.byKey.get(row.proposer.fingerprint);

/**
 * Why a change proposed with this key is against the rules under `current` (the module's
 * opening comment): a policy that lists members takes changes only from keys it lists. Undefined
 * when it may propose. The one home of the rule: propose, approve and teamPolicyOf ask it.
 */
export function unlistedProposer(current: Policy, proposer: { name: string; fingerprint: string }, version: number): string | undefined {
  if (current.members.size === 0 || proposerOf(current, { proposer })) return undefined;
  return `the key ${proposer.fingerprint} (calling itself "${proposer.name}"), which version ${version} of the team's policy does not list; only a key of a member it lists can propose a change to it`;
}

/** The people who may approve a change `row` proposes: approvers of `current`, not its proposer. */
export function changeApprovers(current: Policy, row: { proposer: { fingerprint: string } }): Member[] {
  const proposer = proposerOf(current, row);
  return [...current.members.values()].filter((m) => m.roles.has('approver') && m !== proposer);
}

/**
 * The people whose approvals of `row` count under `current`: one per person, approvers only, not
 * the proposer, and only approvals whose signatures hold.
 */
export function countedApprovers(current: Policy, row: Pick<StoredPolicy, 'hash' | 'baseVersion' | 'proposer' | 'approvals'>): Member[] {
  const may = new Set(changeApprovers(current, row));
  const out = new Set<Member>();
  for (const a of holdingApprovals(row)) {
    const m = current.byKey.get(a.fingerprint);
    if (m && may.has(m) && a.fingerprint !== row.proposer.fingerprint) out.add(m);
  }
  return [...out];
}

/**
 * The version in force, every adopted one checked in order (each proposed by a key the one
 * before it lists, when it lists members, and adopted with the approvals it asked, counting only
 * those that hold); undefined when none was adopted. Throws refusedRow for one that fails.
 */
export function teamPolicyOf(rows: StoredPolicy[], after?: string): TeamPolicy | undefined {
  const adopted = rows.filter((r) => r.version !== null).sort((a, b) => a.version! - b.version!);
  let current: TeamPolicy | undefined;
  for (const row of adopted) {
    const expected = (current?.version ?? 0) + 1;
    if (row.version !== expected) throw refusedRow(row, `version ${expected} is missing before it`, after);
    const checked = checkRow(row);
    if (checked.problem !== undefined) throw refusedRow(row, checked.problem, after);
    if (current) {
      const unlisted = unlistedProposer(current.policy, row.proposer, current.version);
      if (unlisted) throw refusedRow(row, `it was adopted against the rules: proposed with ${unlisted}`, after);
      const need = approvalsForChange(current.policy);
      const got = countedApprovers(current.policy, row).length;
      if (got < need) throw refusedRow(row, `it was adopted with ${got} of the ${need} approvals version ${current.version} asks`, after);
    }
    current = { version: row.version, policy: checked.policy, row };
  }
  return current;
}
