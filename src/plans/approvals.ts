/**
 * What a set of payouts needs, and who approved a plan (docs/architecture.md, "Where each rule
 * lives": the spending policy and approvals needed). Approvals are required by the total moved
 * in each currency and by what one wallet sends one recipient account in one UTC day (counted
 * from this config folder's journal, sent-today.ts, plus what is at hand), so splitting a payout in
 * parts does not avoid approval; the most demanding tier reached wins. A plan counts only when
 * its maker's key belongs to a member who is a maker; an approval counts only when its
 * signature holds (signatures.ts) and it is by a listed approver who is not the maker (by name,
 * whatever key), one vote per person. An approval that does not count makes plan send refuse the
 * plan when the plan file itself carries it (someone put it there); one the team's shared ledger
 * keeps (anyone sharing the ledger can store one, and no command takes it out) is left out and
 * never stops the plan. So is one that only repeats a person who counts already, signed with
 * another of their keys: an approver who signed from two machines (plan approve without a policy
 * cannot tell their keys are one person's) approved the plan, and refusing the file would throw
 * away every other approval it carries.
 */
import type { Ledger } from '../payouts/journal.js';
import type { PayoutRequest } from '../payouts/request.js';
import type { Approval, Plan } from './plan.js';
import { approvalsWord, shown, tiersFor, type Member, type Policy, type Tier } from './policy-file.js';
import { countedFrom, recipientKey, sentTodayTo } from './sent-today.js';
import { approvalSignatureHolds, fingerprintHolds } from './signatures.js';

export interface Requirement {
  /** Approvals needed (the most any currency's total, or any recipient's day, needs). */
  required: number;
  /** Why, per currency or recipient that needs any: "2 approvals: the SLE total 150,000.00 SLE is over 100000". */
  reasons: string[];
}

/** The most demanding tier of a currency that a total reaches, if it asks any approval. */
function tierFor(policy: Policy, currency: string, total: bigint): Tier | undefined {
  let tier: Tier | undefined;
  for (const t of tiersFor(policy.approvals, currency) ?? []) if ((t.inclusive ? total >= t.minor : total > t.minor) && (!tier || t.required > tier.required)) tier = t;
  return tier && tier.required > 0 ? tier : undefined;
}

function ruleOf(policy: Policy, currency: string): string {
  return `policy approvals.${policy.approvals.has(currency) ? currency : '*'}`;
}

/** Totals per currency in minor units. */
export function currencyTotals(requests: PayoutRequest[]): Map<string, bigint> {
  const m = new Map<string, bigint>();
  for (const r of requests) m.set(r.currency, (m.get(r.currency) ?? 0n) + r.amountMinor);
  return m;
}

/** The approvals needed for payouts whose totals per currency are these. */
export function requiredApprovals(policy: Policy, totals: Map<string, bigint>): Requirement {
  let required = 0;
  const reasons: string[] = [];
  for (const [currency, total] of totals) {
    const tier = tierFor(policy, currency, total);
    if (!tier) continue;
    required = Math.max(required, tier.required);
    reasons.push(`${approvalsWord(tier.required)}: the ${currency} total ${shown(total, currency)} is ${tier.label} (${ruleOf(policy, currency)})`);
  }
  return { required, reasons };
}

/**
 * The approvals payouts at hand need: the most demanding of the tiers their totals per
 * currency reach (requiredApprovals) and of those reached by what each wallet sends to each
 * recipient account today (UTC), counting this config folder's journal (accepted or unknown
 * outcome, under this base URL) plus the payouts at hand. Five payouts of 999.99 to one
 * account on one day are counted as 4,999.95: splitting does not avoid approval.
 */
export async function approvalsNeeded(policy: Policy, requests: PayoutRequest[], journal: Ledger, baseUrl: string, now: Date): Promise<Requirement> {
  const need = requiredApprovals(policy, currencyTotals(requests));
  if (policy.approvals.size === 0 || requests.length === 0) return need;
  const adding = new Map<string, { r: PayoutRequest; minor: bigint; count: number }>();
  for (const r of requests) {
    const key = recipientKey(r.walletId, r.currency, r.type, r.provider, r.account);
    const g = adding.get(key) ?? { r, minor: 0n, count: 0 };
    g.minor += r.amountMinor;
    g.count++;
    adding.set(key, g);
  }
  const before = await sentTodayTo(journal, baseUrl, now, new Set(requests.map((r) => r.payoutId)));
  let required = need.required;
  const reasons = [...need.reasons];
  for (const [key, g] of adding) {
    const earlier = before.get(key);
    // Without earlier payouts, a recipient's sum is within its currency's total, judged above.
    if (!earlier) continue;
    const sum = earlier + g.minor;
    const tier = tierFor(policy, g.r.currency, sum);
    if (!tier) continue;
    required = Math.max(required, tier.required);
    const atHand = requests.length === 1 ? 'this payout' : g.count === 1 ? 'its payout here' : `its ${g.count} payouts here`;
    reasons.push(
      `${approvalsWord(tier.required)}: from wallet ${g.r.walletId} to account ${g.r.account} (${g.r.type}, ${g.r.provider}) today: ${shown(sum, g.r.currency)} with ${atHand} (${shown(earlier, g.r.currency)} sent earlier today ${countedFrom(journal)}), which is ${tier.label} (${ruleOf(policy, g.r.currency)}; payouts to one account in one UTC day are counted together)`,
    );
  }
  return { required, reasons };
}

export interface ApprovalCheck {
  /** The plan's maker as the policy knows them (by the key that signed it); undefined when the key is not listed as a maker's. */
  maker: Member | undefined;
  /** Why the plan's maker does not count as one (unlisted key, or a person who is not a maker); undefined when they do. */
  makerProblem: string | undefined;
  /** Approvals that count: valid signatures by distinct listed approvers (people) who are not the maker. */
  valid: Array<{ name: string; fingerprint: string; signedAt: string }>;
  /** Approvals of the plan file itself that do not count, each with why: plan send refuses a plan that carries any. */
  refused: string[];
  /** The place in the plan's approvals (from 0) of each of `refused`, in the same order. */
  refusedAt: number[];
  /**
   * Approvals that do not count but stop nothing, each with why: left out, never a refusal. Those
   * kept in the team's shared ledger, and those that repeat a person who counts already with
   * another of their keys.
   */
  ignored: string[];
}

/** Who made a plan under a policy: the member whose key signed it, if they are a maker, and otherwise why not. */
export function makerOf(plan: Plan, policy: Policy): { member: Member | undefined; problem: string | undefined } {
  const member = policy.byKey.get(plan.maker.fingerprint);
  if (!member)
    return {
      member: undefined,
      problem: `it was made with the key ${plan.maker.fingerprint} (calling itself "${plan.maker.name}"), which the policy ${policy.file} does not list; only a maker listed in the policy can make a plan`,
    };
  if (!member.roles.has('maker'))
    return { member: undefined, problem: `it was made by ${member.name} (key ${plan.maker.fingerprint}), who is not a maker in the policy ${policy.file}` };
  return { member, problem: undefined };
}

/** How an approval is named in what is said of it: its place in the plan, the name and key it gives, and whether the shared ledger keeps it. */
function approvalLabel(a: Approval, i: number, kept: boolean): string {
  return `approval ${i + 1} (${a.name}, ${a.fingerprint}${kept ? ", kept in the team's shared ledger" : ''})`;
}

/** Why an approval is no signature of this plan by the key it names, or undefined: such an approval counts under no policy. */
export function brokenApproval(hash: string, a: Approval): string | undefined {
  if (!fingerprintHolds(a)) return 'its fingerprint is not that of its public key';
  if (!approvalSignatureHolds(hash, a)) return 'the signature does not match this plan';
  return undefined;
}

/**
 * The approvals of a plan file that count under no policy (brokenApproval), each with why: what
 * plan approve says without a policy. `own`: how many of the plan's approvals are the file's own
 * (the rest are kept in the shared ledger, and never stop a plan).
 */
export function brokenApprovals(plan: Plan, own = plan.approvals.length): string[] {
  return plan.approvals.slice(0, own).flatMap((a, i) => {
    const why = brokenApproval(plan.hash, a);
    return why ? [`${approvalLabel(a, i, false)}: ${why}`] : [];
  });
}

/** What is said of an approval that does not count and stops nothing (ApprovalCheck.ignored). */
const LEFT_OUT = ' (left out: it does not stop the plan)';

/**
 * Which approvals of a plan count under a policy, and why the others do not. An approval
 * counts when its signature is over this plan, its key belongs to a listed approver, that
 * person is not the plan's maker (by name, whatever key either signed with) and has not
 * approved already (one person, one vote). `own`: how many of the plan's approvals, first, are
 * the plan file's own (all of them for a file read without a shared ledger; none for a plan of
 * the shared ledger named by hash): one of those that does not count is refused; one of the rest,
 * kept in the shared ledger, is left out (ignored), as a stray approval must not hold a plan back.
 * One of the file's own that repeats a person who counts already, with another of their keys, is
 * left out too: that person did approve this plan, once. The same key's second approval (no
 * command writes one) is still refused.
 */
export function checkApprovals(plan: Plan, policy: Policy, own = plan.approvals.length): ApprovalCheck {
  const valid: ApprovalCheck['valid'] = [];
  const refused: string[] = [];
  const refusedAt: number[] = [];
  const ignored: string[] = [];
  const seen: Seen = { counted: new Map(), keys: new Set() };
  const made = makerOf(plan, policy);
  // The maker's person, even when not a maker: they still cannot approve their own plan.
  const makerPerson = policy.byKey.get(plan.maker.fingerprint);
  plan.approvals.forEach((a, i) => {
    const not = whyNot(plan, policy, a, makerPerson, seen);
    if (not === undefined) return void valid.push({ name: policy.byKey.get(a.fingerprint)!.name, fingerprint: a.fingerprint, signedAt: a.signed_at });
    if (i < own && !not.repeat) {
      refused.push(`${approvalLabel(a, i, false)}: ${not.why}`);
      refusedAt.push(i);
    } else ignored.push(`${approvalLabel(a, i, i >= own)}: ${not.why}${LEFT_OUT}`);
  });
  return { maker: made.member, makerProblem: made.problem, valid, refused, refusedAt, ignored };
}

/** The approvers met so far by checkApprovals: each person who counts, with the key they count by, and every key that approved validly. */
interface Seen {
  counted: Map<Member, string>;
  keys: Set<string>;
}

/**
 * Why an approval does not count under a policy (checkApprovals), or undefined when it counts:
 * its person is then added to `seen.counted`, with the key it counts by. `repeat`: a valid
 * approval by another key of a person who counts already, which stops nothing; a key's second
 * approval is no repeat of this kind (no command writes one: someone put it there).
 */
function whyNot(plan: Plan, policy: Policy, a: Approval, makerPerson: Member | undefined, seen: Seen): { why: string; repeat?: true } | undefined {
  const broken = brokenApproval(plan.hash, a);
  if (broken) return { why: broken };
  if (a.fingerprint === plan.maker.fingerprint) return { why: "made with the maker's own key; the maker cannot approve their own plan" };
  const person = policy.byKey.get(a.fingerprint);
  if (!person || !person.roles.has('approver')) return { why: `the key is not an approver in the policy ${policy.file}` };
  if (person === makerPerson)
    return { why: `${person.name} made this plan (with another of their keys); the maker cannot approve their own plan, whatever key they sign with` };
  const by = seen.counted.get(person);
  if (seen.keys.has(a.fingerprint)) return { why: `${person.name} approved already; each person counts once, whatever keys they hold` };
  seen.keys.add(a.fingerprint);
  if (by !== undefined)
    return { why: `${person.name} approved already, with another of their keys (${by}); each person counts once, whatever keys they hold`, repeat: true };
  seen.counted.set(person, a.fingerprint);
  return undefined;
}
