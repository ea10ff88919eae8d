/**
 * `payctl ledger import`: copies this config folder's local journal into the profile's
 * PostgreSQL ledger (README "Working as a team"), entry by entry: one already there is counted,
 * never duplicated; one the ledger holds with other details (another key or body for the same
 * payout id) is a conflict, listed with why, and never overwritten. Running it again imports
 * nothing new. Exit 0 when every entry is in the ledger, 1 when conflicts or unreadable
 * entries were left out, 2 when the profile's ledger is local or cannot be reached.
 *
 * Entries dated in the future by the ledger's clock (the machine that journaled them had a fast
 * clock) are imported as they are, and said: left out, the shared ledger would not know those
 * payouts were sent (a batch resumed on another machine would send them again under the same
 * key, a day on perhaps past the service's memory of it), and restamped with the import's time
 * an old unanswered one would look fresh. Dated in the future, how long ago they were sent
 * cannot be told, so no command resends one of unknown outcome on its own (payouts/entry-age.ts)
 * until that date; after it, they would look freshly sent: hence the advice to reconcile them now.
 */
import { isProfileName } from '../../config/known-profiles.js';
import { write, type Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { ledgerSetting, openLocalLedger, openSharedLedger } from '../../payouts/open-ledger.js';
import { jsonLine } from '../../output/json.js';
import { plural, text, utcTime } from '../../output/text.js';
import { futureDate, FUTURE_TOLERANCE_MS } from '../../payouts/entry-age.js';
import { ledgerOutcome } from '../../payouts/history-lines.js';
import { journalBase, type JournalEntry } from '../../payouts/journal.js';
import type { ImportCounts } from '../../payouts/ledger/postgres/index.js';

export interface LedgerImportOptions {
  _?: never;
}

export async function run(_opts: LedgerImportOptions, deps: Deps): Promise<number> {
  // A profile that does not exist is refused (exit 2, the known ones named), not taken for a local one.
  deps.config().getProfile(deps.globals.profile, { readSecrets: false });
  const setting = ledgerSetting(deps);
  if (setting.backend === 'local') {
    const inv = invocationOf(deps.globals, deps.env);
    const why = setting.source === 'env' ? 'PAYCTL_LEDGER_URL is local' : `profile "${deps.globals.profile}" keeps its journal locally`;
    throw new UsageError(
      `Nothing to import into: ${why}. Nothing was copied.`,
      [],
      `Set a shared ledger first: ${commandLine(inv, ['config', 'set', 'ledger'], ['--stdin'])} (reads the PostgreSQL URL from standard input), or PAYCTL_LEDGER_URL; then run ${commandLine(inv, ['ledger', 'import'])} again.`,
    );
  }
  const shared = await openSharedLedger(deps, setting);
  const local = openLocalLedger(deps);
  const { importEntries } = await import('../../payouts/ledger/postgres/index.js');
  // Dated after the ledger's clock by more than the 24-hour rule forgives (entry-age.ts).
  const now = await shared.now();
  const counts = await importEntries(local, shared, new Date(now.getTime() + FUTURE_TOLERANCE_MS));
  const conflicts = counts.conflicts;
  if (deps.globals.json) {
    await write(
      deps.io.stdout,
      jsonLine({
        profile: deps.globals.profile,
        from: local.dir,
        to: setting.masked,
        imported: counts.imported,
        already: counts.already,
        outcomes_updated: counts.outcomes,
        conflicts: conflicts.map((c) => ({ payout_id: c.payoutId, base_url: c.baseUrl, reason: c.reason })),
        unreadable: counts.unreadable,
        dated_in_future: counts.datedAhead.map((e) => ({ payout_id: e.payoutId, base_url: e.baseUrl, created_at: e.createdAt, outcome: ledgerOutcome(e) })),
        dated_in_future_total: counts.datedAheadTotal,
      }),
    );
  } else {
    const summary =
      `Imported ${plural(counts.imported, 'entry', 'entries')} from ${text(local.dir)} into ${text(setting.masked)}: ` +
      `${counts.already} already there${counts.outcomes ? ` (${counts.outcomes} given the local outcome, which said more)` : ''}, ${conflicts.length} in conflict, ${counts.unreadable} unreadable.`;
    await write(deps.io.stdout, summary + '\n');
    if (conflicts.length) {
      deps.log.warn(
        `${plural(conflicts.length, 'entry was', 'entries were')} not imported: the shared ledger holds the same payout id with other details (never overwritten):`,
      );
      for (const c of conflicts) deps.log.info(`  ${text(c.payoutId)} (${text(c.baseUrl)}): ${text(c.reason)}`);
    }
    if (counts.unreadable)
      deps.log.warn(`${plural(counts.unreadable, 'local entry', 'local entries')} could not be read and were not imported (payctl history lists them).`);
    if (counts.datedAheadTotal) sayDatedAhead(counts, now, deps);
  }
  return conflicts.length || counts.unreadable ? 1 : 0;
}

/**
 * Entries the shared ledger now holds dated after its clock: each (up to MAX_AHEAD_LISTED), what
 * that means, and, for those of unknown outcome, to reconcile them while payctl still holds them.
 */
function sayDatedAhead(counts: ImportCounts, now: Date, deps: Deps): void {
  const n = counts.datedAheadTotal;
  const unresolved = (e: JournalEntry) => ledgerOutcome(e) === 'unknown';
  deps.log.warn(
    `${plural(n, 'entry is', 'entries are')} dated in the future by the shared ledger's clock (${utcTime(now.toISOString())} there): the clock of the machine that journaled ${n === 1 ? 'it' : 'them'} was ahead. ${n === 1 ? 'It was' : 'They were'} imported with ${n === 1 ? 'its' : 'their'} own time:`,
  );
  for (const e of counts.datedAhead) deps.log.info(`  ${text(e.payoutId)} (${text(e.baseUrl)}): ${futureDate(e, now)}, outcome ${ledgerOutcome(e)}`);
  if (n > counts.datedAhead.length) deps.log.info(`  and ${n - counts.datedAhead.length} more (payctl history lists them)`);
  deps.log.info(
    'Until that time how long ago such a payout was sent cannot be told: one of unknown outcome is never resent on its own (history reconcile lists the payouts at the service that could be it, for a person to choose); ' +
      'it counts in the daily total of every day up to the one it is dated, and the repeat guard finds it until a day after that.',
  );
  if (counts.datedAhead.some(unresolved) || n > counts.datedAhead.length)
    deps.log.info(
      `Once that time has passed, one of unknown outcome would look freshly sent and be resent on its own for a day, though it may be older than the service's memory of its key. Settle them now:\n${settleCommands(
        counts,
        deps,
      )
        .map((c) => `  ${c}`)
        .join('\n')}`,
    );
}

/**
 * A reconcile of each base URL the unknown entries dated ahead were journaled for (reconcile asks
 * one service): under the profile logged in to it when there is one, else with --base-url and
 * that service's key from PAYCTL_API_KEY. The run's own when not every entry was listed.
 */
function settleCommands(counts: ImportCounts, deps: Deps): string[] {
  const inv = invocationOf(deps.globals, deps.env);
  const store = deps.config();
  const profileOf = (url: string) =>
    // Only a name --profile takes (one edited into the file may not be: known-profiles.ts isProfileName).
    store.profileNames().find((name) => {
      if (!isProfileName(name)) return false;
      try {
        return journalBase(store.getProfile(name, { readSecrets: false })?.baseUrl ?? '') === journalBase(url);
      } catch {
        return false;
      }
    });
  const urls = [...new Set(counts.datedAhead.filter((e) => ledgerOutcome(e) === 'unknown').map((e) => e.baseUrl))];
  const out = urls.map((url) => {
    const profile = profileOf(url);
    if (profile === deps.globals.profile && inv.baseUrl === undefined) return commandLine(inv, ['history', 'reconcile']);
    return profile !== undefined
      ? commandLine({ ...inv, profile, baseUrl: undefined }, ['history', 'reconcile'])
      : // Said before the command, which ends its line: pasted, the whole line runs.
        `with ${text(url)}'s API key in PAYCTL_API_KEY (no profile here is logged in to it): ${commandLine({ ...inv, baseUrl: url }, ['history', 'reconcile'])}`;
  });
  const own = commandLine(inv, ['history', 'reconcile']);
  if (counts.datedAheadTotal > counts.datedAhead.length && !out.includes(own)) out.push(own);
  return out;
}
