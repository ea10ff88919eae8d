/**
 * A batch file opened and its rows streamed with their identity, for each pass of
 * batch-load.ts (memory per distinct payout, not per row of text): the file read once into
 * memory as bytes (so what is checked is what is sent, even if the file changes meanwhile),
 * every row validated (its problems pushed with its row number), and each valid row given
 * its identity (identity.ts; docs/architecture.md, "Identity"), the same in every pass.
 *
 * Bounded: a file too wide or with too long a line is refused when opened (batch-file.ts,
 * boundsProblem); a pass lets the event loop run every 50 ms or so, and stops when the run's
 * signal (Ctrl-C, SIGTERM) is aborted, so a long check of a big file ends within a second.
 */
import { realpathSync, statSync, readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { resolve } from 'node:path';
import { fieldProblem, InterruptedError, rowProblem, UsageError, type Problem } from '../errors.js';
import { boundsProblem, decodeBatchFile, formatOf, isUtf16, readRows, type FileFormat } from './batch-file.js';
import { COLUMN_LABELS } from './batch-columns.js';
import { requiredOnRows, totalOf } from './batch-problems.js';
import { derivedPayoutId, payoutFingerprint } from './identity.js';
import type { LostDigits } from './lost-digits.js';
import { payoutBody, validatePayout, type PayoutRequest } from './request.js';

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

/** What the check found: the row count, the payouts that occur more than once. */
export interface BatchCheck {
  rows: number;
  /** Fingerprints of payouts on two or more rows, identical as written: their occurrence is part of their ids. */
  duplicated: Set<string>;
  /** What two or more rows pay as the duplicate guard compares them, accounts as compared (batch-duplicates.ts sameKey). */
  alike: Set<string>;
  /** 64-bit hashes of explicit payout ids given on two or more rows (or colliding). */
  idsTwice: Set<bigint>;
  /** The digit columns that may have lost leading zeros or a "+" to a spreadsheet (lost-digits.ts). */
  lost?: LostDigits;
  /** The payouts the file's rows are (changed-rows.ts): an earlier payout of the batch that none of them is was changed or removed since. */
  payouts?: { has(payoutId: string): boolean };
  /** What its rows without a payout_id pay to whom, as a set (rowsKey): undefined when it has none. */
  rowsKey?: string | undefined;
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
export function hash64(s: string): bigint {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (BigInt(a >>> 0) << 32n) | BigInt(b >>> 0);
}

/**
 * What a run's rows without a payout_id pay to whom, as a set: the 64-bit hashes of their repeat
 * keys (identity.ts: wallet, account, amount, currency), each once, in order, hashed again; 16
 * hex digits, or undefined for none. A copy of the file a spreadsheet re-saved (its notes'
 * dates reformatted) pays the same set from another file: a run without --batch-id locks it
 * (batch-lock.ts), so the copy sent at the same time waits for the original.
 */
export function rowsKey(repeatHashes: BigUint64Array): string | undefined {
  if (!repeatHashes.length) return undefined;
  const sorted = repeatHashes.slice().sort();
  let text = '';
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) text += `${sorted[i]!.toString(16)},`;
  return hash64(text).toString(16).padStart(16, '0');
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
export const ALSO_USED = 'is also used on row';

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
  if (isUtf16(bytes) || !isUtf8(bytes)) {
    const decoded = decodeBatchFile(bytes);
    if ('problem' in decoded) throw new UsageError(`${path}: ${decoded.problem}. Nothing was sent.`);
  }
  const format = formatOf(path, bytes.subarray(0, 64).toString('utf8'));
  const tooBig = boundsProblem(bytes, format);
  if (tooBig) throw new UsageError(`${path}: ${tooBig}. Nothing was sent.`, [], 'Remove the extra columns or split the line, and run the same command again.');
  return { path, file: filePath(path), format, bytes, batchId, signal };
}

/** /dev/stdin, /dev/fd/3, /proc/self/fd/0: a descriptor's name, not the file's. */
const DESCRIPTOR = /^\/(?:dev\/(?:stdin|fd\/\d+)|proc\/(?:self|\d+)\/fd\/\d+)$/;

/**
 * The file's absolute path, for the journal, the report beside it and the commands printed to
 * run again. A file given as a descriptor (`payctl payout batch /dev/stdin < payroll.csv`) is
 * named by the file it is: its descriptor's name would put the report in /dev and print a
 * resume that reads whatever stdin is then.
 */
function filePath(path: string): string {
  const file = resolve(path);
  if (!DESCRIPTOR.test(file)) return file;
  try {
    const real = realpathSync(file);
    // A file deleted while open reads "/tmp/pay.csv (deleted)", which names no file: stat says so.
    if (!DESCRIPTOR.test(real) && !real.startsWith('/proc/') && statSync(real).isFile()) return real;
  } catch {
    // a file that has no path any more: its descriptor's name stays
  }
  return file;
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
