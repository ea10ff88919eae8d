/**
 * `payctl plan send`'s judgement of a plan before anything is sent (send.ts sends it): the plan
 * read whole, a policy to judge it by, this profile's base URL, its age, its maker, every
 * approval it carries counted, and then the policy's limits and the approvals needed, judged
 * once at once and again under the wallets' locks just before journaling (`judge`).
 */
import type { Deps } from '../../deps.js';
import type { ApiClient } from '../../api/client.js';
import type { Problem, UsageError } from '../../errors.js';
import type { Ledger } from '../../payouts/journal.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { plural } from '../../output/text.js';
import { placeAndTimeProblems, samePlace, type Plan, type ReadPayout } from '../../plans/plan.js';
import { approvalsNeeded, checkApprovals, limitProblems, limitsHint, type ApprovalCheck, type Policy } from '../../plans/policy.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import { freeProfileName } from '../../api/session.js';
import { effectivePolicy, noPolicyHint } from '../policy/effective.js';
import { loadPlan } from './source.js';
import { approverCommand, inTurnAdvice, notCountedHint } from './common.js';

/** A check that failed: a usage error naming the plan; nothing was sent. */
export type Refuse = (message: string, problems?: Array<Problem | string>, hint?: string) => UsageError;

/** A plan read and judged sendable under the profile's policy, with what sending it needs. */
export interface Judged {
  plan: Plan;
  /** Where it came from: its path as given, or its hash in the shared ledger (`file` undefined). */
  file: string | undefined;
  payouts: ReadPayout[];
  /** When the shared ledger stored the plan (the database's clock), when it holds it: what was paid after it goes by it too (source.ts madeAt). */
  storedAt?: string | undefined;
  policy: Policy;
  api: ApiClient;
  journal: Ledger;
  approvals: ApprovalCheck;
  /**
   * Limits, then approvals needed (totals, and what each recipient account got today), both
   * counted from the journal at `at`: judged before anything else, and again under the
   * wallets' locks before journaling (`locked`: says nothing it said the first time, and
   * acknowledges the journal's missing entries with --acknowledge-missing). Throws when they
   * are not met.
   */
  judge(at: Date, locked?: boolean): Promise<void>;
}

/** What the judgement reads of plan send's options. */
export interface JudgeOptions {
  plan: string;
  /** Under a policy's daily total, go on although journal entries are missing: acknowledged, no longer counted (plans/limits.ts). */
  acknowledgeMissing?: boolean | undefined;
}

/**
 * The plan read whole (plan.ts) and judged: a policy to judge it by, this profile's base URL,
 * at most 7 days old and not from the future, a maker the policy lists, every approval of the
 * file counted (checkApprovals), enough of them, and no limit broken.
 */
export async function readAndJudge(opts: JudgeOptions, deps: Deps, refuse: Refuse): Promise<Judged> {
  const loaded = await loadPlan(opts.plan, deps, ['plan', 'send']);
  const { plan, payouts, store, storedAt } = loaded;
  const policy = await effectivePolicy(deps);
  if (!policy) throw refuse('the profile names no policy to judge its approvals by', [], noPolicyHint(deps));
  const api = await deps.api();
  const [placeOrTime] = placeAndTimeProblems(plan, api.baseUrl, deps.clock.now());
  if (placeOrTime)
    throw refuse(placeOrTime.text, [], placeOrTime.hint ?? (samePlace(plan.base_url, api.baseUrl) ? undefined : otherServiceHint(plan.base_url, opts.plan, deps)));

  const approvals = checkApprovals(plan, policy, loaded.ownApprovals);
  if (approvals.makerProblem) throw refuse(approvals.makerProblem, [], 'Have a maker the policy lists make the plan again (payctl plan create).');
  // The file's own (someone put it there): refused, saying what to do (valid input: not the usage).
  if (approvals.refused.length)
    throw refuse(`${plural(approvals.refused.length, 'approval does', 'approvals do')} not count`, approvals.refused, notCountedHint(loaded, deps, 'send'));
  // Kept in the shared ledger: left out, said.
  for (const r of approvals.ignored) deps.log.warn(`Not counted: ${r}`);
  const requests = payouts.map((p) => p.request);
  const journal = await openLedger(deps);
  const judge = async (at: Date, locked = false): Promise<void> => {
    // Limits first: no approval lifts them, so asking for one would send approvers to sign in vain.
    const limits = await limitProblems(policy, requests, journal, api.baseUrl, at, {
      ...(locked ? {} : { warn: (l: string) => deps.log.warn(l) }),
      ...(opts.acknowledgeMissing ? { acknowledgeMissing: { record: locked } } : {}),
    });
    if (limits.length)
      throw refuse("it breaks the policy's limits", limits, limitsHint(limits, commandLine(invocationOf(deps.globals, deps.env), ['payouts', 'list'], ['--all'])));
    const need = await approvalsNeeded(policy, requests, journal, api.baseUrl, at);
    if (approvals.valid.length < need.required) {
      const approver = approverCommand(loaded.ref, store !== undefined);
      throw refuse(
        `it needs ${need.required} approval${need.required === 1 ? '' : 's'} (people other than its maker, ${approvals.maker!.name}) and carries ${approvals.valid.length}${approvals.valid.length ? ` (${approvals.valid.map((v) => v.name).join(', ')})` : ''}`,
        need.reasons,
        [
          `An approver signs it, ${approver.where}: ${approver.command}`,
          ...(store ? [] : [inTurnAdvice(loaded.ref, need.required, invocationOf(deps.globals, deps.env))]),
        ]
          .filter(Boolean)
          .join('\n'),
      );
    }
  };
  // "Today" is the ledger's day: the database's for a shared ledger, whatever this machine's clock says.
  await judge(await journal.now());
  return { plan, file: store ? undefined : opts.plan, payouts, storedAt, policy, api, journal, approvals, judge };
}

/**
 * What to do with a plan made for another service than this run's (its base URL): send it there,
 * with a key for that service, from this profile (PAYCTL_API_KEY and --base-url: the profile's own
 * key is never sent to another base URL) or from a profile logged in to it, given this profile's
 * policy and shared ledger first (sent with another ledger, what was paid would not be found).
 * Commands as they run pasted: the run's profile and time limit, the plan's base URL.
 */
function otherServiceHint(baseUrl: string, ref: string, deps: Deps): string {
  const inv = invocationOf(deps.globals, deps.env);
  const plan = fileOperand(ref);
  const own = deps.config().getProfile(deps.globals.profile, { readSecrets: false, mayBeNew: true });
  const name = freeProfileName(baseUrl, deps.config());
  const other = { profile: name, ...(inv.timeout !== undefined ? { timeout: inv.timeout } : {}) };
  return [
    'Send it to the service it was made for, with an API key for that service in PAYCTL_API_KEY:',
    `  ${commandLine({ ...inv, baseUrl }, ['plan', 'send'], [plan])}`,
    `Or log a profile in to that service${own?.policy || own?.ledger ? ", give it this profile's settings" : ''}, and send from it:`,
    `  ${commandLine({ ...other, baseUrl }, ['login'])}`,
    ...(own?.policy ? [`  ${commandLine(other, ['config', 'set', 'policy'], [own.policy])}`] : []),
    ...(own?.ledger && own.ledger !== 'local' ? [`  ${commandLine(other, ['config', 'set', 'ledger'], ['--stdin'])}   (the ledger URL on standard input)`] : []),
    `  ${commandLine(other, ['plan', 'send'], [plan])}`,
  ].join('\n');
}
