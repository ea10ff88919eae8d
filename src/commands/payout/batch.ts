/**
 * `payctl payout batch <file>`: a file of payouts as one checked, confirmed,
 * resumable operation with exactly-once delivery per row. A row's identity is what it
 * pays and the batch id (payouts/identity.ts): a sorted, copied or re-saved file resumes
 * and pays nobody twice; a new --batch-id pays the same rows again, after saying so.
 */
import { write, type Deps } from '../../deps.js';
import { CancelledError, UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import {
  batchRows,
  checkBatch,
  describeRun,
  openBatch,
  planBatch,
  type BatchCheck,
  type BatchSource,
  type DuplicateGroup,
  type LoadedRow,
} from '../../payouts/batch-load.js';
import { checkBatchId, DEFAULT_BATCH_ID } from '../../payouts/identity.js';
import { batchTemplate } from '../../payouts/batch-file.js';
import { Journal } from '../../payouts/journal.js';
import { planJson, totalsJson } from '../../payouts/batch-plan.js';
import { renderPlan } from '../../output/batch.js';
import { batchReportPath, defaultReportPath, freshReportPath, reportHolder, reportOwner, reportProblems } from '../../payouts/report.js';
import { commandLine, invocationOf, type Invocation } from '../../config/command-line.js';
import type { PayoutRequest } from '../../payouts/request.js';
import { approvalsNeeded, limitProblems, type Policy } from '../../plans/policy.js';
import { claimRows } from '../../payouts/batch.js';
import { policyCountsTheDay, runLockOptions, withWalletLocks } from '../../payouts/wallet-lock.js';
import { profilePolicy } from '../plan/common.js';
import { sendRows } from './send-rows.js';
import { nothingSentOnInterrupt, yesRequired } from '../../output/prompter.js';
import { makeStyle, type Style } from '../../output/style.js';
import { plural, text } from '../../output/text.js';
import { formatAmount } from '../../money/amount.js';
import { basename, extname, resolve } from 'node:path';

export interface PayoutBatchOptions {
  file: string;
  concurrency?: number;
  report?: string;
  dryRun?: boolean;
  yes?: boolean;
  batchId?: string;
  allowDuplicates?: boolean;
  /** Print a header row and an example row (CSV) and stop: no file, no login, nothing sent. */
  template?: boolean;
}

const DEFAULT_CONCURRENCY = 4;

/** A batch id for paying a file again: its name and the date ("stipends-2026-11-22"), never the current one. */
function newBatchId(file: string, current: string, now: Date): string {
  const stem =
    basename(file, extname(file))
      .replace(/[^A-Za-z0-9_.:-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 50) || 'batch';
  const id = `${stem}-${now.toISOString().slice(0, 10)}`;
  return id === current ? `${id}-2` : id;
}

/** "rows 3 and 9", "rows 3, 9 and 12" */
function rowList(rows: number[]): string {
  const n = rows.map(String);
  return n.length === 1 ? `row ${n[0]}` : `rows ${n.slice(0, -1).join(', ')} and ${n.at(-1)}`;
}

function describeGroup(g: DuplicateGroup): string {
  const r = g.request;
  return `${rowList(g.rows)} are identical: ${formatAmount(r.amount, r.currency)} ${r.currency} from ${text(r.walletId)} to ${text(r.name)} (${r.provider} ${text(r.account)})`;
}

export async function run(opts: PayoutBatchOptions, deps: Deps): Promise<number> {
  // Rows journaled from now on were never sent before (sendRows: a refused key then sent nothing).
  const since = deps.clock.now();
  if (opts.template) {
    // The file is optional only with --template (batch-spec.ts): given anyway, it would be ignored silently.
    if ((opts.file as string | undefined) !== undefined) {
      throw new UsageError(
        `--template prints a template to start a batch file from and takes no file (got ${text(opts.file)}). Nothing was sent.`,
        [],
        'To write one: payctl payout batch --template > payouts.csv',
      );
    }
    await write(deps.io.stdout, batchTemplate());
    return 0;
  }
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const batchId = opts.batchId ?? DEFAULT_BATCH_ID;
  const badId = opts.batchId !== undefined ? checkBatchId(opts.batchId) : undefined;
  if (badId) throw new UsageError(`Cannot send this batch: ${badId}. Nothing was sent.`);
  const src = openBatch(opts.file, batchId, deps.signal);
  const checked = await checkBatch(src);
  const defaultReport = resolve(defaultReportPath(src.file));
  // The path checked now; once the rows are known, the default may move off another run's report (chooseReport).
  let reportPath = resolve(opts.report ?? defaultReport);
  const badReport = reportProblems(reportPath, src.file, opts.report === undefined ? 'the report' : `--report ${reportPath}`);
  if (badReport.length) throw new UsageError(`Cannot write the report. Nothing was sent.`, badReport, 'Choose another --report path and run the command again.');
  if (!opts.dryRun && !opts.yes && !deps.io.interactive) {
    throw new UsageError(`${yesRequired(deps.globals)}. Nothing was sent.`, [], 'Review the plan with --dry-run first.');
  }

  const api = await deps.api();
  const journal = new Journal(configDir(deps.env));
  const { wallets } = await api.wallets();
  const inv = invocationOf(deps.globals, deps.env);
  const load = await planBatch(src, checked, journal, api.baseUrl, wallets, commandLine(inv, ['balances']));
  const alreadyAccepted = load.alreadyAccepted;

  // The report goes in every printed command that was given one or had it moved: run later, it is the same file.
  const batchCommand = (
    id: string | undefined,
    extra: string[] = [],
    yes = true,
    report = opts.report !== undefined || reportPath !== defaultReport ? reportPath : undefined,
  ) =>
    commandLine(
      inv,
      ['payout', 'batch'],
      [
        src.file,
        ...(id !== undefined ? ['--batch-id', id] : []),
        ...(concurrency !== DEFAULT_CONCURRENCY ? ['--concurrency', String(concurrency)] : []),
        ...(report !== undefined ? ['--report', report] : []),
        ...extra,
        ...(yes ? ['--yes'] : []),
      ],
    );
  // Paying again is never one paste away from happening: the command names a new batch
  // (the file's name and today's date) and leaves out --yes, so the plan is shown and asked.
  // It names a report of its own that is not there yet: run as printed, it keeps this one's.
  const payAgain = () => {
    const id = newBatchId(src.file, batchId, deps.clock.now());
    return batchCommand(id, [], false, freshReportPath(opts.report !== undefined ? reportPath : defaultReport, id));
  };

  // Rows that a named batch already paid, sent again only because --batch-id was left out:
  // most likely a resume typed without it. Say how to do either, send nothing.
  if (opts.batchId === undefined && load.otherBatchRows) {
    const n = load.otherBatchRows;
    const named = load.otherBatches[0]!.batchId!;
    throw new UsageError(
      `${opts.file}: ${plural(n, 'row')} ${n === 1 ? 'matches a payout' : 'match payouts'} already sent ${load.otherBatches.map(describeRun).join('; ')}. Nothing was sent.`,
      [],
      `To resume that batch:                    ${batchCommand(named)}\nTo pay these rows again as new payouts: ${payAgain()}`,
    );
  }

  // Never over another run's report: a --report that holds one is refused, the default moves beside it.
  let runIds: Promise<(id: string) => boolean> | undefined;
  const inRun = () =>
    (runIds ??= (async () => {
      const ids = new Set<string>();
      for await (const r of batchRows(src, checked, journal, api.baseUrl, true)) ids.add(r.request.payoutId);
      return (id: string) => ids.has(id);
    })());
  const whose = async (path: string) => reportOwner(await reportHolder(path), batchId, inRun);
  let reportMoved: string | undefined;
  const held = await whose(reportPath);
  if (held !== undefined && opts.report !== undefined) {
    const again = [...(opts.allowDuplicates ? ['--allow-duplicates'] : []), ...(opts.dryRun ? ['--dry-run'] : [])];
    throw new UsageError(
      `Cannot write the report: ${reportPath} ${held}. payctl never writes over another run's report. Nothing was sent.`,
      [],
      `Choose another --report path, for example:\n  ${batchCommand(opts.batchId, again, !!opts.yes, freshReportPath(reportPath, batchId))}`,
    );
  }
  if (held !== undefined) {
    reportMoved = `${reportPath} ${held}`;
    reportPath = await chooseReport(defaultReport, batchId, src.file, whose);
  }

  const duplicates = load.duplicates.filter((g) => g.pending);
  const plan = load.groups;
  const style = makeStyle(deps.io.stderrColor);
  const earlier = load.earlier;
  const matchRows = load.matchRows;
  const matched = load.matched;
  const toSend = load.toSend;

  const notices = (st: Style): string => {
    let out = '';
    if (reportMoved) out += `${st.yellow('Note:')} ${reportMoved}; it is kept, and this run's report is ${reportPath}.\n`;
    for (const r of earlier) {
      out += `${st.yellow('Note:')} ${plural(r.rows, 'row was', 'rows were')} accepted earlier ${describeRun(r)}; ${r.rows === 1 ? 'it is' : 'they are'} not sent again.\n`;
    }
    if (earlier.length) out += `  To pay ${alreadyAccepted === 1 ? 'it' : 'them'} again as new payouts, give the batch a new name: ${payAgain()}\n`;
    if (matchRows) {
      out += `${st.yellow('Note:')} ${plural(matchRows, 'row pays', 'rows pay')} the same as payouts sent ${matched.map(describeRun).join('; ')}; batch "${batchId}" pays ${matchRows === 1 ? 'it' : 'them'} again as new payouts.\n`;
    }
    for (const g of duplicates) out += `${st.yellow('Possible duplicates:')} ${describeGroup(g)}.\n`;
    return out;
  };

  const jsonPlan = () => ({
    batch_id: batchId,
    file: src.file,
    rows: load.rows,
    already_accepted: alreadyAccepted,
    to_send: toSend,
    earlier_runs: earlier.map((r) => ({ batch_id: r.batchId ?? null, file: r.file ?? null, rows: r.rows, first_at: r.first, last_at: r.last })),
    matching_earlier_payouts: matchRows,
    duplicates: duplicates.map((g) => g.rows),
    report: reportPath,
    plan: planJson(plan),
    totals: totalsJson(plan),
  });

  if (opts.dryRun) {
    if (deps.globals.json) {
      await write(deps.io.stdout, JSON.stringify(jsonPlan()) + '\n');
    } else {
      const st = makeStyle(deps.io.color);
      await write(
        deps.io.stdout,
        `Batch "${batchId}": ${plural(toSend, 'payout')} to send from ${opts.file}` +
          (alreadyAccepted ? ` (${alreadyAccepted} already accepted earlier, not sent again)` : '') +
          ':\n' +
          renderPlan(plan, st, deps.io.stdoutColumns) +
          notices(st),
      );
      deps.log.info(
        duplicates.length && !opts.allowDuplicates
          ? 'Dry run: nothing was sent. Identical rows need confirmation at a terminal, or --allow-duplicates.'
          : 'Dry run: nothing was sent.',
      );
    }
    return 0;
  }

  // Checked first without a lock (refused before anything is asked), then again under the lock.
  const policy = profilePolicy(deps);
  const policyRows = policy ? await checkPolicy(policy, deps, src, checked, journal, api.baseUrl, opts, inv) : undefined;

  if (duplicates.length && !opts.allowDuplicates && !deps.io.interactive) {
    throw new UsageError(
      `${opts.file}: ${plural(duplicates.length, 'group')} of identical rows. Nothing was sent.`,
      duplicates.map(describeGroup),
      `If each row is meant to be paid, add --allow-duplicates:\n  ${batchCommand(opts.batchId, ['--allow-duplicates'])}`,
    );
  }

  const nothingToSend = toSend === 0;
  if (nothingToSend) {
    deps.log.block(notices(style));
    deps.log.info(`Nothing to send: every row of ${opts.file} was accepted earlier (batch "${batchId}").`);
  } else {
    deps.log.block(
      `Batch "${batchId}": ${plural(toSend, 'payout')} to send from ${opts.file}` +
        (alreadyAccepted ? ` (${alreadyAccepted} already accepted earlier, not sent again)` : '') +
        ':\n' +
        renderPlan(plan, style, deps.io.stderrColumns) +
        notices(style),
    );
  }
  const prompt = async (message: string) => {
    // Ctrl-C at the question: exit 130, and nothing was sent (no row is journaled before it).
    const ok = await (await deps.prompter()).confirm({ message, default: false }).catch((err: unknown) => {
      throw nothingSentOnInterrupt(err);
    });
    if (!ok) throw new CancelledError();
  };
  if (duplicates.length && !opts.allowDuplicates && !nothingToSend) {
    const n = duplicates.reduce((a, g) => a + g.rows.length, 0);
    await prompt(`Send all ${n} identical rows as separate payouts?`);
  }
  if (!opts.yes && !nothingToSend) await prompt(`Send ${plural(toSend, 'payout')}?`);
  const allowDuplicates = opts.allowDuplicates || duplicates.length > 0;

  const run = { id: batchId, file: src.file };
  // Under a policy that counts the day, the check and the journaling of every row to send are
  // one step under the wallets' locks, so parallel runs count each other; sending comes after.
  const items =
    policyCountsTheDay(policy) && policyRows
      ? await withWalletLocks(
          configDir(deps.env),
          toSendOf(policyRows).map((r) => r.request.walletId),
          async () => {
            checkRows(policy!, toSendOf(policyRows), deps, src, journal, api.baseUrl, opts, inv, false);
            return claimRows(policyRows, { journal, baseUrl: api.baseUrl, now: deps.clock.now(), batch: run, profile: deps.globals.profile });
          },
          runLockOptions(deps),
        )
      : batchRows(src, checked, journal, api.baseUrl);

  return sendRows(deps, {
    items,
    rows: load.rows,
    toSend,
    alreadyAccepted,
    api,
    journal,
    concurrency,
    batch: run,
    reportPath,
    rerun: batchCommand(opts.batchId, allowDuplicates && load.duplicates.length ? ['--allow-duplicates'] : []),
    since,
  });
}

/**
 * The default report's path when the usual one (`defaultReport`) holds another run's report: the
 * first of payouts.<batch>.report.csv, payouts.<batch>.2.report.csv, ... that is free or this
 * batch's own (a rerun finds the same one again).
 */
async function chooseReport(defaultReport: string, batchId: string, input: string, whose: (path: string) => Promise<string | undefined>): Promise<string> {
  for (let n = 1; n <= 100; n++) {
    const path = batchReportPath(defaultReport, batchId, n);
    if (reportProblems(path, input).length === 0 && (await whose(path)) === undefined) return path;
  }
  throw new UsageError(`Cannot find a free name for the report beside ${defaultReport}. Nothing was sent.`, [], 'Choose a --report path and run the command again.');
}

/** The rows a run sends: all but those accepted earlier. */
function toSendOf(rows: LoadedRow[]): LoadedRow[] {
  return rows.filter((r) => r.earlier?.outcome?.kind !== 'accepted');
}

/**
 * With a policy in the profile: the rows still to send, over a limit, are refused naming the
 * rule; a batch whose totals need approval is refused with the command that makes it a plan.
 * Returns the rows read (each with its earlier entry), for the check made again under the lock.
 */
async function checkPolicy(
  policy: Policy,
  deps: Deps,
  src: BatchSource,
  checked: BatchCheck,
  journal: Journal,
  baseUrl: string,
  opts: PayoutBatchOptions,
  inv: Invocation,
): Promise<LoadedRow[]> {
  const rows: LoadedRow[] = [];
  for await (const r of batchRows(src, checked, journal, baseUrl)) rows.push(r);
  checkRows(policy, toSendOf(rows), deps, src, journal, baseUrl, opts, inv);
  return rows;
}

/** The policy's limits and approvals for the rows to send, against the journal as it is now. */
/** The policy's verdict on the rows; `warn` false for the second check (under the lock), which would say the same again. */
function checkRows(
  policy: Policy,
  rows: LoadedRow[],
  deps: Deps,
  src: BatchSource,
  journal: Journal,
  baseUrl: string,
  opts: PayoutBatchOptions,
  inv: Invocation,
  warn = true,
): void {
  const requests: PayoutRequest[] = rows.map((r) => r.request);
  const limits = limitProblems(policy, requests, journal, baseUrl, deps.clock.now(), warn ? (l) => deps.log.warn(l) : undefined);
  if (limits.length) throw new UsageError(`${opts.file} breaks the policy ${policy.file}. Nothing was sent.`, limits);
  const need = approvalsNeeded(policy, requests, journal, baseUrl, deps.clock.now());
  if (need.required > 0) {
    throw new UsageError(
      `${opts.file} needs approval under the policy ${policy.file}. Nothing was sent.`,
      need.reasons,
      `Make it a plan for approval:\n  ${commandLine(inv, ['plan', 'create'], [src.file, ...(opts.batchId !== undefined ? ['--batch-id', opts.batchId] : [])])}`,
    );
  }
}
