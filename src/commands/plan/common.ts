/**
 * What the plan commands share: the policy of the profile in force, a plan written to a new
 * file (never over another), and the lines a person reads before approving or sending.
 */
import { constants, closeSync, openSync, writeSync } from 'node:fs';
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { formatAmount } from '../../money/amount.js';
import { type Plan, type ReadPayout } from '../../plans/plan.js';
import { policyOf, type Policy } from '../../plans/policy.js';
import { planText } from '../../plans/plan.js';
import type { Style } from '../../output/style.js';
import { text, utcTime } from '../../output/text.js';

/** The policy named in the profile in force, or undefined. */
export function profilePolicy(deps: Deps): Policy | undefined {
  return policyOf(deps.config().getProfile(deps.globals.profile, { readSecrets: false }));
}

/** Writes a new plan file: created exclusively, never following a symlink, never replacing a file. */
export function writeNewPlan(path: string, plan: Plan): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `Cannot write the plan ${path}: ${code === 'EEXIST' ? 'a file of that name exists (a plan is never overwritten)' : (err as Error).message}. Nothing was written.`,
      [],
      'Choose another name with -o.',
    );
  }
  try {
    writeSync(fd, planText(plan));
  } finally {
    closeSync(fd);
  }
}

/** The head of a plan for people: where, what, who made it. */
export function planHead(plan: Plan, path: string, st: Style): string {
  const lines: Array<[string, string]> = [
    ['Plan', text(path)],
    ['Service', text(plan.base_url)],
    ['Batch', plan.batch_id === null ? '(single payout)' : text(plan.batch_id)],
    ['Source', text(plan.source)],
    ['Made by', `${text(plan.maker.name)} (${plan.maker.fingerprint}) at ${utcTime(plan.created_at)}`],
    ['Payouts', String(plan.payouts.length)],
    ['Hash', plan.hash],
  ];
  const width = Math.max(...lines.map(([k]) => k.length));
  return lines.map(([k, v]) => `${st.dim(k.padEnd(width))}  ${v}`).join('\n') + '\n';
}

/** One line per payout: row, id, amount, wallet, recipient. */
export function payoutLines(payouts: readonly ReadPayout[]): string {
  return (
    payouts
      .map((p) => {
        const r = p.request;
        const row = p.row !== undefined ? `row ${p.row}: ` : '';
        return `  ${row}${text(r.payoutId)}  ${formatAmount(r.amountMinor, r.currency)} ${r.currency} from ${text(r.walletId)} to ${text(r.name)} (${r.type}, ${text(r.provider)} ${text(r.account)}${r.phone ? `, ${text(r.phone)}` : ''})`;
      })
      .join('\n') + '\n'
  );
}
