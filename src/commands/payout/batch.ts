/**
 * `payctl payout batch <file>`: a file of payouts as one checked, confirmed, resumable operation
 * with exactly-once delivery per row. A row's identity is what it pays and the batch id
 * (payouts/identity.ts): a sorted, copied or re-saved file resumes and pays nobody twice; a new
 * --batch-id pays the same rows again, after saying so. `run` reads as its steps: the template,
 * the checks before the service is asked, the plan (with the journal and the balances), the
 * report's place, the dry run, the policy and the questions, then the sending (send-rows.ts);
 * the wallets planned with: batch-wallets.ts; printed commands: batch-commands.ts (docs/architecture.md); the policy's checks: batch-policy.ts. */
import { write, type Deps } from '../../deps.js';
import { CancelledError, UsageError } from '../../errors.js';
import type { ApiClient } from '../../api/client.js';
import {
  batchRows,
  checkBatch,
  describeRun,
  openBatch,
  planBatch,
  type BatchCheck,
  type BatchPlan,
  type BatchSource,
  describeGroup,
  type DuplicateGroup,
} from '../../payouts/batch-load.js';
import { checkBatchId, DEFAULT_BATCH_ID } from '../../payouts/identity.js';
import { slippedBatch } from '../../payouts/repeats.js';
import { batchTemplate } from '../../payouts/batch-file.js';
import type { Ledger } from '../../payouts/journal.js';
import { mayBeAnothers, withRunKey } from '../../payouts/sender-profile.js';
import { contestOf } from '../../payouts/paid-meanwhile.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { planJson, totalsJson } from '../../payouts/batch-plan.js';
import { renderPlan } from '../../output/batch.js';
import { batchReportPath, defaultReportPath, freshReportPath, reportHolder, reportOwner, reportProblems } from '../../payouts/report.js';
import { commandLine, invocationOf, type Invocation } from '../../config/command-line.js';
import { claimRows, type BatchItem } from '../../payouts/batch.js';
import { policyCountsTheDay, runLockOptions } from '../../payouts/wallet-lock.js';
import { batchLock } from '../../payouts/batch-lock.js';
import { effectivePolicy } from '../policy/effective.js';
import { sendRows } from './send-rows.js';
import { nothingSentOnInterrupt, yesRequired } from '../../output/prompter.js';
import { makeStyle, type Style } from '../../output/style.js';
import { plural, text } from '../../output/text.js';
import { resolve } from 'node:path';
import { BatchCommands, DEFAULT_CONCURRENCY, newBatchId, recentSinglesRefusal, refusePlanFile } from './batch-commands.js';
import { checkPolicy, checkRows, toSendOf, type PolicyCheck } from './batch-policy.js';
import { matchedNotes, settleCommands } from './batch-matched.js';
import { batchWallets, planRules } from './batch-wallets.js';

export interface PayoutBatchOptions {
  file: string;
  concurrency?: number;
  report?: string;
  dryRun?: boolean;
  yes?: boolean;
  batchId?: string;
  allowDuplicates?: boolean;
  /** Under a policy's daily total, go on although journal entries are missing: acknowledged, no longer counted (plans/limits.ts). */
  acknowledgeMissing?: boolean;
  /** Print a header row and an example row (CSV) and stop: no file, no login, nothing sent. */
  template?: boolean;
}

export async function run(opts: PayoutBatchOptions, deps: Deps): Promise<number> {
  if (opts.template) return printTemplate(opts, deps);
  const first = await checkFirst(opts, deps);

  const api = await deps.api();
  const journal = await openLedger(deps);
  // A send is planned and sent holding the batch's lock (batch-lock.ts): a second run of it waits, then plans with this one's rows journaled. A dry run locks nothing.
  const lock = batchLock(deps);
  const send = () => planAndSend(opts, deps, first, api, journal, lock.lost);
  return opts.dryRun ? send() : journal.withBatchLock({ id: first.batchId, file: first.src.file, rows: first.checked.rowsKey }, send, lock.options);
}

/** The plan (the journal read, the notices, the policy), then the rows sent; a dry run stops at the plan. */
async function planAndSend(opts: PayoutBatchOptions, deps: Deps, first: FirstChecks, api: ApiClient, journal: Ledger, lockLost: AbortSignal): Promise<number> {
  // Rows journaled from now on (the lock held), by the ledger's clock that dates them, were never sent before (sendRows).
  const since = await journal.now();
  const wallets = await batchWallets(deps, api, journal, first, opts);
  const inv = invocationOf(deps.globals, deps.env);
  const rules = planRules(deps, first, opts, mayBeAnothers(inv, withRunKey(deps.config(), api.runKey)));
  const load = await planBatch(first.src, first.checked, journal, api.baseUrl, wallets, commandLine(inv, ['balances']), settleCommands(inv, deps.clock), rules);
  const b = new BatchRun(opts, deps, first, api, journal, inv, load);

  await b.refuseOtherBatch();
  await b.placeReport();
  await b.prepareNotices();
  // Checked without a lock (a dry run included: it validates what a send would), then under the lock.
  const policy = await effectivePolicy(deps);
  const policyRows = policy ? await checkPolicy(policy, b.policyCheck()) : undefined;
  if (opts.dryRun) return b.dryRun();
  await b.confirm();

  // Journaled with each row, with what the run's resume repeats (history reconcile prints it too).
  const run = { id: b.batchId, file: b.src.file, ...b.commands.runOptions() };
  // Under a policy that counts the day, the check and the journaling of every row to send are
  // one step under the wallets' locks, so parallel runs count each other; sending comes after.
  const items: BatchItem[] | AsyncIterable<BatchItem> =
    policyCountsTheDay(policy) && policyRows
      ? await journal.withWalletLocks(
          toSendOf(policyRows).map((r) => r.request.walletId),
          async () => {
            await checkRows(policy!, toSendOf(policyRows), b.policyCheck(), false);
            return claimRows(policyRows, {
              journal,
              baseUrl: api.baseUrl,
              now: deps.clock.now(),
              batch: run,
              profile: deps.globals.profile,
              ...api.runKey, // who sent each row: its key's id, and whether from PAYCTL_API_KEY
            });
          },
          runLockOptions(deps),
        )
      : batchRows(b.src, b.checked, journal, api.baseUrl);

  const allowDuplicates = opts.allowDuplicates || b.duplicates.length > 0;
  // A run without --batch-id looks for its rows among other runs' as it journals them (paid-meanwhile.ts).
  const payouts = b.checked.payouts;
  const contest = payouts && contestOf(b.batchId, b.src.file, { since: load.recentSince, began: since, holds: (id) => payouts.has(id) });
  return sendRows(deps, {
    items,
    rows: load.rows,
    toSend: load.toSend,
    alreadyAccepted: load.alreadyAccepted,
    api,
    journal,
    concurrency: b.concurrency,
    batch: run,
    reportPath: b.commands.reportPath,
    rerun: b.commands.batch(opts.batchId, allowDuplicates && load.duplicates.length ? ['--allow-duplicates'] : []),
    since,
    lockLost,
    contest,
  });
}

/** --template: a header row and an example row on stdout; nothing read, nothing sent. */
async function printTemplate(opts: PayoutBatchOptions, deps: Deps): Promise<number> {
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

/** What is settled before the service is asked anything: the options, the file checked, the report's path. */
interface FirstChecks {
  concurrency: number;
  batchId: string;
  src: BatchSource;
  checked: BatchCheck;
  defaultReport: string;
  /** The path checked now; once the rows are known, the default may move off another run's report (placeReport). */
  reportPath: string;
}

async function checkFirst(opts: PayoutBatchOptions, deps: Deps): Promise<FirstChecks> {
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const batchId = opts.batchId ?? DEFAULT_BATCH_ID;
  const badId = opts.batchId !== undefined ? checkBatchId(opts.batchId) : undefined;
  if (badId) throw new UsageError(`Cannot send this batch: ${badId.text}. Nothing was sent.`, [], undefined, badId);
  refusePlanFile(opts.file, invocationOf(deps.globals, deps.env), { concurrency, ...(opts.report !== undefined ? { report: resolve(opts.report) } : {}) });
  const src = openBatch(opts.file, batchId, deps.signal);
  const checked = await checkBatch(src);
  const defaultReport = resolve(defaultReportPath(src.file));
  const reportPath = resolve(opts.report ?? defaultReport);
  const badReport = reportProblems(reportPath, src.file, opts.report === undefined ? 'the report' : `--report ${reportPath}`);
  if (badReport.length) throw new UsageError(`Cannot write the report. Nothing was sent.`, badReport, 'Choose another --report path and run the command again.');
  if (!opts.dryRun && !opts.yes && !deps.io.interactive) {
    // As payout create says it: the flag in `errors` for --json (probe C53, 5: it was left empty).
    throw new UsageError('Cannot send this batch: 1 problem. Nothing was sent.', [yesRequired(deps.globals)], 'Review the plan with --dry-run first.');
  }
  return { concurrency, batchId, src, checked, defaultReport, reportPath };
}

/** One run of `payout batch` once its rows are planned: the steps between the plan and the sending. */
class BatchRun {
  readonly concurrency: number;
  readonly batchId: string;
  readonly src: BatchSource;
  readonly checked: BatchCheck;
  readonly commands: BatchCommands;
  /** Identical rows of the file, some still to send. */
  readonly duplicates: DuplicateGroup[];
  /** Whose report was at the default path, when this run's moved beside it. */
  #reportMoved: string | undefined;
  #runIds: Promise<(id: string) => boolean> | undefined;

  constructor(
    readonly opts: PayoutBatchOptions,
    readonly deps: Deps,
    first: FirstChecks,
    readonly api: ApiClient,
    readonly journal: Ledger,
    readonly inv: Invocation,
    readonly load: BatchPlan,
  ) {
    this.concurrency = first.concurrency;
    this.batchId = first.batchId;
    this.src = first.src;
    this.checked = first.checked;
    this.commands = new BatchCommands({
      inv,
      clock: deps.clock,
      file: first.src.file,
      batchId: first.batchId,
      concurrency: first.concurrency,
      report: opts.report,
      defaultReport: first.defaultReport,
      reportPath: first.reportPath,
    });
    this.duplicates = load.duplicates.filter((g) => g.pending);
  }

  /**
   * Rows that a named batch already paid, run again without --batch-id or with a slip ("dec_2026"
   * for "Dec-2026": repeats.ts slippedBatch): how to resume, or pay again; and rows of a run
   * without --batch-id that single payouts of the last day paid (recentSinglesRefusal).
   */
  async refuseOtherBatch(): Promise<void> {
    const { opts, load } = this;
    if (load.recentSingles) throw recentSinglesRefusal(opts.file, load.recentSingles, load.recentSince!, this.inv, 'Nothing was sent.');
    const slip = slippedBatch(load, opts.batchId);
    if (!slip) return;
    const { rows: n, named, run, runs } = slip;
    throw new UsageError(
      `${opts.file}: ${plural(n, 'row')} ${n === 1 ? 'matches a payout' : 'match payouts'} already sent ${runs}. Nothing was sent.`,
      [],
      `To resume that batch:                    ${this.commands.resumeOf(named, run)}\nTo pay these rows again as new payouts: ${this.commands.payAgain(await this.againId())}`,
    );
  }

  #againId: Promise<string> | undefined;

  /** The batch id the printed "pay again" command names (batch-commands.ts newBatchId), found once. */
  againId(): Promise<string> {
    return (this.#againId ??= newBatchId(this.src.file, this.batchId, this.deps.clock.now(), new Set(this.runIds().filter((t) => t !== undefined)), (id) =>
      this.journal.batchSent(this.api.baseUrl, id),
    ));
  }

  /** Never over another run's report: a --report that holds one is refused, the default moves beside it. */
  async placeReport(): Promise<void> {
    const { opts, commands } = this;
    const reportPath = commands.reportPath;
    const held = await this.#whose(reportPath);
    if (held === undefined) return;
    if (opts.report !== undefined) {
      const again = [...(opts.allowDuplicates ? ['--allow-duplicates'] : []), ...(opts.dryRun ? ['--dry-run'] : [])];
      throw new UsageError(
        `Cannot write the report: ${reportPath} ${held}. payctl never writes over another run's report. Nothing was sent.`,
        [],
        `Choose another --report path, for example:\n  ${commands.batch(opts.batchId, again, !!opts.yes, freshReportPath(reportPath, this.batchId))}`,
      );
    }
    this.#reportMoved = `${reportPath} ${held}`;
    commands.reportPath = await this.#chooseReport(commands.defaultReport);
  }

  /** Whose the report at `path` is, when it is not this run's to write (report.ts reportOwner). */
  async #whose(path: string): Promise<string | undefined> {
    return reportOwner(await reportHolder(path), this.batchId, () => this.#inRun());
  }

  /** Whether a payout id is one of this run's rows (read once, when a report of this batch id is found). */
  #inRun(): Promise<(id: string) => boolean> {
    return (this.#runIds ??= (async () => {
      const ids = new Set<string>();
      for await (const r of batchRows(this.src, this.checked, this.journal, this.api.baseUrl, true)) ids.add(r.request.payoutId);
      return (id: string) => ids.has(id);
    })());
  }

  /**
   * The default report's path when the usual one (`defaultReport`) holds another run's report: the
   * first of payouts.<batch>.report.csv, payouts.<batch>.2.report.csv, ... that is free or this
   * batch's own (a rerun finds the same one again).
   */
  async #chooseReport(defaultReport: string): Promise<string> {
    for (let n = 1; n <= 100; n++) {
      const path = batchReportPath(defaultReport, this.batchId, n);
      if (reportProblems(path, this.src.file).length === 0 && (await this.#whose(path)) === undefined) return path;
    }
    throw new UsageError(`Cannot find a free name for the report beside ${defaultReport}. Nothing was sent.`, [], 'Choose a --report path and run the command again.');
  }

  /** The batch ids of the runs that sent any of these rows before: a new batch id must be none of them. */
  runIds(): Array<string | undefined> {
    const { load } = this;
    return [...load.earlier, ...load.matched, ...load.otherBatches].map((r) => r.batchId).concat(load.paidAgainAs);
  }

  /** The command notices() prints for paying again rows accepted earlier, when there are such rows. */
  #payAgainEarlier: string | undefined;

  /** What notices() needs looked up first. */
  async prepareNotices(): Promise<void> {
    if (this.load.earlier.length) this.#payAgainEarlier = this.commands.payAgain(await this.againId());
  }

  /** The notes under the plan (after prepareNotices): a moved report, rows accepted earlier, rows paid before under other ids (batch-matched.ts), identical rows. */
  notices(st: Style): string {
    const { load, batchId } = this;
    let out = '';
    if (this.#reportMoved) out += `${st.yellow('Note:')} ${this.#reportMoved}; it is kept, and this run's report is ${this.commands.reportPath}.\n`;
    for (const r of load.earlier) {
      out += `${st.yellow('Note:')} ${plural(r.rows, 'row was', 'rows were')} accepted earlier ${describeRun(r)}; ${r.rows === 1 ? 'it is' : 'they are'} not sent again.\n`;
    }
    if (load.earlier.length) out += `  To pay ${load.alreadyAccepted === 1 ? 'it' : 'them'} again as new payouts, give the batch a new name: ${this.#payAgainEarlier}\n`;
    out += matchedNotes(load, batchId, st);
    for (const g of this.duplicates) out += `${st.yellow('Possible duplicates:')} ${describeGroup(g)}.\n`;
    return out;
  }

  /** "Batch "x": 3 payouts to send from f.csv (1 already accepted earlier, not sent again):", the plan and the notes. */
  #planText(st: Style, columns: number | undefined): string {
    const { load } = this;
    return (
      `Batch "${this.batchId}": ${plural(load.toSend, 'payout')} to send from ${this.opts.file}` +
      (load.alreadyAccepted ? ` (${load.alreadyAccepted} already accepted earlier, not sent again)` : '') +
      ':\n' +
      renderPlan(load.groups, st, columns) +
      this.notices(st)
    );
  }

  /** --dry-run: the plan on stdout (JSON with --json), nothing sent. */
  async dryRun(): Promise<number> {
    const { deps, load } = this;
    if (deps.globals.json) {
      const doc = {
        batch_id: this.batchId,
        file: this.src.file,
        rows: load.rows,
        already_accepted: load.alreadyAccepted,
        to_send: load.toSend,
        earlier_runs: load.earlier.map((r) => ({ batch_id: r.batchId ?? null, file: r.file ?? null, rows: r.rows, first_at: r.first, last_at: r.last })),
        matching_earlier_payouts: load.matchRows,
        duplicates: this.duplicates.map((g) => g.rows),
        report: this.commands.reportPath,
        plan: planJson(load.groups),
        totals: totalsJson(load.groups),
      };
      await write(deps.io.stdout, JSON.stringify(doc) + '\n');
      return 0;
    }
    await write(deps.io.stdout, this.#planText(makeStyle(deps.io.color), deps.io.stdoutColumns));
    deps.log.info(
      this.duplicates.length && !this.opts.allowDuplicates
        ? 'Dry run: nothing was sent. Identical rows need confirmation at a terminal, or --allow-duplicates.'
        : 'Dry run: nothing was sent.',
    );
    return 0;
  }

  /** What the policy's checks need (batch-policy.ts). */
  policyCheck(): PolicyCheck {
    const { deps, src, checked, journal, opts, inv } = this;
    return { deps, src, checked, journal, baseUrl: this.api.baseUrl, opts, inv };
  }

  /** The plan shown on stderr, then the questions: identical rows, then sending (--yes skips the second). */
  async confirm(): Promise<void> {
    const { opts, deps, duplicates, load } = this;
    if (duplicates.length && !opts.allowDuplicates && !deps.io.interactive) {
      throw new UsageError(
        `${opts.file}: ${plural(duplicates.length, 'group')} of identical rows. Nothing was sent.`,
        duplicates.map(describeGroup),
        `If each row is meant to be paid, add --allow-duplicates:\n  ${this.commands.batch(opts.batchId, ['--allow-duplicates'])}`,
      );
    }
    const style = makeStyle(deps.io.stderrColor);
    const nothingToSend = load.toSend === 0;
    if (nothingToSend) {
      deps.log.block(this.notices(style));
      deps.log.info(`Nothing to send: every row of ${opts.file} was accepted earlier (batch "${this.batchId}").`);
      return;
    }
    deps.log.block(this.#planText(style, deps.io.stderrColumns));
    if (duplicates.length && !opts.allowDuplicates) {
      const n = duplicates.reduce((a, g) => a + g.rows.length, 0);
      await this.#ask(`Send all ${n} identical rows as separate payouts?`);
    }
    if (!opts.yes) await this.#ask(`Send ${plural(load.toSend, 'payout')}?`);
  }

  async #ask(message: string): Promise<void> {
    // Ctrl-C at the question: exit 130, and nothing was sent (no row is journaled before it).
    const ok = await (await this.deps.prompter()).confirm({ message, default: false }).catch((err: unknown) => {
      throw nothingSentOnInterrupt(err);
    });
    if (!ok) throw new CancelledError();
  }
}
