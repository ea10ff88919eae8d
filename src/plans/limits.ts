/**
 * The policy's limits (docs/architecture.md, "Where each rule lives": the spending policy and
 * approvals needed): `max_per_payout` caps one payout; `daily_total` caps what one wallet sends
 * in one currency in one UTC day, counted from the ledger (sent-today.ts) plus what is about to
 * be sent. Entries the journal recorded and lost (journal.index names them) leave the day's
 * total unknown, as an entry it cannot read does: the total is refused for their base URL until
 * they are put back or acknowledged with --acknowledge-missing, after which it is counted
 * without them, said with every daily-total check.
 */
import type { JournalGaps, Ledger } from '../payouts/journal.js';
import type { PayoutRequest } from '../payouts/request.js';
import { idsAndMore, text } from '../output/text.js';
import { limitFor, shown, type Policy } from './policy-file.js';
import { countedFrom, sentToday } from './sent-today.js';
import { LOST_WHOLE } from '../payouts/repeats.js';

/** How a check of the limits is made (limitProblems). */
export interface LimitOptions {
  /** Told what the count cannot see (the first check of a run: the one under the lock would say it again). */
  warn?: (line: string) => void;
  /**
   * --acknowledge-missing: entries of the base URL missing and not yet acknowledged for the daily
   * total do not refuse it; they are acknowledged (Ledger.acknowledgeGaps 'total') when `record`
   * (the check under the wallets' locks, just before journaling) and no limit refuses the run,
   * else only said (`dryRun`: by a dry run, which records nothing).
   */
  acknowledgeMissing?: { record: boolean; dryRun?: boolean };
}

/** How a line of limitProblems begins when the day's total cannot be counted (entries missing). */
const UNCOUNTABLE = 'the daily total cannot be counted';

/** "3 entries of this config folder's journal for <base URL> are missing: <ids> (…)", and the journal lost whole, as `gaps` says. */
function missingSaid(gaps: JournalGaps, journal: Ledger, baseUrl: string): string {
  const one = gaps.missing === 1;
  const said: string[] = [];
  if (gaps.missing)
    said.push(
      `${gaps.missing} entr${one ? 'y' : 'ies'} of ${journal.called}${journal.folder === undefined ? '' : ` (${journal.folder})`} for ${text(baseUrl)} ${one ? 'is' : 'are'} missing: ${idsAndMore(gaps.payoutIds, gaps.missing)} (deleted, moved aside or replaced by an older backup; journal.index names ${one ? 'it' : 'them'})`,
    );
  if (gaps.journalLost) said.push(`${journal.called}${journal.folder === undefined ? '' : ` (${journal.folder})`} ${LOST_WHOLE}`);
  return said.join('; and ');
}

/** Whether what `gaps` says is missing is one entry (else several, or of unknown number). */
const oneMissing = (gaps: JournalGaps): boolean => gaps.missing === 1 && !gaps.journalLost;

/**
 * What a daily total counted from a journal that lost entries of `baseUrl` cannot see, once
 * they were acknowledged for it (--acknowledge-missing): undefined when the journal's index
 * (journal.ts journalGaps) names none missing. Said with every daily-total check, so a deleted or
 * restored journal never passes for an empty day unnoticed. `pending`: those of them this run's
 * --acknowledge-missing acknowledges only once its check passes (said in a refusal: nothing was
 * written, so a run without the flag is refused for them again).
 */
export async function dailyTotalCaveat(policy: Policy, journal: Ledger, baseUrl: string, pending?: JournalGaps): Promise<string | undefined> {
  if (policy.dailyTotal.size === 0) return undefined;
  return caveatOf(await journal.journalGaps(baseUrl), journal, pending);
}

/** dailyTotalCaveat's words for what journalGaps(baseUrl) said (`gaps`): one read of the index serves a run's caveat and its refusal's. */
function caveatOf(gaps: JournalGaps | undefined, journal: Ledger, pending?: JournalGaps): string | undefined {
  if (!gaps || (gaps.missing === 0 && !gaps.journalLost)) return undefined;
  const nowIds = new Set(pending?.payoutIds ?? []);
  const before = gaps.missing - (pending?.missing ?? 0);
  const without: string[] = [];
  const entries = (n: number, ids: readonly string[], acknowledged: string) =>
    `${n === 1 ? 'an entry' : `${n} entries`} of ${journal.called} that ${n === 1 ? 'is' : 'are'} missing and ${acknowledged} (${idsAndMore(ids, n)})`;
  if (before > 0)
    without.push(
      entries(
        before,
        gaps.payoutIds.filter((id) => !nowIds.has(id)),
        before === 1 ? 'was acknowledged' : 'were acknowledged',
      ),
    );
  if (gaps.journalLost && !pending?.journalLost) without.push(`the entries lost when ${journal.called} was deleted whole or rolled back (acknowledged)`);
  if (pending?.missing) without.push(entries(pending.missing, pending.payoutIds, 'would be acknowledged by this run'));
  if (pending?.journalLost) without.push(`the entries lost when ${journal.called} was deleted whole or rolled back (would be acknowledged by this run)`);
  const one = oneMissing(gaps);
  const refused = pending
    ? `; nothing was written to journal.index, as the run was refused, so a run without --acknowledge-missing is refused for ${oneMissing(pending) ? 'it' : 'them'} again`
    : '';
  return `the daily total is counted without ${without.join(' and ')}: what ${one ? 'it' : 'they'} paid today is not counted${refused}`;
}

/** Whether the policy has a daily total for `currency` (its own, or `"*"`): journal entries missing then stop a send. */
export function dailyTotalApplies(policy: Policy, currency: string): boolean {
  return limitFor(policy.dailyTotal, currency) !== undefined;
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

/** Whether a line of limitProblems says the day's total cannot be counted (entries missing), not a limit broken. */
export const uncountable = (problem: string): boolean => problem.startsWith(UNCOUNTABLE);

/**
 * What to do about the limits broken (limitProblems' lines, which name their rule): the input
 * was valid, so a refusal by them ends with this, never with the command's usage. `listCommand`:
 * the `payouts list --all` of the run (its profile, base URL), for entries missing;
 * `acknowledgeCommand`: the command that sends with --acknowledge-missing, printed by a command
 * that only checks (policy check), else "the same command" is said.
 */
export function limitsHint(problems: readonly string[], listCommand = 'payctl payouts list --all', acknowledgeCommand?: string): string {
  const lines: string[] = [];
  if (problems.some((p) => p.includes('(policy max_per_payout.'))) lines.push('No approval lifts max_per_payout: a payout over it is refused whatever approvals it has.');
  if (problems.some((p) => p.includes('over the daily total of')))
    lines.push("The daily total counts one UTC day (the ledger's): what is over it today can be sent on a later day, once the day's total leaves room.");
  if (problems.some(uncountable))
    lines.push(
      'Put the missing entries back where they were (from a backup, or from where they were moved) and run the same command again.',
      `Or, once you know what they paid (${listCommand} lists what the service made), ${acknowledgeCommand ? 'send it with --acknowledge-missing' : 'run the same command with --acknowledge-missing'}: ` +
        `they are acknowledged as gone (a signed line in journal.index), and from then on the daily total goes on without them, not counting what they paid${acknowledgeCommand ? ':' : '.'}`,
      // On a line of its own, to be pasted.
      ...(acknowledgeCommand ? [`  ${acknowledgeCommand}`] : []),
    );
  return lines.join('\n');
}

/** What is about to be sent, per wallet and currency. */
interface Adding {
  walletId: string;
  currency: string;
  minor: bigint;
}

/** The requests summed per wallet and currency. */
function addingOf(requests: PayoutRequest[]): Map<string, Adding> {
  const adding = new Map<string, Adding>();
  for (const r of requests) {
    const key = `${r.walletId}\n${r.currency}`;
    const g = adding.get(key) ?? { walletId: r.walletId, currency: r.currency, minor: 0n };
    g.minor += r.amountMinor;
    adding.set(key, g);
  }
  return adding;
}

/** The rule a currency's daily total comes from: `daily_total.SLE`, or `daily_total.*`. */
function dailyRule(policy: Policy, currency: string): string {
  return `daily_total.${policy.dailyTotal.has(currency) ? currency : '*'}`;
}

/**
 * Entries of `baseUrl` missing and not acknowledged for the daily total, under a daily total that
 * applies to `limited`: a problem naming them (the day's total is unknown), or, with
 * --acknowledge-missing, said, and returned as `pending`: limitProblems acknowledges them (under
 * the lock) only once no limit refuses the run. Undefined when none is missing.
 */
async function unacknowledgedLoss(
  policy: Policy,
  limited: Adding[],
  journal: Ledger,
  baseUrl: string,
  opts: LimitOptions,
): Promise<{ problem: string } | { pending: JournalGaps } | undefined> {
  const gaps = await journal.journalGaps(baseUrl, { unacknowledged: 'total' });
  if (!gaps || (gaps.missing === 0 && !gaps.journalLost)) return undefined;
  const missing = missingSaid(gaps, journal, baseUrl);
  const ack = opts.acknowledgeMissing;
  if (!ack) {
    const wallets = limited.map((g) => `${text(g.walletId)} in ${g.currency}`);
    const rules = [...new Set(limited.map((g) => dailyRule(policy, g.currency)))];
    return {
      problem: `${UNCOUNTABLE} for wallet${wallets.length === 1 ? '' : 's'} ${wallets.join(', ')} (policy ${rules.join(', ')}): ${missing}, so what ${oneMissing(gaps) ? 'it' : 'they'} paid today is unknown`,
    };
  }
  const [them, they] = oneMissing(gaps) ? ['it', 'It is'] : ['them', 'They are'];
  const when = ack.dryRun
    ? `A send with --acknowledge-missing acknowledges ${them} as gone`
    : `${they} acknowledged as gone${ack.record ? '' : ' when the payouts are journaled'}`;
  opts.warn?.(
    `Policy ${policy.file}: --acknowledge-missing: ${missing}. ${when} (journal.index), and the daily total goes on without ${them}: what ${them === 'it' ? 'it' : 'they'} paid is not counted, today or later.`,
  );
  return { pending: gaps };
}

/** Breaches of the limits (max per payout, daily total per wallet and currency), each naming its rule; `opts.warn` is told what the count cannot see. */
export async function limitProblems(policy: Policy, requests: PayoutRequest[], journal: Ledger, baseUrl: string, now: Date, opts: LimitOptions = {}): Promise<string[]> {
  const problems = overMaximum(policy, requests);
  const adding = addingOf(requests);
  const limited = [...adding.values()].filter((g) => dailyTotalApplies(policy, g.currency));
  if (limited.length === 0) return problems;
  // Entries lost and not acknowledged: the day's total is unknown, as for an entry that cannot
  // be read (sent-today.ts). Counted without them, 5,000 SLE went out under a 3,000 SLE total.
  const loss = await unacknowledgedLoss(policy, limited, journal, baseUrl, opts);
  if (loss && 'problem' in loss) return [...problems, loss.problem];
  const pending = loss?.pending;
  const gaps = await journal.journalGaps(baseUrl);
  const caveat = caveatOf(gaps, journal);
  // Just said by unacknowledgedLoss when this run acknowledges them.
  if (caveat && !pending) opts.warn?.(`Policy ${policy.file}: ${caveat}.`);
  // In a refusal, what is true: those this run acknowledges are not acknowledged yet.
  const refusedCaveat = pending ? caveatOf(gaps, journal, pending) : caveat;
  const today = await sentToday(journal, baseUrl, now, new Set(requests.map((r) => r.payoutId)));
  for (const g of limited) {
    const limit = limitFor(policy.dailyTotal, g.currency)!;
    const before = today.get(`${g.walletId}\n${g.currency}`) ?? 0n;
    if (before + g.minor > limit) {
      problems.push(
        `wallet ${g.walletId}: ${shown(g.minor, g.currency)} more today would make ${shown(before + g.minor, g.currency)}, over the daily total of ${shown(limit, g.currency)} (policy ${dailyRule(policy, g.currency)}; ${shown(before, g.currency)} already sent today ${countedFrom(journal)}${refusedCaveat ? `; ${refusedCaveat}` : ''})`,
      );
    }
  }
  // Acknowledged (under the lock) only by a run no limit refuses: a refused run writes nothing.
  if (pending && problems.length === 0 && opts.acknowledgeMissing?.record) await journal.acknowledgeGaps?.(baseUrl, 'total');
  return problems;
}
