/**
 * The columns of a batch file (docs/architecture.md, "Identity": a row is what it pays): their
 * names, how a header names one (ignoring case, spaces, '_' and '-', as a spreadsheet may
 * write it), what is said of a header payctl does not know (its likely meaning), a CSV header
 * row's own problems (a column twice, a required one missing), the example file of
 * `payout batch --template`, and whether a text reads as a batch file (batchFileKind).
 */
import { REQUIRED_FIELDS, type FieldName, type Labels } from './request.js';
import type { Problem } from '../errors.js';
import type { SharedProblem } from './batch-problems.js';
import { editDistance } from '../words.js';

/** The columns of a batch file, in the template's order (metadata.<key> columns besides). */
export const COLUMNS = ['payout_id', 'wallet_id', 'amount', 'currency', 'type', 'name', 'provider', 'account_number', 'phone_number', 'note'] as const;

/** The payout field each column fills. */
export const FIELD_OF: Record<(typeof COLUMNS)[number], FieldName> = {
  payout_id: 'payoutId',
  wallet_id: 'walletId',
  amount: 'amount',
  currency: 'currency',
  type: 'type',
  name: 'name',
  provider: 'provider',
  account_number: 'account',
  phone_number: 'phone',
  note: 'note',
};

/** How problems of a batch row name its fields: by their columns (`payout create` names its flags: fields.ts). */
export const COLUMN_LABELS: Labels = {
  payoutId: 'payout_id',
  walletId: 'wallet_id',
  amount: 'amount',
  currency: 'currency',
  type: 'type',
  name: 'name',
  provider: 'provider',
  account: 'account_number',
  phone: 'phone_number',
  note: 'note',
  metadata: 'metadata',
};

/**
 * A header as a spreadsheet may write it, compared without case, spaces, '_' and '-':
 * "Account Number", "account-number", "ACCOUNT_NUMBER" and "AccountNumber" all squash to
 * "accountnumber".
 */
function squash(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

const COLUMN_BY_SQUASHED = new Map<string, string>(COLUMNS.map((c) => [squash(c), c]));

/**
 * The column a header (a CSV header cell, a JSON-lines key) names: one of COLUMNS however it
 * is written, `metadata.<key>` (the key as written: it is data), '' for an empty header, or
 * undefined for any other name.
 */
export function canonicalColumn(name: string): string | undefined {
  const t = name.trim();
  if (t === '') return '';
  if (/^metadata\./i.test(t)) return `metadata.${t.slice('metadata.'.length)}`;
  return COLUMN_BY_SQUASHED.get(squash(t));
}

/** The columns squashed (as squash makes them), each with how many edits from it still count as a slip. */
const SQUASHED = COLUMNS.map((c) => ({ column: c, squashed: squash(c), limit: squash(c).length <= 4 ? 1 : 2 }));

/**
 * The column an unknown header most likely means: one or two edits away ("acount_number",
 * "amout"), or the start of it ("phone", "account") or it plus more ("currency_code"), or
 * undefined.
 */
export function closestColumn(name: string): string | undefined {
  const typed = squash(name);
  if (typed.length < 3 || typed.length > 64) return undefined;
  let best: string | undefined;
  let bestEdits = Infinity;
  for (const { column, squashed, limit } of SQUASHED) {
    const d = typed.length >= 4 && (squashed.startsWith(typed) || typed.startsWith(squashed)) ? 0.5 : editDistance(typed, squashed, limit);
    if (d <= limit && d < bestEdits) {
      best = column;
      bestEdits = d;
    }
  }
  return best;
}

/**
 * What was said of unknown names lately: a JSON-lines file has the same unknown key on every
 * line, or (hostile) thousands of keys on each; each name is compared with the columns once.
 */
const UNKNOWN_SAID = new Map<string, { message: string; text: string; shared: SharedProblem['shared'] }>();

const KNOWN_COLUMNS = `(columns: ${COLUMNS.join(', ')}, metadata.<key>)`;

/**
 * What is said of an unknown column (a CSV header cell, once; a JSON-lines key, by row, shared
 * by the rows that have it): its likely meaning, or the columns there are.
 */
export function unknownColumn(key: string): { message: string; text: string; shared: SharedProblem['shared'] } {
  const said = UNKNOWN_SAID.get(key);
  if (said) return said;
  const near = closestColumn(key);
  const message = near ? `is not a column; did you mean ${near}?` : `unknown column ${KNOWN_COLUMNS}`;
  const text = near ? `unknown column "${key}" — did you mean ${near}?` : `unknown column "${key}" ${KNOWN_COLUMNS}`;
  const out = { message, text, shared: { key: `unknown:${key}`, text, message } };
  if (UNKNOWN_SAID.size >= 1000) UNKNOWN_SAID.clear();
  UNKNOWN_SAID.set(key, out);
  return out;
}

/**
 * A CSV file's header row: the column of each cell (canonicalColumn), and the header's own
 * problems, each said once and not on every row: a column payctl does not know, a column
 * given twice, a required column missing.
 */
export class CsvHeader {
  /**
   * The header is one cell holding column names separated by semicolons or tabs (a file saved
   * by a spreadsheet in a language that writes decimal commas, or cells copied out of one), or
   * a batch report's. Said as that one problem; the file's rows are not read.
   */
  refusedWhole = false;
  /** Each header cell's column (canonicalColumn), undefined for an unknown one (left out of the records). */
  #named: Array<string | undefined> | undefined;
  /** The columns the header names. */
  #header: Set<string> | undefined;
  readonly #problems: Problem[];
  /** The line of the file below the first that reads as a header row (laterHeaderLine), asked only when the first does not. */
  readonly #headerBelow: (() => number | undefined) | undefined;

  constructor(problems: Problem[], headerBelow?: () => number | undefined) {
    this.#problems = problems;
    this.#headerBelow = headerBelow;
  }

  /** A first line that names fewer than two columns while a line below it reads as the header (a title row above it): said as that. */
  #titleAbove(h: string[]): string | undefined {
    if (knownColumns(h) >= 2) return undefined;
    const line = this.#headerBelow?.();
    return line === undefined
      ? undefined
      : `the header row seems to be on line ${line}, not line 1: remove the lines above it (a title, a blank line) and save the file again`;
  }

  /** The column of each header cell, as csv-parse's `columns` option takes them; the problems pushed the first time. */
  readonly columns = (h: string[]): Array<string | undefined> => {
    // Read once more by csv-parse after plainCsv stopped: its problems are listed already.
    if (this.#named) return this.#named;
    const refusal = (h.length === 1 ? otherSeparator(h[0]!) : isReport(h) ? REPORT_GIVEN : undefined) ?? this.#titleAbove(h);
    if (refusal) {
      this.refusedWhole = true;
      this.#problems.push({ field: '', message: refusal, text: refusal });
      this.#header = new Set();
      return (this.#named = [undefined]);
    }
    const named = h.map(canonicalColumn);
    this.#named = named;
    // One pass with a Map (a search of the names for each name took 33 s for 100,000 columns).
    const seen = new Map<string, string[]>();
    const twice = new Set<string>();
    for (let i = 0; i < h.length; i++) {
      const name = named[i];
      const written = h[i]!.trim();
      if (name === undefined) {
        // Named once, not on every row (a header of "Colour" made a problem of each of 1,000 rows).
        const unknown = unknownColumn(written);
        this.#problems.push({ field: written, message: unknown.message, text: unknown.text });
        continue;
      }
      if (name === '') continue;
      const spellings = seen.get(name);
      if (!spellings) seen.set(name, [written]);
      else {
        twice.add(name);
        spellings.push(written);
      }
    }
    // csv-parse would keep the last of two columns of one name: 1000.00 paid instead of 1.00.
    for (const n of twice) {
      const spellings = seen.get(n)!;
      const as = spellings.every((w) => w === n) ? '' : ` (${spellings.map((w) => `"${w}"`).join(', ')})`;
      this.#problems.push({ field: n, message: 'the header row has this column more than once', text: `the header row has the column "${n}" more than once${as}` });
    }
    this.#header = new Set(seen.keys());
    return named;
  };

  /** The required columns the header lacks, said once (at the file's first row). */
  checkRequired(): void {
    if (this.refusedWhole) return;
    const missing = REQUIRED_FIELDS.map(([k]) => COLUMN_LABELS[k]).filter((c) => !this.#header?.has(c));
    if (missing.length) {
      const text = `the header row lacks column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`;
      this.#problems.push({ field: missing.length === 1 ? missing[0]! : '', message: text, text });
    }
  }
}

/** How many cells of a line name a column payctl knows (an empty cell names none). */
function knownColumns(cells: string[]): number {
  let n = 0;
  for (const c of cells) {
    const k = canonicalColumn(c);
    if (k !== undefined && k !== '') n++;
  }
  return n;
}

/**
 * The line (2 to 20) of a CSV file that reads as its header row, three columns or more named,
 * when a spreadsheet's title or blank lines sit above it; undefined when none does. Read from
 * the file's first 16 KiB, its cells split at commas (a header's names hold none).
 */
export function laterHeaderLine(bytes: Uint8Array): number | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 16384)).toString('utf8');
  const lines = head.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/, 20);
  for (let i = 1; i < lines.length; i++) {
    if (knownColumns(lines[i]!.split(',').map((c) => c.trim().replace(/^"|"$/g, ''))) >= 3) return i + 1;
  }
  return undefined;
}

/** The header of a batch report (report.ts REPORT_COLUMNS), which a run writes beside its file: given as the file by mistake. */
function isReport(h: string[]): boolean {
  return h[0] === 'row' && h[1] === 'payout_id' && h[2] === 'outcome' && !h.some((c) => canonicalColumn(c) === 'wallet_id');
}

const REPORT_GIVEN =
  "this is a batch report (what a run of payout batch wrote: each row's outcome), not a batch file: give the file the run read, or see the report with payctl payout batch status";

/**
 * What to say of a header cell that is column names joined by semicolons or tabs (at least two
 * of them payctl's: "wallet_id;amount;currency"), or undefined.
 */
function otherSeparator(cell: string): string | undefined {
  for (const [sep, said] of [
    [
      ';',
      'the columns are separated by semicolons, not commas: a spreadsheet set to a language that writes decimal commas saves CSV that way. Save it as "CSV UTF-8 (Comma delimited)", or replace the semicolons with commas (and decimal commas with points)',
    ],
    ['\t', 'the columns are separated by tabs, not commas (a tab-separated file, or cells copied out of a spreadsheet): save it as CSV with commas'],
  ] as const) {
    const names = cell.split(sep);
    if (names.length > 1 && names.filter((n) => canonicalColumn(n) !== undefined && canonicalColumn(n) !== '').length >= 2) return said;
  }
  return undefined;
}

/**
 * Columns (CSV) or keys (a JSON line, metadata keys included) a batch file may have: a
 * payout has ten fields, and a thousand leaves room for any metadata a person means.
 */
export const MAX_COLUMNS = 1000;

/**
 * The example row of `payout batch --template`: a wallet payout as README.md's example pays,
 * payout_id left empty (the id is made from what the row pays and the batch id).
 */
const TEMPLATE_ROW: Record<(typeof COLUMNS)[number], string> = {
  payout_id: '',
  wallet_id: '6643665465',
  amount: '1250.00',
  currency: 'SLE',
  type: 'wallet',
  name: 'Fatmata Bangura',
  provider: 'orange_money',
  account_number: '076000001',
  phone_number: '+23276000001',
  note: 'November stipend',
};

/** `payout batch --template`: the header row (COLUMNS, in order) and one example row, as CSV. */
export function batchTemplate(): string {
  return `${COLUMNS.join(',')}\n${COLUMNS.map((c) => TEMPLATE_ROW[c]).join(',')}\n`;
}

/**
 * Whether a file's text reads as a batch file, for a plan command given one instead of a plan
 * (plans/plan.ts): its first line that is not empty (a BOM aside) a CSV header naming at least
 * two of COLUMNS, or a JSON object (a JSON line) whose keys name at least two. Undefined when not.
 */
export function batchFileKind(text: string): 'CSV' | 'JSON lines' | undefined {
  const first = text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .find((l) => l.trim() !== '');
  if (first === undefined) return undefined;
  const known = (names: string[]) => names.filter((n) => COLUMN_BY_SQUASHED.has(squash(n.trim().replace(/^"|"$/g, '')))).length >= 2;
  if (first.trim().startsWith('{')) {
    try {
      const row = JSON.parse(first) as unknown;
      return row && typeof row === 'object' && !Array.isArray(row) && known(Object.keys(row)) ? 'JSON lines' : undefined;
    } catch {
      return undefined;
    }
  }
  return known(first.split(',')) ? 'CSV' : undefined;
}
