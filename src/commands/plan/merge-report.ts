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
 * The approvals are counted as plan send of the file counts them: with those the team's shared
 * ledger keeps for the plan's hash (source.ts withStoredApprovals), said as kept there, not in
 * the file (`--json`: `in_shared_ledger_only`), one of them that does not count said left out, as
 * plan send says it. Counting the file's alone, merge said "1 more approval is needed" of a plan
 * that plan send then sent.
 */
import { write, type Deps } from '../../deps.js';
import { CliError } from '../../errors.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { plural, text } from '../../output/text.js';
import type { Approval, Plan, ReadPayout } from '../../plans/plan.js';
import { approvalsNeeded, checkApprovals, type Policy } from '../../plans/policy.js';
import { approvalHolds } from '../../plans/signatures.js';
import type { Ledger } from '../../payouts/journal.js';
import { counting, personName } from './common.js';
import { withStoredApprovals, type LoadedPlan } from './source.js';

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
  /** The keys of the approvals that count. */
  valid: Set<string>;
}

/** The merged file as plan send of it reads it (`loaded`), with the ledger read, or why it could not be read (`problem`). */
interface AsSent {
  loaded: LoadedPlan;
  ledger?: Ledger;
  problem?: string;
}

export async function reportMerge(m: Merged, deps: Deps): Promise<void> {
  const sent = await asSendReadsIt(m, deps);
  const plan = sent.loaded.plan;
  const named = m.added.map((a) => ({ a, as: countedAs(a, m.policy) }));
  const judged = m.policy ? await judge(m, sent, m.policy, deps) : undefined;
  const missing = judged?.required === undefined || judged.problem ? undefined : Math.max(0, judged.required - judged.counted);
  // Counted, and kept in the shared ledger only (not in the file): said so, as plan show says it.
  const storedOnly = (sent.loaded.alsoStored?.approvals ?? [])
    .filter((a) => (judged ? judged.valid.has(a.fingerprint) : a.fingerprint !== plan.maker.fingerprint && approvalHolds(plan.hash, a)))
    .map((a) => ({ name: countedAs(a, m.policy) ?? a.name, fingerprint: a.fingerprint }));
  if (deps.globals.json) {
    const added = named.map(({ a, as }) => ({ name: a.name, fingerprint: a.fingerprint, ...(as ? { counted_as: as } : {}) }));
    const approvals = judged ? judged.counted : counting(plan, undefined);
    const stored = storedOnly.length ? { in_shared_ledger_only: storedOnly } : {};
    const out = { plan: m.path, hash: m.plan.hash, added, approvals, ...stored, required: judged?.required ?? null, missing: missing ?? null };
    await write(deps.io.stdout, JSON.stringify(judged && missing ? { ...out, may_approve: judged.mayApprove } : out) + '\n');
    return;
  }
  for (const { a, as } of named)
    if (as && personName(as) !== personName(a.name))
      deps.log.warn(`The approval by the key ${a.fingerprint} names itself ${text(a.name)}; the policy ${text(m.policy!.file)} counts this key as ${text(as)}.`);
  if (!judged && sent.problem)
    deps.log.warn(`The approvals the team's shared ledger keeps for this plan were not read (${sent.problem}); plan send of the file counts them too.`);
  const n = storedOnly.length;
  const kept = n ? `; ${n} of them (${storedOnly.map((a) => text(a.name)).join(', ')}) ${n === 1 ? 'is' : 'are'} kept in the team's shared ledger, not in the file` : '';
  const carries = judged
    ? `it now carries ${plural(judged.counted, 'approval')} that count${judged.counted === 1 ? 's' : ''}${judged.required === undefined ? '' : ` (${judged.required} required)`}${kept}`
    : `it now carries approvals by ${plural(counting(plan, undefined), 'person', 'people')}${kept}`;
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

/** The merged file with the approvals the shared ledger keeps for its hash, as plan send of the file reads it (source.ts). */
async function asSendReadsIt(m: Merged, deps: Deps): Promise<AsSent> {
  const file: LoadedPlan = { plan: m.plan, payouts: m.payouts, ref: fileOperand(m.path), label: m.path, ownApprovals: m.plan.approvals.length };
  try {
    const ledger = await openLedger(deps);
    return { loaded: await withStoredApprovals(file, ledger), ledger };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { loaded: file, problem: err.message };
  }
}

/**
 * The plan under the policy: approvals that count, as plan send counts them (the file's own, then
 * those the shared ledger keeps: one of these that does not count is left out, said as plan send
 * says it), and how many plan send asks (counted as plan send counts them, on the ledger's day).
 */
async function judge(m: Merged, sent: AsSent, policy: Policy, deps: Deps): Promise<Judged> {
  const { plan, ownApprovals } = sent.loaded;
  const check = checkApprovals(plan, policy, ownApprovals);
  for (const r of check.ignored) deps.log.warn(`Not counted: ${r}`);
  const counted = new Set(check.valid.map((v) => v.name));
  const makerPerson = policy.byKey.get(plan.maker.fingerprint);
  const mayApprove = [...policy.members.values()].filter((p) => p.roles.has('approver') && p !== makerPerson && !counted.has(p.name)).map((p) => p.name);
  const base = { counted: check.valid.length, mayApprove, valid: new Set(check.valid.map((v) => v.fingerprint)) };
  if (check.makerProblem) return { ...base, required: undefined, problem: `plan send refuses it whatever approvals it carries: ${check.makerProblem}.` };
  const notCounted = (why: string): Judged => ({
    ...base,
    required: undefined,
    problem: `How many approvals it needs was not counted (${why}); plan show says, once the ledger can be read.`,
  });
  if (!sent.ledger) return notCounted(sent.problem ?? 'the ledger was not read');
  try {
    const need = await approvalsNeeded(
      policy,
      m.payouts.map((p) => p.request),
      sent.ledger,
      plan.base_url,
      await sent.ledger.now(),
    );
    return { ...base, required: need.required };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return notCounted(err.message);
  }
}
