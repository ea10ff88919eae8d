/**
 * The copies `plan merge` (merge.ts) is given, and the approvals it takes from them. Each copy is
 * read whole as plan send reads a plan; one that is refused is named as the copy, with advice
 * that fits a copy (a batch file was offered `plan create`, meaningless for a copy of a plan made
 * already), and the plan said not changed (it said "Nothing was sent"). A copy that is the plan
 * file itself (the same path, or the same file by another path) is refused as such. The approvals
 * taken do not depend on the order of the copies: every copy's approvals whose signature holds
 * first, one per key; then those whose signature does not hold (a damaged copy) are set aside,
 * said, when the plan or another copy carries a valid one by that key, and refuse the merge when
 * none does. Before, a damaged copy given first refused the merge as "signed by approvers the
 * policy does not list", and given last was passed over.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, RefusedError } from '../../errors.js';
import { BatchFileGiven, readPlan, type Approval, type Plan } from '../../plans/plan.js';
import { brokenApproval, type Policy } from '../../plans/policy.js';
import { plural, text } from '../../output/text.js';

/** A copy of the plan, as given and read. */
export interface Copy {
  path: string;
  plan: Plan;
}

/** An approval a copy carries, and the copy. */
export interface FromCopy {
  approval: Approval;
  copy: string;
}

/** A copy's approval whose signature does not hold, and why. */
export interface Damaged extends FromCopy {
  why: string;
}

/** The copies read, in order; refused (nothing changed) when one is the plan file or cannot be read as a plan. */
export function readCopies(planPath: string, paths: string[]): Copy[] {
  const self = identity(planPath);
  return paths.map((path) => {
    const id = identity(path);
    if (resolve(path) === resolve(planPath) || (self && id && self.dev === id.dev && self.ino === id.ino))
      throw new RefusedError(
        `Cannot merge into the plan ${planPath}: the copy ${path} is the plan itself (${resolve(path) === resolve(planPath) ? 'the same path' : 'the same file, by another path'}). The plan was not changed.`,
        [],
        'Give the copies approvers signed, each a file of its own: the approvals the plan file carries are in it already.',
      );
    try {
      return { path, plan: readPlan(path).plan };
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      const why = err.message.replace(/\s*Nothing was sent\.$/, '').replace(/\.$/, '');
      throw new RefusedError(
        `Cannot merge the copy ${path} into the plan ${planPath}: ${why}. The plan was not changed.`,
        err.problems,
        err instanceof BatchFileGiven
          ? 'A copy is a plan file an approver signed (plan approve writes the approval into it): give that file, not a batch file.'
          : 'Get a fresh copy from the approver who signed it (the plan file as their plan approve left it), or leave this one out.',
      );
    }
  });
}

/** The device and inode of a file (following a link), or undefined when it cannot be had. */
function identity(path: string): { dev: number; ino: number } | undefined {
  try {
    const st = statSync(path);
    return { dev: st.dev, ino: st.ino };
  } catch {
    return undefined;
  }
}

/**
 * The approvals to add to `plan` from the copies, whatever their order: those that hold, one per
 * key the plan does not carry (the first copy's, where two give one); and those that do not hold,
 * each `replaced` when the plan or another copy gives a valid one by its key.
 */
export function takenApprovals(plan: Plan, copies: Copy[]): { adding: FromCopy[]; damaged: Array<Damaged & { replaced: boolean }> } {
  const keys = new Set(plan.approvals.map((a) => a.fingerprint));
  const adding: FromCopy[] = [];
  const broken: Damaged[] = [];
  for (const c of copies)
    for (const a of c.plan.approvals) {
      const why = brokenApproval(plan.hash, a);
      if (why) broken.push({ approval: a, copy: c.path, why });
      else if (!keys.has(a.fingerprint)) {
        keys.add(a.fingerprint);
        adding.push({ approval: a, copy: c.path });
      }
    }
  return { adding, damaged: broken.map((d) => ({ ...d, replaced: keys.has(d.approval.fingerprint) })) };
}

/** How an approval of a copy is named: the copy, and the name and key it gives. */
export function copyLabel(f: FromCopy): string {
  return `the copy ${f.copy}: approval (${text(f.approval.name)}, ${f.approval.fingerprint})`;
}

/** A damaged approval no copy replaces: the merge is refused, nothing written, advice that fits (a fresh copy from that approver). */
export function refuseDamaged(planPath: string, damaged: Array<Damaged & { replaced: boolean }>, policy: Policy | undefined): void {
  const lost = damaged.filter((d) => !d.replaced);
  if (lost.length === 0) return;
  const who = [...new Set(lost.map((d) => policy?.byKey.get(d.approval.fingerprint)?.name ?? d.approval.name))].map(text).join(', ');
  throw new RefusedError(
    `Cannot merge into the plan ${planPath}: ${plural(lost.length, 'approval of the copies is', 'approvals of the copies are')} damaged (the signature does not hold), and no copy carries a valid one by that key. The plan was not changed.`,
    lost.map((d) => `${copyLabel(d)}: ${d.why}`),
    `Get a fresh copy from that approver (${who}): the plan file as their plan approve left it. Or leave the damaged copy out.`,
  );
}
