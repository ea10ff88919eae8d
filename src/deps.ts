/**
 * What every command receives (docs/architecture.md, "Deps"): streams, environment, options,
 * clock, an abort signal for Ctrl-C, and lazy, memoized getters for the config
 * store, the API client and the prompter, and what the run opened that the entry closes when
 * the command ends (a shared ledger's connections). Nothing below src/cli.ts reads the process globals.
 */
import type { ConfigStore } from './config/store.js';
import type { ApiClient } from './api/client.js';
import type { KeyTarget } from './api/session.js';
import type { Prompter } from './output/prompter.js';
import type { IO, Log } from './output/io.js';
import type { GlobalOptions } from './config/globals.js';
import type { Clock } from './clock.js';
import type { Host } from './host.js';
import type { RunResources } from './payouts/open-ledger.js';

export type { IO, Log } from './output/io.js';
export type { GlobalOptions } from './config/globals.js';
export { write } from './output/io.js';

export interface Deps {
  io: IO;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  /** The command line as typed (without node and the script), for "retry with" hints. */
  argv: readonly string[];
  /** The time, and waits (retries, back-off): the system clock, or a test's. */
  clock: Clock;
  /** This process, the user, and signals to other processes (the sandbox commands). */
  host: Host;
  /** Aborted on the first Ctrl-C. */
  signal: AbortSignal;
  config(): ConfigStore;
  api(): Promise<ApiClient>;
  /** A client for a given base URL and API key, ignoring stored credentials (login). */
  apiWith(target: KeyTarget): Promise<ApiClient>;
  prompter(): Promise<Prompter>;
  /** Messages for people on stderr (never results). */
  log: Log;
  /** What the run opened (a shared ledger, payouts/open-ledger.ts), closed by the entry when the command ends. */
  resources: RunResources;
}

/** Resolves when `signal` aborts (Ctrl-C or SIGTERM): how a long-running command waits to stop. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
