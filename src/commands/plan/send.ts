/**
 * `payctl plan send <plan>`: sends exactly the plan's bodies under the plan's keys, once
 * every check holds: the plan is whole (hash, maker's signature, bodies), it is for this
 * profile's base URL, it is at most 7 days old, every approval counts under the profile's
 * policy (signed over this plan, by a listed approver, distinct, not the maker) and there
 * are enough of them, and no limit is broken. Any failed check: exit 2, nothing sent. Then
 * the rows go through the same journal, retries, progress and report as a batch; a payout
 * journaled before under another key or with other details is refused before anything
 * leaves, so sending a plan twice, or from two terminals at once, pays nobody twice.
 */
import { resolve } from 'node:path';
import type { Deps } from '../../deps.js';
import { CancelledError, UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { Journal } from '../../payouts/journal.js';
import { defaultReportPath, reportProblems } from '../../payouts/report.js';
import type { BatchItem } from '../../payouts/batch.js';
import { PLAN_MAX_AGE_MS, readPlan, samePlace } from '../../plans/plan.js';
import { checkApprovals, currencyTotals, limitProblems, requiredApprovals } from '../../plans/policy.js';
import { commandLine, invocationOf } from '../../output/command-line.js';
import { formatAmount } from '../../money/amount.js';
import { sendRows } from '../payout/send-rows.js';
import { yesRequired } from '../../output/prompter.js';
import { profilePolicy } from './common.js';

export interface PlanSendOptions {
  plan: string;
  concurrency?: number;
  report?: string;
  yes?: boolean;
}

const DEFAULT_CONCURRENCY = 4;

export async function run(opts: PlanSendOptions, deps: Deps): Promise<number> {
  const refuse = (message: string, problems: string[] = [], hint?: string) =>
    new UsageError(`Cannot send the plan ${opts.plan}: ${message}. Nothing was sent.`, problems, hint);
  const { plan, payouts } = readPlan(opts.plan);
  const policy = profilePolicy(deps);
  if (!policy) throw refuse('the profile names no policy to judge its approvals by', [], "Name your team's policy file with: payctl config set policy <path>");
  const api = await deps.api();
  if (!samePlace(plan.base_url, api.baseUrl)) throw refuse(`it was made for ${plan.base_url}, and this profile sends to ${api.baseUrl}`);
  const now = deps.clock.now();
  const made = Date.parse(plan.created_at);
  if (!Number.isFinite(made)) throw refuse(`its creation time "${plan.created_at}" is not a time`);
  if (now.getTime() - made > PLAN_MAX_AGE_MS) throw refuse(`it was made on ${plan.created_at}, more than 7 days ago`, [], 'Make a new plan and have it approved again.');
  if (made - now.getTime() > 5 * 60_000) throw refuse(`it was made on ${plan.created_at}, in the future`);

  const judged = checkApprovals(plan, policy);
  if (judged.refused.length) throw refuse(`${judged.refused.length} approval${judged.refused.length === 1 ? ' does' : 's do'} not count`, judged.refused);
  const requests = payouts.map((p) => p.request);
  const need = requiredApprovals(policy, currencyTotals(requests));
  if (judged.valid.length < need.required) {
    throw refuse(
      `it needs ${need.required} approval${need.required === 1 ? '' : 's'} and carries ${judged.valid.length}`,
      need.reasons,
      `An approver signs it with: payctl plan approve ${opts.plan}`,
    );
  }
  const journal = new Journal(configDir(deps.env));
  const limits = limitProblems(policy, requests, journal, api.baseUrl, now);
  if (limits.length) throw refuse("it breaks the policy's limits", limits);

  // Every payout journaled before must be this very payout under this very key: otherwise
  // the plan's key would not be the one the service saw first.
  const conflicts: string[] = [];
  const items: BatchItem[] = payouts.map((p, i) => {
    const earlier = journal.get(api.baseUrl, p.payout_id);
    if (earlier) {
      const c = journal.conflict(earlier, p.body, p.idempotency_key);
      if (c)
        conflicts.push(
          `payout ${i + 1} (${p.payout_id}): already sent ${c.what === 'details' ? 'with other details' : `under another idempotency key (${earlier.idempotencyKey})`}`,
        );
    }
    return { row: p.row ?? i + 1, request: p.request, body: p.body, idempotencyKey: p.idempotency_key, earlier };
  });
  if (conflicts.length) throw refuse(`${conflicts.length} payout${conflicts.length === 1 ? ' was' : 's were'} sent before differently`, conflicts);

  const reportPath = resolve(opts.report ?? defaultReportPath(resolve(opts.plan)));
  const badReport = reportProblems(reportPath, resolve(opts.plan), opts.report === undefined ? 'the report' : `--report ${reportPath}`);
  if (badReport.length) throw refuse('its report cannot be written', badReport, 'Choose another --report path.');
  const alreadyAccepted = items.filter((it) => it.earlier?.outcome?.kind === 'accepted').length;
  const toSend = items.length - alreadyAccepted;
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const inv = invocationOf(deps.globals, deps.env);
  const rerun = commandLine(
    inv,
    ['plan', 'send'],
    [
      opts.plan,
      ...(concurrency !== DEFAULT_CONCURRENCY ? ['--concurrency', String(concurrency)] : []),
      ...(opts.report !== undefined ? ['--report', reportPath] : []),
      '--yes',
    ],
  );

  if (toSend > 0 && !opts.yes) {
    if (!deps.io.interactive) {
      throw refuse(yesRequired(deps.globals));
    }
    const totals = plan.totals.map((t) => `${formatAmount(t.total, t.currency)} ${t.currency} from ${t.wallet_id}`).join('; ');
    deps.log.info(
      `Plan ${plan.hash}: ${toSend} payout${toSend === 1 ? '' : 's'} to send (${totals}), approved by ${judged.valid.map((v) => v.name).join(', ') || 'nobody (none needed)'}.`,
    );
    const ok = await (await deps.prompter()).confirm({ message: `Send ${toSend} payout${toSend === 1 ? '' : 's'}?`, default: false });
    if (!ok) throw new CancelledError();
  }
  if (toSend === 0) deps.log.info(`Nothing to send: every payout of the plan was accepted earlier.`);
  return sendRows(deps, {
    items,
    rows: items.length,
    toSend,
    alreadyAccepted,
    api,
    journal,
    concurrency,
    batch: { id: plan.batch_id ?? `plan-${plan.hash.slice(7, 19)}`, file: resolve(opts.plan) },
    reportPath,
    rerun,
  });
}
