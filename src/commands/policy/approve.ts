/**
 * `payctl policy approve <hash>`: an approver of the team's policy in force signs a proposed
 * change to it (its hash and the version it changes, with their name, key and the time). The
 * signature is checked before it is stored, and when the change then has the approvals the
 * policy in force asks (team-specs.ts CHANGE_RULE) it is adopted as the next version in the same
 * transaction. Refused (exit 2, nothing stored): an unknown hash, a proposal of a version that is
 * no longer in force, a proposal by a key the policy in force does not list (team-policy.ts
 * unlistedProposer), its proposer (with any of their keys), a key the policy in force does not
 * list as an approver's, a person whose approval of it holds already, and a proposal or policy
 * changed in the database. A stored approval under the key's fingerprint that does not hold
 * (written outside payctl) is nobody's: it never counts, and this approval takes its place.
 */
import { write, type Deps } from '../../deps.js';
import { RefusedError, UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import type { PolicyWrite, StoredPolicy } from '../../payouts/ledger/ledger.js';
import { requireSigningKey, type SigningKey } from '../../plans/keys.js';
import { approvalsWord } from '../../plans/policy-file.js';
import {
  approvalsForChange,
  checkRow,
  countedApprovers,
  holdingApprovals,
  policyApprovalHolds,
  refusedRow,
  signPolicyApproval,
  teamPolicyOf,
  unlistedProposer,
  type TeamPolicy,
} from '../../plans/team-policy.js';
import { text } from '../../output/text.js';
import { hashPrefix, othersApproveCommand, proposalsOf, showCommand, teamStore } from './team.js';

export interface PolicyApproveOptions {
  hash: string;
}

/** What was stored: the proposal, how many approvals count now and are needed, and the version it became (or null). */
interface Approved {
  hash: string;
  baseVersion: number;
  counted: number;
  need: number;
  adopted: number | null;
}

export async function run(opts: PolicyApproveOptions, deps: Deps): Promise<number> {
  const store = await teamStore(deps);
  const prefix = hashPrefix(opts.hash, deps);
  const key = requireSigningKey(configDir(deps.env));
  const at = deps.clock.now().toISOString();
  const show = showCommand(deps);
  const done = await store.change((rows) => decide(rows, { arg: opts.hash, prefix, key, at, show }));
  await report(deps, key, done);
  return 0;
}

interface Asked {
  arg: string;
  prefix: string;
  key: SigningKey;
  at: string;
  show: string;
}

/** Under the team policy's lock: the approval to store (and the adoption), or why not. */
function decide(rows: StoredPolicy[], a: Asked): { writes: PolicyWrite[]; result: Approved } {
  const current = teamPolicyOf(rows);
  const row = theProposal(rows, current, a);
  const checked = checkRow(row);
  if (checked.problem !== undefined) throw refusedRow(row, checked.problem);
  if (!current) throw new RefusedError(`The shared ledger holds no team policy for ${row.hash} to change. Nothing was changed.`);
  refuse(row, current, a.key);
  const approval = signPolicyApproval(a.key, row.hash, row.baseVersion, a.at);
  if (!policyApprovalHolds(row, approval)) throw new RefusedError(`Your signing key did not make a valid signature of ${row.hash}. Nothing was changed.`);
  // A stored row under this fingerprint does not hold (refuse found none that does): it is replaced.
  const replaces = row.approvals.find((x) => x.fingerprint === approval.fingerprint);
  const approvals = [...row.approvals.filter((x) => x !== replaces), approval];
  const counted = countedApprovers(current.policy, { ...row, approvals }).length;
  const need = approvalsForChange(current.policy);
  const writes: PolicyWrite[] = [{ kind: 'approve', hash: row.hash, baseVersion: row.baseVersion, approval, ...(replaces ? { replaces } : {}) }];
  const adopted = counted >= need ? row.baseVersion + 1 : null;
  if (adopted !== null) writes.push({ kind: 'adopt', hash: row.hash, baseVersion: row.baseVersion, version: adopted });
  return { writes, result: { hash: row.hash, baseVersion: row.baseVersion, counted, need, adopted } };
}

/** The one proposal the argument names, of the version in force; else why not (exit 2). */
function theProposal(rows: StoredPolicy[], current: TeamPolicy | undefined, a: Asked): StoredPolicy {
  const version = current?.version ?? 0;
  const named = proposalsOf(rows).filter((r) => r.hash.startsWith(a.prefix));
  const live = named.filter((r) => r.baseVersion === version);
  if (live.length === 1) return live[0]!;
  if (live.length > 1)
    throw new UsageError(
      `${a.arg} is the start of the hash of more than one proposal. Nothing was changed.`,
      live.map((r) => r.hash),
      'Give more of the hash (or all of it).',
    );
  if (named.length)
    throw new UsageError(
      `The proposal ${named[0]!.hash} was a change to version ${named[0]!.baseVersion} of the team's policy, and version ${version} is in force now. Nothing was changed.`,
      [],
      'Propose it again (payctl policy propose <file>) if it is still wanted: it is approved as a change to the policy in force.',
    );
  const adopted = rows.find((r) => r.version !== null && r.hash.startsWith(a.prefix));
  if (adopted) throw new RefusedError(`${adopted.hash} is adopted already (version ${adopted.version} of the team's policy). Nothing was changed.`);
  throw new UsageError(`No proposal ${a.arg} in the team's shared ledger. Nothing was changed.`, [], `See the proposals with: ${a.show}`);
}

/** A proposal by an unlisted key, its proposer, a key that is not an approver's, or a person whose approval holds already: refused. */
function refuse(row: StoredPolicy, current: TeamPolicy, key: SigningKey): void {
  const unlisted = unlistedProposer(current.policy, row.proposer, current.version);
  if (unlisted)
    throw new RefusedError(
      `${row.hash} cannot be approved: it was proposed with ${unlisted}. Nothing was changed.`,
      [],
      "Ask a member the team's policy lists to propose the change with their listed key.",
    );
  const me = current.policy.byKey.get(key.fingerprint);
  const proposer = current.policy.byKey.get(row.proposer.fingerprint);
  if (key.fingerprint === row.proposer.fingerprint || (me && me === proposer))
    throw new UsageError(
      `You proposed this change (${row.hash}, key ${row.proposer.fingerprint}); its proposer cannot approve it. Nothing was changed.`,
      [],
      'Ask an approver of the team policy to approve it.',
    );
  if (!me || !me.roles.has('approver'))
    throw new UsageError(
      `Your key ${key.fingerprint} is not an approver's in the team's policy (version ${current.version}), so it cannot approve a change to it. Nothing was changed.`,
      [],
      'Ask an approver of the team policy to approve it.',
    );
  if (holdingApprovals(row).some((a) => a.fingerprint === key.fingerprint) || countedApprovers(current.policy, row).includes(me))
    throw new RefusedError(`${row.hash} carries an approval by ${me.name} already; each person counts once. Nothing was changed.`);
}

/** What was stored: one JSON line with --json, else lines for people. */
async function report(deps: Deps, key: SigningKey, r: Approved): Promise<void> {
  if (deps.globals.json) {
    const out = {
      hash: r.hash,
      base_version: r.baseVersion,
      approved_by: key.name,
      fingerprint: key.fingerprint,
      approvals: r.counted,
      required_approvals: r.need,
      adopted: r.adopted !== null,
      version: r.adopted,
    };
    await write(deps.io.stdout, JSON.stringify(out) + '\n');
    return;
  }
  deps.log.success(`Approved ${text(r.hash)} as ${text(key.name)} (${key.fingerprint}): ${r.counted} of the ${approvalsWord(r.need)} it needs.`);
  if (r.adopted !== null) deps.log.success(`It is adopted as the team's policy, version ${r.adopted}.`);
  else {
    const next = othersApproveCommand(r.hash);
    deps.log.info(`It needs ${approvalsWord(r.need - r.counted)} more; another approver signs: ${next.command} (${next.where})`);
  }
}
