/**
 * `payctl ledger import`: copies this config folder's local journal into the profile's
 * PostgreSQL ledger (README "Working as a team"), entry by entry: one already there is counted,
 * never duplicated; one the ledger holds with other details (another key or body for the same
 * payout id) is a conflict, listed with why, and never overwritten. Running it again imports
 * nothing new. Exit 0 when every entry is in the ledger, 1 when conflicts or unreadable
 * entries were left out, 2 when the profile's ledger is local or cannot be reached.
 */
import { write, type Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { ledgerSetting, openLocalLedger, openSharedLedger } from '../../payouts/open-ledger.js';
import { jsonLine } from '../../output/json.js';
import { plural, text } from '../../output/text.js';

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
  const counts = await importEntries(local, shared);
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
  }
  return conflicts.length || counts.unreadable ? 1 : 0;
}
