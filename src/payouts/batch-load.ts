/**
 * Loading a batch before anything is sent, streamed (memory per distinct payout, not per
 * row of text): the file read once into memory as bytes (so what is checked is what is
 * sent, even if the file changes meanwhile), every row validated (all problems at once,
 * with row numbers), each row given its identity (identity.ts), and each row looked up in
 * the journal (under its id, else under the id an earlier payctl derived for it): accepted
 * in an earlier run of this batch (skipped), sent before with other details (a conflict),
 * or the same payout under another id (another batch, a single payout) that a person
 * should hear about before it is paid again. Identical rows of one file are grouped for
 * the duplicate guard.
 *
 * Three passes over the bytes: check (no credentials needed), plan (with the journal and
 * the live balances) and send (rows handed to the batch runner one at a time).
 *
 * Bounded: a file too wide or with too long a line is refused when opened (batch-file.ts,
 * boundsProblem); problems are kept and listed up to MAX_LISTED, the rest counted; the check
 * and the plan let the event loop run every 50 ms or so, and stop when the run's signal
 * (Ctrl-C, SIGTERM) is aborted, so a long check of a big file ends within a second.
 */
import { statSync, readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { resolve } from 'node:path';
import type { Wallet } from '../service/schemas.js';
import { fieldProblem, InterruptedError, LocalError, problemOf, rowProblem, UsageError, type Problem } from '../errors.js';
import { boundsProblem, COLUMN_LABELS, decodeBatchFile, formatOf, isShared, readRows, type FileFormat, type SharedProblem } from './batch-file.js';
import { DERIVED_ID, derivedPayoutId, legacyDerivedPayoutId, payoutFingerprint } from './identity.js';
import type { Journal, JournalEntry } from './journal.js';
import { PlanBuilder, type PlanGroup } from './batch-plan.js';
import { plural, text } from '../output/text.js';
import { payoutBody, validatePayout, type PayoutRequest } from './request.js';

/** At most this many problems are listed (and kept); the count says how many there were. */
export const MAX_LISTED = 50;

/** Rows that share a problem (batch-file.ts, SharedProblem) are listed one by one up to this many; more, as one line showing this many. */
export const SHOWN_IN_FULL = 3;

/** The rows that share one problem: how many, the first and last row, the first SHOWN_IN_FULL of them. */
interface Shared {
  count: number;
  first: number;
  last: number;
  shown: SharedProblem[];
  /** When each of `shown` was pushed (a row's problems listed in the order they were found). */
  order: number[];
}

/** A line of the list, how many problems it stands for (a line of shared rows, many), and when it was found. */
interface Entry {
  problem: Problem;
  count: number;
  order: number;
}

/** Row order (problems of the file itself first), then the order they were found. */
function byRow(a: Entry, b: Entry): number {
  return (a.problem.row ?? 0) - (b.problem.row ?? 0) || a.order - b.order;
}

/**
 * The problems of a pass: the first `keep` kept, the rest only counted, so that a file of a
 * million bad rows holds fifty messages, not a million. Problems that rows share (an amount
 * in the European style on 44 rows) are gathered by kind, one line for all of them, for up to
 * `keep` kinds. With `accept`, only the problems it accepts are kept or counted.
 */
class ProblemList extends Array<Problem> {
  // filter, slice and map make plain arrays, not lists that drop what they are given.
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }
  omitted = 0;
  readonly #keep: number;
  readonly #accept: ((p: Problem) => boolean) | undefined;
  readonly #shared = new Map<string, Shared>();
  #sharedCount = 0;
  /** Problems pushed so far, and when each kept one was. */
  #pushed = 0;
  readonly #order: number[] = [];

  constructor(keep: number, accept?: (p: Problem) => boolean) {
    super();
    this.#keep = keep;
    this.#accept = accept;
  }

  override push(...items: Problem[]): number {
    for (const p of items) {
      if (this.#accept && !this.#accept(p)) continue;
      const order = this.#pushed++;
      if (isShared(p)) {
        const g = this.#shared.get(p.shared.key);
        if (g) {
          g.count++;
          g.first = Math.min(g.first, p.row);
          g.last = Math.max(g.last, p.row);
          if (g.shown.length < SHOWN_IN_FULL) {
            g.shown.push(p);
            g.order.push(order);
          }
          this.#sharedCount++;
          continue;
        }
        if (this.#shared.size < this.#keep) {
          this.#shared.set(p.shared.key, { count: 1, first: p.row, last: p.row, shown: [p], order: [order] });
          this.#sharedCount++;
          continue;
        }
        // More kinds than are listed: counted as any other problem.
      }
      if (this.length < this.#keep) {
        super.push(p);
        this.#order.push(order);
      } else this.omitted++;
    }
    return this.length;
  }

  get total(): number {
    return this.length + this.omitted + this.#sharedCount;
  }

  /** The lines to list, in row order (problems of the file itself first), each with the problems it stands for. */
  lines(): Entry[] {
    const out: Entry[] = this.map((problem, i) => ({ problem, count: 1, order: this.#order[i]! }));
    for (const g of this.#shared.values()) {
      if (g.count <= SHOWN_IN_FULL) g.shown.forEach((problem, i) => out.push({ problem, count: 1, order: g.order[i]! }));
      else out.push({ problem: sharedLine(g), count: g.count, order: g.order[0]! });
    }
    return out.sort(byRow);
  }
}

/**
 * One line for the rows that share a problem: "rows 3–46 (44 rows): amount is written in the
 * European style (...): row 3 "1.250,00" (write 1250.00), ... and 41 more; write ...".
 */
function sharedLine(g: Shared): Problem {
  const s = g.shown[0]!.shared;
  const where = `rows ${g.first}–${g.last} (${g.count.toLocaleString('en-US')} rows)`;
  const examples = g.shown.flatMap((p) => (p.shared.example === undefined ? [] : [p.shared.example]));
  const more = g.count - examples.length;
  const list = examples.length ? `: ${examples.join(', ')}${more > 0 ? ` and ${more.toLocaleString('en-US')} more` : ''}` : '';
  const advice = s.advice === undefined ? '' : `; ${s.advice}`;
  return { field: g.shown[0]!.field, row: g.first, message: `${s.message} on ${where}${list}${advice}`, text: `${where}: ${s.text}${list}${advice}` };
}

/** How many problems a list was given (kept or only counted). */
function totalOf(problems: Problem[]): number {
  return problems instanceof ProblemList ? problems.total : problems.length;
}

/**
 * Keeps a long pass responsive: every 256 rows it reads the clock, and after 50 ms of work
 * lets the event loop run, which is when a SIGINT or SIGTERM is delivered (cli.ts aborts the
 * run's signal); then an aborted signal stops the pass. A 10,000-row check pauses a few
 * times at most.
 */
class Pace {
  #rows = 0;
  #since = performance.now();
  readonly #signal: AbortSignal | undefined;
  readonly #path: string;

  constructor(signal: AbortSignal | undefined, path: string) {
    this.#signal = signal;
    this.#path = path;
    this.stopIfAborted();
  }

  /** True when it is time to pause: a counter, and the clock every 256 rows. */
  due(): boolean {
    return (++this.#rows & 255) === 0 && performance.now() - this.#since >= 50;
  }

  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#since = performance.now();
    this.stopIfAborted();
  }

  stopIfAborted(): void {
    if (this.#signal?.aborted) throw new InterruptedError(`Interrupted while checking ${this.#path}. Nothing was sent.`);
  }
}

/** A payout_id given on two rows: `payout_id "x" is also used on row 4`. */
const ALSO_USED = 'is also used on row';

export interface BatchSource {
  /** As given on the command line. */
  path: string;
  /** Absolute path. */
  file: string;
  format: FileFormat;
  bytes: Buffer;
  batchId: string;
  /** The run's signal (Ctrl-C, SIGTERM): the check and the plan stop when it is aborted. */
  signal?: AbortSignal;
  /**
   * Every row, validated, kept by the first pass when the file has few enough rows
   * (KEEP_ROWS): the later passes read them instead of parsing the bytes again.
   */
  kept?: ValidRow[];
}

/** A valid row before its identity is settled (payout id, occurrence): what a pass starts from. */
interface ValidRow {
  row: number;
  request: PayoutRequest;
  fingerprint: string;
  derivedId: boolean;
  legacyId?: string;
}

/**
 * A file of up to this many rows has its validated rows kept between the passes (about 1 KB
 * a row: 10 MB for 10,000 rows) instead of being parsed and validated twice more. A longer
 * file is parsed again by each pass: memory stays per distinct payout, whatever its length.
 */
const KEEP_ROWS = 20_000;

export interface IdentifiedRow {
  row: number;
  request: PayoutRequest;
  /** The exact request body; '' where the pass asked for none (the check, the plan's rows not sent before). */
  body: string;
  fingerprint: string;
  /** The file gives no payout_id: the id is derived from the payout and the batch id. */
  derivedId: boolean;
  /** Among the file's identical rows, this one's (0, 1, ...): part of a derived id. 0 for a given id. */
  occurrence: number;
  /** payctl 0.1's id of this row (file name and row), looked up to resume its batches. */
  legacyId?: string;
}

export interface LoadedRow extends IdentifiedRow {
  /** This payout id's journal entry, from an earlier run. */
  earlier?: JournalEntry;
}

/**
 * The first MAX_LISTED lines of the lists' problems in row order, and how many more problems
 * there were when there were (`total`: all of them).
 */
function listed(...lists: ProblemList[]): Problem[] {
  const entries = lists.flatMap((l) => l.lines()).sort(byRow);
  const total = lists.reduce((n, l) => n + l.total, 0);
  const shown = entries.slice(0, MAX_LISTED);
  const more = total - shown.reduce((n, e) => n + e.count, 0);
  const problems = shown.map((e) => e.problem);
  return more > 0 ? [...problems, problemOf(`… and ${more.toLocaleString('en-US')} more`)] : problems;
}

/** What to do after the problems of a file: fix the rows, when rows are listed; else the file (its header, its quotes). */
function fixHint(problems: Problem[]): string {
  return problems.some((p) => p.row !== undefined) ? 'Fix the rows above and run the same command again.' : 'Fix the file as said above and run the same command again.';
}

/** A file's problems, nothing sent: the count, the first MAX_LISTED lines, what to do. */
function fileProblems(path: string, ...lists: ProblemList[]): UsageError {
  const problems = listed(...lists);
  const total = lists.reduce((n, l) => n + l.total, 0);
  return new UsageError(`${path}: ${plural(total, 'problem')}. Nothing was sent.`, problems, fixHint(problems));
}

/**
 * The file's bytes: a regular, UTF-8 file of at most MAX_COLUMNS columns and lines of at
 * most MAX_LINE_BYTES (refused at once otherwise). `signal` (the run's) stops the check
 * and the plan of the file when aborted.
 */
export function openBatch(path: string, batchId: string, signal?: AbortSignal): BatchSource {
  let bytes: Buffer;
  try {
    // Only a regular file: /dev/zero or a FIFO would never end.
    const st = statSync(path);
    if (st.isDirectory()) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
    if (!st.isFile())
      throw new UsageError(
        `Cannot read ${path}: it is not a regular file (a device, pipe or socket). Nothing was sent.`,
        [],
        'Save the payouts to a file and give its path.',
      );
    bytes = readFileSync(path);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (err as Error).message}.`);
  }
  // isUtf8 checks without making a string of the whole file; the slow path names the line.
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (utf16 || !isUtf8(bytes)) {
    const decoded = decodeBatchFile(bytes);
    if ('problem' in decoded) throw new UsageError(`${path}: ${decoded.problem}. Nothing was sent.`);
  }
  const format = formatOf(path, bytes.subarray(0, 64).toString('utf8'));
  const tooBig = boundsProblem(bytes, format);
  if (tooBig) throw new UsageError(`${path}: ${tooBig}. Nothing was sent.`, [], 'Remove the extra columns or split the line, and run the same command again.');
  return { path, file: resolve(path), format, bytes, batchId, signal };
}

/**
 * Every valid row with its identity, in file order; problems (bad rows, a payout_id used
 * twice) are pushed to `problems`. The occurrence of identical rows is counted here, so
 * every pass gives every row the same id.
 */
export async function* identifiedRows(src: BatchSource, problems: Problem[], checked?: BatchCheck, withBody = true, interruptible = true): AsyncGenerator<IdentifiedRow> {
  // The send (batchRows) is not stopped here: the batch runner stops it, letting rows in flight finish.
  const pace = new Pace(interruptible ? src.signal : undefined, src.path);
  // Occurrences are counted only for payouts the check found more than once (every other
  // row is occurrence 0), and ids only for the ids it found twice: a few entries, not a
  // map of every row.
  const occurrences = new Map<string, number>();
  const seenId = new Map<string, number>();
  const identify = (r: ValidRow): IdentifiedRow | undefined => {
    const fingerprint = r.fingerprint;
    let request = r.request;
    let n = 0;
    if (r.derivedId) {
      if (checked?.duplicated.has(fingerprint)) {
        n = occurrences.get(fingerprint) ?? 0;
        occurrences.set(fingerprint, n + 1);
      }
      request = { ...request, payoutId: derivedPayoutId(src.batchId, fingerprint, n) };
    } else if (checked?.idsTwice.size && checked.idsTwice.has(hash64(request.payoutId))) {
      const first = seenId.get(request.payoutId);
      if (first !== undefined) {
        problems.push(rowProblem(r.row, fieldProblem(COLUMN_LABELS.payoutId, `"${request.payoutId}" ${ALSO_USED} ${first}`, ' ')));
        return undefined;
      }
      seenId.set(request.payoutId, r.row);
    }
    // The check and the plan need no body (the plan makes one only for a row sent before: lookUpRow).
    return { row: r.row, request, body: withBody ? payoutBody(request) : '', fingerprint, derivedId: r.derivedId, occurrence: n, legacyId: r.legacyId };
  };
  // Kept rows are read straight from the array: one generator less for every row of a pass.
  if (src.kept) {
    for (const r of src.kept) {
      if (pace.due()) await pace.pause();
      const row = identify(r);
      if (row) yield row;
    }
    return;
  }
  for await (const r of validRows(src, problems, pace)) {
    const row = identify(r);
    if (row) yield row;
  }
}

/** Every valid row of the file, in file order (problems pushed to `problems`), parsed and validated; kept in `src.kept` when few enough. */
async function* validRows(src: BatchSource, problems: Problem[], pace: Pace): AsyncGenerator<ValidRow> {
  // Kept only from a whole pass without a problem: a file with problems is refused before any other pass.
  let keep: ValidRow[] | undefined = [];
  const before = totalOf(problems);
  for await (const r of readRows(src.path, src.bytes, problems)) {
    // Every row read, bad ones too, and the consumer's work on the last one: all count as work.
    if (pace.due()) await pace.pause();
    const v = validatePayout(r.fields, COLUMN_LABELS);
    if (!v.ok) {
      for (const p of v.issues) {
        // Said already while reading the row (an amount in the European style): not "amount is required" too.
        if (r.reported?.includes(p.field)) continue;
        problems.push(requiredOnRows(rowProblem(r.row, p)));
      }
      continue;
    }
    const row: ValidRow = { row: r.row, request: v.request, fingerprint: payoutFingerprint(v.request), derivedId: r.derivedId, legacyId: r.legacyId };
    if (keep && keep.push(row) > KEEP_ROWS) keep = undefined;
    yield row;
  }
  if (keep && totalOf(problems) === before) src.kept = keep;
}

/**
 * A column required and missing on a row (wallet_id, or phone_number for a wallet): the same
 * on every row that lacks it, so shared (listed as one line for many rows). Other problems of
 * validation name the row's own value and are listed row by row.
 */
function requiredOnRows(p: Problem): Problem {
  if (p.row === undefined || !p.message.startsWith('is required')) return p;
  const text = p.text.slice(`row ${p.row}: `.length);
  const shared: SharedProblem = { ...p, row: p.row, shared: { key: `required:${p.field}:${p.message}`, text, message: p.message } };
  return shared;
}

/** What the check found: the row count, the payouts that occur more than once. */
export interface BatchCheck {
  rows: number;
  /** Fingerprints of payouts on two or more rows. */
  duplicated: Set<string>;
  /** 64-bit hashes of explicit payout ids given on two or more rows (or colliding). */
  idsTwice: Set<bigint>;
  /**
   * Rows the plan found no journal entry for, by row number: the send does not look them up
   * again. (One journaled since, by another payctl, is still found: its claim fails, and its
   * entry is the one sent, under its key.)
   */
  absent?: Set<number>;
}

/**
 * A 64-bit hash of a payout id, as a number to sort: 8 bytes a row instead of a map entry.
 * Two 32-bit FNV-1a hashes with different starting values, not a SHA-256: it only finds
 * candidates, which are then compared exactly (a collision, even a made one, costs a second
 * look at a few rows, never a wrong answer), and a SHA-256 per row was a tenth of the check.
 */
function hash64(s: string): bigint {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (BigInt(a >>> 0) << 32n) | BigInt(b >>> 0);
}

/** A growable array of 64-bit values and the row that gave each. */
class Hashes {
  #values = new BigUint64Array(1024);
  #length = 0;
  push(v: bigint): void {
    if (this.#length === this.#values.length) {
      const next = new BigUint64Array(this.#values.length * 2);
      next.set(this.#values);
      this.#values = next;
    }
    this.#values[this.#length++] = v;
  }
  /** Values present more than once. */
  repeated(): Set<bigint> {
    const sorted = this.#values.subarray(0, this.#length).sort();
    const out = new Set<bigint>();
    for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) out.add(sorted[i]!);
    return out;
  }
}

/**
 * Pass 1: every row checked; a UsageError lists every problem (nothing sent). Memory: 16
 * bytes a row (two 64-bit hashes), whatever the file's size; what repeats is then
 * confirmed exactly on a second read of just those rows.
 */
export async function checkBatch(src: BatchSource): Promise<BatchCheck> {
  const problems = new ProblemList(MAX_LISTED);
  const fingerprints = new Hashes();
  const ids = new Hashes();
  let rows = 0;
  for await (const r of identifiedRows(src, problems, undefined, false)) {
    rows++;
    fingerprints.push(BigInt(`0x${r.fingerprint.slice(0, 16)}`));
    if (!r.derivedId) ids.push(hash64(r.request.payoutId));
  }
  const idsTwice = ids.repeated();
  const candidates = fingerprints.repeated();
  const duplicated = new Set<string>();
  let again: ProblemList | undefined;
  if (candidates.size || idsTwice.size) {
    const counts = new Map<string, number>();
    // Only the second pass's news: a payout_id used again (its other problems were counted above).
    again = new ProblemList(MAX_LISTED, (p) => p.message.includes(ALSO_USED));
    for await (const r of identifiedRows(src, again, { rows, duplicated: new Set(), idsTwice }, false)) {
      if (!candidates.has(BigInt(`0x${r.fingerprint.slice(0, 16)}`))) continue;
      const n = (counts.get(r.fingerprint) ?? 0) + 1;
      counts.set(r.fingerprint, n);
      if (n === 2) duplicated.add(r.fingerprint);
    }
  }
  // In row order, as a person reads the file (problems of the file itself first): the first
  // MAX_LISTED of each pass hold the first MAX_LISTED of both.
  if (problems.total || again?.total) throw again ? fileProblems(src.path, problems, again) : fileProblems(src.path, problems);
  return { rows, duplicated, idsTwice };
}

/**
 * The journal entry of a row's payout id, if any. A row with a derived id that has none is
 * looked up under the ids earlier versions derived for it, and switched to the id it has
 * there, so that the batch they sent resumes under its entries (their keys, their bodies):
 * - `b-<32 hex>` (legacyDerivedPayoutId), from the same inputs as the UUID: the same payout
 *   by construction, so an entry there with other details is a conflict (nothing sent),
 *   never a reason to pay it again under the new id;
 * - payctl 0.1's file-and-row id, which another payout may have had: used only when its
 *   entry has this row's very details.
 */
function lookUpRow(r: IdentifiedRow, journal: Journal, baseUrl: string, batchId: string): LoadedRow {
  const earlier = journal.get(baseUrl, r.request.payoutId);
  if (earlier) return loaded(r, r.request, r.body || payoutBody(r.request), earlier);
  if (!r.derivedId) return r;
  const priorId = legacyDerivedPayoutId(batchId, r.fingerprint, r.occurrence);
  const prior = journal.get(baseUrl, priorId);
  if (prior) {
    const request = { ...r.request, payoutId: priorId };
    return loaded(r, request, payoutBody(request), prior);
  }
  if (!r.legacyId) return r;
  const legacy = journal.get(baseUrl, r.legacyId);
  if (!legacy) return r;
  const request = { ...r.request, payoutId: r.legacyId };
  const body = payoutBody(request);
  return journal.conflict(legacy, body) ? r : loaded(r, request, body, legacy);
}

/** A row with its earlier entry: one literal, not `{ ...r, earlier }`, whose every result has a shape of its own in Node 20's V8. */
function loaded(r: IdentifiedRow, request: PayoutRequest, body: string, earlier: JournalEntry): LoadedRow {
  return { row: r.row, request, body, fingerprint: r.fingerprint, derivedId: r.derivedId, occurrence: r.occurrence, legacyId: r.legacyId, earlier };
}

/** Where earlier payouts came from: one line per batch run or kind of payout. */
export interface EarlierRun {
  /** A batch run (with its id), a batch sent by payctl 0.1 (no id), or single payouts. */
  kind: 'batch' | 'legacy batch' | 'single';
  batchId: string | undefined;
  file: string | undefined;
  rows: number;
  first: string;
  last: string;
}

/** Journal entries tallied by the batch run that sent them (id and file). */
export class RunTally {
  readonly #runs = new Map<string, EarlierRun>();
  /** Only when one entry may come more than once (several rows matching one payout). */
  readonly #seen: Set<string> | undefined;

  constructor(dedupe = false) {
    this.#seen = dedupe ? new Set() : undefined;
  }

  add(e: JournalEntry): void {
    if (this.#seen?.has(e.payoutId)) return;
    this.#seen?.add(e.payoutId);
    const at = e.outcome?.at ?? e.createdAt;
    const kind = e.batch ? 'batch' : e.payoutId.startsWith('batch-') ? 'legacy batch' : 'single';
    const key = `${kind}\n${e.batch?.id ?? ''}\n${e.batch?.file ?? ''}`;
    const run = this.#runs.get(key);
    if (!run) this.#runs.set(key, { kind, batchId: e.batch?.id, file: e.batch?.file, rows: 1, first: at, last: at });
    else {
      run.rows++;
      if (at < run.first) run.first = at;
      if (at > run.last) run.last = at;
    }
  }

  /** Oldest first. */
  runs(): EarlierRun[] {
    return [...this.#runs.values()].sort((a, b) => a.first.localeCompare(b.first));
  }
}

/** "2026-11-22 20:10 UTC" */
export function shortTime(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
}

export function describeRun(r: EarlierRun): string {
  const when = r.first.slice(0, 16) === r.last.slice(0, 16) ? `on ${shortTime(r.first)}` : `between ${shortTime(r.first)} and ${shortTime(r.last)}`;
  if (r.kind === 'legacy batch') return `in a batch sent by an earlier payctl ${when}`;
  if (r.kind === 'single') return `as single payouts (payout create) ${when}`;
  return `in batch "${r.batchId}"${r.file ? ` from ${text(r.file)}` : ''} ${when}`;
}

/** A wallet problem of a row (unknown wallet, other currency: the currency column), or undefined. */
export function walletProblem(row: number, r: PayoutRequest, wallets: Map<string, Wallet>, balancesCommand = 'payctl balances'): Problem | undefined {
  const w = wallets.get(r.walletId);
  if (!w) return rowProblem(row, fieldProblem(COLUMN_LABELS.walletId, `"${r.walletId}" is not one of your wallets (see ${balancesCommand})`, ' '));
  if (w.currency.toUpperCase() !== r.currency) {
    const message = `wallet ${r.walletId} holds ${w.currency.toUpperCase()}, not ${r.currency}`;
    return rowProblem(row, { field: COLUMN_LABELS.currency, message, text: message });
  }
  return undefined;
}

/** A group of identical rows: their row numbers and what each of them pays. */
export interface DuplicateGroup {
  rows: number[];
  request: PayoutRequest;
  /** Some row of the group is still to be sent. */
  pending: boolean;
}

export interface BatchPlan {
  rows: number;
  toSend: number;
  alreadyAccepted: number;
  groups: PlanGroup[];
  /** Runs that accepted this batch's rows before (skipped now). */
  earlier: EarlierRun[];
  /** Rows still to send that pay the same as payouts sent under other ids. */
  matchRows: number;
  matched: EarlierRun[];
  /** Rows still to send that a named batch other than this one already sent. */
  otherBatchRows: number;
  otherBatches: EarlierRun[];
  duplicates: DuplicateGroup[];
}

/**
 * Pass 2: each row looked up in the journal and against the live balances; the plan.
 * Throws a UsageError (nothing sent) for rows sent before with other details, and for
 * unknown wallets and currency mismatches.
 */
export async function planBatch(
  src: BatchSource,
  checked: BatchCheck,
  journal: Journal,
  baseUrl: string,
  wallets: Wallet[],
  balancesCommand?: string,
): Promise<BatchPlan> {
  const problems = new ProblemList(MAX_LISTED);
  const conflicts = new ProblemList(MAX_LISTED);
  const byId = new Map(wallets.map((w) => [w.wallet_id, w]));
  const plan = new PlanBuilder(wallets);
  const earlier = new RunTally();
  const matched = new RunTally(true);
  const other = new RunTally(true);
  const dups = new Map<string, DuplicateGroup>();
  const absent = new Set<number>();
  let rows = 0;
  let toSend = 0;
  let matchRows = 0;
  let otherBatchRows = 0;
  for await (const identified of identifiedRows(src, problems, checked, false)) {
    rows++;
    const r = lookUpRow(identified, journal, baseUrl, src.batchId);
    if (!r.earlier) absent.add(r.row);
    if (checked.duplicated.has(r.fingerprint)) {
      const g = dups.get(r.fingerprint);
      if (g) g.rows.push(r.row);
      else dups.set(r.fingerprint, { rows: [r.row], request: r.request, pending: false });
    }
    if (r.earlier && journal.conflict(r.earlier, r.body)) {
      conflicts.push(rowProblem(r.row, fieldProblem(COLUMN_LABELS.payoutId, `"${r.request.payoutId}" was already sent with other details`, ' ')));
      continue;
    }
    if (r.earlier?.outcome?.kind === 'accepted') {
      earlier.add(r.earlier);
      continue;
    }
    toSend++;
    if (checked.duplicated.has(r.fingerprint)) dups.get(r.fingerprint)!.pending = true;
    const bad = walletProblem(r.row, r.request, byId, balancesCommand);
    if (bad) problems.push(bad);
    plan.add(r.request);
    // The same payout sent under another id (other batches, single payouts), not refused.
    const same = journal.find(baseUrl, 'fingerprint', r.fingerprint).filter((e) => e.outcome?.kind !== 'rejected' && !isOwnId(e, src, r));
    if (same.length) {
      matchRows++;
      for (const e of same) matched.add(e);
      const others = same.filter((e) => e.batch && e.batch.id !== src.batchId);
      if (others.length) {
        otherBatchRows++;
        for (const e of others) other.add(e);
      }
    }
  }
  checked.absent = absent;
  if (conflicts.total) throw new UsageError(`${src.path}: ${plural(conflicts.total, 'row')} conflict with earlier payouts. Nothing was sent.`, listed(conflicts));
  if (problems.total) throw fileProblems(src.path, problems);
  return {
    rows,
    toSend,
    alreadyAccepted: rows - toSend,
    groups: plan.groups(),
    earlier: earlier.runs(),
    matchRows,
    matched: matched.runs(),
    otherBatchRows,
    otherBatches: other.runs(),
    duplicates: [...dups.values()].filter((g) => g.rows.length > 1),
  };
}

/**
 * An entry of this very batch (same batch id and file, an identical row's other
 * occurrence, under a derived id of this version or an earlier one): not "the same payout
 * sent before" but a duplicate, reported as such.
 */
function isOwnId(e: JournalEntry, src: BatchSource, r: IdentifiedRow): boolean {
  return e.payoutId === r.request.payoutId || (e.batch?.id === src.batchId && r.derivedId && e.batch.file === src.file && DERIVED_ID.test(e.payoutId));
}

/**
 * Pass 3: the rows to hand to the batch runner, one at a time, each with its earlier entry.
 * Not stopped by the run's signal (the runner stops taking rows and lets those in flight
 * finish) unless `interruptible`: a caller that only reads them (a plan made, a policy
 * checked) stops with InterruptedError, nothing sent.
 */
export async function* batchRows(src: BatchSource, checked: BatchCheck, journal: Journal, baseUrl: string, interruptible = false): AsyncGenerator<LoadedRow> {
  const problems: Problem[] = [];
  for await (const r of identifiedRows(src, problems, checked, true, interruptible)) yield checked.absent?.has(r.row) ? r : lookUpRow(r, journal, baseUrl, src.batchId);
  // The file is read again while sending: a problem now means it was changed meanwhile.
  if (problems.length) {
    throw new LocalError(
      `${src.file} changed while payctl was sending it: ${problems[0]!.text}`,
      'Rows sent so far are in the journal and the report. Put the file back as it was and run the same command again: nothing is paid twice.',
    );
  }
}
