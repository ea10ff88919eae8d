/**
 * `payctl history`: the payout journal as a ledger of what this machine sent, newest
 * first, as a table, CSV or one JSON document. Streamed: a first pass over the journal
 * keeps only what sorting needs (file name, time, payout id) for the entries that pass
 * the filters; the second reads and writes them one at a time. Entries this folder journaled
 * that are gone are warned of (Journal.journalGaps).
 */
import { write, type Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { configDir } from '../config/paths.js';
import { parseTimeBound } from '../payouts/filters.js';
import { Journal, type JournalEntry } from '../payouts/journal.js';
import {
  LEDGER_COLUMNS,
  LEDGER_CSV_HEADER,
  LEDGER_OUTCOMES,
  OUTCOME_WORDS,
  ledgerCsv,
  ledgerJson,
  ledgerLine,
  ledgerOutcome,
  ledgerRow,
  type LedgerOutcome,
} from '../payouts/ledger.js';
import { csvRow } from '../output/csv.js';
import { makeStyle } from '../output/style.js';
import type { Column } from '../output/table.js';
import { text } from '../output/text.js';

export interface HistoryOptions {
  since?: string;
  until?: string;
  status?: string;
  batchId?: string;
  csv?: boolean;
}

export interface HistoryFilter {
  since?: number;
  until?: number;
  outcome?: LedgerOutcome;
  batchId?: string;
  /** Only entries journaled under this profile (set when the profile was chosen explicitly). */
  profile?: string;
}

/** Rows drawn per write of the table: the widths are fixed by the first chunk. */
const TABLE_CHUNK = 200;

export function parseHistoryFilter(opts: HistoryOptions, deps: Pick<Deps, 'globals'>): HistoryFilter {
  const problems: string[] = [];
  const f: HistoryFilter = {};
  if (opts.since !== undefined) {
    const r = parseTimeBound('--since', opts.since, false);
    if ('problem' in r) problems.push(r.problem);
    else f.since = Date.parse(r.value);
  }
  if (opts.until !== undefined) {
    const r = parseTimeBound('--until', opts.until, true);
    if ('problem' in r) problems.push(r.problem);
    else f.until = Date.parse(r.value);
  }
  if (f.since !== undefined && f.until !== undefined && f.since > f.until) problems.push('--since is later than --until');
  if (opts.status !== undefined) {
    const wanted = opts.status.trim().toLowerCase().replace(/[-_]/g, ' ');
    const outcome = LEDGER_OUTCOMES.find((o) => o === wanted);
    if (outcome) f.outcome = outcome;
    else problems.push(`--status: "${text(opts.status)}" is not an outcome (${OUTCOME_WORDS.join(', ')})`);
  }
  if (opts.batchId !== undefined) f.batchId = opts.batchId;
  if (opts.csv && deps.globals.json) problems.push('--csv and --json cannot be used together');
  if (problems.length) throw new UsageError('Invalid options for history.', problems);
  if (deps.globals.profileChosen) f.profile = deps.globals.profile;
  return f;
}

export function matches(e: JournalEntry, f: HistoryFilter): boolean {
  const t = Date.parse(e.createdAt);
  if (f.since !== undefined && !(t >= f.since)) return false;
  if (f.until !== undefined && !(t <= f.until)) return false;
  if (f.outcome !== undefined && ledgerOutcome(e) !== f.outcome) return false;
  if (f.batchId !== undefined && e.batch?.id !== f.batchId) return false;
  if (f.profile !== undefined && e.profile !== f.profile) return false;
  return true;
}

/**
 * The entries that pass the filter, newest first (ties by payout id), read one at a time.
 * Only their file names and times are held; entries that cannot be read are counted.
 */
export function* newestFirst(journal: Journal, filter: HistoryFilter, damaged: string[]): Generator<JournalEntry> {
  const index: Array<{ name: string; t: number; id: string }> = [];
  for (const it of journal.scan()) {
    if ('error' in it) {
      damaged.push(it.error.message);
      continue;
    }
    if (matches(it.entry, filter)) index.push({ name: it.name, t: Date.parse(it.entry.createdAt) || 0, id: it.entry.payoutId });
  }
  index.sort((a, b) => b.t - a.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const { name } of index) {
    let e: JournalEntry | undefined;
    try {
      e = journal.byName(name);
    } catch (err) {
      damaged.push((err as Error).message);
      continue;
    }
    // Changed since the first pass (an outcome recorded meanwhile): still shown if it matches.
    if (e && matches(e, filter)) yield e;
  }
}

/**
 * Warns when entries this config folder journaled are gone (Journal.journalGaps): what history
 * shows, reconcile resolves and daily_total counts is then short of what was sent from here.
 */
export function warnGaps(journal: Journal, deps: Pick<Deps, 'log'>): void {
  const gaps = journal.journalGaps();
  if (!gaps) return;
  const more = gaps.missing > gaps.payoutIds.length ? `, and ${gaps.missing - gaps.payoutIds.length} more` : '';
  deps.log.warn(
    `${gaps.missing} journal entr${gaps.missing === 1 ? 'y' : 'ies'} recorded by this folder ${gaps.missing === 1 ? 'is' : 'are'} missing: ${gaps.payoutIds.map(text).join(', ')}${more}. ` +
      'They were deleted, moved or replaced by an older backup: this history, and the daily total payctl counts, are short of what was sent from here. ' +
      'Rerunning their batches is safe: the same payouts are sent under the same keys, and the service answers with the first answers.',
  );
}

export async function run(opts: HistoryOptions, deps: Deps): Promise<number> {
  const filter = parseHistoryFilter(opts, deps);
  const journal = new Journal(configDir(deps.env));
  const out = deps.io.stdout;
  const damaged: string[] = [];
  let count = 0;

  if (deps.globals.json) {
    // One document, as `payouts list --all --json`: the lines streamed into its data array.
    await write(out, '{"data":[');
    for (const e of newestFirst(journal, filter, damaged)) {
      await write(out, (count > 0 ? ',' : '') + ledgerJson(ledgerLine(e)));
      count++;
    }
    await write(out, `],"count":${count}}\n`);
  } else if (opts.csv) {
    await write(out, csvRow(LEDGER_CSV_HEADER));
    for (const e of newestFirst(journal, filter, damaged)) {
      await write(out, ledgerCsv(ledgerLine(e)));
      count++;
    }
  } else {
    const { renderTable, displayWidth } = await import('../output/table.js');
    const style = makeStyle(deps.io.color);
    let widths: Column[] | undefined;
    let rows: string[][] = [];
    const flush = async () => {
      if (!rows.length) return;
      // Widths are fixed by the first chunk so that later chunks line up.
      widths ??= LEDGER_COLUMNS.map((c, i) => ({ ...c, width: Math.max(c.header.length, ...rows.map((r) => displayWidth(r[i]!))) }));
      await write(out, renderTable(widths, rows, style, { header: count === rows.length }));
      rows = [];
    };
    for (const e of newestFirst(journal, filter, damaged)) {
      rows.push(ledgerRow(ledgerLine(e), style));
      count++;
      if (rows.length >= TABLE_CHUNK) await flush();
    }
    await flush();
    deps.log.info(
      count === 0
        ? 'No journaled payouts match.'
        : `${count} journaled payout${count === 1 ? '' : 's'}${filter.profile !== undefined ? ` of profile ${filter.profile}` : ''}.`,
    );
  }
  if (damaged.length) {
    deps.log.warn(`${damaged.length} journal entr${damaged.length === 1 ? 'y was' : 'ies were'} passed over: they could not be read or verified.`);
    for (const m of damaged.slice(0, 5)) deps.log.warn(text(m));
  }
  warnGaps(journal, deps);
  return 0;
}
