/**
 * `payctl policy propose <file>`: a policy file signed with the person's key (`keys create`) and
 * stored in the shared ledger as a change to the team's policy. The first policy of a ledger is
 * adopted at once (version 1), and so is a change that the policy in force asks no approvals
 * for; otherwise it waits for the approvals the policy in force asks (team-specs.ts CHANGE_RULE), and
 * this prints its hash, who may approve it and the command they run. Refused (exit 2, nothing
 * stored): a file that is not a valid policy, one that is the team's policy already or already
 * proposed, a key the policy in force does not list when it lists members (team-policy.ts
 * unlistedProposer: a second key of one person would let them approve their own change), and a
 * change that the approvers of the policy in force, besides the proposer, are too few to adopt.
 */
import { write, type Deps } from '../../deps.js';
import { RefusedError, UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import type { PolicyWrite, StoredPolicy } from '../../payouts/ledger/ledger.js';
import { requireSigningKey, type SigningKey } from '../../plans/keys.js';
import { approvalsWord, examinePolicyValue, readPolicyText } from '../../plans/policy-file.js';
import { approvalsForChange, canonicalPolicy, changeApprovers, contentHash, signedProposal, teamPolicyOf, unlistedProposer } from '../../plans/team-policy.js';
import { text } from '../../output/text.js';
import { approveCommand, othersApproveCommand, showCommand, teamStore } from './team.js';

export interface PolicyProposeOptions {
  file: string;
}

/** What was stored: the row, the approvals it needs and who may give them (none when it was adopted). */
interface Proposed {
  row: Omit<StoredPolicy, 'approvals' | 'adoptedAt'>;
  need: number;
  approvers: string[];
}

export async function run(opts: PolicyProposeOptions, deps: Deps): Promise<number> {
  const store = await teamStore(deps);
  const key = requireSigningKey(configDir(deps.env));
  const content = readProposal(opts.file);
  const at = deps.clock.now().toISOString();
  const done = await store.change((rows) => decide(rows, { file: opts.file, content, key, at, approve: (h) => approveCommand(deps, h) }));
  await report(deps, opts.file, done);
  return 0;
}

/** The file's policy as the ledger keeps it (canonical JSON), checked as `config set policy` checks a file. */
function readProposal(file: string): string {
  let raw: string;
  try {
    raw = readPolicyText(file);
  } catch (err) {
    throw new UsageError(`Cannot read the policy ${file}: ${(err as Error).message}. Nothing was proposed.`);
  }
  const read = canonicalPolicy(raw);
  if ('problem' in read) throw new RefusedError(`The policy ${file} cannot be proposed: ${read.problem}. Nothing was proposed.`);
  const checked = examinePolicyValue(JSON.parse(read.content), file);
  if (!checked.policy) throw new UsageError(`The policy ${file} is not valid. Nothing was proposed.`, checked.problems);
  return read.content;
}

/** Under the team policy's lock: what to store, or why not. */
function decide(
  rows: StoredPolicy[],
  p: { file: string; content: string; key: SigningKey; at: string; approve: (hash: string) => string },
): { writes: PolicyWrite[]; result: Proposed } {
  const { file, content, key, at } = p;
  const current = teamPolicyOf(rows);
  const base = current?.version ?? 0;
  const hash = contentHash(content);
  if (current?.row.hash === hash) throw new RefusedError(`${file} is the team's policy already (version ${current.version}, ${hash}). Nothing was proposed.`);
  const again = rows.find((r) => r.version === null && r.hash === hash && r.baseVersion === base);
  if (again)
    throw new UsageError(
      `${file} is proposed already (${hash}, by ${again.proposer.name} at ${again.proposedAt}). Nothing was proposed.`,
      [],
      `An approver of the team's policy signs it with: ${p.approve(hash)}`,
    );
  const unlisted = current && unlistedProposer(current.policy, key, base);
  if (unlisted)
    throw new UsageError(
      `${file} cannot be proposed with ${unlisted}. Nothing was proposed.`,
      [],
      "Propose it with your key that the team's policy lists (payctl keys show in the config folder that holds it), or ask a member of the team to propose it; a new key is listed by a change that a listed member proposes.",
    );
  const need = approvalsForChange(current?.policy);
  const approvers = current ? changeApprovers(current.policy, { proposer: key }).map((m) => m.name) : [];
  if (current && approvers.length < need)
    throw new UsageError(
      `This change cannot be adopted: it needs ${approvalsWord(need)} from approvers of the team's policy (version ${base}) other than you, and it lists ${approvers.length}${approvers.length ? ` (${approvers.join(', ')})` : ''}. Nothing was proposed.`,
      [],
      'Ask another member of the team to propose it.',
    );
  const row = signedProposal(key, content, base, at, need === 0 ? base + 1 : null);
  return { writes: [{ kind: 'propose', row }], result: { row, need, approvers } };
}

/** What was stored: adopted (and which version), or proposed with what it needs and the commands to run. */
async function report(deps: Deps, file: string, p: Proposed): Promise<void> {
  const { row } = p;
  const approve = othersApproveCommand(row.hash);
  if (deps.globals.json) {
    const waiting = row.version === null ? { required_approvals: p.need, approvers: p.approvers, approve: approve.command } : {};
    await write(
      deps.io.stdout,
      JSON.stringify({ file, hash: row.hash, base_version: row.baseVersion, adopted: row.version !== null, version: row.version, ...waiting }) + '\n',
    );
    return;
  }
  if (row.version !== null) {
    deps.log.success(`${text(file)} (${row.hash}) adopted as the team's policy, version ${row.version}.`);
    return;
  }
  deps.log.success(`Proposed ${text(file)} as a change to the team's policy (version ${row.baseVersion}); nothing changes until it is approved.`);
  deps.log.info(
    `Hash ${row.hash}\n` +
      `It needs ${approvalsWord(p.need)} from: ${p.approvers.map(text).join(', ')} (approvers of version ${row.baseVersion}, one each).\n` +
      `Review it:          ${showCommand(deps)}\n` +
      `An approver signs:  ${approve.command}\n                    (${approve.where})`,
  );
}
