/**
 * `payctl policy check <file|plan>`: what the profile's policy asks of a batch file or a
 * plan (a plan file, or a plan of the shared ledger by its hash, read as plan show reads it:
 * plan/source.ts loadPlan), and why: the approvals it needs, by its totals and by what each recipient account
 * got today with it (approvalsNeeded: the sum is shown), for a plan who made it and which of
 * its approvals count (by name) and why the others do not, and any limit it breaks (per
 * payout, daily per wallet); for a plan also every other reason plan send would refuse it
 * (plan/sendable.ts: where and when it was made, what the ledger holds), by plan send's own
 * checks; for a batch file, plan create's own checks of what its rows paid before
 * (plan/create-rows.ts): the plan create command (for a batch that needs approvals) or the payout
 * batch (for one that needs none) is offered only when it would not refuse the rows, else the
 * refusal is said, with the commands to choose from. Journal entries missing (limits.ts) are said
 * apart from the limits broken: the day's total cannot be counted, with the two ways forward
 * payout batch gives and the command that sends with --acknowledge-missing. Every command printed
 * names the file by its absolute path. Exit 0 when it can be sent as it is (a batch directly, a plan with its
 * approvals), 1 when not.
 */
import { resolve } from 'node:path';
import { write, type Deps } from '../../deps.js';
import { ExitCode, UsageError } from '../../errors.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { checkBatch, identifiedRows, openBatch } from '../../payouts/batch-load.js';
import { DEFAULT_BATCH_ID } from '../../payouts/identity.js';
import type { PayoutRequest } from '../../payouts/request.js';
import { isPlanFile } from '../../plans/plan-file-kind.js';
import { hashArgument, loadPlan, type LoadedPlan } from '../plan/source.js';
import { plannedRows } from '../plan/create-rows.js';
import { defaultPlanPath, planOutArgs } from '../plan/common.js';
import { approvalsNeeded, checkApprovals, limitProblems, limitsHint, uncountable, type ApprovalCheck, type Requirement } from '../../plans/policy.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { text } from '../../output/text.js';
import { effectivePolicy, noPolicyHint } from './effective.js';
import { refusalLines, sendRefusals, type SendRefusal } from '../plan/sendable.js';
import { makeStyle, type Style } from '../../output/style.js';

export interface PolicyCheckOptions {
  file: string;
  batchId?: string;
}

/**
 * The payouts of the file: a plan's, or a batch file's rows as they would be sent under the batch
 * id; and the file's absolute path, as printed commands name it (pasted in another folder, the
 * path as typed named no file).
 */
async function payoutsOf(opts: PolicyCheckOptions, deps: Deps, plan: LoadedPlan | undefined): Promise<{ requests: PayoutRequest[]; file: string }> {
  // A plan of the shared ledger is named by its full hash (source.ts LoadedPlan.ref), a plan file by its path.
  if (plan) return { requests: plan.payouts.map((p) => p.request), file: plan.store ? plan.ref : resolve(opts.file) };
  const src = openBatch(opts.file, opts.batchId ?? DEFAULT_BATCH_ID, deps.signal);
  const checked = await checkBatch(src);
  const requests: PayoutRequest[] = [];
  for await (const r of identifiedRows(src, [], checked)) requests.push(r.request);
  return { requests, file: src.file };
}

/** What the policy says of the file. */
interface Verdict {
  kind: 'plan' | 'batch';
  policyFile: string;
  payouts: number;
  need: Requirement;
  /** The limits broken. */
  limits: string[];
  /** Why the day's total cannot be counted (journal entries missing): not a limit broken, but it stops a send as they do. */
  unknownTotal: string[];
  /** For those alone: the command that sends with --acknowledge-missing, and what to do (limitsHint). */
  acknowledge: { command: string; hint: string } | undefined;
  /** For a plan: who made it and which approvals count. */
  judged: ApprovalCheck | undefined;
  makerFingerprint: string | undefined;
  /** For a plan: why else plan send would refuse it (sendable.ts). */
  refusals: SendRefusal[];
  sendable: boolean;
  /** For a batch that needs approvals: the command that makes it a plan. */
  next: string | undefined;
  /** For a batch that needs approvals: why plan create would make no plan of it (create-rows.ts), said instead of `next`. */
  planRefusal: UsageError | undefined;
  /** For a batch that needs none: why it cannot be sent directly as it is (its rows paid before: the same checks), said instead of `send`. */
  batchRefusal: UsageError | undefined;
  /** The command that sends it, when it can be sent. */
  send: string | undefined;
}

export async function run(opts: PolicyCheckOptions, deps: Deps): Promise<number> {
  const policy = await effectivePolicy(deps);
  if (!policy) throw new UsageError('The profile names no policy.', [], noPolicyHint(deps));
  const api = await deps.api();
  const journal = await openLedger(deps);
  // Read as plan send reads it: a plan file with the approvals the shared ledger keeps for it, or a plan of that ledger by hash (source.ts).
  const plan = hashArgument(opts.file) !== undefined || isPlanFile(opts.file) ? await loadPlan(opts.file, deps, ['policy', 'check']) : undefined;
  const { requests, file } = await payoutsOf(opts, deps, plan);
  // The ledger's day (the database's with a shared ledger), as payout create and plan send count it.
  const now = await journal.now();
  const need = await approvalsNeeded(policy, requests, journal, api.baseUrl, now);
  const problems = await limitProblems(policy, requests, journal, api.baseUrl, now, { warn: (l) => deps.log.warn(l) });
  // Entries missing leave the day's total unknown: said as that, with its ways forward, not as a limit broken.
  const limits = problems.filter((p) => !uncountable(p));
  const unknownTotal = problems.filter(uncountable);
  const judged = plan ? checkApprovals(plan.plan, policy, plan.ownApprovals) : undefined;
  const counted = judged?.valid.length ?? 0;
  // The checks plan send runs beside approvals and limits: what this says can be sent, plan send sends.
  const refusals = plan
    ? await sendRefusals(
        { plan: plan.plan, payouts: plan.payouts, file: plan.store ? undefined : opts.file, storedAt: plan.storedAt, journal, baseUrl: api.baseUrl },
        deps,
      )
    : [];
  // plan create's own checks of what a batch's rows paid before, whichever way it would go: a plan
  // create or a payout batch is offered only when it would not refuse them (before, a batch that
  // needed no approval was said to be sendable, and payout batch refused it as printed).
  const toPlan = !plan && need.required > 0;
  const paidBefore = !plan && limits.length === 0 ? (await plannedRows(opts, deps, '', toPlan ? 'plan' : 'batch')).refusal : undefined;
  const sendable =
    problems.length === 0 &&
    refusals.length === 0 &&
    (plan ? !judged!.makerProblem && judged!.refused.length === 0 && counted >= need.required : need.required === 0 && !paidBefore);
  const inv = invocationOf(deps.globals, deps.env);
  const batchId = opts.batchId ? ['--batch-id', opts.batchId] : [];
  const next =
    toPlan && limits.length === 0 && !paidBefore
      ? commandLine(inv, ['plan', 'create'], [file, ...batchId, ...planOutArgs(file, opts.batchId ?? DEFAULT_BATCH_ID)])
      : undefined;
  const acknowledge =
    unknownTotal.length && limits.length === 0 && !paidBefore ? acknowledgeOf(inv, file, plan !== undefined, toPlan, opts.batchId, unknownTotal) : undefined;
  const send = sendable ? commandLine(inv, plan ? ['plan', 'send'] : ['payout', 'batch'], [file, ...(plan ? [] : batchId)]) : undefined;
  const v: Verdict = {
    kind: plan ? 'plan' : 'batch',
    policyFile: policy.file,
    payouts: requests.length,
    need,
    limits,
    unknownTotal,
    acknowledge,
    judged,
    makerFingerprint: plan?.plan.maker.fingerprint,
    refusals,
    sendable,
    next,
    planRefusal: toPlan ? paidBefore : undefined,
    batchRefusal: toPlan ? undefined : paidBefore,
    send,
  };
  const shown = plan?.store ? plan.ref : opts.file;
  await write(deps.io.stdout, deps.globals.json ? verdictJson(shown, v) : verdictText(shown, v, makeStyle(deps.io.color)));
  return sendable ? ExitCode.ok : ExitCode.failed;
}

/**
 * The command that sends the file with --acknowledge-missing (payout batch; plan send of a plan,
 * or of the plan a batch that needs approvals is made into, once approved), and limitsHint's ways
 * forward naming it.
 */
function acknowledgeOf(
  inv: ReturnType<typeof invocationOf>,
  file: string,
  plan: boolean,
  toPlan: boolean,
  batchId: string | undefined,
  unknownTotal: string[],
): { command: string; hint: string } {
  const out = toPlan ? (planOutArgs(file, batchId ?? DEFAULT_BATCH_ID)[1] ?? resolve(defaultPlanPath(file))) : undefined;
  const command =
    plan || out
      ? commandLine(inv, ['plan', 'send'], [out ?? file, '--acknowledge-missing'])
      : commandLine(inv, ['payout', 'batch'], [file, ...(batchId ? ['--batch-id', batchId] : []), '--acknowledge-missing']);
  return { command, hint: limitsHint(unknownTotal, commandLine(inv, ['payouts', 'list'], ['--all']), command) };
}

/** The verdict as one JSON line. */
function verdictJson(file: string, v: Verdict): string {
  const judged = v.judged;
  return (
    JSON.stringify({
      file,
      kind: v.kind,
      policy: v.policyFile,
      payouts: v.payouts,
      required_approvals: v.need.required,
      reasons: v.need.reasons,
      limits: v.limits,
      ...(v.unknownTotal.length ? { daily_total_unknown: v.unknownTotal } : {}),
      ...(v.acknowledge ? { acknowledge_missing: v.acknowledge.command } : {}),
      ...(judged
        ? {
            made_by: judged.maker?.name ?? null,
            ...(judged.makerProblem ? { maker_problem: judged.makerProblem } : {}),
            counted: judged.valid,
            not_counted: judged.refused,
            ignored: judged.ignored,
            send_refusals: v.refusals.map((r) => ({ reason: r.reason, details: r.details, ...(r.hint ? { hint: r.hint } : {}) })),
          }
        : {}),
      sendable: v.sendable,
      ...(v.next ? { make_plan: v.next } : {}),
      ...(v.planRefusal ? { plan_refused: refusalJson(v.planRefusal) } : {}),
      ...(v.batchRefusal ? { batch_refused: refusalJson(v.batchRefusal) } : {}),
    }) + '\n'
  );
}

/** The verdict for people: approvals needed and why, who made and approved a plan, limits, and whether it can be sent. */
function verdictText(file: string, v: Verdict, st: Style): string {
  const { need, limits, judged } = v;
  const plan = v.kind === 'plan';
  let out = `${text(file)}: ${plan ? 'a plan' : 'a batch'} of ${v.payouts} payout${v.payouts === 1 ? '' : 's'}, under the policy ${text(v.policyFile)}.\n`;
  out += need.required === 0 ? 'Approvals: none needed.\n' : `Approvals: ${need.required} needed.\n${need.reasons.map((r) => `  ${r}\n`).join('')}`;
  if (judged) {
    out += judged.maker ? `Made by: ${text(judged.maker.name)} (key ${v.makerFingerprint}).\n` : `Made by: no maker the policy lists: ${text(judged.makerProblem!)}.\n`;
    out += `Approved by: ${judged.valid.length} that count${judged.valid.length ? `: ${judged.valid.map((x) => text(x.name)).join(', ')}` : ''}.\n`;
    for (const r of [...judged.refused, ...judged.ignored]) out += `  Not counted: ${text(r)}\n`;
  }
  out += limits.length ? `Limits broken:\n${limits.map((l) => `  ${l}\n`).join('')}` : v.unknownTotal.length ? '' : 'Limits: none broken.\n';
  if (v.unknownTotal.length) out += `Daily total unknown:\n${v.unknownTotal.map((l) => `  ${l}\n`).join('')}`;
  out += refusalLines(v.refusals, st);
  out += v.sendable
    ? plan
      ? `It can be sent: ${v.send}\n`
      : `It can be sent directly: ${v.send}\n`
    : plan
      ? v.refusals.length
        ? 'It cannot be sent.\n'
        : 'It cannot be sent yet.\n'
      : v.next
        ? `It cannot be sent directly. Make a plan for approval: ${v.next}\n`
        : v.planRefusal
          ? refusalText('It cannot be sent directly, and plan create refuses to make a plan of it as it is:', v.planRefusal)
          : v.batchRefusal
            ? refusalText('It cannot be sent directly as it is:', v.batchRefusal)
            : v.acknowledge
              ? "It cannot be sent as it is: the day's total cannot be counted.\n"
              : 'It cannot be sent.\n';
  // The ways forward payout batch and plan send give for entries missing, with the command.
  if (v.acknowledge) out += (v.kind === 'batch' && !v.next ? '' : "Sending it is refused while the day's total cannot be counted:\n") + indented(v.acknowledge.hint);
  return out;
}

/** Each line of `lines`, indented two spaces. */
const indented = (lines: string): string =>
  lines
    .split('\n')
    .filter(Boolean)
    .map((l) => `  ${l}\n`)
    .join('');

/**
 * A batch whose rows were paid before: the refusal, as plan create says it (with the commands of
 * the way the batch would go: a plan, or payout batch for one that needs no approval), and what to do.
 */
function refusalText(head: string, refusal: UsageError): string {
  const indent = (l: string) => `  ${l}\n`;
  return (
    `${head}\n` +
    indent(refusal.message.trimEnd()) +
    refusal.problems.map((p) => indent(`- ${text(p)}`)).join('') +
    (refusal.hint ?? '').split('\n').filter(Boolean).map(indent).join('')
  );
}

/** plan create's refusal, as the error it would give (`--json`'s error shape: message, errors, hint). */
function refusalJson(refusal: UsageError): { message: string; errors: Array<{ field: string; message: string; row?: number }>; hint: string | null } {
  return {
    message: refusal.message.trimEnd(),
    errors: refusal.issues.map(({ field, message, row }) => ({ field, message, ...(row !== undefined ? { row } : {}) })),
    hint: refusal.hint ?? null,
  };
}
