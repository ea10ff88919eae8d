/**
 * `payctl payout batch status <report>`: what each accepted payout of a batch became.
 * The report is checked before anything is fetched (a missing file, a symlink, a file that
 * is no payctl report: exit 2); each accepted row is read by its transaction id (the report's,
 * else the journal's; a row with neither says so) with payouts/settle.ts (the one polling
 * loop; reads retry through the client's engine), `--concurrency` at once; the
 * report is rewritten in place atomically with status, failure_reason and settled_at.
 * Exit: 0 all Successful, 1 some Failed, 4 some rows unread, in a status word payctl does not know, or read
 * Successful before and otherwise now, or Failed before and not Failed now (held back: batch-contradicted.ts), 5 some Pending
 * (or left out of --failed-out for a payout sent since whose settlement is not known yet: failed-out-paid.ts).
 * `run` reads as its steps (StatusRun): the report and --failed-out checked, each accepted row's
 * transaction id found, the rows read, the report rewritten, the Failed rows written, what was
 * found printed (--json: batch-status-json.ts), and the advice with the commands to run next
 * (docs/architecture.md, "Printed commands"); Failed rows and no --failed-out, last the command
 * that writes them (batch-failed-out-hint.ts).
 */
import { resolve } from 'node:path';
import { write, type Deps } from '../../deps.js';
import { AuthError, ConfigError, ExitCode, InterruptedError, UsageError } from '../../errors.js';
import { journaledFailed, waitForSettled } from '../../payouts/settle.js';
import {
  batchFileRow,
  failedRowOf,
  isAccepted,
  oddStatusWarning,
  readStatusReport,
  rewriteReport,
  rowOfBody,
  rowState,
  statusTotals,
  writeBatchFile,
  type ReportEntry,
  type RowState,
  type StatusReport,
} from '../../payouts/batch-status.js';
import { DEFAULT_BATCH_ID } from '../../payouts/identity.js';
import { checkFailedOut, failedOutFormat, noRowsYet, retryBatchId } from './batch-commands.js';
import { leftOutSaid, PaidSinceCheck, type PaidSince } from './failed-out-paid.js';
import { pool } from './concurrency.js';
import { statusJson, type Found } from './batch-status-json.js';
import { failedOutCommand } from './batch-failed-out-hint.js';
import { beforeOf, contradictedSaid, notedRow, readSuccessfulBefore, type Contradicted } from './batch-contradicted.js';
import type { JournalEntry, Ledger } from '../../payouts/journal.js';
import { openLedger } from '../../payouts/open-ledger.js';
import type { PayoutRef } from '../../payouts/lookup.js';
import type { ApiClient } from '../../api/client.js';
import { commandLine, fileOperand, invocationOf, type Invocation } from '../../config/command-line.js';
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

export async function run(opts: BatchStatusOptions, deps: Deps): Promise<number> {
  const path = resolve(opts.report);
  const read = await readStatusReport(path);
  if ('problems' in read && read.noRows) throw noRowsYet(opts.report, invocationOf(deps.globals, deps.env));
  if ('problems' in read)
    throw new UsageError(
      `Cannot read the report ${opts.report}. Nothing was fetched.`,
      read.problems,
      'Give the report that `payctl payout batch` wrote (.csv or .jsonl).',
    );
  const failedOut = checkFailedOut(opts.failedOut, read.report.format);
  const api = await deps.api();
  const s = new StatusRun(opts, deps, read.report, api, await openLedger(deps));
  await s.findTransactions();
  await s.readRows();
  rewriteReport(s.report, s.states);
  const found = s.found();
  const rejected = failedOut !== undefined ? await s.rejectedRows() : [];
  const failed = failedOut !== undefined ? await s.notPaidSince(found.failed) : [];
  const retry = failedOut !== undefined && (failed.length || rejected.length) ? await s.writeFailedOut(failedOut, failed, rejected) : undefined;
  const written = { failed: failed.length, rejected: rejected.length };
  // Rows Failed, no --failed-out: the command that writes them, said last (batch-failed-out-hint.ts).
  const next = failedOut === undefined && found.failed.length ? failedOutCommand(s.inv, opts, path, read.report.format) : undefined;
  const facts = {
    batchId: s.batchId,
    rows: s.report.entries.length,
    accepted: s.accepted.length,
    unknown: s.unknown.length,
    failedOut,
    retry,
    written,
    failedOutCommand: next,
  };
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify(statusJson(path, found, facts)) + '\n');
  else await write(deps.io.stdout, s.text(found));
  const code = s.advise(path, found, failedOut, retry, written);
  if (next) deps.log.info(`Write the Failed rows to a batch file to send again with:\n  ${next}`);
  return code;
}

/** An accepted row of the report: its entry and its index among the report's rows. */
interface AcceptedRow {
  e: ReportEntry;
  i: number;
}

/** One `payout batch status`: the report's accepted rows and what the service says of each, by the row's index. */
class StatusRun {
  accepted: AcceptedRow[];
  /** Rows the report has as unknown: read as accepted once the journal has their answer (a rerun's), else still unknown (exit 4). */
  unknown: AcceptedRow[];
  readonly batchId: string | undefined;
  readonly states = new Map<number, RowState>();
  readonly problems = new Map<number, string>();
  readonly refs = new Map<number, PayoutRef>();
  readonly entries = new Map<number, JournalEntry>();
  readonly noTransaction = new Set<number>();
  /** Rows read Successful before and otherwise now, or Failed before and not Failed now: held back, their report cells left as they were (batch-contradicted.ts). */
  readonly contradicted = new Map<number, Contradicted>();
  readonly inv: Invocation;
  #paid: PaidSinceCheck | undefined;
  /** Rows left out of --failed-out as a payout sent since may pay them, its settlement not known yet (exit 5, as Pending). */
  unsettled = 0;

  constructor(
    readonly opts: BatchStatusOptions,
    readonly deps: Deps,
    readonly report: StatusReport,
    readonly api: ApiClient,
    readonly journal: Ledger,
  ) {
    this.accepted = report.entries.map((e, i) => ({ e, i })).filter(({ e }) => isAccepted(e));
    this.unknown = report.entries.map((e, i) => ({ e, i })).filter(({ e }) => e.outcome === 'unknown');
    this.batchId = report.entries.find((e) => e.batchId !== undefined)?.batchId;
    this.inv = invocationOf(deps.globals, deps.env);
  }

  /**
   * Each row by its transaction id: the report's, else the one this config folder's journal recorded.
   * The journaled body (when there is one) is what the answer is checked against.
   */
  async findTransactions(): Promise<void> {
    const accepted: AcceptedRow[] = [];
    const unknown: AcceptedRow[] = [];
    for (const row of [...this.accepted, ...this.unknown].sort((a, b) => a.i - b.i)) {
      const { e, i } = row;
      let entry: JournalEntry | undefined;
      try {
        entry = e.payoutId ? await this.journal.get(this.api.baseUrl, e.payoutId) : undefined;
      } catch {
        entry = undefined; // a damaged entry: the report's transaction id is still read
      }
      const o = entry?.outcome;
      // A row the report has as unknown is accepted once the journal has its answer (a rerun's); else still unknown.
      if (e.outcome === 'unknown' && !(o?.kind === 'accepted' && o.transactionId)) {
        unknown.push(row);
        continue;
      }
      accepted.push(row);
      if (entry) this.entries.set(i, entry);
      const txn = e.transactionId ?? (o?.kind === 'accepted' ? o.transactionId : undefined);
      if (txn) this.refs.set(i, { transactionId: txn, payoutId: e.payoutId, ...(entry ? { entry } : {}) });
      else {
        this.noTransaction.add(i);
        this.problems.set(i, "it has no transaction id, in the report or in this config folder's journal, and the service looks payouts up by transaction id only");
      }
    }
    this.accepted = accepted;
    this.unknown = unknown;
  }

  /** Every row read once; then, with --wait, each one still Pending until it settles or time is up. */
  async readRows(): Promise<void> {
    const { opts, deps } = this;
    const concurrency = opts.concurrency ?? 4;
    const deadline = deps.clock.now().getTime() + Math.round((opts.waitTimeout ?? DEFAULT_WAIT_TIMEOUT_S) * 1000);
    await pool(this.accepted, concurrency, (row) => this.#check(row, 0));
    if (opts.wait) {
      const pending = this.accepted.filter(({ i }) => this.refs.has(i) && (['Pending', 'Unknown'].includes(this.states.get(i)?.bucket ?? '') || this.problems.has(i)));
      await pool(pending, concurrency, (row) => this.#check(row, Math.max(0, deadline - deps.clock.now().getTime())));
    }
  }

  async #check({ e, i }: AcceptedRow, timeoutMs: number): Promise<void> {
    const ref = this.refs.get(i);
    if (!ref) return;
    try {
      const before = readSuccessfulBefore(e, this.entries.get(i));
      const failedBefore = before === undefined ? journaledFailed(this.entries.get(i)) : undefined;
      const readBefore = { readSuccessfulBefore: before !== undefined, readFailedBefore: failedBefore !== undefined };
      const r = await waitForSettled(this.api, ref, { clock: this.deps.clock, signal: this.deps.signal, timeoutMs, ...readBefore });
      // A later read that could not be used: the row's status is not known (as a read that failed).
      if (r.kind === 'unread') throw r.error;
      this.problems.delete(i);
      // Read Successful before, otherwise now, or Failed before, unsettled now (payouts/contradiction.ts): held back.
      if (r.kind === 'contradicted')
        return void this.contradicted.set(i, { e, s: rowState(r.record, r.status), transactionId: ref.transactionId, ...beforeOf(before, failedBefore) });
      // What it became, noted for history (the journal, when it has the payout); read otherwise there before, held back (notedRow).
      const held =
        r.kind === 'settled' ? await notedRow(this.journal, this.api.baseUrl, { e, ...ref, record: r.record, status: r.status }, this.deps.clock.now()) : undefined;
      if (held) return void this.contradicted.set(i, held);
      this.states.set(i, rowState(r.record, r.status));
    } catch (err) {
      if (err instanceof AuthError || err instanceof InterruptedError || err instanceof ConfigError) throw err;
      this.problems.set(i, sanitizeInline((err as Error).message));
    }
  }

  found(): Found {
    const { accepted, states, problems } = this;
    const contradicted = [...this.contradicted.values()];
    // Counted apart as Unknown: whether they were paid cannot be told.
    const all = [...states.values(), ...contradicted.map((c): RowState => ({ ...c.s, bucket: 'Unknown' }))];
    return {
      all,
      contradicted,
      failed: accepted.filter(({ i }) => states.get(i)?.bucket === 'Failed').map(({ e, i }) => ({ e, i, s: states.get(i)! })),
      pendingRows: all.filter((s) => s.bucket === 'Pending').length,
      oddWords: accepted.filter(({ i }) => states.get(i)?.bucket === 'Unknown').map(({ e, i }) => ({ e, s: states.get(i)! })),
      unread: accepted
        .filter(({ i }) => problems.has(i))
        .map(({ e, i }) => ({ row: e.row, payout_id: e.payoutId, transaction_id: this.refs.get(i)?.transactionId ?? null, problem: problems.get(i)! })),
    };
  }

  /**
   * The report's rejected rows that this config folder's journal still has as refused, with what each
   * paid (its journaled body): they paid nobody, and sent again under their keys they are refused
   * again (the service keeps a key's first answer), so --failed-out writes them too, to be sent
   * as new payouts once the cause is fixed (a wallet topped up).
   */
  async rejectedRows(): Promise<Array<{ i: number; row: Record<string, string>; entry: JournalEntry }>> {
    const out: Array<{ i: number; row: Record<string, string>; entry: JournalEntry }> = [];
    for (const [i, e] of this.report.entries.entries()) {
      if (e.outcome !== 'rejected' || !e.payoutId) continue;
      const entry = await this.journal.get(this.api.baseUrl, e.payoutId).catch(() => undefined);
      const o = entry?.outcome;
      // The key refused (send.ts credentialsRefused): nothing reached the service, and the batch
      // sends the row under its own key when run again. Written here too, it would be paid twice.
      if (o?.kind === 'rejected' && (o.code === 'UNAUTHORIZED' || o.code === 'FORBIDDEN')) {
        this.deps.log.warn(
          `Row ${sanitizeInline(e.row)} was not sent (the API key was refused): running the batch again sends it; it is not written to ${this.opts.failedOut}.`,
        );
        continue;
      }
      const row = o?.kind === 'rejected' ? rowOfBody(entry!.body) : undefined;
      const paid = entry && row ? await this.#paidSince(entry) : undefined;
      if (entry && row && !paid) out.push({ i, row, entry });
      else if (paid) this.#leftOut(`Row ${sanitizeInline(e.row)} was rejected, `, paid);
      else
        this.deps.log.warn(
          `Row ${sanitizeInline(e.row)} was rejected, but this config folder's journal ${entry ? 'has it as sent since' : 'does not have it'}: it is not written to ${this.opts.failedOut}.`,
        );
    }
    return out;
  }

  /** The Failed rows but those whose payment was made since by another payout (a retry's, sent from an earlier --failed-out). */
  async notPaidSince(failed: Found['failed']): Promise<Found['failed']> {
    const out: Found['failed'] = [];
    for (const f of failed) {
      const entry = this.entries.get(f.i);
      const paid = entry ? await this.#paidSince(entry) : undefined;
      if (paid) this.#leftOut(`Row ${sanitizeInline(f.e.row)} Failed, `, paid);
      else out.push(f);
    }
    return out;
  }

  /** A row left out of --failed-out as `p` paid it, or may (its settlement not known yet), said. */
  #leftOut(row: string, p: PaidSince): void {
    if (!p.paid) this.unsettled++;
    this.deps.log.warn(row + leftOutSaid(p, this.opts.failedOut ?? '', this.inv));
  }

  /** Whether what `entry` pays was paid since, by another payout or a retry of this report (failed-out-paid.ts). */
  #paidSince(entry: JournalEntry): Promise<PaidSince | undefined> {
    return this.#paidCheck().of(entry);
  }

  /** The run's PaidSinceCheck, made on first need. */
  #paidCheck(): PaidSinceCheck {
    const { deps } = this;
    const reader = { api: this.api, clock: deps.clock, signal: deps.signal };
    return (this.#paid ??= new PaidSinceCheck(this.journal, this.api.baseUrl, this.report.path, this.batchId ?? DEFAULT_BATCH_ID, deps.clock.now(), reader));
  }

  /** The Failed rows, and the rejected ones, as a new batch file at `failedOut`, in the report's order; the command that sends it. */
  async writeFailedOut(
    failedOut: string,
    failed: Found['failed'],
    rejected: Array<{ i: number; row: Record<string, string>; entry: JournalEntry }> = [],
  ): Promise<string> {
    const { opts, deps } = this;
    const rows = [...failed.map(({ s, i }) => ({ i, row: batchFileRow(s.record, this.entries.get(i)?.body) })), ...rejected].sort((a, b) => a.i - b.i);
    try {
      writeBatchFile(
        failedOut,
        failedOutFormat(failedOut, this.report.format),
        rows.map((r) => r.row),
      );
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(
        `Cannot write --failed-out ${opts.failedOut}: ${code === 'EEXIST' ? 'it already exists (payctl never overwrites it)' : (err as Error).message}. The report was updated.`,
      );
    }
    // What the rows pay: a retry batch that holds any of them (all the same, or as a retry corrected in review) is not this retry's (retryBatchId).
    const paying = [...failed.map(({ i }) => this.entries.get(i)), ...rejected.map((r) => r.entry)].filter((e) => e !== undefined);
    const id = await retryBatchId(this.report.path, this.batchId ?? DEFAULT_BATCH_ID, deps.clock.now(), (b) => this.#paidCheck().holds(b, paying));
    return commandLine(this.inv, ['payout', 'batch'], [fileOperand(failedOut), '--batch-id', id]);
  }

  /** The totals by currency and status, and the Failed rows as a person recognises them. */
  text(f: Found): string {
    const { deps, batchId } = this;
    const totals = statusTotals(f.all);
    const st = makeStyle(deps.io.color);
    let out = `Batch${batchId !== undefined ? ` "${sanitizeInline(batchId)}"` : ''}: ${plural(this.accepted.length, 'accepted row')} of ${this.report.entries.length} in ${this.opts.report}\n`;
    if (totals.length) {
      out += renderTable(
        [{ header: 'CURRENCY' }, { header: 'STATUS' }, { header: 'ROWS', align: 'right' }, { header: 'TOTAL', align: 'right' }],
        totals.map((t) => [t.currency, t.status, String(t.count), formatAmount(t.amount, t.currency)]),
        st,
      );
    }
    if (f.failed.length)
      out += `\nFailed:\n${renderFailedRows(
        f.failed.map(({ e, s, i }) => failedRowOf(e, s, this.entries.get(i)?.body)),
        deps.io.stdoutColumns,
      )}`;
    return out;
  }

  /** What to do next, on stderr, and the exit code: 4 some rows unread or in a word payctl does not know, 5 some Pending (or some left out of --failed-out unsettled), 1 some Failed. */
  advise(path: string, f: Found, failedOut: string | undefined, retry: string | undefined, written = { failed: f.failed.length, rejected: 0 }): number {
    const { deps, opts } = this;
    const { failed, unread, pendingRows } = f;
    deps.log.info(`Report updated: ${path}`);
    if (failedOut !== undefined && retry === undefined) deps.log.info(`No Failed or rejected rows to send again: ${opts.failedOut} was not written.`);
    if (retry !== undefined) {
      const n = written.failed + written.rejected;
      const what = [written.failed ? plural(written.failed, 'Failed row') : '', written.rejected ? plural(written.rejected, 'rejected row') : '']
        .filter(Boolean)
        .join(' and ');
      deps.log.info(`${what} written to ${failedOut}. Review and send ${n === 1 ? 'it' : 'them'} as a new batch with:\n  ${retry}`);
    }
    if (this.unknown.length) {
      const n = this.unknown.length;
      deps.log.warn(
        `${plural(n, 'row', 'rows')} (${this.unknown.map((u) => sanitizeInline(u.e.row)).join(', ')}) ${n === 1 ? 'has an outcome' : 'have outcomes'} still unknown: ${n === 1 ? 'it' : 'they'} may or may not have been made. Finish ${n === 1 ? 'it' : 'them'} by sending the batch again with the same command (same keys: nothing is paid twice), or see ${n === 1 ? 'it' : 'them'} with:\n  ${commandLine(this.inv, ['history', 'reconcile'])}`,
      );
    }
    for (const u of unread) deps.log.warn(`Row ${sanitizeInline(u.row)} (payout ${sanitizeInline(u.payout_id)}) could not be read: ${u.problem}`);
    for (const { e, s } of f.oddWords) deps.log.warn(oddStatusWarning(e, s));
    for (const c of f.contradicted) deps.log.warn(contradictedSaid(c, opts.failedOut, this.inv));
    const again = commandLine(this.inv, ['payout', 'batch', 'status'], [fileOperand(path), '--wait']);
    if (unread.length) {
      const readable = unread.filter((u) => u.transaction_id !== null).length;
      if (readable) deps.log.warn(`Run it again to read ${readable === 1 ? 'it' : 'them'}: ${again}`);
      if (this.noTransaction.size)
        deps.log.warn(
          `Rows without a transaction id can be read only on the machine that sent them (its journal); see them with: ${commandLine(this.inv, ['history'], this.batchId !== undefined ? ['--batch-id', this.batchId] : [])}`,
        );
      return ExitCode.unknown;
    }
    if (this.unknown.length || f.oddWords.length || f.contradicted.length) return ExitCode.unknown;
    if (pendingRows) deps.log.warn(`${plural(pendingRows, 'payout is', 'payouts are')} still Pending. Wait for ${pendingRows === 1 ? 'it' : 'them'} with:\n  ${again}`);
    if (pendingRows || this.unsettled) return ExitCode.pending;
    return failed.length ? ExitCode.failed : ExitCode.ok;
  }
}
