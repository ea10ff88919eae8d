/**
 * The batch report: one line per row, CSV or JSON lines by the file's extension. Its
 * path is checked before anything is sent; during the run each finished row is appended
 * as it finishes (so a killed run leaves a true partial report), and at the end the
 * whole report is written again in row order and put in place atomically. Files are
 * created without following symlinks; the temp file has an unpredictable name. A row the
 * service already held under another key ("already made") is reported as already submitted.
 * A report is never written over another run's: what a file at the path holds is read first
 * (reportHolder) and a report of another batch, or of rows not in this run, is kept
 * (reportOwner says whose it is; the caller refuses an explicit --report or moves the default).
 */
import { randomUUID } from 'node:crypto';
import { accessSync, closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, extname, basename, join, resolve } from 'node:path';
import { shellQuote } from '../config/command-line.js';
import { flagLineProblem, type Problem } from '../errors.js';
import { csvRow } from '../output/csv.js';
import { plural } from '../output/text.js';
import type { RowOutcome } from './batch-outcomes.js';

export const REPORT_COLUMNS = ['row', 'payout_id', 'outcome', 'code', 'message', 'transaction_id', 'fee', 'earlier_run'];

/** Beside the input: payouts.csv -> payouts.report.csv; payouts.jsonl -> payouts.report.jsonl. */
export function defaultReportPath(input: string): string {
  const ext = extname(input);
  const reportExt = ext.toLowerCase() === '.csv' ? '.csv' : '.jsonl';
  return join(dirname(input), `${basename(input, ext)}.report${reportExt}`);
}

/** `name` made safe as part of a file name (a batch id may hold ":"). */
function fileWord(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, '-');
}

/**
 * A report path for batch `batchId` beside `base`, the `n`th (1, 2, ...): payouts.report.csv ->
 * payouts.<batch>.report.csv, payouts.<batch>.2.report.csv; payroll.csv -> payroll.<batch>.csv.
 * `kind` '.plan' names a plan file the same way: stipends.plan.json -> stipends.<batch>.plan.json.
 */
export function batchReportPath(base: string, batchId: string, n = 1, kind: '.report' | '.plan' = '.report'): string {
  const ext = extname(base);
  const name = basename(base, ext);
  const tag = fileWord(batchId) + (n > 1 ? `.${n}` : '');
  const stem = name.toLowerCase().endsWith(kind) ? `${name.slice(0, -kind.length)}.${tag}${kind}` : `${name}.${tag}`;
  return join(dirname(base), stem + ext);
}

/** Whether anything is at `path`: a symlink counts, even a dangling one. */
export function pathTaken(path: string): boolean {
  try {
    lstatSync(path); // a symlink counts, even a dangling one
    return true;
  } catch {
    return false;
  }
}

/**
 * The first report path for batch `batchId` beside `base` that nothing is at: for a printed
 * command that pays again (`kind` '.plan': a plan file's, for a printed plan create).
 */
export function freshReportPath(base: string, batchId: string, kind: '.report' | '.plan' = '.report'): string {
  for (let n = 1; ; n++) {
    const p = batchReportPath(base, batchId, n, kind);
    if (!pathTaken(p)) return p;
  }
}

/** What is at a report path: nothing (or an empty file), a payctl batch report, or another file. */
export type ReportHolder = { kind: 'none' } | { kind: 'report'; batchIds: string[]; payoutIds: string[] } | { kind: 'other'; why: string };

/** Reports read back at most this big; a bigger file at the path is kept, as another file. */
const MAX_HOLDER_BYTES = 512 * 1024 * 1024;

/**
 * What the file at `path` holds (read without following a symlink). Lenient where a killed run
 * may have left a report short: a JSON-lines report's last line may be cut.
 */
export async function reportHolder(path: string): Promise<ReportHolder> {
  let text: string;
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return { kind: 'other', why: 'it is not a regular file' };
      if (st.size > MAX_HOLDER_BYTES) return { kind: 'other', why: 'it is too big to be read back' };
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'none' };
    return { kind: 'other', why: code === 'ELOOP' ? 'it is a symbolic link' : `it cannot be read (${(err as Error).message})` };
  }
  text = text.replace(/^\uFEFF/, '');
  if (!text.trim()) return { kind: 'none' };
  const notReport = { kind: 'other', why: 'it is not a payctl batch report' } as const;
  const batchIds = new Set<string>();
  const payoutIds: string[] = [];
  const add = (payoutId: unknown, batchId: unknown) => {
    if (typeof payoutId === 'string' && payoutId) payoutIds.push(payoutId);
    if (typeof batchId === 'string' && batchId) batchIds.add(batchId);
  };
  if (!text.trimStart().startsWith('{')) {
    if (!text.startsWith(REPORT_COLUMNS.join(','))) return notReport;
    const { parse } = await import('csv-parse/sync');
    let records: string[][];
    try {
      records = parse(text, { skip_empty_lines: true, relax_column_count: true });
    } catch {
      return notReport;
    }
    const at = records[0]!.indexOf('batch_id');
    for (const r of records.slice(1)) add(r[1], at < 0 ? undefined : r[at]);
  } else {
    const lines = text.split('\n');
    for (const [i, line] of lines.entries()) {
      if (!line.trim()) continue;
      let o: unknown;
      try {
        o = JSON.parse(line);
      } catch {
        if (i === lines.length - 1) break; // cut short by a killed run
        return notReport;
      }
      if (!o || typeof o !== 'object' || !REPORT_COLUMNS.slice(0, 3).every((k) => Object.hasOwn(o, k))) return notReport;
      const v = o as Record<string, unknown>;
      add(v.payout_id, v.batch_id);
    }
  }
  return { kind: 'report', batchIds: [...batchIds], payoutIds };
}

/**
 * Whose the report at a path is, as a phrase ("holds the report of batch \"nov\""), when it is
 * not this run's to write; undefined when it is: nothing there, or a report of batch `batchId`
 * whose every row is in this run (a resume). `inRun` is asked only for a report of this batch id.
 */
export async function reportOwner(holder: ReportHolder, batchId: string, inRun: () => Promise<(payoutId: string) => boolean>): Promise<string | undefined> {
  if (holder.kind === 'none') return undefined;
  if (holder.kind === 'other') return `is not a report of this batch: ${holder.why}`;
  const others = holder.batchIds.filter((b) => b !== batchId);
  if (others.length) {
    const named = others.slice(0, 3).map((b) => `"${b}"`);
    return `holds the report of batch ${named.join(', ')}${others.length > 3 ? ` and ${others.length - 3} more` : ''}`;
  }
  if (!holder.payoutIds.length) return undefined;
  const has = await inRun();
  const foreign = holder.payoutIds.filter((id) => !has(id)).length;
  if (!foreign) return undefined;
  return `holds the report of another run of batch "${batchId}": ${foreign} of its ${plural(holder.payoutIds.length, 'row')} ${foreign === 1 ? 'is' : 'are'} not in this run`;
}

/** A report (or batch file) path that means JSON lines, by its extension; else CSV. */
export function isJsonl(path: string): boolean {
  return /\.(jsonl|ndjson|json)$/i.test(path);
}

function sameFile(a: string, b: string): boolean {
  try {
    if (realpathSync(a) === realpathSync(b)) return true;
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

/** The names a report or a batch file written by payctl may end in: CSV, or JSON lines (isJsonl). */
const WRITTEN_FORMAT = /\.(csv|jsonl|ndjson|json)$/i;

/**
 * Why payctl would not write a report (or a batch file: `what`) at the path `flag` names: one
 * whose name ends in neither .csv nor .jsonl ("jul.xlsx") would hold CSV text under a name a
 * spreadsheet opens as its own format, and refuses. Says the path to give instead (`ext`: the
 * format it would be written in, or the name without its last extension when that name is one
 * payctl writes: "r.csv.tmp", "r.csv"; never `avoid`, the input file: "r.report.csv"); undefined for a good name.
 */
export function formatNameProblem(path: string, flag: string, what: string, ext: '.csv' | '.jsonl' = '.csv', avoid?: string): string | undefined {
  if (WRITTEN_FORMAT.test(path)) return undefined;
  const given = extname(path);
  const stem = given ? path.slice(0, -given.length) : path;
  // "r.csv.tmp": the name without the extension added ("r.csv") is one payctl writes (not "r.csv.csv").
  const format = WRITTEN_FORMAT.exec(basename(stem))?.[0];
  const kept = format !== undefined && format.length < basename(stem).length ? format : undefined;
  let alt = kept !== undefined ? stem : stem + ext;
  if (avoid !== undefined && resolve(alt) === resolve(avoid)) alt = `${kept !== undefined ? stem.slice(0, -kept.length) : stem}.report${kept ?? ext}`;
  const named = given ? `not ${given}` : 'and this name has none';
  return `${flag} ${path}: payctl writes ${what} as .csv or .jsonl, ${named} (CSV text under another name does not open in a spreadsheet); give ${flag} ${shellQuote(alt)}`;
}

/** Why the report cannot be written at `path` (checked before anything is sent; `--json` naming --report when the label does); [] when it can. */
export function reportProblems(path: string, input: string, label = `--report ${path}`): Problem[] {
  return reportLines(path, input, label).map((l) => flagLineProblem('--report', l));
}

function reportLines(path: string, input: string, label: string): string[] {
  const report = resolve(path);
  const name = formatNameProblem(report, '--report', 'a report', '.csv', input);
  if (name !== undefined) return [name];
  if (report === resolve(input) || sameFile(report, input)) return [`${label} is the input file; the report would overwrite it`];
  const dir = dirname(report);
  try {
    if (!statSync(dir).isDirectory()) return [`${label}: ${dir} is not a folder`];
  } catch {
    return [`${label}: the folder ${dir} does not exist`];
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return [`${label}: the folder ${dir} is not writable`];
  }
  try {
    const st = lstatSync(report);
    // A symlink planted at the report's path would have its target overwritten.
    if (st.isSymbolicLink()) return [`${label} is a symbolic link; payctl writes reports only to a path of its own`];
    if (st.isDirectory()) return [`${label} is a folder`];
    if (!st.isFile()) return [`${label} is not a regular file`];
  } catch {
    // Not there yet: it is created.
  }
  return [];
}

/**
 * A row the service already held under another key (send.ts alreadyMade: a replayed row with no
 * transaction id) is said so in its message: already submitted, not sent again.
 */
export function isAlreadyMade(o: RowOutcome): boolean {
  return o.outcome === 'replayed' && !o.transactionId;
}

const ALREADY_MADE = (id: string) => `already made: the service already has payout id ${id} (sent before under another idempotency key); nothing new was paid`;

function line(row: RowOutcome, jsonl: boolean, batchId: string | undefined): string {
  const o: RowOutcome = isAlreadyMade(row) ? { ...row, transactionId: undefined, message: row.message ?? ALREADY_MADE(row.payoutId) } : row;
  if (jsonl) {
    return (
      JSON.stringify({
        row: o.row,
        payout_id: o.payoutId,
        outcome: o.outcome,
        code: o.code ?? null,
        message: o.message ?? null,
        transaction_id: o.transactionId ?? null,
        fee: o.fee ?? null,
        earlier_run: !!o.earlier,
        ...(batchId !== undefined ? { batch_id: batchId } : {}),
      }) + '\n'
    );
  }
  const values = [o.row, o.payoutId, o.outcome, o.code ?? '', o.message ?? '', o.transactionId ?? '', o.fee ?? '', o.earlier ? 'yes' : ''];
  return csvRow(batchId !== undefined ? [...values, batchId] : values);
}

function header(jsonl: boolean, batchId: string | undefined): string {
  return jsonl ? '' : csvRow(batchId !== undefined ? [...REPORT_COLUMNS, 'batch_id'] : REPORT_COLUMNS);
}

/** Opens for writing without following a symlink: O_NOFOLLOW, and O_EXCL for new names. */
export function openNoFollow(path: string, exclusive: boolean): number {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (exclusive ? constants.O_EXCL : constants.O_TRUNC);
  const fd = openSync(path, flags, 0o644);
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new Error(`${path} is not a regular file`);
  }
  return fd;
}

/** The whole report written to `path` atomically (a new temp file beside it, then renamed). */
export function writeReport(path: string, outcomes: RowOutcome[], batchId?: string): void {
  const jsonl = isJsonl(path);
  let out = header(jsonl, batchId);
  for (const o of outcomes) out += line(o, jsonl, batchId);
  replaceAtomically(path, out);
}

/** `text` put at `path` atomically: a new temp file beside it (O_EXCL, O_NOFOLLOW), then renamed over it. */
export function replaceAtomically(path: string, out: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
  const fd = openNoFollow(tmp, true);
  try {
    writeSync(fd, out);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

/**
 * The report of a run in progress: each finished row appended as it finishes. The rows that
 * finish in the same turn of the event loop (answers read together) are written together,
 * at the end of that turn: one write instead of one a row. A failed write ends the appending
 * (the final report, written whole by finish(), says what it says or fails loudly).
 */
export class ReportWriter {
  readonly path: string;
  readonly #jsonl: boolean;
  readonly #batchId: string | undefined;
  #fd: number | undefined;
  #pending = '';
  #flush: NodeJS.Immediate | undefined;

  constructor(path: string, batchId?: string) {
    this.path = path;
    this.#jsonl = isJsonl(path);
    this.#batchId = batchId;
    this.#fd = openNoFollow(path, false);
    writeSync(this.#fd, header(this.#jsonl, batchId));
  }

  append(o: RowOutcome): void {
    if (this.#fd === undefined) return;
    this.#pending += line(o, this.#jsonl, this.#batchId);
    this.#flush ??= setImmediate(() => this.#write());
  }

  #write(): void {
    clearImmediate(this.#flush);
    this.#flush = undefined;
    const out = this.#pending;
    this.#pending = '';
    if (this.#fd === undefined || !out) return;
    try {
      writeSync(this.#fd, out);
    } catch {
      const fd = this.#fd;
      this.#fd = undefined;
      try {
        closeSync(fd);
      } catch {
        // already failing: the final report says what happened
      }
    }
  }

  /** The final report, every row in row order, replacing the lines appended so far. */
  finish(outcomes: RowOutcome[]): void {
    this.close();
    writeReport(this.path, outcomes, this.#batchId);
  }

  close(): void {
    this.#write();
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
