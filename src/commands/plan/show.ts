/**
 * `payctl plan show <plan>`: a plan for review: where it goes, who made it (the person the
 * policy names for its key), every payout, the totals per wallet and currency with the
 * balances they would leave (live, when the profile can reach the service), and its approvals
 * as the profile's policy judges them: who approved (by name), which approvals do not count
 * and why, and how many it needs, counting what each recipient account got today from this
 * machine's journal (README "Four eyes").
 */
import { write, type Deps } from '../../deps.js';
import { CliError } from '../../errors.js';
import type { Wallet } from '../../service/schemas.js';
import { balanceMinor, decimalToMinor, formatAmount, minorToDecimal } from '../../money/amount.js';
import { minorDigits } from '../../money/currencies.js';
import { readPlan, type Plan } from '../../plans/plan.js';
import { approvalsNeeded, checkApprovals } from '../../plans/policy.js';
import { Journal } from '../../payouts/journal.js';
import { configDir } from '../../config/paths.js';
import { makeStyle } from '../../output/style.js';
import { wrapSegments, wrapText } from '../../output/table.js';
import { text } from '../../output/text.js';
import { approvalLines, payoutLines, planHead, profilePolicy } from './common.js';

export interface PlanShowOptions {
  plan: string;
}

interface TotalAfter {
  wallet_id: string;
  currency: string;
  count: number;
  total: string;
  balance: string | null;
  balance_after: string | null;
}

function after(plan: Plan, wallets: Wallet[] | undefined): TotalAfter[] {
  const byId = new Map((wallets ?? []).map((w) => [w.wallet_id, w]));
  return plan.totals.map((t) => {
    const w = byId.get(t.wallet_id);
    const digits = minorDigits(t.currency) ?? 2;
    const bal = w && w.currency.toUpperCase() === t.currency ? balanceMinor(w.balance, t.currency) : undefined;
    return {
      ...t,
      balance: bal === undefined ? null : minorToDecimal(bal, digits),
      balance_after: bal === undefined ? null : minorToDecimal(bal - decimalToMinor(t.total, digits), digits),
    };
  });
}

export async function run(opts: PlanShowOptions, deps: Deps): Promise<number> {
  const { plan, payouts } = readPlan(opts.plan);
  const policy = profilePolicy(deps);
  let wallets: Wallet[] | undefined;
  let balancesProblem: string | undefined;
  try {
    wallets = (await (await deps.api()).wallets()).wallets;
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    balancesProblem = err.message;
  }
  const totals = after(plan, wallets);
  const judged = policy ? checkApprovals(plan, policy) : undefined;
  // Counted under the plan's own base URL: the service it is for.
  const need = policy
    ? approvalsNeeded(
        policy,
        payouts.map((p) => p.request),
        new Journal(configDir(deps.env)),
        plan.base_url,
        deps.clock.now(),
      )
    : undefined;
  if (deps.globals.json) {
    await write(
      deps.io.stdout,
      JSON.stringify({
        plan: opts.plan,
        hash: plan.hash,
        base_url: plan.base_url,
        batch_id: plan.batch_id,
        source: plan.source,
        created_at: plan.created_at,
        maker: plan.maker,
        payouts: payouts.map((p) => ({
          ...(p.row !== undefined ? { row: p.row } : {}),
          payout_id: p.payout_id,
          idempotency_key: p.idempotency_key,
          body: JSON.parse(p.body) as unknown,
        })),
        totals,
        approvals: plan.approvals.map((a) => ({ name: a.name, fingerprint: a.fingerprint, signed_at: a.signed_at })),
        ...(policy
          ? {
              policy: {
                file: policy.file,
                made_by: judged!.maker?.name ?? null,
                ...(judged!.makerProblem ? { maker_problem: judged!.makerProblem } : {}),
                required: need!.required,
                reasons: need!.reasons,
                counted: judged!.valid,
                not_counted: judged!.refused,
              },
            }
          : {}),
      }) + '\n',
    );
    return 0;
  }
  const st = makeStyle(deps.io.color);
  // Fitted to a terminal: long lines go on below, indented, nothing cut; a pipe gets one line each.
  const width = deps.io.stdoutColumns;
  let out = planHead(plan, opts.plan, st, policy, width) + '\n' + st.bold('Payouts') + '\n' + payoutLines(payouts, width) + '\n' + st.bold('Totals') + '\n';
  for (const t of totals) {
    const bal =
      t.balance === null
        ? []
        : [
            `balance ${formatAmount(t.balance, t.currency)},`,
            `after ${formatAmount(t.balance_after!, t.currency)}${t.balance_after!.startsWith('-') ? st.red(' (short)') : ''}`,
          ];
    out +=
      wrapSegments(
        [`  ${text(t.wallet_id)}  ${t.count} payout${t.count === 1 ? '' : 's'},`, `${formatAmount(t.total, t.currency)} ${t.currency}${bal.length ? ';' : ''}`, ...bal],
        width,
      ) + '\n';
  }
  out += '\n' + st.bold('Approvals') + '\n' + approvalLines(plan, judged, st, width);
  if (policy) {
    const who = judged!.valid.length ? ` (${judged!.valid.map((v) => text(v.name)).join(', ')})` : '';
    out +=
      '\n' +
      wrapText(
        `Policy ${text(policy.file)}: ${need!.required === 0 ? 'no approval needed' : `${need!.required} approval${need!.required === 1 ? '' : 's'} needed from people other than the maker`}; ${judged!.valid.length} count${who}.`,
        width,
      ) +
      '\n';
    for (const r of need!.reasons) out += wrapSegments([`  ${r}`], width) + '\n';
    if (judged!.makerProblem) out += wrapSegments([`  ${st.red('It cannot be sent:')}`, judged!.makerProblem], width) + '\n';
  }
  await write(deps.io.stdout, out);
  if (balancesProblem) deps.log.warn(`Balances not shown: ${balancesProblem}`);
  return 0;
}
