/**
 * `payctl plan create <file>`: a batch file written down as a plan instead of sent: every
 * row's exact body and idempotency key (a row journaled before keeps its key, so a plan made
 * after a partial run resumes it), totals, the maker's key, signed. Nothing is sent.
 *
 * With a policy in the profile, a key the policy does not list as a maker's makes no plan, nor
 * does a file with a payout over the policy's max_per_payout (plan send would refuse either,
 * whatever approvals it carries), and the approvals the plan needs are said at once, counting
 * what each recipient account got today in the ledger (README "Four eyes"). With a shared
 * ledger the plan is stored there too, and the commands printed name it by its hash. Rows that
 * pay the same (identical, or but for how the account is written: payouts/batch-duplicates.ts)
 * are warned of once the plan is written: plan send pays each as a payout of its own. What the
 * rows paid before, and plan create's refusals for it, are create-rows.ts's.
 */
import { basename, resolve } from 'node:path';
import { write, type Deps } from '../../deps.js';
import { RefusedError, UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { describeGroup } from '../../payouts/batch-duplicates.js';
import { checkBatchId, DEFAULT_BATCH_ID } from '../../payouts/identity.js';
import { loadSigningKey, requireSigningKey } from '../../plans/keys.js';
import { makePlan, planToStore, type Plan } from '../../plans/plan.js';
import type { Ledger } from '../../payouts/ledger/ledger.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import { formatAmount } from '../../money/amount.js';
import { text } from '../../output/text.js';
import { approverCommand, defaultPlanPath, inTurnAdvice, writeNewPlan } from './common.js';
import { plannedRows } from './create-rows.js';
import { effectivePolicy } from '../policy/effective.js';
import { approvalsNeeded, limitsHint, overMaximum, type Policy, type Requirement } from '../../plans/policy.js';
import type { PayoutRequest } from '../../payouts/request.js';
import type { SigningKey } from '../../plans/keys.js';

export interface PlanCreateOptions {
  file: string;
  batchId?: string;
  out?: string;
}

export async function run(opts: PlanCreateOptions, deps: Deps): Promise<number> {
  const batchId = opts.batchId ?? DEFAULT_BATCH_ID;
  const badId = opts.batchId !== undefined ? checkBatchId(opts.batchId) : undefined;
  if (badId) throw new UsageError(`Cannot make this plan: ${badId.text}.`, [], undefined, badId);
  const maker = requireSigningKey(configDir(deps.env));
  const policy = await effectivePolicy(deps);
  if (policy) refuseUnlistedMaker(policy, maker);
  const { src, api, journal, payouts, repeats, duplicates, refusal } = await plannedRows(opts, deps);
  if (refusal) throw refusal;
  if (policy)
    refuseOverMaximum(
      policy,
      opts.file,
      payouts.map((p) => p.request),
    );
  const plan = makePlan({ baseUrl: api.baseUrl, batchId, source: basename(src.file), now: deps.clock.now(), maker, payouts });
  const out = resolve(opts.out ?? defaultPlanPath(src.file));
  writeNewPlan(out, plan, '-o');
  const shared = await sharePlan(journal, plan);
  const need = policy
    ? await approvalsNeeded(
        policy,
        payouts.map((p) => p.request),
        journal,
        api.baseUrl,
        await journal.now(),
      )
    : undefined;
  await reportPlan(deps, plan, out, need, shared);
  if (!deps.globals.json) {
    for (const n of repeats.notices()) {
      if (n.warn) deps.log.warn(n.text);
      else deps.log.info(`Note: ${n.text}`);
    }
    for (const g of duplicates.groups().filter((d) => d.pending))
      deps.log.warn(
        `Possible duplicates: ${describeGroup(g)}. Plan send pays each row as a payout of its own; if that is not meant, remove the extra rows and make the plan again.`,
      );
  }
  return 0;
}

/**
 * With a shared ledger, the plan stored there too (its content, hash, maker and time), so that
 * `plan show|approve|send <hash>` find it from any machine sharing it; true when it is there.
 * With the local journal nothing is stored: the plan file is the plan.
 */
export async function sharePlan(journal: Ledger, plan: Plan): Promise<boolean> {
  if (!journal.plans) return false;
  await journal.plans.put(planToStore(plan));
  return true;
}

/**
 * The hint of a payout or file that needs approval (payout create, payout batch): the command that
 * makes it a plan, said to a maker as theirs to run; to anyone else (a key the policy lists only
 * as an approver's or not at all, or no signing key here), as a maker's to run. Before, an
 * approver was told to run it, and it refused them (refuseUnlistedMaker).
 */
export function makePlanHint(policy: Policy, dir: string, lead: string, command: string): string {
  let key: SigningKey | undefined;
  try {
    key = loadSigningKey(dir);
  } catch {
    key = undefined; // a key file that cannot be read: the plan's command says why when it is run
  }
  const m = key && policy.byKey.get(key.fingerprint);
  if (m?.roles.has('maker')) return `${lead}:\n  ${command}`;
  if (![...policy.members.values()].some((p) => p.roles.has('maker')))
    return `${lead}: the policy ${policy.file} lists no maker, so no plan can be made under it. Have whoever keeps the policy list the people who make plans (roles ["maker"]).`;
  const why = !key ? 'this machine has no signing key' : m ? `${m.name} is listed only as an approver` : `your key ${key.fingerprint} is not listed`;
  return `${lead}, which only a maker in the policy ${policy.file} can make (${why}). A maker runs:\n  ${command}`;
}

/** A key the policy does not list as a maker's makes no plan: plan approve and plan send would refuse it. */
export function refuseUnlistedMaker(policy: Policy, key: SigningKey): void {
  const m = policy.byKey.get(key.fingerprint);
  if (m?.roles.has('maker')) return;
  throw new UsageError(
    `Your key ${key.fingerprint} is not ${m ? `a maker's: ${m.name} is listed only as an approver` : 'listed'} in the policy ${policy.file}, so no plan it makes can be sent. No plan was written.`,
    [],
    `Have whoever keeps the policy list you as a maker (your public key: ${key.publicKey}).`,
  );
}

/**
 * A plan with a payout over the policy's max_per_payout is not written (payout batch refuses
 * the file the same way): no approval lifts that limit, so plan send would refuse it whatever
 * approvals it gathered. `what` names the file, or "This payout".
 */
export function refuseOverMaximum(policy: Policy, what: string, requests: PayoutRequest[]): void {
  const over = overMaximum(policy, requests);
  if (over.length === 0) return;
  throw new RefusedError(`${what} breaks the policy ${policy.file}. No plan was written.`, over, limitsHint(over));
}

/**
 * What a person sees once a plan is written (plan create, payout create --plan-out): where it
 * is and what comes next: the commands name the plan by its hash when it is in the shared
 * ledger (they work on any machine sharing it), else by its file. The approver's is theirs to
 * run, without this run's profile (approverCommand).
 */
export async function reportPlan(deps: Deps, plan: Plan, out: string, need?: Requirement, shared = false): Promise<void> {
  const inv = invocationOf(deps.globals, deps.env);
  if (deps.globals.json) {
    await write(
      deps.io.stdout,
      JSON.stringify({
        plan: out,
        hash: plan.hash,
        ...(shared ? { in_shared_ledger: true } : {}),
        batch_id: plan.batch_id,
        payouts: plan.payouts.length,
        totals: plan.totals,
        ...(need ? { required_approvals: need.required, reasons: need.reasons } : {}),
      }) + '\n',
    );
    return;
  }
  const totals = plan.totals.map((t) => `${formatAmount(t.total, t.currency)} ${t.currency} from ${text(t.wallet_id)} (${t.count})`).join('; ');
  deps.log.success(`Plan written to ${out}: ${plan.payouts.length} payout${plan.payouts.length === 1 ? '' : 's'}, ${totals}. Nothing was sent.`);
  if (need)
    deps.log.info(
      need.required === 0
        ? 'Approvals: none needed under the policy today.'
        : `Approvals: ${need.required} needed, from people other than you:\n${need.reasons.map((r) => `  ${r}`).join('\n')}`,
    );
  const ref = shared ? plan.hash : fileOperand(out);
  const approver = approverCommand(ref, shared);
  const inTurn = shared ? undefined : inTurnAdvice(ref, need?.required ?? 0, inv);
  deps.log.info(
    `Hash ${plan.hash}${shared ? " (stored in the team's shared ledger: these commands work on any machine that shares it)" : ''}\n` +
      `Review it:          ${commandLine(inv, ['plan', 'show'], [ref])}\n` +
      `An approver signs:  ${approver.command}\n` +
      `                    (${approver.where})\n` +
      (inTurn ? `                    ${inTurn}\n` : '') +
      `Then send it:       ${commandLine(inv, ['plan', 'send'], [ref])}`,
  );
}
