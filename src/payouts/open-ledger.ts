/**
 * The one way commands get the ledger (docs/architecture.md, "The ledger"): the run's ledger
 * setting (config/ledger-setting.ts: PAYCTL_LEDGER_URL, else the profile's `ledger`, else
 * local) chooses the local store in the config folder or a team's PostgreSQL
 * (ledger/postgres/). The PostgreSQL store, and the `pg` client with it, is imported only
 * when a run uses it. A PostgreSQL ledger that cannot be opened is an error (exit 2, nothing
 * sent), never a fall-back to the local store: the team's guarantees hold only if every
 * payout is claimed in the one place. Each store opened here is handed to the run's
 * resources, which the entry closes when the command ends (cli.ts), and opened once per run.
 */
import { systemClock, type Clock } from '../clock.js';
import { configDir } from '../config/paths.js';
import type { GlobalOptions } from '../config/globals.js';
import { openConfigStore, type ConfigStore } from '../config/store.js';
import { commandLine, invocationOf } from '../config/command-line.js';
import { LEDGER_ENV, ledgerSource, ledgerTlsWarning, resolveLedger, type LedgerSetting } from '../config/ledger-setting.js';
import type { Ledger } from './ledger/ledger.js';
import { LocalLedger } from './ledger/local.js';
import type { PostgresLedger } from './ledger/postgres/index.js';
import type { VerifyCommand } from './ledger/postgres/signing.js';

/** What a run owns and closes when it ends (Deps.resources; cli.ts closes them after the command). */
export interface RunResources {
  closeAtEnd(resource: { close(): Promise<void> }): void;
}

/**
 * What chooses the ledger of a run: its environment (the config folder), its profile, and what
 * closes it; its base URL and time limit are repeated in the commands the ledger prints.
 */
export interface LedgerRun {
  env: NodeJS.ProcessEnv;
  globals: Pick<GlobalOptions, 'profile' | 'baseUrl' | 'timeoutMs'>;
  /** The run's config store (Deps.config); else opened from `env`. */
  config?: () => ConfigStore;
  /** --verbose lines: which ledger, masked; the warning of a ledger whose certificate goes unchecked (stderr). */
  log?: { verbose(line: string): void; warn(line: string): void };
  resources: RunResources;
  /** The run's clock (Deps.clock): the local store's `now()`, the day its daily totals count. */
  clock?: Pick<Clock, 'now'>;
}

/** A PostgreSQL ledger setting. */
export type SharedLedgerSetting = Extract<LedgerSetting, { backend: 'postgresql' }>;

/**
 * The ledger setting of this run. PAYCTL_LEDGER_URL decides without reading the profile; a bad
 * value is a UsageError (exit 2). A profile that does not exist has no ledger setting: the
 * local one (`history --profile` of a removed profile reads what it journaled; the commands that
 * need the profile refuse an unknown one themselves).
 */
export function ledgerSetting(run: Omit<LedgerRun, 'resources'>): LedgerSetting {
  if (run.env[LEDGER_ENV]?.trim()) return resolveLedger(run.env, undefined);
  const store = run.config?.() ?? openConfigStore(run.env);
  return resolveLedger(run.env, store.getProfile(run.globals.profile, { readSecrets: false, mayBeNew: true }));
}

/** This config folder's own journal, whatever the setting (`ledger status`, `ledger import`). */
export function openLocalLedger(run: Pick<LedgerRun, 'env' | 'clock'>): LocalLedger {
  return new LocalLedger(configDir(run.env), run.clock);
}

/** The ledger of this run: the local store, or the team's PostgreSQL (connected and ready, or an error). */
export async function openLedger(run: LedgerRun): Promise<Ledger> {
  const setting = ledgerSetting(run);
  if (setting.backend === 'local') return openLocalLedger(run);
  return openSharedLedger(run, setting);
}

/**
 * The `payctl ledger verify` a row that does not verify points to: with the run's profile, base
 * URL and time limit (command-line.ts), so that pasted as printed it checks this ledger; and
 * PAYCTL_LEDGER_URL when that named the ledger (signing.ts verifiedEntry says it is needed).
 */
function verifyCommand(run: LedgerRun, setting: SharedLedgerSetting): VerifyCommand {
  const command = commandLine(invocationOf(run.globals, run.env), ['ledger', 'verify']);
  return setting.source === 'env' ? { command, env: LEDGER_ENV } : { command };
}

/** The PostgreSQL ledgers a run opened, by URL: a run that asks twice gets the same one. */
const opened = new WeakMap<RunResources, Map<string, Promise<PostgresLedger>>>();

/**
 * The team's PostgreSQL ledger at `setting.url`: connected and its schema migrated, or the
 * store's LedgerUnreachable (exit 2, the URL masked). The rows it writes are signed with this
 * config folder's key (ledger/ledger-key.ts). Closed by the run's resources.
 */
export function openSharedLedger(run: LedgerRun, setting: SharedLedgerSetting): Promise<PostgresLedger> {
  let mine = opened.get(run.resources);
  if (!mine) opened.set(run.resources, (mine = new Map<string, Promise<PostgresLedger>>()));
  const known = mine.get(setting.url);
  if (known) return known;
  run.log?.verbose(`ledger: PostgreSQL at ${setting.masked}${ledgerSource(setting)}`);
  // Once per run and ledger (this one is opened once): sslmode=require checks no certificate.
  const unchecked = ledgerTlsWarning(setting.url, run.env, setting.source === 'env' ? LEDGER_ENV : "The profile's ledger");
  if (unchecked) run.log?.warn(unchecked);
  const ledger = (async () => {
    const { openPostgresLedger } = await import('./ledger/postgres/index.js');
    const { rowSignerOf } = await import('./ledger/ledger-key.js');
    // Rows are signed with the person's key, else this config folder's ledger key (made on the first write).
    const signer = rowSignerOf(configDir(run.env), run.env, () => (run.clock ?? systemClock).now());
    // The run's clock, which the database's is measured against (and said when far from it).
    const l = await openPostgresLedger(setting.url, {
      env: run.env,
      signer,
      clock: run.clock ?? systemClock,
      warn: (line) => run.log?.warn(line),
      verifyCommand: verifyCommand(run, setting),
    });
    run.resources.closeAtEnd(l);
    return l;
  })();
  mine.set(setting.url, ledger);
  // A failure is not kept: the run's error says it, and nothing was opened to close.
  ledger.catch(() => mine.delete(setting.url));
  return ledger;
}
