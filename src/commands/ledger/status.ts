/**
 * `payctl ledger status`: which ledger the profile's payouts are journaled in (README "Working
 * as a team"). Local: the journal folder and how many entries it holds. PostgreSQL: the URL
 * with its password masked, whether it can be reached (and why not), its schema version and
 * entries. Exit 0 when the ledger can be read; 2 when the PostgreSQL ledger cannot be reached
 * (the card is printed first, then the error).
 */
import { write, type Deps } from '../../deps.js';
import { CliError, InterruptedError } from '../../errors.js';
import { ledgerSetting, openLocalLedger, openSharedLedger, type SharedLedgerSetting } from '../../payouts/open-ledger.js';
import { renderCard, text } from '../../output/text.js';
import { makeStyle, type Style } from '../../output/style.js';
import { jsonLine } from '../../output/json.js';

export interface LedgerStatusOptions {
  _?: never;
}

export async function run(_opts: LedgerStatusOptions, deps: Deps): Promise<number> {
  // A profile that does not exist is refused (exit 2, the known ones named), not taken for a local one.
  deps.config().getProfile(deps.globals.profile, { readSecrets: false });
  const setting = ledgerSetting(deps);
  const style = makeStyle(deps.io.color);
  const from = setting.source === 'env' ? 'PAYCTL_LEDGER_URL' : setting.source;
  if (setting.backend === 'local') {
    const local = openLocalLedger(deps);
    let entries = 0;
    let unreadable = 0;
    for await (const item of local.scan()) {
      if ('entry' in item) entries += 1;
      else unreadable += 1;
    }
    if (deps.globals.json) {
      await write(deps.io.stdout, jsonLine({ profile: deps.globals.profile, backend: 'local', source: from, path: local.dir, entries, unreadable }));
    } else {
      const pairs: Array<[string, string]> = [
        ['Ledger', `local${setting.source === 'env' ? style.dim(' (from PAYCTL_LEDGER_URL)') : ''}`],
        ['Journal', text(local.dir)],
        ['Entries', String(entries) + (unreadable ? style.red(` (and ${unreadable} that cannot be read: payctl history lists them)`) : '')],
      ];
      await write(deps.io.stdout, renderCard(pairs, style));
    }
    return 0;
  }
  return sharedStatus(setting, from, deps, style);
}

async function sharedStatus(setting: SharedLedgerSetting, from: string, deps: Deps, style: Style): Promise<number> {
  const head: Array<[string, string]> = [
    ['Ledger', `postgresql${setting.source === 'env' ? style.dim(' (from PAYCTL_LEDGER_URL)') : ''}`],
    ['URL', text(setting.masked)],
  ];
  let status: { schemaVersion: number; entries: number };
  try {
    status = await (await openSharedLedger(deps, setting)).status();
  } catch (err) {
    if (!(err instanceof CliError) || err instanceof InterruptedError) throw err;
    const reason = reasonOf(err);
    if (deps.globals.json) {
      const doc = { profile: deps.globals.profile, backend: 'postgresql', source: from, url: setting.masked, reachable: false, reason };
      await write(deps.io.stdout, jsonLine(doc));
    } else await write(deps.io.stdout, renderCard([...head, ['Reachable', style.red(`no: ${text(reason)}`)]], style));
    throw err;
  }
  if (deps.globals.json) {
    const doc = {
      profile: deps.globals.profile,
      backend: 'postgresql',
      source: from,
      url: setting.masked,
      reachable: true,
      schema_version: status.schemaVersion,
      entries: status.entries,
    };
    await write(deps.io.stdout, jsonLine(doc));
  } else {
    const pairs: Array<[string, string]> = [
      ...head,
      ['Reachable', style.green('yes')],
      ['Schema version', String(status.schemaVersion)],
      ['Entries', String(status.entries)],
    ];
    await write(deps.io.stdout, renderCard(pairs, style));
  }
  return 0;
}

/** Why the ledger could not be opened, in a few words (the store's reason when it gives one). */
function reasonOf(err: CliError): string {
  const reason = (err as CliError & { reason?: unknown }).reason;
  return typeof reason === 'string' && reason ? reason : err.message;
}
