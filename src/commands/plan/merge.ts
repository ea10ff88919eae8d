/**
 * `payctl plan merge <plan> <copy>...`: the approvals that copies of a plan file carry, added to
 * the plan file. Two approvers who each signed a copy of their own held two files of one approval
 * each, which plan send refused, and no command combined them (probe P, finding 2). Every copy
 * is read whole as plan send reads a plan (plans/plan.ts) and must be the same plan (its hash):
 * a copy of another plan refuses the merge, nothing written. An approval is added once (by its
 * key; one the plan carries already is left as it is), and only when the plan then carries no
 * approval that plan send would refuse it for: under the run's policy as plan send judges them
 * (checkApprovals), without one those that are no signature of this plan by the key they name.
 * The file is changed as plan approve changes it, under its lock, in one atomic rename
 * (approve-file.ts changeApprovals): an approval added meanwhile is kept.
 */
import { write, type Deps } from '../../deps.js';
import { RefusedError } from '../../errors.js';
import { UnknownProfile, unknownProfileNoLogin } from '../../config/known-profiles.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import { plural, text } from '../../output/text.js';
import type { Approval, Plan } from '../../plans/plan.js';
import { brokenApprovals, checkApprovals, type Policy } from '../../plans/policy.js';
import { effectivePolicy } from '../policy/effective.js';
import { changeApprovals } from './approve-file.js';
import { counting } from './common.js';
import { readPlanFile } from './source.js';

export interface PlanMergeOptions {
  plan: string;
  copy: string[];
}

export async function run(opts: PlanMergeOptions, deps: Deps): Promise<number> {
  try {
    return await merge(opts, deps);
  } catch (err) {
    // A profile that does not exist: never "log in to create it", merging needs no API key.
    if (err instanceof UnknownProfile) throw unknownProfileNoLogin(err, 'Merging needs no login: only the policy of the profile it runs with, if that names one.');
    throw err;
  }
}

async function merge(opts: PlanMergeOptions, deps: Deps): Promise<number> {
  const { plan } = readPlanFile(opts.plan, deps);
  const copies = opts.copy.map((path) => ({ path, plan: readPlanFile(path, deps).plan }));
  const others = copies.filter((c) => c.plan.hash !== plan.hash);
  if (others.length)
    throw new RefusedError(
      `Cannot merge into the plan ${opts.plan}: ${plural(others.length, 'file is a copy', 'files are copies')} of another plan. Nothing was changed.`,
      others.map((c) => `${c.path}: plan ${c.plan.hash}, not ${plan.hash}`),
      'Give copies of this very plan (plan show prints the hash of each): approvals are signatures of one plan, and count on no other.',
    );
  const policy = await effectivePolicy(deps);
  const { carried, added } = await changeApprovals(opts.plan, plan.hash, { signal: deps.signal, pid: deps.host.pid }, (now) => {
    const adding = newApprovals(now, copies);
    refuseNotCounted(opts.plan, { ...now, approvals: [...now.approvals, ...adding] }, policy);
    return adding;
  });
  await report(opts.plan, deps, { ...plan, approvals: carried }, added, policy);
  return 0;
}

/** The approvals of the copies that the plan does not carry, by key: the first copy's where two give one. */
function newApprovals(plan: Plan, copies: Array<{ plan: Plan }>): Approval[] {
  const keys = new Set(plan.approvals.map((a) => a.fingerprint));
  const adding: Approval[] = [];
  for (const a of copies.flatMap((c) => c.plan.approvals)) {
    if (keys.has(a.fingerprint)) continue;
    keys.add(a.fingerprint);
    adding.push(a);
  }
  return adding;
}

/** A plan that would carry an approval plan send refuses it for (under the policy; without one, a signature that does not hold): nothing is written. */
function refuseNotCounted(path: string, merged: Plan, policy: Policy | undefined): void {
  const refused = policy ? checkApprovals(merged, policy).refused : brokenApprovals(merged);
  if (refused.length === 0) return;
  throw new RefusedError(
    `Cannot merge into the plan ${path}: it would carry ${plural(refused.length, 'approval that does', 'approvals that do')} not count${policy ? ` under the policy ${policy.file}` : ''}, and plan send refuses a plan that carries any. Nothing was changed.`,
    refused,
    'Merge only copies signed by approvers the policy lists (plan show of each copy says which approvals count): no command takes an approval out of a plan.',
  );
}

/** What was merged: one JSON line with --json, else a line for people and the plan send that follows. */
async function report(path: string, deps: Deps, plan: Plan, added: Approval[], policy: Policy | undefined): Promise<void> {
  const approvals = counting(plan, policy);
  if (deps.globals.json) {
    await write(
      deps.io.stdout,
      JSON.stringify({ plan: path, hash: plan.hash, added: added.map((a) => ({ name: a.name, fingerprint: a.fingerprint })), approvals }) + '\n',
    );
    return;
  }
  if (added.length === 0)
    deps.log.info(`Nothing to merge: ${path} carries every approval of the copies already (${plural(approvals, 'approval')} that count${approvals === 1 ? 's' : ''}).`);
  else
    deps.log.success(
      `Merged ${plural(added.length, 'approval')} into ${path} (${added.map((a) => `${text(a.name)}, ${a.fingerprint}`).join('; ')}); it now carries ${plural(approvals, 'approval')} that count${approvals === 1 ? 's' : ''}.`,
    );
  deps.log.info(`Then send it: ${commandLine(invocationOf(deps.globals, deps.env), ['plan', 'send'], [fileOperand(path)])}`);
}
