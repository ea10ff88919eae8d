/**
 * What `plan merge` (merge.ts) says it did, and what the plan then needs. Each added approval is
 * named as the policy counts its key (a name written inside it that differs is said in a warning,
 * as plan approve does); the name inside it only without a policy. Under a policy: how many
 * approvals count and how many plan send asks (approvalsNeeded, as plan send counts them: by the
 * totals and by what each recipient got today), who may still give the missing ones, and "Then
 * send it" only when plan send's approval check would pass. It was printed after every merge,
 * 1 of 2 approvals, or a plan merged into itself, and the printed plan send then refused it.
 * Without a policy nothing here can tell whether the approvals count or how many the plan needs:
 * it says so, and how to judge them, not "approvals that count" and "Then send it". With --json:
 * one line, `required` and `missing` (null without a policy, or when they could not be counted).
 */
import { write, type Deps } from '../../deps.js';
import { CliError } from '../../errors.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { plural, text } from '../../output/text.js';
import type { Approval, Plan, ReadPayout } from '../../plans/plan.js';
import { approvalsNeeded, checkApprovals, type Policy } from '../../plans/policy.js';
import { counting, personName } from './common.js';

export interface Merged {
  path: string;
  /** The plan as the file now carries it. */
  plan: Plan;
  payouts: ReadPayout[];
  added: Approval[];
  policy: Policy | undefined;
}

/** Under a policy, what the plan needs: undefined counts where they could not be had (`problem`). */
interface Judged {
  counted: number;
  required: number | undefined;
  /** Why it cannot be sent whatever approvals it gets (its maker), or why the need was not counted. */
  problem?: string;
  /** Approvers the policy lists who may still approve it (not its maker, not counted already). */
  mayApprove: string[];
}

export async function reportMerge(m: Merged, deps: Deps): Promise<void> {
  const named = m.added.map((a) => ({ a, as: countedAs(a, m.policy) }));
  const judged = m.policy ? await judge(m, m.policy, deps) : undefined;
  const missing = judged?.required === undefined || judged.problem ? undefined : Math.max(0, judged.required - judged.counted);
  if (deps.globals.json) {
    const added = named.map(({ a, as }) => ({ name: a.name, fingerprint: a.fingerprint, ...(as ? { counted_as: as } : {}) }));
    const approvals = judged ? judged.counted : counting(m.plan, undefined);
    const out = { plan: m.path, hash: m.plan.hash, added, approvals, required: judged?.required ?? null, missing: missing ?? null };
    await write(deps.io.stdout, JSON.stringify(judged && missing ? { ...out, may_approve: judged.mayApprove } : out) + '\n');
    return;
  }
  for (const { a, as } of named)
    if (as && personName(as) !== personName(a.name))
      deps.log.warn(`The approval by the key ${a.fingerprint} names itself ${text(a.name)}; the policy ${text(m.policy!.file)} counts this key as ${text(as)}.`);
  const carries = judged
    ? `it now carries ${plural(judged.counted, 'approval')} that count${judged.counted === 1 ? 's' : ''}${judged.required === undefined ? '' : ` (${judged.required} required)`}`
    : `it now carries approvals by ${plural(counting(m.plan, undefined), 'person', 'people')}`;
  if (m.added.length === 0) deps.log.info(`Nothing to merge: ${m.path} carries every approval of the copies already; ${carries}.`);
  else
    deps.log.success(
      `Merged ${plural(m.added.length, 'approval')} into ${m.path} (${named.map(({ a, as }) => `${text(as ?? a.name)}, ${a.fingerprint}`).join('; ')}); ${carries}.`,
    );
  const inv = invocationOf(deps.globals, deps.env);
  if (!judged) {
    deps.log.info(
      `This profile names no policy: whether these approvals count, and how many the plan needs, is not known here (plan send judges them by the policy of the profile it runs with). To judge them: ${commandLine({}, ['policy', 'check'], [fileOperand(m.path)])} --profile <a profile with the team's policy>`,
    );
    return;
  }
  if (judged.problem) deps.log.warn(judged.problem);
  else if (missing === 0) deps.log.info(`Then send it: ${commandLine(inv, ['plan', 'send'], [fileOperand(m.path)])}`);
  else if (missing !== undefined) {
    const head = commandLine({}, ['plan', 'merge'], [fileOperand(m.path)]);
    const merge = `${head} <copy>...${commandLine(inv, ['plan', 'merge'], [fileOperand(m.path)]).slice(head.length)}`;
    const from = judged.mayApprove.length ? `, from ${judged.mayApprove.map(text).join(' or ')}` : '';
    deps.log.info(
      `${plural(missing, 'more approval is', 'more approvals are')} needed before plan send takes it${from}: an approver signs a copy (${commandLine({}, ['plan', 'approve'], [fileOperand(m.path)])}), then merge it: ${merge}`,
    );
  }
}

/** The name the policy counts an approval's key as; undefined without a policy, or for a key it does not list. */
function countedAs(a: Approval, policy: Policy | undefined): string | undefined {
  return policy?.byKey.get(a.fingerprint)?.name;
}

/** The plan under the policy: approvals that count, and how many plan send asks (counted as plan send counts them, on the ledger's day). */
async function judge(m: Merged, policy: Policy, deps: Deps): Promise<Judged> {
  const check = checkApprovals(m.plan, policy);
  const counted = new Set(check.valid.map((v) => v.name));
  const makerPerson = policy.byKey.get(m.plan.maker.fingerprint);
  const mayApprove = [...policy.members.values()].filter((p) => p.roles.has('approver') && p !== makerPerson && !counted.has(p.name)).map((p) => p.name);
  const base = { counted: check.valid.length, mayApprove };
  if (check.makerProblem) return { ...base, required: undefined, problem: `plan send refuses it whatever approvals it carries: ${check.makerProblem}.` };
  try {
    const journal = await openLedger(deps);
    const need = await approvalsNeeded(
      policy,
      m.payouts.map((p) => p.request),
      journal,
      m.plan.base_url,
      await journal.now(),
    );
    return { ...base, required: need.required };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { ...base, required: undefined, problem: `How many approvals it needs was not counted (${err.message}); plan show says, once the ledger can be read.` };
  }
}
