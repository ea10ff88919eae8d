/**
 * The commands `payout batch` prints for a person to run (docs/architecture.md, "Printed
 * commands"): the same batch again (a resume, the rest after a refusal) and the file paid again
 * as a new batch. Each carries the options in force: the batch id, --concurrency, and the report
 * when one was given or moved (run later, it is the same file). And for `payout batch status
 * --failed-out`, the file its printed retry sends: checked before anything is fetched, its
 * format, and the retry's batch id; and what a report with no row yet says to run (noRowsYet).
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import type { Clock } from '../../clock.js';
import { commandLine, fileOperand, type Invocation } from '../../config/command-line.js';
import { isPlanFile, isPlanHash } from '../../plans/plan-file-kind.js';
import { UsageError, fieldProblem, flagLineProblem } from '../../errors.js';
import { batchIdSlipKey } from '../../payouts/identity.js';
import { defaultReportPath, formatNameProblem, freshReportPath, isJsonl } from '../../payouts/report.js';
import type { EntryBatch, RunOptions } from '../../payouts/journal.js';

import { DEFAULT_CONCURRENCY } from './concurrency.js';

export { DEFAULT_CONCURRENCY };

/**
 * A batch id for paying a file again: its name and the date ("stipends-2026-11-22"), never the
 * current one nor one that already paid these rows (`taken`): under a used id the rows are
 * "accepted earlier" and nothing is paid, so the printed command would not do what it says.
 * Nor one the ledger has sent at all (`sent`): the file's rows would be compared with that
 * batch's, and refused as its rows changed (changed-rows.ts).
 */
export async function newBatchId(file: string, current: string, now: Date, taken: ReadonlySet<string>, sent: (id: string) => Promise<boolean>): Promise<string> {
  // Compared as a slip leaves them: a name that differs from a run's only in case or separators is refused as a slip (batch.ts refuseOtherBatch).
  const used = new Set([current, ...taken].map(batchIdSlipKey));
  for (const candidate of idsOn(file, now, used)) if (!(await sent(candidate))) return candidate;
  throw new Error('unreachable: idsOn never ends');
}

/** The ids newBatchId tries for `file` on the day of `now`, in order, those `used` left out: its name and the date, then -2, -3 (without end). */
function* idsOn(file: string, now: Date, used: ReadonlySet<string>): Generator<string> {
  const stem =
    basename(file, extname(file))
      .replace(/[^A-Za-z0-9_.:-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 50)
      .replace(/[^A-Za-z0-9]+$/, '') || 'batch';
  const id = `${stem}-${now.toISOString().slice(0, 10)}`;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? id : `${id}-${n}`;
    if (!used.has(batchIdSlipKey(candidate))) yield candidate;
  }
}

/**
 * The batch id of the retry of a report's failed and rejected rows (`payout batch status
 * --failed-out`): `<report's name>-retry-<its path's hash>-<date>` (retryFile), the same for every file written from one
 * report that day, so that two such files, written before either was sent, are one batch: the
 * second sends only what the first did not (two batch ids would pay those rows twice). The
 * next one (-2, -3) when that batch already holds one of the payouts written (`holds`: refused
 * or settled Failed there, it would be that refusal replayed, or taken as paid).
 */
export function retryBatchId(report: string, current: string, now: Date, holds: (id: string) => Promise<boolean>): Promise<string> {
  return newBatchId(retryFile(report), current, now, new Set(), holds);
}

/**
 * The ids retryBatchId may have printed for `report` (of batch `current`) on the day of `day`, in
 * the order it tries them, without end: the batches a retry of the report's rows was sent in
 * that day are those of them sent, up to the first never sent (failed-out-paid.ts).
 */
export function retryBatchIdsOn(report: string, current: string, day: Date): Generator<string> {
  return idsOn(retryFile(report), day, new Set([batchIdSlipKey(current)]));
}

/**
 * The file name retry ids are made from (newBatchId): the report's name without `.report` (cut
 * to 32 characters), `-retry` and 6 hex digits of a SHA-256 of the report's absolute path, so
 * that two reports of one name in two folders (deptA/pay.report.csv, deptB/pay.report.csv)
 * handled the same day print two retry batches: one, the second's printed command was refused
 * as the first's retry changed. The extension makes sure a dot in the report's name stays.
 */
function retryFile(report: string): string {
  const stem = basename(report, extname(report))
    .replace(/\.report$/, '')
    .slice(0, 32);
  const tag = createHash('sha256').update(resolve(report)).digest('hex').slice(0, 6);
  return `${stem}-retry-${tag}.csv`;
}

export interface BatchCommandSettings {
  inv: Invocation;
  clock: Clock;
  /** The batch file's absolute path. */
  file: string;
  /** The batch id in force (given, or the default). */
  batchId: string;
  concurrency: number;
  /** --report as given. */
  report: string | undefined;
  /** The report's usual path, beside the file. */
  defaultReport: string;
  /** The report's path as first checked. */
  reportPath: string;
}

export class BatchCommands {
  /** This run's report: as first checked, or moved beside another run's report (BatchRun.placeReport). */
  reportPath: string;
  readonly defaultReport: string;

  constructor(private readonly s: BatchCommandSettings) {
    this.reportPath = s.reportPath;
    this.defaultReport = s.defaultReport;
  }

  /**
   * The options this run's resume repeats, when they are not the defaults: the report (given, or
   * moved off another run's) and --concurrency. Journaled with each row, so that `history
   * reconcile` prints the same resume (resumeCommand).
   */
  runOptions(): RunOptions {
    const report = this.s.report !== undefined || this.reportPath !== this.defaultReport ? this.reportPath : undefined;
    return { ...(report !== undefined ? { report } : {}), ...(this.s.concurrency !== DEFAULT_CONCURRENCY ? { concurrency: this.s.concurrency } : {}) };
  }

  /** This batch again: `id` as --batch-id (none: the default), then `extra`, then --yes unless told not to. */
  batch(id: string | undefined, extra: string[] = [], yes = true, report = this.runOptions().report): string {
    return commandLine(
      this.s.inv,
      ['payout', 'batch'],
      [
        this.s.file,
        ...(id !== undefined ? ['--batch-id', id] : []),
        ...(this.s.concurrency !== DEFAULT_CONCURRENCY ? ['--concurrency', String(this.s.concurrency)] : []),
        ...(report !== undefined ? ['--report', report] : []),
        ...extra,
        ...(yes ? ['--yes'] : []),
      ],
    );
  }

  /**
   * The batch `id` another run sent these rows in (`run`: named by a slip, repeats.ts
   * slippedBatch), resumed from this run's file as that run's own resume is printed
   * (resumeCommand): with the report and --concurrency it was run with, not this run's, so that
   * its outcome stays in its one report. A run of another file wrote its report beside that file:
   * named.
   */
  resumeOf(id: string, run: { file?: string | undefined; options?: RunOptions | undefined }): string {
    const report = run.options?.report ?? (run.file !== undefined && run.file !== this.s.file ? resolve(defaultReportPath(run.file)) : undefined);
    const concurrency = run.options?.concurrency ?? DEFAULT_CONCURRENCY;
    return new BatchCommands({ ...this.s, batchId: id, concurrency, report, reportPath: report ?? this.s.defaultReport }).batch(id);
  }

  /**
   * Paying again is never one paste away from happening: the command names a new batch
   * (the file's name and today's date) and leaves out --yes, so the plan is shown and asked.
   * It names a report of its own that is not there yet: run as printed, it keeps this one's.
   * `id`: the new batch id (newBatchId).
   */
  payAgain(id: string): string {
    return this.batch(id, [], false, freshReportPath(this.s.report !== undefined ? this.reportPath : this.defaultReport, id));
  }
}

/**
 * The command that resumes the batch run a journal entry's row was sent by, as that run printed
 * it (BatchCommands.batch, without --yes: the plan is shown first): its file, batch id, and the
 * report and --concurrency it was run with. A row a plan send journaled (its file a plan, or a
 * shared ledger's plan hash) is resumed by plan send (planSendCommand): payout batch refuses a plan.
 */
export function resumeCommand(inv: Invocation, clock: Clock, batch: EntryBatch): string {
  if (isPlanHash(batch.file) || isPlanFile(batch.file)) return planSendCommand(inv, batch.file, batch);
  const defaultReport = resolve(defaultReportPath(batch.file));
  return new BatchCommands({
    inv,
    clock,
    file: batch.file,
    batchId: batch.id,
    concurrency: batch.concurrency ?? DEFAULT_CONCURRENCY,
    report: batch.report,
    defaultReport,
    reportPath: batch.report ?? defaultReport,
  }).batch(batch.id, [], false);
}

/** `payctl plan send <plan>` with the --concurrency and --report a run was given (`extra`: --yes, …). */
function planSendCommand(inv: Invocation, plan: string, o: RunOptions, extra: string[] = []): string {
  const options = [
    ...(o.concurrency !== undefined && o.concurrency !== DEFAULT_CONCURRENCY ? ['--concurrency', String(o.concurrency)] : []),
    ...(o.report !== undefined ? ['--report', o.report] : []),
  ];
  return commandLine(inv, ['plan', 'send'], [fileOperand(plan), ...options, ...extra]);
}

/**
 * `payout batch` given a payctl plan (plan-file-kind.ts): refused before anything is read as
 * rows (exit 2, nothing sent), with the plan send that sends it. Before, the file's problem
 * ("this is a payctl plan") was followed by "Fix the file".
 */
export function refusePlanFile(file: string, inv: Invocation, o: RunOptions): void {
  if (!isPlanFile(file)) return;
  throw new UsageError(
    `${file} is a payctl plan, not a batch file. Nothing was sent.`,
    [],
    `A plan is sent with plan send, once it has the approvals it needs (rows it sent before are skipped, nothing is paid twice):\n  ${planSendCommand(inv, file, o)}`,
  );
}

/**
 * Rows of a run without --batch-id that pay all that single payouts (payout create) of the last
 * day paid (repeats.ts recentSinglesSaid): `payout batch` and `plan create` refuse them, as
 * payout create refuses that payout typed again after a batch row. `since`: the window's start;
 * `nothing`: "Nothing was sent.", "No plan was written.". No command that sends the file under
 * a new batch id is offered: the file's rows paid before would be paid again with it.
 */
export function recentSinglesRefusal(
  file: string,
  said: { rows: number; rowNumbers: number[]; runs: string },
  since: Date,
  inv: Invocation,
  nothing: string,
): UsageError {
  const n = said.rows;
  const rows = `${n === 1 ? 'row' : 'rows'} ${said.rowNumbers.join(', ')}${n > said.rowNumbers.length ? ` and ${n - said.rowNumbers.length} more` : ''}`;
  return new UsageError(
    `${file}: ${rows} ${n === 1 ? 'pays' : 'pay'} what was sent ${said.runs}, alike in every cell (wallet, recipient, account, amount, note; the account in any letter case, with any spaces or dashes): sent again, ${n === 1 ? 'that person is' : 'those people are'} paid twice. ${nothing}`,
    [],
    `See what was paid: ${commandLine(inv, ['history'], ['--since', since.toISOString().slice(0, 10)])}\nIf the file's ${rows} ${n === 1 ? 'is that payout' : 'are those payouts'}, take ${n === 1 ? 'it' : 'them'} out of the file (paid) and run the same command again. If ${n === 1 ? 'it is a second payment' : 'they are second payments'}, send ${n === 1 ? 'it' : 'them'} in a file of ${n === 1 ? 'its' : 'their'} own, under a batch id of ${n === 1 ? 'its' : 'their'} own (--batch-id NAME).`,
  );
}

/** The failed-out file's format by its extension (checkFailedOut refused any other name); else the report's. */
export function failedOutFormat(path: string, reportFormat: 'csv' | 'jsonl'): 'csv' | 'jsonl' {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (isJsonl(path)) return 'jsonl';
  return reportFormat;
}

/**
 * --failed-out, resolved: refused before anything is fetched when its name ends in neither .csv
 * nor .jsonl (the path of the report's format given instead), when it exists (even as a dangling
 * symlink), or when its folder does not.
 */
export function checkFailedOut(given: string | undefined, reportFormat: 'csv' | 'jsonl'): string | undefined {
  if (given === undefined) return undefined;
  const badName = formatNameProblem(given, '--failed-out', 'a batch file', reportFormat === 'csv' ? '.csv' : '.jsonl');
  if (badName !== undefined) throw new UsageError('Cannot write the --failed-out file. Nothing was fetched.', [flagLineProblem('--failed-out', badName)]);
  const failedOut = resolve(given);
  let there = true;
  try {
    lstatSync(failedOut); // a symlink counts, even a dangling one
  } catch {
    there = false;
  }
  if (there) {
    const p = fieldProblem('--failed-out', `${given} already exists; payctl never overwrites it`, ' ');
    throw new UsageError(`${p.text}. Nothing was fetched.`, [], 'Choose a new file name.', p);
  }
  if (!existsSync(resolve(failedOut, '..'))) {
    const p = fieldProblem('--failed-out', `${given}: its folder does not exist`, ' ');
    throw new UsageError(`${p.text}. Nothing was fetched.`, [], undefined, p);
  }
  return failedOut;
}

/**
 * A report with no row yet: its run stopped before any row finished (killed, or stopped), or has
 * not finished one yet. Before, it was called "not a payctl batch report: it has no rows", of
 * the header payctl itself wrote. What the run journaled is in the journal: history reconcile
 * names its rows with no outcome recorded and prints the command that resumes the batch.
 */
export function noRowsYet(report: string, inv: Invocation): UsageError {
  return new UsageError(
    `The report ${report} has no row yet: the batch run writing it stopped before any row finished (killed, or stopped), or is still sending. Nothing was fetched.`,
    [],
    `A run killed: once it has ended, this names the rows it journaled and prints the command that resumes the batch:\n  ${commandLine(inv, ['history', 'reconcile'])}\n` +
      'A run stopped otherwise printed that command when it stopped. Run this command again once rows have finished.',
  );
}
