/**
 * The policy a command goes by (README "Working as a team": the team's policy): with a shared
 * ledger that holds an adopted team policy, that one, whatever the profile's `policy` setting
 * says (unset, another file, another profile, an empty config folder); otherwise the profile's
 * file, if any, as always. Read once per run: a file that differs from the team's is warned
 * about once. A team policy that cannot be checked (a row changed in the database) is an error
 * (exit 2, nothing sent), never taken for "no policy".
 */
import type { Deps } from '../../deps.js';
import { commandLine, commandTemplate, fileOperand, invocationOf } from '../../config/command-line.js';
import { ledgerSetting, openLedger } from '../../payouts/open-ledger.js';
import type { Policy } from '../../plans/policy.js';
import { canonicalPolicy, teamPolicyOf, type TeamPolicy } from '../../plans/team-policy.js';
import { readPolicyText } from '../../plans/policy-file.js';
import { profilePolicy } from '../plan/common.js';

/**
 * What a command that needs a policy says when the profile names none: the command that names
 * one, for the run's profile (before, without it: pasted, it set the default profile's policy,
 * and the run was refused again).
 */
export function noPolicyHint(deps: Deps): string {
  return `Name your team's policy file with: ${commandTemplate(invocationOf(deps.globals, deps.env), ['config', 'set', 'policy'], '<path>')}`;
}

/** Each run's answer (by its resources: one per run). */
const found = new WeakMap<object, Promise<Policy | undefined>>();

/** The policy of this run: the team's adopted one in a shared ledger, else the profile's file (or none). */
export function effectivePolicy(deps: Deps): Promise<Policy | undefined> {
  let p = found.get(deps.resources);
  if (!p) {
    p = lookUp(deps);
    found.set(deps.resources, p);
    p.catch(() => found.delete(deps.resources));
  }
  return p;
}

async function lookUp(deps: Deps): Promise<Policy | undefined> {
  if (ledgerSetting(deps).backend === 'local') return profilePolicy(deps);
  const ledger = await openLedger(deps);
  const team = ledger.policies && teamPolicyOf(await ledger.policies.all());
  if (!team) return profilePolicy(deps);
  warnIfOther(deps, team);
  return team.policy;
}

/** The profile's own file, when it names one that is not the team's policy: said once, with how to propose it. */
function warnIfOther(deps: Deps, team: TeamPolicy): void {
  let file: string | undefined;
  try {
    file = deps.config().getProfile(deps.globals.profile, { readSecrets: false, mayBeNew: true })?.policy;
  } catch {
    return;
  }
  if (!file) return;
  let same = false;
  try {
    const read = canonicalPolicy(readPolicyText(file));
    same = 'content' in read && read.content === team.row.content;
  } catch {
    // unreadable: not the team's
  }
  if (same) return;
  deps.log.warn(
    `The profile's policy ${file} is not the team's: the team's policy in the shared ledger (version ${team.version}, ${team.row.hash}) is used. ` +
      `To make the file the team's policy, propose it: ${commandLine(invocationOf(deps.globals, deps.env), ['policy', 'propose'], [fileOperand(file)])}`,
  );
}
