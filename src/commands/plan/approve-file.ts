/**
 * An approval added to a plan file (approve.ts), under a lock beside the file. Two approvers
 * approving one file at once each read it, added their approval and wrote it whole: the one who
 * wrote last dropped the other's approval, though both had been told it was added (3 of 4 tries).
 * Under the lock (`.<file>.approving`, made exclusively beside the plan, where every approver of
 * that file looks) the file is read again, must still be the plan approved (its hash), and gets
 * the approval beside those it holds now, in one atomic rename. `plan merge` (merge.ts) adds the
 * approvals of copies of the plan under the same lock (changeApprovals), so neither drops the
 * other's. A plan file that is a symbolic link is refused (linkedPlan), before anything is signed
 * or written: the rename replaced the link with a file of its own, silently, and the file it
 * pointed to (the one the team shares) never got the approval.
 */
import { closeSync, constants, lstatSync, openSync, readFileSync, readlinkSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { LocalError, RefusedError } from '../../errors.js';
import { readPlan, planText, type Plan } from '../../plans/plan.js';
import type { Approval } from '../../plans/signatures.js';
import { replaceAtomically } from '../../payouts/report.js';

/** How long a change waits for another one being made to the same file. */
const WAIT_MS = 10_000;
/** A lock older than this is one a payctl left when it was killed: taken over. */
const STALE_MS = 30_000;

/** Adds `approval` to the plan file at `path`, whose plan must still have `hash`; returns the approvals it now carries. */
export async function addApprovalToFile(path: string, hash: string, approval: Approval, run: { signal: AbortSignal; pid: number }): Promise<Approval[]> {
  return (
    await changeApprovals(path, hash, run, (plan) => {
      if (plan.approvals.some((a) => a.fingerprint === approval.fingerprint))
        throw new RefusedError(`The plan ${path} already carries your approval (${approval.fingerprint}). Nothing was changed.`);
      return [approval];
    })
  ).carried;
}

/**
 * A plan file given as a symbolic link: refused, naming the file it points to (`give`: the same
 * command with that file, for the hint). Approvals are written by replacing the file whole, which
 * would replace the link, not change its target. Nothing happens for a file that is no link.
 */
export function refuseLinkedPlan(path: string, verb: 'approve' | 'merge into', give: (target: string) => string): void {
  let target: string;
  try {
    if (!lstatSync(path).isSymbolicLink()) return;
    target = resolve(dirname(path), readlinkSync(path));
    target = realpathSync(target);
  } catch {
    return; // no longer there, or a dangling link: reading the plan says so
  }
  throw new RefusedError(
    `Cannot ${verb} the plan ${path}: it is a symbolic link to ${target}. payctl does not write approvals through a link (the link would be replaced by a file of its own, and ${target} would not get them). Nothing was changed.`,
    [],
    `Give that file: ${give(target)}`,
  );
}

/**
 * Under the plan file's lock: the file read again (it must still be the plan of `hash`), `add`
 * asked which approvals to add to it as it is now (it may throw: nothing is written), and those
 * written after its own in one atomic rename (none: the file is left as it is). Returns the
 * approvals it carries and those added.
 */
export async function changeApprovals(
  path: string,
  hash: string,
  run: { signal: AbortSignal; pid: number },
  add: (plan: Plan) => Approval[],
): Promise<{ carried: Approval[]; added: Approval[] }> {
  const lock = join(dirname(path), `.${basename(path)}.approving`);
  await acquire(lock, run);
  try {
    // Made a link meanwhile: the rename below would replace it (refused before, by the command).
    if (lstatSync(path).isSymbolicLink()) throw new RefusedError(`The plan file ${path} became a symbolic link meanwhile. Nothing was changed.`);
    const { plan } = readPlan(path);
    if (plan.hash !== hash) throw new RefusedError(`The plan file ${path} changed meanwhile (its hash is now ${plan.hash}). Nothing was changed.`);
    const added = add(plan);
    if (added.length === 0) return { carried: plan.approvals, added };
    const signed = { ...plan, approvals: [...plan.approvals, ...added] };
    replaceAtomically(path, planText(signed));
    return { carried: signed.approvals, added };
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // gone already: nothing held
    }
  }
}

async function acquire(lock: string, { signal, pid }: { signal: AbortSignal; pid: number }): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      writeSync(fd, `${JSON.stringify({ pid, at: new Date().toISOString() })}\n`);
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new LocalError(`Cannot lock the plan file to add approvals (${lock}): ${(err as Error).message}. Nothing was changed.`);
    }
    if (takenOver(lock)) continue;
    if (Date.now() > deadline)
      throw new LocalError(
        `Another payctl is adding approvals to this plan file (its lock ${lock} is held). Nothing was changed.`,
        'Run the same command again in a moment; if no payctl is approving it, remove the lock file.',
      );
    if (signal.aborted) throw new RefusedError('Interrupted while waiting to add approvals. Nothing was changed.');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A lock left by a payctl that was killed (older than STALE_MS, unchanged since read): removed. */
function takenOver(lock: string): boolean {
  try {
    const before = readFileSync(lock, 'utf8');
    if (Date.now() - statSync(lock).mtimeMs < STALE_MS) return false;
    if (readFileSync(lock, 'utf8') !== before) return false;
    unlinkSync(lock);
    return true;
  } catch {
    return true; // gone meanwhile: try again
  }
}
