/**
 * `payctl history`: the payout journal as a ledger of what this config folder sent, newest
 * first, as a table, CSV or one JSON document. Streamed: a first pass over the journal
 * keeps only what sorting needs (file name, time, payout id) for the entries that pass
 * the filters; the second reads and writes them one at a time. Entries this folder journaled
 * that are gone are warned of (Ledger.journalGaps). Entries that cannot be read or verified (a
 * local entry whose MAC fails, a shared-ledger row changed outside payctl) are left out and
 * named, and the run exits 2: the list is incomplete.
 */
import { write, type Deps } from '../deps.js';
import { ExitCode, UsageError } from '../errors.js';
import { DEFAULT_PROFILE, unknownProfile } from '../config/known-profiles.js';
import { idOption, parseTimeBound } from '../payouts/filters.js';
import { batchIdSlipKey } from '../payouts/identity.js';
import { commandLine, invocationOf } from '../config/command-line.js';
import type { JournalEntry, Ledger } from '../payouts/journal.js';
import { openLedger } from '../payouts/open-ledger.js';
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
  type LedgerLine,
  type LedgerOutcome,
} from '../payouts/history-lines.js';
import { isSettled } from '../payouts/settle.js';
import { csvRow } from '../output/csv.js';
import { makeStyle, statusColor, type Style } from '../output/style.js';
import type { Column, StreamedTable } from '../output/table.js';
import { idsAndMore, text } from '../output/text.js';
import { capitalized, visibleWord } from '../words.js';
import { LOST_WHOLE } from '../payouts/repeats.js';

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

/** Rows drawn per write of the table: at a terminal the layout is fixed by the first chunk. */
const TABLE_CHUNK = 200;

/**
 * How the ledger's table (LEDGER_COLUMNS) fits a terminal: the recipient is cut with …; then
 * the host, the profile and the batch are left out; then the transaction id moves under the
 * payout id, the recipient under the time and the outcome under the amount, two lines a
 * payout (at 80 columns: a 36-character payout id and the transaction id under it, whole).
 * Narrower still, a card per payout. A pipe, --csv and --json have every column.
 */
const GIVE_WAY: Readonly<Record<string, Partial<Column>>> = {
  HOST: { giveWay: { step: 1 } },
  PROFILE: { giveWay: { step: 2 } },
  BATCH: { giveWay: { step: 3 } },
  TRANSACTION: { giveWay: { step: 4, under: 'PAYOUT ID' } },
  RECIPIENT: { minWidth: 12, giveWay: { step: 5, under: 'TIME (UTC)' } },
  OUTCOME: { giveWay: { step: 6, under: 'AMOUNT' } },
};
export const HISTORY_COLUMNS: Column[] = LEDGER_COLUMNS.map((c) => ({ ...c, ...GIVE_WAY[c.header] }));
const OUTCOME_CELL = LEDGER_COLUMNS.findIndex((c) => c.header === 'OUTCOME');

/**
 * A ledger line as a row of the table: an accepted payout whose settled status the journal
 * holds (`payoutStatus`, recorded by a look-up such as history reconcile's) shows that
 * status, Successful or Failed, in place of "accepted"; CSV and JSON give it as payout_status.
 */
export function historyRow(l: LedgerLine, style: Style): string[] {
  const row = ledgerRow(l, style);
  if (l.outcome === 'accepted' && l.payoutStatus !== undefined && isSettled(l.payoutStatus)) row[OUTCOME_CELL] = statusColor(style, l.payoutStatus);
  return row;
}

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
    else problems.push(`--status: "${visibleWord(opts.status)}" is not an outcome (${OUTCOME_WORDS.join(', ')})`);
  }
  const batchId = idOption('--batch-id', 'a batch id', opts.batchId, problems);
  if (batchId !== undefined) f.batchId = batchId;
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
export async function* newestFirst(journal: Ledger, filter: HistoryFilter, damaged: string[]): AsyncGenerator<JournalEntry> {
  const index: Array<{ name: string; t: number; id: string }> = [];
  for await (const it of journal.scan()) {
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
      e = await journal.byName(name);
    } catch (err) {
      damaged.push((err as Error).message);
      continue;
    }
    // Changed since the first pass (an outcome recorded meanwhile): still shown if it matches.
    if (e && matches(e, filter)) yield e;
  }
}

/**
 * Warns when entries this config folder journaled are gone (Ledger.journalGaps): what history
 * shows and reconcile resolves is then short of what was sent from here, and a policy's daily
 * total cannot be counted (plans/limits.ts) until they are put back or acknowledged.
 */
export async function warnGaps(journal: Ledger, deps: Pick<Deps, 'log'>): Promise<void> {
  const gaps = await journal.journalGaps();
  if (!gaps) return;
  if (gaps.unread) deps.log.warn(`${gaps.unread} So payctl cannot tell whether every entry this folder journaled is still there.`);
  if (gaps.journalLost)
    deps.log.warn(
      `${capitalized(journal.called)} ${LOST_WHOLE}, and this history is short of what was sent from here. ` +
        "A policy's daily total refuses to count without them until the journal is put back or they are acknowledged (--acknowledge-missing).",
    );
  if (!gaps.missing) return;
  deps.log.warn(
    `${gaps.missing} journal entr${gaps.missing === 1 ? 'y' : 'ies'} recorded by this folder ${gaps.missing === 1 ? 'is' : 'are'} missing: ${idsAndMore(gaps.payoutIds, gaps.missing)}. ` +
      "They were deleted, moved or replaced by an older backup: this history is short of what was sent from here, and a policy's daily total refuses to count without them until they are put back or acknowledged (--acknowledge-missing). " +
      'Rerunning their batches is safe: the same payouts are sent under the same keys, and the service answers with the first answers.',
  );
}

/**
 * A --profile (or PAYCTL_PROFILE) that names no profile of the config folder and none the
 * journal has entries of is a typo, refused naming both kinds (known-profiles.ts), rather than
 * "No journaled payouts match". A profile since removed still shows what it journaled.
 */
async function checkProfile(name: string, journal: Ledger, deps: Deps): Promise<void> {
  const configured = deps.config().profileNames();
  if (configured.includes(name)) return;
  const journaled = new Set<string>();
  for await (const it of journal.scan()) {
    if ('error' in it || it.entry.profile === undefined) continue;
    if (it.entry.profile === name) return;
    journaled.add(it.entry.profile);
  }
  throw unknownProfile(name, [...new Set([...configured, ...journaled])].sort(), name === deps.env.PAYCTL_PROFILE, invocationOf(deps.globals, deps.env).timeout);
}

export async function run(opts: HistoryOptions, deps: Deps): Promise<number> {
  const filter = parseHistoryFilter(opts, deps);
  const journal = await openLedger(deps);
  if (filter.profile !== undefined && filter.profile !== DEFAULT_PROFILE) await checkProfile(filter.profile, journal, deps);
  const out = deps.io.stdout;
  const damaged: string[] = [];
  let count = 0;

  if (deps.globals.json) {
    // One document, as `payouts list --all --json`: the lines streamed into its data array.
    // Its start written with the first line (or at the end): a journal refused before any
    // line (its key lost) leaves stdout empty, not a document cut after `{"data":[`.
    for await (const e of newestFirst(journal, filter, damaged)) {
      await write(out, (count > 0 ? ',' : '{"data":[') + ledgerJson(ledgerLine(e)));
      count++;
    }
    await write(out, `${count > 0 ? '' : '{"data":['}],"count":${count}}\n`);
  } else if (opts.csv) {
    // The header written with the first row (or at the end), as the JSON document's start.
    for await (const e of newestFirst(journal, filter, damaged)) {
      await write(out, (count > 0 ? '' : csvRow(LEDGER_CSV_HEADER)) + ledgerCsv(ledgerLine(e)));
      count++;
    }
    if (count === 0) await write(out, csvRow(LEDGER_CSV_HEADER));
  } else {
    const style = makeStyle(deps.io.color);
    let table: StreamedTable | undefined;
    let rows: string[][] = [];
    const flush = async () => {
      if (!rows.length) return;
      // At a terminal the first chunk fixes the layout, so that later chunks line up; in a pipe nothing is cut.
      table ??= new (await import('../output/table.js')).StreamedTable(HISTORY_COLUMNS, style, deps.io.stdoutColumns);
      await write(out, table.page(rows));
      rows = [];
    };
    for await (const e of newestFirst(journal, filter, damaged)) {
      rows.push(historyRow(ledgerLine(e), style));
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
  if (count === 0 && filter.batchId !== undefined) await nameSlippedBatches(filter, journal, deps);
  // What verifies is listed, but the list is short of the rest: exit 2, as history reconcile (a script's `history --csv > sent.csv && ...` stops).
  const one = damaged.length === 1;
  if (damaged.length) {
    deps.log.warn(
      `${damaged.length} journal entr${one ? 'y was' : 'ies were'} passed over: ${one ? 'it' : 'they'} could not be read or verified, so the list is incomplete (exit 2).`,
    );
    for (const m of damaged.slice(0, 5)) deps.log.warn(text(m));
    if (damaged.length > 5) deps.log.warn(`and ${damaged.length - 5} more.`);
  }
  await warnGaps(journal, deps);
  return damaged.length ? ExitCode.usage : ExitCode.ok;
}

/**
 * No payout of the batch asked for: the batches whose ids differ from it only in letter case or
 * `_ . : -` (`DEC-RUN:2026` for `Dec-run:2026`), named with the command that lists each. Never
 * matched in their place: two real batches can share such a form (`pay-1-12`, `pay-11-2`).
 */
async function nameSlippedBatches(filter: HistoryFilter, journal: Ledger, deps: Deps): Promise<void> {
  const key = batchIdSlipKey(filter.batchId!);
  const near = new Set<string>();
  for await (const e of newestFirst(journal, { ...filter, batchId: undefined }, [])) {
    if (e.batch && batchIdSlipKey(e.batch.id) === key) near.add(e.batch.id);
    if (near.size >= 5) break;
  }
  if (!near.size) return;
  const inv = invocationOf(deps.globals, deps.env);
  deps.log.warn(
    `No journaled payouts of batch "${text(filter.batchId!)}"; ${near.size === 1 ? 'a batch' : 'batches'} whose id differs from it only in letter case or _ . : -: ${[...near].map((id) => `"${text(id)}"`).join(', ')}. See ${near.size === 1 ? 'it' : 'each'} with: ${[...near].map((id) => commandLine(inv, ['history'], ['--batch-id', id])).join('; ')}`,
  );
}
