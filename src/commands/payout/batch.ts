/**
 * `payctl payout batch <file>`: a file of payouts as one checked, confirmed,
 * resumable operation with exactly-once delivery per row. A row's identity is what it
 * pays and the batch id (payouts/identity.ts): a sorted, copied or re-saved file resumes
 * and pays nobody twice; a new --batch-id pays the same rows again, after saying so.
 */
import { write, type Deps } from '../../deps.js';
import { ExitCode, InterruptedError, UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { runBatch, type RowOutcome } from '../../payouts/batch.js';
import { describeRun, earlierRuns, lookUpBatch, readBatch, walletProblems, type LoadedRow } from '../../payouts/batch-load.js';
import { checkBatchId, DEFAULT_BATCH_ID } from '../../payouts/identity.js';
import { Journal, type JournalEntry } from '../../payouts/journal.js';
import { computePlan, planJson, renderPlan } from '../../payouts/plan.js';
import { defaultReportPath, reportProblems, ReportWriter } from '../../payouts/report.js';
import { commandLine, invocationOf } from '../../output/command-line.js';
import { Progress } from '../../output/progress.js';
import { makeStyle, type Style } from '../../output/style.js';
import { text } from '../../output/text.js';
import { formatAmount } from '../../money/amount.js';
import { resolve } from 'node:path';

export interface PayoutBatchOptions {
  file: string;
  concurrency?: number;
  report?: string;
  dryRun?: boolean;
  yes?: boolean;
  batchId?: string;
  allowDuplicates?: boolean;
}

const DEFAULT_CONCURRENCY = 4;

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** "rows 3 and 9", "rows 3, 9 and 12" */
function rowList(rows: LoadedRow[]): string {
  const n = rows.map((r) => String(r.row));
  return n.length === 1 ? `row ${n[0]}` : `rows ${n.slice(0, -1).join(', ')} and ${n.at(-1)}`;
}

function describeGroup(g: LoadedRow[]): string {
  const r = g[0]!.request;
  return `${rowList(g)} are identical: ${formatAmount(r.amount, r.currency)} ${r.currency} from ${text(r.walletId)} to ${text(r.name)} (${r.provider} ${text(r.account)})`;
}

/** Each matched entry once (rows of one file may match the same earlier payout). */
function uniqueEntries(rows: LoadedRow[]): JournalEntry[] {
  const seen = new Map<string, JournalEntry>();
  for (const r of rows) for (const e of r.matches) seen.set(e.payoutId, e);
  return [...seen.values()];
}

export async function run(opts: PayoutBatchOptions, deps: Deps): Promise<number> {
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const batchId = opts.batchId ?? DEFAULT_BATCH_ID;
  const badId = opts.batchId !== undefined ? checkBatchId(opts.batchId) : undefined;
  if (badId) throw new UsageError(`Cannot send this batch: ${badId}. Nothing was sent.`);
  const read = await readBatch(opts.file, batchId);
  const reportPath = resolve(opts.report ?? defaultReportPath(read.file));
  const badReport = reportProblems(reportPath, read.file, opts.report === undefined ? 'the report' : `--report ${reportPath}`);
  if (badReport.length) throw new UsageError(`Cannot write the report. Nothing was sent.`, badReport, 'Choose another --report path and run the command again.');
  if (!opts.dryRun && !opts.yes && !deps.io.interactive) {
    throw new UsageError('--yes is required without a terminal: money never moves without an explicit yes. Nothing was sent.', [], 'Review the plan with --dry-run first.');
  }

  const api = await deps.api();
  const journal = new Journal(configDir(deps.env));
  const load = lookUpBatch(read, journal, api.baseUrl, opts.file);
  const isDone = (r: LoadedRow) => r.earlier?.outcome?.kind === 'accepted';
  const toSend = load.rows.filter((r) => !isDone(r));
  const alreadyAccepted = load.rows.length - toSend.length;
  const { wallets } = await api.wallets();
  const inv = invocationOf(deps.globals, deps.env);
  const walletIssues = walletProblems(toSend, wallets, commandLine(inv, ['balances']));
  if (walletIssues.length) {
    throw new UsageError(`${opts.file}: ${plural(walletIssues.length, 'problem')}. Nothing was sent.`, walletIssues, 'Fix the rows above and run the same command again.');
  }

  const batchCommand = (id: string | undefined, extra: string[] = []) =>
    commandLine(inv, ['payout', 'batch'], [
      read.file,
      ...(id !== undefined ? ['--batch-id', id] : []),
      ...(concurrency !== DEFAULT_CONCURRENCY ? ['--concurrency', String(concurrency)] : []),
      ...(opts.report !== undefined ? ['--report', reportPath] : []),
      ...extra,
      '--yes',
    ]);

  // Rows that a named batch already paid, sent again only because --batch-id was left out:
  // most likely a resume typed without it. Say how to do either, send nothing.
  const otherBatch = opts.batchId === undefined ? toSend.filter((r) => r.matches.some((e) => e.batch && e.batch.id !== batchId)) : [];
  if (otherBatch.length) {
    const runs = earlierRuns(uniqueEntries(otherBatch).filter((e) => e.batch && e.batch.id !== batchId));
    const named = runs[0]!.batchId!;
    throw new UsageError(
      `${opts.file}: ${plural(otherBatch.length, 'row')} ${otherBatch.length === 1 ? 'matches a payout' : 'match payouts'} already sent ${runs.map(describeRun).join('; ')}. Nothing was sent.`,
      [],
      `To resume that batch:            ${batchCommand(named)}\nTo pay these rows again as new payouts: ${batchCommand('<new name>')}`,
    );
  }

  const duplicates = load.duplicates.filter((g) => g.some((r) => !isDone(r)));
  const plan = computePlan(toSend.map((r) => r.request), wallets);
  const style = makeStyle(deps.io.stderrColor);
  const earlier = earlierRuns(load.rows.filter(isDone).map((r) => r.earlier!));
  const matchRows = toSend.filter((r) => r.matches.length);
  const matched = earlierRuns(uniqueEntries(matchRows));

  const notices = (st: Style): string => {
    let out = '';
    for (const r of earlier) {
      out += `${st.yellow('Note:')} ${plural(r.rows, 'row was', 'rows were')} accepted earlier ${describeRun(r)}; ${r.rows === 1 ? 'it is' : 'they are'} not sent again.\n`;
    }
    if (earlier.length) out += `  To pay ${alreadyAccepted === 1 ? 'it' : 'them'} again as new payouts, give the batch a new name: ${batchCommand('<new name>')}\n`;
    if (matchRows.length) {
      out += `${st.yellow('Note:')} ${plural(matchRows.length, 'row pays', 'rows pay')} the same as payouts sent ${matched.map(describeRun).join('; ')}; batch "${batchId}" pays ${matchRows.length === 1 ? 'it' : 'them'} again as new payouts.\n`;
    }
    for (const g of duplicates) out += `${st.yellow('Possible duplicates:')} ${describeGroup(g)}.\n`;
    return out;
  };

  const jsonPlan = () => ({
    batch_id: batchId,
    file: read.file,
    rows: load.rows.length,
    already_accepted: alreadyAccepted,
    to_send: toSend.length,
    earlier_runs: earlier.map((r) => ({ batch_id: r.batchId ?? null, file: r.file ?? null, rows: r.rows, first_at: r.first, last_at: r.last })),
    matching_earlier_payouts: matchRows.length,
    duplicates: duplicates.map((g) => g.map((r) => r.row)),
    plan: planJson(plan),
  });

  if (opts.dryRun) {
    if (deps.globals.json) {
      await write(deps.io.stdout, JSON.stringify(jsonPlan()) + '\n');
    } else {
      const st = makeStyle(deps.io.color);
      await write(
        deps.io.stdout,
        `Batch "${batchId}": ${plural(toSend.length, 'payout')} to send from ${opts.file}` +
          (alreadyAccepted ? ` (${alreadyAccepted} already accepted earlier, not sent again)` : '') +
          ':\n' +
          renderPlan(plan, st) +
          notices(st),
      );
      deps.log.info(duplicates.length && !opts.allowDuplicates ? 'Dry run: nothing was sent. Identical rows need confirmation at a terminal, or --allow-duplicates.' : 'Dry run: nothing was sent.');
    }
    return 0;
  }

  if (duplicates.length && !opts.allowDuplicates && !deps.io.interactive) {
    throw new UsageError(
      `${opts.file}: ${plural(duplicates.length, 'group')} of identical rows. Nothing was sent.`,
      duplicates.map(describeGroup),
      `If each row is meant to be paid, add --allow-duplicates:\n  ${batchCommand(opts.batchId, ['--allow-duplicates'])}`,
    );
  }

  const nothingToSend = toSend.length === 0;
  if (nothingToSend) {
    deps.io.stderr.write(notices(style));
    deps.log.info(`Nothing to send: every row of ${opts.file} was accepted earlier (batch "${batchId}").`);
  } else {
    deps.io.stderr.write(
      `Batch "${batchId}": ${plural(toSend.length, 'payout')} to send from ${opts.file}` +
        (alreadyAccepted ? ` (${alreadyAccepted} already accepted earlier, not sent again)` : '') +
        ':\n' +
        renderPlan(plan, style) +
        notices(style),
    );
  }
  const prompt = async (message: string) => {
    const ok = await (await deps.prompter()).confirm({ message, default: false });
    if (!ok) throw new UsageError('Cancelled: nothing was sent.');
  };
  if (duplicates.length && !opts.allowDuplicates && !nothingToSend) {
    const n = duplicates.reduce((a, g) => a + g.length, 0);
    await prompt(`Send all ${n} identical rows as separate payouts?`);
  }
  if (!opts.yes && !nothingToSend) await prompt(`Send ${plural(toSend.length, 'payout')}?`);
  const allowDuplicates = opts.allowDuplicates || duplicates.length > 0;

  const report = new ReportWriter(reportPath, batchId);
  const progress = new Progress(deps.io.stderr, deps.io.stderrIsTTY, undefined, `batch ${batchId}`);
  let outcomes: RowOutcome[];
  let stopped: boolean;
  try {
    ({ outcomes, stopped } = await runBatch(
      load.rows.map((r) => ({ row: r.row, request: r.request, body: r.body, fingerprint: r.fingerprint, earlier: r.earlier })),
      {
        api,
        journal,
        concurrency,
        now: deps.now,
        stop: deps.signal,
        batch: { id: batchId, file: read.file },
        onProgress: (s) => progress.update(s),
        onSettle: (o) => report.append(o),
      },
    ));
  } finally {
    report.close();
  }
  const count = (k: string) => outcomes.filter((o) => o.outcome === k).length;
  if (!nothingToSend) progress.finish({ total: load.rows.length, done: count('accepted') + count('replayed'), failed: count('rejected'), unknown: count('unknown'), inFlight: 0 });

  report.finish(outcomes);
  const summary = {
    batch_id: batchId,
    rows: load.rows.length,
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
    deps.io.stderr.write(`  row ${o.row} (${o.payoutId}): ${text(o.code ?? 'rejected')}: ${text(o.message ?? '')}\n`);
  }
  const rerun = batchCommand(opts.batchId, allowDuplicates && load.duplicates.length ? ['--allow-duplicates'] : []);
  if (stopped) {
    throw new InterruptedError(
      'Stopped: rows in flight finished; the rest were not sent.',
      `Resume with (rows already accepted are skipped, nothing is paid twice):\n  ${rerun}`,
    );
  }
  if (summary.unknown) {
    deps.log.warn(`${plural(summary.unknown, 'payout')} may or may not have been made. Run the same command again to finish them safely (same keys):\n  ${rerun}`);
    return ExitCode.unknown;
  }
  if (summary.not_sent) {
    deps.log.warn(`${plural(summary.not_sent, 'row was', 'rows were')} not sent (see the report). Run the same command again to send ${summary.not_sent === 1 ? 'it' : 'them'}:\n  ${rerun}`);
    return ExitCode.failed;
  }
  return summary.rejected ? ExitCode.failed : ExitCode.ok;
}
