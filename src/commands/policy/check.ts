/**
 * `payctl policy check <file|plan>`: what the profile's policy asks of a batch file or a
 * plan, and why: the approvals it needs, by its totals and by what each recipient account
 * got today with it (approvalsNeeded: the sum is shown), for a plan who made it and which of
 * its approvals count (by name) and why the others do not, and any limit it breaks (per
 * payout, daily per wallet); for a plan also every other reason plan send would refuse it
 * (plan/sendable.ts: where and when it was made, what the ledger holds), by plan send's own
 * checks; for a batch file that needs a plan, plan create's own checks of what its rows paid
 * before (plan/create-rows.ts): the plan create command is offered only when it would make the
 * plan, else its refusal is said, with the commands it gives. Exit 0 when it can be sent as it is
 * (a batch directly, a plan with its approvals), 1 when not.
 */
import { write, type Deps } from '../../deps.js';
import { ExitCode, UsageError } from '../../errors.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { checkBatch, identifiedRows, openBatch } from '../../payouts/batch-load.js';
import { DEFAULT_BATCH_ID } from '../../payouts/identity.js';
import type { PayoutRequest } from '../../payouts/request.js';
import { isPlanFile } from '../../plans/plan-file-kind.js';
import { loadPlan, type LoadedPlan } from '../plan/source.js';
import { plannedRows } from '../plan/create-rows.js';
import { planOutArgs } from '../plan/common.js';
import { approvalsNeeded, checkApprovals, limitProblems, type ApprovalCheck, type Requirement } from '../../plans/policy.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import { text } from '../../output/text.js';
import { effectivePolicy } from './effective.js';
import { refusalLines, sendRefusals, type SendRefusal } from '../plan/sendable.js';
import { makeStyle, type Style } from '../../output/style.js';

export interface PolicyCheckOptions {
  file: string;
  batchId?: string;
}

/** The payouts of the file: a plan's, or a batch file's rows as they would be sent under the batch id. */
async function payoutsOf(opts: PolicyCheckOptions, deps: Deps, plan: LoadedPlan | undefined): Promise<PayoutRequest[]> {
  if (plan) return plan.payouts.map((p) => p.request);
  const src = openBatch(opts.file, opts.batchId ?? DEFAULT_BATCH_ID, deps.signal);
  const checked = await checkBatch(src);
  const requests: PayoutRequest[] = [];
  for await (const r of identifiedRows(src, [], checked)) requests.push(r.request);
  return requests;
}

/** What the policy says of the file. */
interface Verdict {
  kind: 'plan' | 'batch';
  policyFile: string;
  payouts: number;
  need: Requirement;
  limits: string[];
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
  /** The command that sends it, when it can be sent. */
  send: string | undefined;
}

export async function run(opts: PolicyCheckOptions, deps: Deps): Promise<number> {
  const policy = await effectivePolicy(deps);
  if (!policy) throw new UsageError('The profile names no policy.', [], "Name your team's policy file with: payctl config set policy <path>");
  const api = await deps.api();
  const journal = await openLedger(deps);
  // Read as plan send reads it: with the approvals the shared ledger keeps for it (source.ts).
  const plan = isPlanFile(opts.file) ? await loadPlan(opts.file, deps) : undefined;
  const requests = await payoutsOf(opts, deps, plan);
  // The ledger's day (the database's with a shared ledger), as payout create and plan send count it.
  const now = await journal.now();
  const need = await approvalsNeeded(policy, requests, journal, api.baseUrl, now);
  const limits = await limitProblems(policy, requests, journal, api.baseUrl, now, { warn: (l) => deps.log.warn(l) });
  const judged = plan ? checkApprovals(plan.plan, policy, plan.ownApprovals) : undefined;
  const counted = judged?.valid.length ?? 0;
  // The checks plan send runs beside approvals and limits: what this says can be sent, plan send sends.
  const refusals = plan
    ? await sendRefusals({ plan: plan.plan, payouts: plan.payouts, file: opts.file, storedAt: plan.storedAt, journal, baseUrl: api.baseUrl }, deps)
    : [];
  const sendable =
    limits.length === 0 && refusals.length === 0 && (plan ? !judged!.makerProblem && judged!.refused.length === 0 && counted >= need.required : need.required === 0);
  const inv = invocationOf(deps.globals, deps.env);
  const toPlan = !plan && need.required > 0 && limits.length === 0;
  // plan create's own checks of what the rows paid before: its command is offered only when it would make the plan.
  const planRefusal = toPlan ? (await plannedRows(opts, deps, '')).refusal : undefined;
  const next =
    toPlan && !planRefusal
      ? commandLine(
          inv,
          ['plan', 'create'],
          [fileOperand(opts.file), ...(opts.batchId ? ['--batch-id', opts.batchId] : []), ...planOutArgs(opts.file, opts.batchId ?? DEFAULT_BATCH_ID)],
        )
      : undefined;
  const batchId = opts.batchId ? ['--batch-id', opts.batchId] : [];
  const send = sendable ? commandLine(inv, plan ? ['plan', 'send'] : ['payout', 'batch'], [fileOperand(opts.file), ...(plan ? [] : batchId)]) : undefined;
  const v: Verdict = {
    kind: plan ? 'plan' : 'batch',
    policyFile: policy.file,
    payouts: requests.length,
    need,
    limits,
    judged,
    makerFingerprint: plan?.plan.maker.fingerprint,
    refusals,
    sendable,
    next,
    planRefusal,
    send,
  };
  await write(deps.io.stdout, deps.globals.json ? verdictJson(opts.file, v) : verdictText(opts.file, v, makeStyle(deps.io.color)));
  return sendable ? ExitCode.ok : ExitCode.failed;
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
      ...(v.planRefusal ? { plan_refused: planRefusalJson(v.planRefusal) } : {}),
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
  out += limits.length ? `Limits broken:\n${limits.map((l) => `  ${l}\n`).join('')}` : 'Limits: none broken.\n';
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
          ? planRefusalText(v.planRefusal)
          : 'It cannot be sent.\n';
  return out;
}

/** A batch that needs approvals, of which plan create would make no plan: its refusal, as plan create says it, and what to do. */
function planRefusalText(refusal: UsageError): string {
  const indent = (l: string) => `  ${l}\n`;
  return (
    'It cannot be sent directly, and plan create refuses to make a plan of it as it is:\n' +
    indent(refusal.message.trimEnd()) +
    refusal.problems.map((p) => indent(`- ${text(p)}`)).join('') +
    (refusal.hint ?? '').split('\n').filter(Boolean).map(indent).join('')
  );
}

/** plan create's refusal, as the error it would give (`--json`'s error shape: message, errors, hint). */
function planRefusalJson(refusal: UsageError): { message: string; errors: Array<{ field: string; message: string; row?: number }>; hint: string | null } {
  return {
    message: refusal.message.trimEnd(),
    errors: refusal.issues.map(({ field, message, row }) => ({ field, message, ...(row !== undefined ? { row } : {}) })),
    hint: refusal.hint ?? null,
  };
}
