/**
 * `payctl plan show <plan>`: a plan for review: where it goes, who made it, every payout,
 * the totals per wallet and currency with the balances they would leave (live, when the
 * profile can reach the service), and its approvals as the profile's policy judges them.
 */
import { write, type Deps } from '../../deps.js';
import { CliError } from '../../errors.js';
import type { Wallet } from '../../api/schemas.js';
import { balanceMinor, decimalToMinor, formatAmount, minorToDecimal } from '../../money/amount.js';
import { minorDigits } from '../../money/currencies.js';
import { readPlan, type Plan } from '../../plans/plan.js';
import { checkApprovals, currencyTotals, requiredApprovals } from '../../plans/policy.js';
import { makeStyle } from '../../output/style.js';
import { text } from '../../output/text.js';
import { payoutLines, planHead, profilePolicy } from './common.js';

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
  const need = policy ? requiredApprovals(policy, currencyTotals(payouts.map((p) => p.request))) : undefined;
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
        ...(policy ? { policy: { file: policy.file, required: need!.required, reasons: need!.reasons, counted: judged!.valid, not_counted: judged!.refused } } : {}),
      }) + '\n',
    );
    return 0;
  }
  const st = makeStyle(deps.io.color);
  let out = planHead(plan, opts.plan, st) + '\n' + st.bold('Payouts') + '\n' + payoutLines(payouts) + '\n' + st.bold('Totals') + '\n';
  for (const t of totals) {
    const bal =
      t.balance === null
        ? ''
        : `; balance ${formatAmount(t.balance, t.currency)}, after ${formatAmount(t.balance_after!, t.currency)}${t.balance_after!.startsWith('-') ? st.red(' (short)') : ''}`;
    out += `  ${text(t.wallet_id)}  ${t.count} payout${t.count === 1 ? '' : 's'}, ${formatAmount(t.total, t.currency)} ${t.currency}${bal}\n`;
  }
  out += '\n' + st.bold('Approvals') + '\n';
  if (plan.approvals.length === 0) out += '  none yet\n';
  for (const a of plan.approvals) out += `  ${text(a.name)} (${a.fingerprint}) at ${text(a.signed_at)}\n`;
  if (policy) {
    out += `\nPolicy ${text(policy.file)}: ${need!.required === 0 ? 'no approval needed' : need!.reasons.join('; ')}; ${judged!.valid.length} approval(s) count.\n`;
    for (const r of judged!.refused) out += `  ${st.yellow('Not counted:')} ${r}\n`;
  }
  await write(deps.io.stdout, out);
  if (balancesProblem) deps.log.warn(`Balances not shown: ${balancesProblem}`);
  return 0;
}
