/**
 * `payctl payout batch status <report>`: what each accepted payout of a batch became.
 * The report is checked before anything is fetched (a missing file, a symlink, a file that
 * is no payctl report: exit 2); each accepted row is read by its transaction id (the report's,
 * else the journal's; a row with neither says so) with payouts/settle.ts (the one polling
 * loop; reads retry through the client's engine), `--concurrency` at once; the
 * report is rewritten in place atomically with status, failure_reason and settled_at.
 * Exit: 0 all Successful, 1 some Failed, 4 some rows could not be read, 5 some Pending.
 */
import { existsSync, lstatSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { write, type Deps } from '../../deps.js';
import { AuthError, ConfigError, ExitCode, InterruptedError, UsageError } from '../../errors.js';
import { noteSettled, waitForSettled } from '../../payouts/settle.js';
import {
  batchFileRow,
  failedRowOf,
  isAccepted,
  readStatusReport,
  rewriteReport,
  rowState,
  statusTotals,
  writeBatchFile,
  type ReportEntry,
  type RowState,
} from '../../payouts/batch-status.js';
import { checkBatchId } from '../../payouts/identity.js';
import { Journal, type JournalEntry } from '../../payouts/journal.js';
import type { PayoutRef } from '../../payouts/lookup.js';
import { configDir } from '../../config/paths.js';
import { isJsonl } from '../../payouts/report.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { renderTable } from '../../output/table.js';
import { renderFailedRows } from '../../output/batch.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { makeStyle } from '../../output/style.js';
import { formatAmount } from '../../money/amount.js';
import { DEFAULT_WAIT_TIMEOUT_S } from './wait-spec.js';
import { plural } from '../../output/text.js';

export interface BatchStatusOptions {
  report: string;
  concurrency?: number;
  wait?: boolean;
  waitTimeout?: number;
  failedOut?: string;
}

/** Runs `fn` on each item, `n` at a time; the first error stops new ones and is thrown. */
async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (!failed && next < items.length) {
        const item = items[next++]!;
        try {
          await fn(item);
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    }),
  );
}

/** The failed-out file's format: its extension when it names one, else the report's. */
function formatFor(path: string, reportFormat: 'csv' | 'jsonl'): 'csv' | 'jsonl' {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (isJsonl(path)) return 'jsonl';
  return reportFormat;
}

/** `<batch>-retry-<date>`, a valid batch id (else the failed-out file's name is its stem). */
function retryBatchId(batchId: string | undefined, file: string, now: Date): string {
  const date = now.toISOString().slice(0, 10);
  const stem = (s: string) =>
    s
      .replace(/[^A-Za-z0-9_.:-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 45) || 'batch';
  const id = `${stem(batchId ?? 'default')}-retry-${date}`;
  return checkBatchId(id) === undefined ? id : `${stem(basename(file, extname(file)))}-retry-${date}`;
}

export async function run(opts: BatchStatusOptions, deps: Deps): Promise<number> {
  const concurrency = opts.concurrency ?? 4;
  const path = resolve(opts.report);
  const read = await readStatusReport(path);
  if ('problems' in read)
    throw new UsageError(
      `Cannot read the report ${opts.report}. Nothing was fetched.`,
      read.problems,
      'Give the report that `payctl payout batch` wrote (.csv or .jsonl).',
    );
  const report = read.report;
  const failedOut = opts.failedOut === undefined ? undefined : resolve(opts.failedOut);
  if (failedOut !== undefined) {
    let there = true;
    try {
      lstatSync(failedOut); // a symlink counts, even a dangling one
    } catch {
      there = false;
    }
    if (there) throw new UsageError(`--failed-out ${opts.failedOut} already exists; payctl never overwrites it. Nothing was fetched.`, [], 'Choose a new file name.');
    if (!existsSync(resolve(failedOut, '..'))) throw new UsageError(`--failed-out ${opts.failedOut}: its folder does not exist. Nothing was fetched.`);
  }

  const accepted = report.entries.map((e, i) => ({ e, i })).filter(({ e }) => isAccepted(e));
  const batchId = report.entries.find((e) => e.batchId !== undefined)?.batchId;
  const api = await deps.api();
  const states = new Map<number, RowState>();
  const problems = new Map<number, string>();
  const deadline = deps.clock.now().getTime() + Math.round((opts.waitTimeout ?? DEFAULT_WAIT_TIMEOUT_S) * 1000);

  // Each row by its transaction id: the report's, else the one this machine's journal recorded.
  // The journaled body (when there is one) is what the answer is checked against.
  const journal = new Journal(configDir(deps.env));
  const refs = new Map<number, PayoutRef>();
  const entries = new Map<number, JournalEntry>();
  const noTransaction = new Set<number>();
  for (const { e, i } of accepted) {
    let entry: JournalEntry | undefined;
    try {
      entry = e.payoutId ? journal.get(api.baseUrl, e.payoutId) : undefined;
    } catch {
      entry = undefined; // a damaged entry: the report's transaction id is still read
    }
    if (entry) entries.set(i, entry);
    const o = entry?.outcome;
    const txn = e.transactionId ?? (o?.kind === 'accepted' ? o.transactionId : undefined);
    if (txn) refs.set(i, { transactionId: txn, payoutId: e.payoutId, ...(entry ? { entry } : {}) });
    else {
      noTransaction.add(i);
      problems.set(i, "it has no transaction id, in the report or in this machine's journal, and the service looks payouts up by transaction id only");
    }
  }

  const check = async ({ i }: { e: ReportEntry; i: number }, timeoutMs: number) => {
    const ref = refs.get(i);
    if (!ref) return;
    try {
      const r = await waitForSettled(api, ref, { clock: deps.clock, signal: deps.signal, timeoutMs });
      states.set(i, rowState(r.record, r.status));
      problems.delete(i);
      // What it became, for history (the journal of this machine, when it has the payout).
      if (r.kind === 'settled') await noteSettled(journal, api.baseUrl, ref.payoutId, r.status);
    } catch (err) {
      if (err instanceof AuthError || err instanceof InterruptedError || err instanceof ConfigError) throw err;
      problems.set(i, sanitizeInline((err as Error).message));
    }
  };
  // Every row read once; then, with --wait, each one still Pending until it settles or time is up.
  await pool(accepted, concurrency, (row) => check(row, 0));
  if (opts.wait) {
    const pending = accepted.filter(({ i }) => refs.has(i) && (states.get(i)?.bucket === 'Pending' || problems.has(i)));
    await pool(pending, concurrency, (row) => check(row, Math.max(0, deadline - deps.clock.now().getTime())));
  }

  rewriteReport(report, states);

  const all = [...states.values()];
  const totals = statusTotals(all);
  const failed = accepted.filter(({ i }) => states.get(i)?.bucket === 'Failed').map(({ e, i }) => ({ e, i, s: states.get(i)! }));
  const pendingRows = all.filter((s) => s.bucket === 'Pending').length;
  const unread = accepted
    .filter(({ i }) => problems.has(i))
    .map(({ e, i }) => ({ row: e.row, payout_id: e.payoutId, transaction_id: refs.get(i)?.transactionId ?? null, problem: problems.get(i)! }));
  const readable = unread.filter((u) => u.transaction_id !== null).length;

  let retry: string | undefined;
  let failedOutWritten: string | undefined;
  if (failedOut !== undefined && failed.length) {
    try {
      writeBatchFile(
        failedOut,
        formatFor(failedOut, report.format),
        failed.map(({ s, i }) => batchFileRow(s.record, entries.get(i)?.body)),
      );
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(
        `Cannot write --failed-out ${opts.failedOut}: ${code === 'EEXIST' ? 'it already exists (payctl never overwrites it)' : (err as Error).message}. The report was updated.`,
      );
    }
    failedOutWritten = failedOut;
    retry = commandLine(invocationOf(deps.globals, deps.env), ['payout', 'batch'], [opts.failedOut!, '--batch-id', retryBatchId(batchId, failedOut, deps.clock.now())]);
  }

  if (deps.globals.json) {
    const doc = {
      report: path,
      batch_id: batchId ?? null,
      rows: report.entries.length,
      accepted: accepted.length,
      successful: all.filter((s) => s.bucket === 'Successful').length,
      failed: failed.length,
      pending: pendingRows,
      unread: unread.length,
      totals,
      failed_rows: failed.map(({ e, s }) => ({
        row: e.row,
        payout_id: e.payoutId,
        transaction_id: s.record.transaction_id ?? null,
        amount: batchFileRow(s.record).amount,
        currency: s.record.currency,
        failure_reason: s.failureReason || null,
      })),
      unread_rows: unread,
      failed_out: failedOutWritten ?? null,
      retry_command: retry ?? null,
    };
    await write(deps.io.stdout, JSON.stringify(doc) + '\n');
  } else {
    const st = makeStyle(deps.io.color);
    let out = `Batch${batchId !== undefined ? ` "${sanitizeInline(batchId)}"` : ''}: ${plural(accepted.length, 'accepted row')} of ${report.entries.length} in ${opts.report}\n`;
    if (totals.length) {
      out += renderTable(
        [{ header: 'CURRENCY' }, { header: 'STATUS' }, { header: 'ROWS', align: 'right' }, { header: 'TOTAL', align: 'right' }],
        totals.map((t) => [t.currency, t.status, String(t.count), formatAmount(t.amount, t.currency)]),
        st,
      );
    }
    if (failed.length)
      out += `\nFailed:\n${renderFailedRows(
        failed.map(({ e, s, i }) => failedRowOf(e, s, entries.get(i)?.body)),
        deps.io.stdoutColumns,
      )}`;
    await write(deps.io.stdout, out);
  }

  deps.log.info(`Report updated: ${path}`);
  if (failedOut !== undefined && !failed.length) deps.log.info(`No Failed rows: ${opts.failedOut} was not written.`);
  if (retry !== undefined) {
    deps.log.info(
      `${plural(failed.length, 'Failed row')} written to ${failedOut}. Review and send ${failed.length === 1 ? 'it' : 'them'} as a new batch with:\n  ${retry}`,
    );
  }
  for (const u of unread) deps.log.warn(`Row ${sanitizeInline(u.row)} (payout ${sanitizeInline(u.payout_id)}) could not be read: ${u.problem}`);
  const again = commandLine(invocationOf(deps.globals, deps.env), ['payout', 'batch', 'status'], [opts.report, '--wait']);
  if (unread.length) {
    if (readable) deps.log.warn(`Run it again to read ${readable === 1 ? 'it' : 'them'}: ${again}`);
    if (noTransaction.size)
      deps.log.warn(
        `Rows without a transaction id can be read only on the machine that sent them (its journal); see them with: ${commandLine(invocationOf(deps.globals, deps.env), ['history'], batchId !== undefined ? ['--batch-id', batchId] : [])}`,
      );
    return ExitCode.unknown;
  }
  if (pendingRows) {
    deps.log.warn(`${plural(pendingRows, 'payout is', 'payouts are')} still Pending. Wait for ${pendingRows === 1 ? 'it' : 'them'} with:\n  ${again}`);
    return ExitCode.pending;
  }
  return failed.length ? ExitCode.failed : ExitCode.ok;
}
