/**
 * The problems of a batch file, as a person reads them: every problem found at once, each
 * with its row, kept and listed up to MAX_LISTED (the rest counted, so that a file of a
 * million bad rows holds fifty messages, not a million), and the problems that many rows
 * share (an amount in the European style on 44 rows, a column missing on every row) listed
 * as one line for all of them. Made by the reading of a file (batch-rows.ts, batch-csv.ts,
 * batch-jsonl.ts) and its passes (batch-load.ts: ProblemsInOrder keeps a plan's in reading order);
 * nothing here decides what is a problem.
 */
import { problemOf, UsageError, type Problem } from '../errors.js';
import { plural } from '../output/text.js';

/**
 * A row's problem that many rows of one file may share (a spreadsheet's way of writing
 * amounts, a key on every JSON line): ProblemList lists the rows that share one as a single
 * line ("rows 3–46 (44 rows): amount is written in the European style ...") when there are
 * more than a few, the first few shown in full.
 */
export interface SharedProblem extends Problem {
  row: number;
  shared: {
    /** Rows with the same key share the problem. */
    key: string;
    /** The problem said of all of them: `amount is written in the European style (...)`. */
    text: string;
    /** The same without the column's name (for --json's `message`). */
    message: string;
    /** This row in the list: `row 3 "1.250,00" (write 1250.00)`; none where the row number says it all. */
    example?: string;
    /** What to do, said once after the list. */
    advice?: string;
  };
}

export function isShared(p: Problem): p is SharedProblem {
  return (p as Partial<SharedProblem>).shared !== undefined;
}

/** At most this many problems are listed (and kept); the count says how many there were. */
export const MAX_LISTED = 50;

/** Rows that share a problem (SharedProblem) are listed one by one up to this many; more, as one line showing this many. */
export const SHOWN_IN_FULL = 3;

/** Runs of rows named in a shared problem's line ("rows 2–5, 7–11"); past this many, the line ends "… to <last>". */
export const RANGES_SAID = 5;

/** The rows that share one problem: how many, the first and last row, its first runs of rows, the first SHOWN_IN_FULL of them. */
interface Shared {
  count: number;
  first: number;
  last: number;
  /** Runs of consecutive rows, [first, last] each, in row order: the first RANGES_SAID + 1 (one more says there are more). */
  runs: [number, number][];
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
export class ProblemList extends Array<Problem> {
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
          addRow(g.runs, p.row);
          if (g.shown.length < SHOWN_IN_FULL) {
            g.shown.push(p);
            g.order.push(order);
          }
          this.#sharedCount++;
          continue;
        }
        if (this.#shared.size < this.#keep) {
          this.#shared.set(p.shared.key, { count: 1, first: p.row, last: p.row, runs: [[p.row, p.row]], shown: [p], order: [order] });
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
 * A row added to the runs of rows of a problem, kept in row order with neighbours joined, up
 * to RANGES_SAID + 1 runs (rows come in file order; one before the last run is placed where it goes).
 */
function addRow(runs: [number, number][], row: number): void {
  let i = runs.length;
  while (i > 0 && runs[i - 1]![0] > row) i--;
  const before = runs[i - 1];
  if (before && row <= before[1]) return;
  if (before && row === before[1] + 1) before[1] = row;
  else if (runs[i]?.[0] === row + 1) runs[i]![0] = row;
  else if (i <= RANGES_SAID) runs.splice(i, 0, [row, row]);
  const after = runs[i];
  if (before && after && before[1] + 1 === after[0]) {
    before[1] = after[1];
    runs.splice(i, 1);
  }
  if (runs.length > RANGES_SAID + 1) runs.length = RANGES_SAID + 1;
}

/** "rows 2–5, 7–11 (9 rows)": the rows exactly, never a range over a row without the problem; past RANGES_SAID runs, "…" to the last. */
function rowsSaid(g: Shared): string {
  const said = g.runs.slice(0, RANGES_SAID).map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`));
  const more = g.runs.length > RANGES_SAID ? `, … to ${g.last}` : '';
  return `rows ${said.join(', ')}${more} (${g.count.toLocaleString('en-US')} rows)`;
}

/**
 * One line for the rows that share a problem: "rows 3–46 (44 rows): amount is written in the
 * European style (...): row 3 "1.250,00" (write 1250.00), ... and 41 more; write ...".
 */
function sharedLine(g: Shared): Problem {
  const s = g.shown[0]!.shared;
  const where = rowsSaid(g);
  const examples = g.shown.flatMap((p) => (p.shared.example === undefined ? [] : [p.shared.example]));
  const more = g.count - examples.length;
  const list = examples.length ? `: ${examples.join(', ')}${more > 0 ? ` and ${more.toLocaleString('en-US')} more` : ''}` : '';
  const advice = s.advice === undefined ? '' : `; ${s.advice}`;
  return { field: g.shown[0]!.field, row: g.first, message: `${s.message} on ${where}${list}${advice}`, text: `${where}: ${s.text}${list}${advice}` };
}

/** How many problems a list was given (kept or only counted). */
export function totalOf(problems: Problem[]): number {
  // A list that lets go of problems says how many it was given (ProblemList, ProblemsInOrder).
  const total = (problems as Problem[] & { total?: unknown }).total;
  return typeof total === 'number' ? total : problems.length;
}

/**
 * The first MAX_LISTED lines of the lists' problems in row order, and how many more problems
 * there were when there were (`total`: all of them).
 */
export function listed(...lists: ProblemList[]): Problem[] {
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

/** A file's problems: the count, what was not done (`nothing`: "Nothing was sent."), the first MAX_LISTED lines, what to do. */
export function fileProblems(path: string, nothing: string, ...lists: ProblemList[]): UsageError {
  const problems = listed(...lists);
  const total = lists.reduce((n, l) => n + l.total, 0);
  return new UsageError(`${path}: ${plural(total, 'problem')}. ${nothing}`, problems, fixHint(problems));
}

/**
 * A column required and missing on a row (wallet_id, or phone_number for a wallet): the same
 * on every row that lacks it, so shared (listed as one line for many rows). Other problems of
 * validation name the row's own value and are listed row by row.
 */
export function requiredOnRows(p: Problem): Problem {
  if (p.row === undefined || !p.message.startsWith('is required')) return p;
  const text = p.text.slice(`row ${p.row}: `.length);
  const shared: SharedProblem = { ...p, row: p.row, shared: { key: `required:${p.field}:${p.message}`, text, message: p.message } };
  return shared;
}

/**
 * Problems found while reading the rows, kept with how many rows had been read then, and
 * passed on just before the row they came before: the order of a plan made row by row.
 */
export class ProblemsInOrder extends Array<Problem> {
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }
  rows = 0;
  /** How many rows had been read when each problem still held came. */
  readonly #at: number[] = [];
  #total = 0;

  /** Every problem pushed, handed on or not (batch-problems.ts totalOf). */
  get total(): number {
    return this.#total;
  }

  override push(...items: Problem[]): number {
    for (const p of items) {
      super.push(p);
      this.#at.push(this.rows);
      this.#total++;
    }
    return this.length;
  }

  /** Hands `to` the problems found before row number `index` (0-based, in reading order) was read, and lets go of them. */
  flushTo(to: Problem[], index: number): void {
    let n = 0;
    while (n < this.length && this.#at[n]! <= index) n++;
    if (!n) return;
    to.push(...this.slice(0, n));
    this.splice(0, n);
    this.#at.splice(0, n);
  }
}
