/**
 * The policy's limits (docs/architecture.md, "Where each rule lives": the spending policy and
 * approvals needed): `max_per_payout` caps one payout; `daily_total` caps what one wallet sends
 * in one currency in one UTC day, counted from this machine's journal (sent-today.ts) plus what
 * is about to be sent. A journal that lost entries is said with every daily-total check, so it
 * never passes for an empty day unnoticed.
 */
import type { Ledger } from '../payouts/journal.js';
import type { PayoutRequest } from '../payouts/request.js';
import { limitFor, shown, type Policy } from './policy-file.js';
import { sentToday } from './sent-today.js';

/**
 * What a daily total counted from a journal that lost entries cannot see: undefined when the
 * journal's index (journal.ts journalGaps) names none missing. Said with every daily-total
 * check, so a deleted or restored journal never passes for an empty day unnoticed.
 */
export async function dailyTotalCaveat(policy: Policy, journal: Ledger): Promise<string | undefined> {
  if (policy.dailyTotal.size === 0) return undefined;
  const gaps = await journal.journalGaps();
  if (!gaps || gaps.missing === 0) return undefined;
  return `the daily total is counted from this machine's journal, which has lost ${gaps.missing} entr${gaps.missing === 1 ? 'y' : 'ies'} it recorded (${gaps.payoutIds.join(', ')}${gaps.missing > gaps.payoutIds.length ? ', …' : ''}): what they sent today is not counted`;
}

/**
 * Payouts over the per-payout maximum of their currency, each naming its rule. No approval lifts
 * it: plan create, payout create --plan-out and plan approve refuse such a plan at once, as plan
 * send does.
 */
export function overMaximum(policy: Policy, requests: PayoutRequest[]): string[] {
  const problems: string[] = [];
  for (const r of requests) {
    const max = limitFor(policy.maxPerPayout, r.currency);
    if (max !== undefined && r.amountMinor > max) {
      problems.push(
        `payout ${r.payoutId}: ${shown(r.amountMinor, r.currency)} is over the per-payout maximum of ${shown(max, r.currency)} (policy max_per_payout.${policy.maxPerPayout.has(r.currency) ? r.currency : '*'})`,
      );
    }
  }
  return problems;
}

/**
 * What to do about the limits broken (limitProblems' lines, which name their rule): the input
 * was valid, so a refusal by them ends with this, never with the command's usage.
 */
export function limitsHint(problems: readonly string[]): string {
  const lines: string[] = [];
  if (problems.some((p) => p.includes('(policy max_per_payout.'))) lines.push('No approval lifts max_per_payout: a payout over it is refused whatever approvals it has.');
  if (problems.some((p) => p.includes('(policy daily_total.')))
    lines.push("The daily total counts one UTC day (the ledger's): what is over it today can be sent on a later day, once the day's total leaves room.");
  return lines.join('\n');
}

/** Breaches of the limits (max per payout, daily total per wallet and currency), each naming its rule; `warn` is told what the count cannot see. */
export async function limitProblems(
  policy: Policy,
  requests: PayoutRequest[],
  journal: Ledger,
  baseUrl: string,
  now: Date,
  warn?: (line: string) => void,
): Promise<string[]> {
  const problems = overMaximum(policy, requests);
  if (policy.dailyTotal.size === 0) return problems;
  const caveat = await dailyTotalCaveat(policy, journal);
  if (caveat) warn?.(`Policy ${policy.file}: ${caveat}.`);
  const today = await sentToday(journal, baseUrl, now, new Set(requests.map((r) => r.payoutId)));
  const adding = new Map<string, { walletId: string; currency: string; minor: bigint }>();
  for (const r of requests) {
    const key = `${r.walletId}\n${r.currency}`;
    const g = adding.get(key) ?? { walletId: r.walletId, currency: r.currency, minor: 0n };
    g.minor += r.amountMinor;
    adding.set(key, g);
  }
  for (const [key, g] of adding) {
    const limit = limitFor(policy.dailyTotal, g.currency);
    if (limit === undefined) continue;
    const before = today.get(key) ?? 0n;
    if (before + g.minor > limit) {
      problems.push(
        `wallet ${g.walletId}: ${shown(g.minor, g.currency)} more today would make ${shown(before + g.minor, g.currency)}, over the daily total of ${shown(limit, g.currency)} (policy daily_total.${policy.dailyTotal.has(g.currency) ? g.currency : '*'}; ${shown(before, g.currency)} already sent today ${journal.sentFrom}${caveat ? `; ${caveat}` : ''})`,
      );
    }
  }
  return problems;
}
