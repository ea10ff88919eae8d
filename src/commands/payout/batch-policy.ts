/**
 * `payout batch` under a spending policy in the profile (plans/policy.ts): the rows still to
 * send, over a limit, are refused naming the rule; a batch whose totals need approval is refused
 * with the command that makes it a plan (docs/architecture.md, "Printed commands"). Checked once
 * before anything is asked, and again under the wallets' locks when the policy counts the day.
 */
import type { Deps } from '../../deps.js';
import { RefusedError, UsageError } from '../../errors.js';
import { commandLine, type Invocation } from '../../config/command-line.js';
import { batchRows, type BatchCheck, type BatchSource, type LoadedRow } from '../../payouts/batch-load.js';
import type { Ledger } from '../../payouts/journal.js';
import type { PayoutRequest } from '../../payouts/request.js';
import { approvalsNeeded, limitProblems, limitsHint, type Policy } from '../../plans/policy.js';
import { configDir } from '../../config/paths.js';
import { makePlanHint } from '../plan/create.js';
import { planOutArgs } from '../plan/common.js';
import { DEFAULT_BATCH_ID } from '../../payouts/identity.js';

/** What the checks read: the run's file, the journal as it is now, and the options to print. */
export interface PolicyCheck {
  deps: Deps;
  src: BatchSource;
  checked: BatchCheck;
  journal: Ledger;
  baseUrl: string;
  opts: { file: string; batchId?: string | undefined; dryRun?: boolean | undefined; acknowledgeMissing?: boolean | undefined };
  inv: Invocation;
}

/** The rows a run sends: all but those accepted earlier. */
export function toSendOf(rows: LoadedRow[]): LoadedRow[] {
  return rows.filter((r) => r.earlier?.outcome?.kind !== 'accepted');
}

/**
 * With a policy in the profile: the rows still to send checked (checkRows).
 * Returns the rows read (each with its earlier entry), for the check made again under the lock.
 */
export async function checkPolicy(policy: Policy, c: PolicyCheck): Promise<LoadedRow[]> {
  const rows: LoadedRow[] = [];
  for await (const r of batchRows(c.src, c.checked, c.journal, c.baseUrl)) rows.push(r);
  await checkRows(policy, toSendOf(rows), c);
  return rows;
}

/** The policy's verdict on the rows; `warn` false for the second check (under the lock), which would say the same again. */
export async function checkRows(policy: Policy, rows: LoadedRow[], c: PolicyCheck, warn = true): Promise<void> {
  const { deps, journal, baseUrl, opts } = c;
  const requests: PayoutRequest[] = rows.map((r) => r.request);
  // "Today" is the ledger's day: the database's for a shared ledger, whatever this machine's clock says.
  const today = await journal.now();
  const limits = await limitProblems(policy, requests, journal, baseUrl, today, {
    ...(warn ? { warn: (l: string) => deps.log.warn(l) } : {}),
    // Acknowledged by the check under the lock (warn false), just before journaling.
    ...(opts.acknowledgeMissing ? { acknowledgeMissing: { record: !warn, dryRun: !!opts.dryRun } } : {}),
  });
  // Valid input refused: what to do about the limits, not the command's usage.
  if (limits.length)
    throw new RefusedError(
      `${opts.file} breaks the policy ${policy.file}. Nothing was sent.`,
      limits,
      limitsHint(limits, commandLine(c.inv, ['payouts', 'list'], ['--all'])),
    );
  const need = await approvalsNeeded(policy, requests, journal, baseUrl, today);
  if (need.required > 0) {
    throw new UsageError(
      `${opts.file} needs approval under the policy ${policy.file}. Nothing was sent.`,
      need.reasons,
      makePlanHint(
        policy,
        configDir(deps.env),
        'Make it a plan for approval',
        commandLine(
          c.inv,
          ['plan', 'create'],
          [c.src.file, ...(opts.batchId !== undefined ? ['--batch-id', opts.batchId] : []), ...planOutArgs(c.src.file, opts.batchId ?? DEFAULT_BATCH_ID)],
        ),
      ),
    );
  }
}
