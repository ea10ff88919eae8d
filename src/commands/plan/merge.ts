/**
 * `payctl plan merge <plan> <copy>...`: the approvals that copies of a plan file carry, added to
 * the plan file. Two approvers who each signed a copy of their own held two files of one approval
 * each, which plan send refused, and no command combined them (probe P, finding 2). Every copy
 * is read whole as plan send reads a plan and must be the same plan (its hash): a copy of another
 * plan refuses the merge, nothing written; so does a copy that is the plan file itself, or one
 * that cannot be read (merge-copies.ts, which also chooses the approvals whatever the copies'
 * order). An approval is added once (by its key; one the plan carries already is left as it is),
 * and only when the plan then carries no approval that plan send would refuse it for: under the
 * run's policy as plan send judges them (checkApprovals); with or without one, none made with
 * the plan's maker key (plan approve refuses to sign with it, and plan send refuses the file for
 * good: no command takes an approval out). A plan file that is a symbolic link is refused,
 * naming its target (approve-file.ts). The file is changed as plan approve changes it, under its
 * lock, in one atomic rename (approve-file.ts changeApprovals): an approval added meanwhile is
 * kept. What the plan then needs is said by merge-report.ts.
 */
import type { Deps } from '../../deps.js';
import { RefusedError } from '../../errors.js';
import { UnknownProfile, unknownProfileNoLogin } from '../../config/known-profiles.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import { plural } from '../../output/text.js';
import type { Plan } from '../../plans/plan.js';
import { checkApprovals, type Policy } from '../../plans/policy.js';
import { effectivePolicy } from '../policy/effective.js';
import { changeApprovals, refuseLinkedPlan } from './approve-file.js';
import { copyLabel, readCopies, refuseDamaged, takenApprovals, type FromCopy } from './merge-copies.js';
import { reportMerge } from './merge-report.js';
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
  const { plan, payouts } = readPlanFile(opts.plan, deps);
  const inv = invocationOf(deps.globals, deps.env);
  refuseLinkedPlan(opts.plan, 'merge into', (t) => commandLine(inv, ['plan', 'merge'], [fileOperand(t), ...opts.copy.map(fileOperand)]));
  const copies = readCopies(opts.plan, opts.copy);
  const others = copies.filter((c) => c.plan.hash !== plan.hash);
  if (others.length)
    throw new RefusedError(
      `Cannot merge into the plan ${opts.plan}: ${plural(others.length, 'file is a copy', 'files are copies')} of another plan. Nothing was changed.`,
      others.map((c) => `${c.path}: plan ${c.plan.hash}, not ${plan.hash}`),
      'Give copies of this very plan (plan show prints the hash of each): approvals are signatures of one plan, and count on no other.',
    );
  const policy = await effectivePolicy(deps);
  let taken: ReturnType<typeof takenApprovals> = { adding: [], damaged: [] };
  const { carried, added } = await changeApprovals(opts.plan, plan.hash, { signal: deps.signal, pid: deps.host.pid }, (now) => {
    taken = takenApprovals(now, copies);
    refuseDamaged(opts.plan, taken.damaged, policy);
    refuseNotCounted(opts.plan, now, taken.adding, policy);
    return taken.adding.map((f) => f.approval);
  });
  for (const d of taken.damaged) if (d.replaced) deps.log.warn(`Left out: ${copyLabel(d)}: ${d.why}; a valid approval by the same key is used.`);
  await reportMerge({ path: opts.plan, plan: { ...plan, approvals: carried }, payouts, added, policy }, deps);
  return 0;
}

/**
 * A plan that would carry an approval plan send refuses it for: nothing is written. Under the
 * policy, as plan send judges them; with or without one, an approval made with the plan's maker
 * key. Each is named by the copy it comes from (the plan's own, as the plan's).
 */
function refuseNotCounted(path: string, now: Plan, adding: FromCopy[], policy: Policy | undefined): void {
  const own = now.approvals.length;
  const merged: Plan = { ...now, approvals: [...now.approvals, ...adding.map((f) => f.approval)] };
  const makers = adding.filter((f) => f.approval.fingerprint === now.maker.fingerprint);
  const refused = makers.length
    ? makers.map((f) => `${copyLabel(f)}: made with the plan's maker key; the maker cannot approve their own plan`)
    : policy
      ? (() => {
          const judged = checkApprovals(merged, policy);
          return judged.refused.map((r, i) => {
            const at = judged.refusedAt[i]!;
            return at < own ? `the plan itself: ${r}` : `${copyLabel(adding[at - own]!)}: ${r.replace(/^approval \d+ \([^)]*\): /, '')}`;
          });
        })()
      : [];
  if (refused.length === 0) return;
  const ownOnly = refused.every((r) => r.startsWith('the plan itself: '));
  throw new RefusedError(
    `Cannot merge into the plan ${path}: it would carry ${plural(refused.length, 'approval that does', 'approvals that do')} not count${policy && !makers.length ? ` under the policy ${policy.file}` : ''}, and plan send refuses a plan that carries any. The plan was not changed.`,
    refused,
    ownOnly
      ? 'The plan file itself carries one: get a clean copy of the plan file from its maker (as plan create wrote it) and merge into that; no command takes an approval out of a plan.'
      : 'Leave out the copies named (plan show of each says which of its approvals count): merged, their approvals would make plan send refuse the plan, and no command takes an approval out of a plan.',
  );
}
