/**
 * `payctl plan show <plan>`: a plan for review: where it goes, who made it (the person the
 * policy names for its key), every payout with every field its body sends (a note and metadata
 * on lines under it: common.ts payoutLines), the totals per wallet and currency with the
 * balances they would leave before fees (live, when the profile can reach the service; fees are
 * the service's, per payout, not known before sending: said as payout batch says it), and its approvals
 * as the profile's policy judges them: who approved (by name), which approvals do not count
 * and why (those the shared ledger keeps are left out: they never stop the plan), the limits it
 * breaks (plan send refuses it), and how many it needs, counting what each recipient account got
 * today (the ledger's day) in the run's ledger (README "Four eyes"), and every other reason plan send
 * would refuse it now, by plan send's own checks (sendable.ts: where and when it was made, what
 * the ledger holds). The plan is a file, or a plan of the shared ledger named by its hash
 * (source.ts).
 */
import { write, type Deps } from '../../deps.js';
import { CliError } from '../../errors.js';
import type { Wallet } from '../../service/schemas.js';
import { balanceMinor, decimalToMinor, formatAmount, minorToDecimal } from '../../money/amount.js';
import { minorDigits } from '../../money/currencies.js';
import type { Plan, ReadPayout } from '../../plans/plan.js';
import { approvalsNeeded, checkApprovals, limitProblems, type ApprovalCheck, type Policy, type Requirement } from '../../plans/policy.js';
import { openLedger } from '../../payouts/open-ledger.js';
import type { Ledger } from '../../payouts/journal.js';
import { makeStyle, type Style } from '../../output/style.js';
import { wrapSegments, wrapText } from '../../output/table.js';
import { text } from '../../output/text.js';
import { FEES_LINE } from '../../output/batch.js';
import { approvalLines, payoutLines, planHead } from './common.js';
import { effectivePolicy } from '../policy/effective.js';
import { loadPlan, madeAt, storedLine } from './source.js';
import { sentBefore, sentBeforeLines, type SentBefore } from './sent-before.js';
import { refusalLines, sendRefusals, type SendRefusal } from './sendable.js';

export interface PlanShowOptions {
  plan: string;
}

interface TotalAfter {
  wallet_id: string;
  currency: string;
  count: number;
  total: string;
  balance: string | null;
  /** The balance less the total, before fees: the service charges them per payout, not known before sending. */
  balance_after: string | null;
}

/** A plan as shown: what it holds, its totals with the balances they would leave (before fees), and how the policy judges it. */
interface Review {
  /** The path as given, or the plan's hash (in the shared ledger). */
  ref: string;
  /** Where it is, for people. */
  label: string;
  plan: Plan;
  payouts: ReadPayout[];
  totals: TotalAfter[];
  /** The profile's policy, who made the plan and which approvals count, how many it needs, and the limits it breaks; absent without a policy. */
  judged?: { policy: Policy; approvals: ApprovalCheck; need: Requirement; limits: string[] };
  /** Its payouts the run's ledger has seen sent before (sent-before.ts), and where that ledger is ("from this config folder"). */
  sent?: { found: SentBefore[]; from: string };
  /** Why else plan send would refuse it now (sendable.ts); what the ledger holds only when it was read. */
  refusals: SendRefusal[];
  /** For a plan file: the keys of the approvals read from the shared ledger, not in the file (source.ts). */
  storedOnly: ReadonlySet<string>;
  /** When the shared ledger stored the plan (the database's clock), when it holds it. */
  storedAt?: string | undefined;
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
  const { plan, payouts, ref, label, store, alsoStored, storedAt, ownApprovals } = await loadPlan(opts.plan, deps, ['plan', 'show']);
  const policy = await effectivePolicy(deps);
  let wallets: Wallet[] | undefined;
  let balancesProblem: string | undefined;
  // The service this profile sends to (plan send refuses a plan made for another): unknown without a profile to reach it.
  let baseUrl: string | undefined;
  try {
    const api = await deps.api();
    baseUrl = api.baseUrl;
    wallets = (await api.wallets()).wallets;
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    balancesProblem = err.message;
  }
  const review: Review = {
    ref,
    label,
    plan,
    payouts,
    totals: after(plan, wallets),
    refusals: [],
    storedOnly: new Set(alsoStored?.approvals.map((a) => a.fingerprint)),
    storedAt,
  };
  // What the run's ledger knows of its payouts: a reviewer sees it before approving.
  let sentProblem: string | undefined;
  let ledger: Ledger | undefined;
  try {
    ledger = await openLedger(deps);
    // Before or after the plan was made as plan send tells them (source.ts madeAt).
    review.sent = { found: await sentBefore(ledger, plan.base_url, payouts, await madeAt({ plan, storedAt }, ledger)), from: ledger.sentFrom };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    sentProblem = err.message;
  }
  if (policy) {
    const approvals = checkApprovals(plan, policy, ownApprovals);
    const journal = ledger ?? (await openLedger(deps));
    // Counted under the plan's own base URL (the service it is for), on the ledger's day.
    const requests = payouts.map((p) => p.request);
    const now = await journal.now();
    const need = await approvalsNeeded(policy, requests, journal, plan.base_url, now);
    // What plan send refuses whatever approvals the plan carries: said before anyone signs.
    const limits = await limitProblems(policy, requests, journal, plan.base_url, now, { warn: (l) => deps.log.warn(l) });
    review.judged = { policy, approvals, need, limits };
  }
  review.refusals = await sendRefusals({ plan, payouts, file: store ? undefined : opts.plan, storedAt, journal: ledger, baseUrl }, deps);
  if (deps.globals.json) {
    await write(deps.io.stdout, reviewJson(review) + '\n');
    return 0;
  }
  // Fitted to a terminal: long lines go on below, indented, nothing cut; a pipe gets one line each.
  await write(deps.io.stdout, reviewText(review, makeStyle(deps.io.color), deps.io.stdoutColumns));
  if (balancesProblem) deps.log.warn(`Balances not shown: ${balancesProblem}`);
  if (sentProblem) deps.log.warn(`Payouts sent before not looked for: ${sentProblem}`);
  return 0;
}

/** The plan as one JSON document: every payout's body parsed, the totals with balances, the policy's judgement. */
function reviewJson(r: Review): string {
  const { plan, judged } = r;
  return JSON.stringify({
    plan: r.ref,
    hash: plan.hash,
    base_url: plan.base_url,
    batch_id: plan.batch_id,
    source: plan.source,
    created_at: plan.created_at,
    ...(r.storedAt !== undefined ? { stored_at: r.storedAt } : {}),
    maker: plan.maker,
    payouts: r.payouts.map((p) => ({
      ...(p.row !== undefined ? { row: p.row } : {}),
      payout_id: p.payout_id,
      idempotency_key: p.idempotency_key,
      body: JSON.parse(p.body) as unknown,
    })),
    totals: r.totals,
    ...(r.sent
      ? {
          sent_before: r.sent.found.map((f) => ({
            row: f.row ?? null,
            payout_id: f.payoutId,
            kind: f.kind,
            earlier_payout_id: f.earlier.payoutId,
            earlier_batch_id: f.earlier.batch?.id ?? null,
            earlier_at: f.earlier.createdAt,
          })),
        }
      : {}),
    approvals: plan.approvals.map((a) => ({
      name: a.name,
      fingerprint: a.fingerprint,
      signed_at: a.signed_at,
      ...(r.storedOnly.has(a.fingerprint) ? { in_shared_ledger_only: true } : {}),
    })),
    send_refusals: r.refusals.map((x) => ({ reason: x.reason, details: x.details, ...(x.hint ? { hint: x.hint } : {}) })),
    ...(judged
      ? {
          policy: {
            file: judged.policy.file,
            made_by: judged.approvals.maker?.name ?? null,
            ...(judged.approvals.makerProblem ? { maker_problem: judged.approvals.makerProblem } : {}),
            required: judged.need.required,
            reasons: judged.need.reasons,
            counted: judged.approvals.valid,
            not_counted: judged.approvals.refused,
            ignored: judged.approvals.ignored,
            limits: judged.limits,
          },
        }
      : {}),
  });
}

/** The plan for people: its head, payouts, totals with balances, approvals, and what the policy needs. */
function reviewText(r: Review, st: Style, width: number | undefined): string {
  const { plan, judged } = r;
  let out =
    planHead(plan, r.label, st, judged?.policy, width, storedLine({ plan, storedAt: r.storedAt })) +
    '\n' +
    st.bold('Payouts') +
    '\n' +
    payoutLines(r.payouts, width) +
    '\n';
  if (r.sent?.found.length) {
    out += st.bold(`Sent before (journaled ${r.sent.from})`) + '\n';
    for (const line of sentBeforeLines(r.sent.found)) out += wrapSegments([`  ${line}`], width) + '\n';
    out += '\n';
  }
  out += st.bold('Totals') + '\n';
  for (const t of r.totals) {
    const bal =
      t.balance === null
        ? []
        : [
            `balance ${formatAmount(t.balance, t.currency)},`,
            // As payout batch says it: the service charges fees per payout, not known before sending.
            `after ${formatAmount(t.balance_after!, t.currency)} before fees${t.balance_after!.startsWith('-') ? st.red(' (short)') : ''}`,
          ];
    out +=
      wrapSegments(
        [`  ${text(t.wallet_id)}  ${t.count} payout${t.count === 1 ? '' : 's'},`, `${formatAmount(t.total, t.currency)} ${t.currency}${bal.length ? ';' : ''}`, ...bal],
        width,
      ) + '\n';
  }
  out += st.dim(wrapText(FEES_LINE, width)) + '\n';
  out += '\n' + st.bold('Approvals') + '\n' + approvalLines(plan, judged?.approvals, st, width);
  const n = r.storedOnly.size;
  if (n)
    out +=
      wrapSegments(
        [
          `  (${n === 1 ? "1 of them is kept in the team's shared ledger" : `${n} of them are kept in the team's shared ledger`}, not in the file; plan send of the file reads ${n === 1 ? 'it' : 'them'} too)`,
        ],
        width,
      ) + '\n';
  if (judged) out += policyLines(judged, st, width);
  if (r.refusals.length) out += '\n' + refusalLines(r.refusals, st, width);
  return out;
}

/** How many approvals the policy asks and why, how many count, and why it cannot be sent when its maker does not count or it breaks a limit. */
function policyLines(judged: NonNullable<Review['judged']>, st: Style, width: number | undefined): string {
  const { policy, approvals, need } = judged;
  const who = approvals.valid.length ? ` (${approvals.valid.map((v) => text(v.name)).join(', ')})` : '';
  let out =
    '\n' +
    wrapText(
      `Policy ${text(policy.file)}: ${need.required === 0 ? 'no approval needed' : `${need.required} approval${need.required === 1 ? '' : 's'} needed from people other than the maker`}; ${approvals.valid.length} count${who}.`,
      width,
    ) +
    '\n';
  for (const reason of need.reasons) out += wrapSegments([`  ${reason}`], width) + '\n';
  if (approvals.makerProblem) out += wrapSegments([`  ${st.red('It cannot be sent:')}`, approvals.makerProblem], width) + '\n';
  if (judged.limits.length) out += refusalLines([{ reason: "it breaks the policy's limits", details: judged.limits }], st, width);
  return out;
}
