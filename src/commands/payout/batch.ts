/**
 * `payctl payout batch <file>`: a file of payouts as one checked, confirmed,
 * resumable operation with exactly-once delivery per row.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { write, type Deps } from '../../deps.js';
import { ExitCode, InterruptedError, UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { parseBatchFile, COLUMN_LABELS } from '../../payouts/batch-file.js';
import { runBatch, type BatchItem } from '../../payouts/batch.js';
import { Journal } from '../../payouts/journal.js';
import { computePlan, planJson, renderPlan } from '../../payouts/plan.js';
import { defaultReportPath, writeReport } from '../../payouts/report.js';
import { payoutBody, validatePayout, type PayoutRequest } from '../../payouts/request.js';
import { shellQuote } from '../../payouts/retry-command.js';
import { Progress } from '../../output/progress.js';
import { makeStyle } from '../../output/style.js';

export interface PayoutBatchOptions {
  file: string;
  concurrency?: number;
  report?: string;
  dryRun?: boolean;
  yes?: boolean;
}

/** Every row checked before anything is sent; all problems listed with row numbers. */
async function loadRows(file: string): Promise<Array<{ row: number; request: PayoutRequest }>> {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}.`);
  }
  const parsed = await parseBatchFile(file, content);
  const problems = [...parsed.problems];
  const out: Array<{ row: number; request: PayoutRequest }> = [];
  const seen = new Map<string, number>();
  for (const r of parsed.rows) {
    const v = validatePayout(r.fields, COLUMN_LABELS);
    if (!v.ok) {
      for (const p of v.problems) problems.push(`row ${r.row}: ${p}`);
      continue;
    }
    const first = seen.get(v.request.payoutId);
    if (first !== undefined) problems.push(`row ${r.row}: payout_id "${v.request.payoutId}" is also used on row ${first}`);
    else seen.set(v.request.payoutId, r.row);
    out.push({ row: r.row, request: v.request });
  }
  if (problems.length) {
    throw new UsageError(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}. Nothing was sent.`, problems, 'Fix the rows above and run the same command again.');
  }
  return out;
}

export async function run(opts: PayoutBatchOptions, deps: Deps): Promise<number> {
  const concurrency = opts.concurrency ?? 4;
  const file = resolve(opts.file);
  const rows = await loadRows(opts.file);
  if (!opts.dryRun && !opts.yes && !deps.io.interactive) {
    throw new UsageError('--yes is required without a terminal: money never moves without an explicit yes. Nothing was sent.', [], 'Review the plan with --dry-run first.');
  }

  const api = await deps.api();
  const journal = new Journal(configDir(deps.env));
  const conflicts: string[] = [];
  const items: BatchItem[] = rows.map(({ row, request }) => {
    const body = payoutBody(request);
    const earlier = journal.get(api.baseUrl, request.payoutId);
    if (earlier && journal.conflict(earlier, body)) {
      conflicts.push(`row ${row}: payout_id "${request.payoutId}" was already sent with other details`);
    }
    return { row, request, body, earlier };
  });
  if (conflicts.length) throw new UsageError(`${opts.file}: ${conflicts.length} row${conflicts.length === 1 ? '' : 's'} conflict with earlier payouts. Nothing was sent.`, conflicts);

  const alreadyAccepted = items.filter((i) => i.earlier?.outcome?.kind === 'accepted').length;
  const toSend = items.filter((i) => i.earlier?.outcome?.kind !== 'accepted');
  const { wallets } = await api.wallets();
  const plan = computePlan(toSend.map((i) => i.request), wallets);
  const style = makeStyle(deps.io.stderrColor);

  if (opts.dryRun) {
    if (deps.globals.json) {
      await write(deps.io.stdout, JSON.stringify({ rows: items.length, already_accepted: alreadyAccepted, to_send: toSend.length, plan: planJson(plan) }) + '\n');
    } else {
      await write(deps.io.stdout, `${toSend.length} payout${toSend.length === 1 ? '' : 's'} to send` + (alreadyAccepted ? ` (${alreadyAccepted} already accepted in an earlier run)` : '') + ':\n' + renderPlan(plan, makeStyle(deps.io.color)));
      deps.log.info('Dry run: nothing was sent.');
    }
    return 0;
  }

  const nothingToSend = toSend.length === 0;
  if (nothingToSend) {
    deps.log.info(`Nothing to send: every row of ${opts.file} was accepted in an earlier run.`);
  } else {
    deps.io.stderr.write(
      `${toSend.length} payout${toSend.length === 1 ? '' : 's'} to send from ${opts.file}` +
        (alreadyAccepted ? ` (${alreadyAccepted} already accepted in an earlier run, not sent again)` : '') +
        ':\n' + renderPlan(plan, style),
    );
  }
  if (!opts.yes && !nothingToSend) {
    const ok = await (await deps.prompter()).confirm({ message: `Send ${toSend.length} payouts?`, default: false });
    if (!ok) throw new UsageError('Cancelled: nothing was sent.');
  }

  const progress = new Progress(deps.io.stderr, deps.io.stderrIsTTY);
  const { outcomes, stopped } = await runBatch(items, {
    api,
    journal,
    concurrency,
    now: deps.now,
    stop: deps.signal,
    onProgress: (s) => progress.update(s),
  });
  const count = (k: string) => outcomes.filter((o) => o.outcome === k).length;
  if (!nothingToSend) progress.finish({ total: items.length, done: count('accepted') + count('replayed'), failed: count('rejected'), unknown: count('unknown'), inFlight: 0 });

  const reportPath = resolve(opts.report ?? defaultReportPath(file));
  writeReport(reportPath, outcomes);
  const summary = {
    rows: items.length,
    accepted: count('accepted'),
    replayed: count('replayed'),
    rejected: count('rejected'),
    unknown: count('unknown'),
    not_sent: count('not sent'),
    already_accepted: alreadyAccepted,
    report: reportPath,
  };
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify(summary) + '\n');
  deps.io.stderr.write(
    `${summary.accepted} accepted` +
      (alreadyAccepted ? ` (${alreadyAccepted} in an earlier run)` : '') +
      `, ${summary.replayed} already submitted, ${summary.rejected} rejected, ${summary.unknown} unknown` +
      (summary.not_sent ? `, ${summary.not_sent} not sent` : '') +
      `.\nReport: ${reportPath}\n`,
  );
  for (const o of outcomes.filter((x) => x.outcome === 'rejected').slice(0, 10)) {
    deps.io.stderr.write(`  row ${o.row} (${o.payoutId}): ${o.code ?? 'rejected'}: ${o.message ?? ''}\n`);
  }
  const rerun = `payctl payout batch ${shellQuote(opts.file)}${opts.report ? ` --report ${shellQuote(opts.report)}` : ''} --yes`;
  if (stopped) {
    throw new InterruptedError(
      'Stopped: rows in flight finished; the rest were not sent.',
      `Resume with (rows already accepted are skipped, nothing is paid twice):\n  ${rerun}`,
    );
  }
  if (summary.unknown) {
    deps.log.warn(`${summary.unknown} payout${summary.unknown === 1 ? '' : 's'} may or may not have been made. Run the same command again to finish them safely (same keys):\n  ${rerun}`);
    return ExitCode.unknown;
  }
  return summary.rejected ? ExitCode.failed : ExitCode.ok;
}
