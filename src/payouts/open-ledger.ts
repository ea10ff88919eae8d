/**
 * The one way commands get the ledger (docs/architecture.md, "The ledger"): today the local
 * store in the config folder; the place where a later change chooses another store (a team's
 * PostgreSQL) from the run's environment and profile. Asynchronous, so that a store that must
 * connect first can.
 */
import { configDir } from '../config/paths.js';
import type { GlobalOptions } from '../config/globals.js';
import type { Ledger } from './ledger/ledger.js';
import { LocalLedger } from './ledger/local.js';

/** What chooses the ledger of a run: its environment (the config folder) and its profile. */
export interface LedgerRun {
  env: NodeJS.ProcessEnv;
  globals: Pick<GlobalOptions, 'profile'>;
}

/** The ledger of this run: the local store in its config folder (configDir). */
export function openLedger(run: LedgerRun): Promise<Ledger> {
  return Promise.resolve(new LocalLedger(configDir(run.env)));
}
