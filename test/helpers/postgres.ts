/**
 * PostgreSQL for test files (test/helpers/postgres-cluster.ts says what the clusters are).
 *
 *   sharedPostgres()   the suite's one cluster, started by vitest's globalSetup when a file first
 *                      asks (test/helpers/postgres-global.ts): waits until it accepts connections.
 *                      Take a database of the file's own with freshDatabase(); never stop it.
 *   privatePostgres()  a cluster of the caller's own (a copy of the shared one's initdb, ~0.2 s):
 *                      for tests that stop and start the server. stop() it in an afterAll.
 *   startPostgres()    the same from initdb (~1 s), without vitest's globalSetup.
 *   sql(url, text)     a statement in a connection of its own: its rows (what a test reads or
 *                      edits in a ledger behind payctl's back).
 *
 * Only files that call these wait for PostgreSQL, and only runs with such files start it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { FAILED, READY, WANTED, freshDatabase, startPostgres, type PostgresCluster, type PostgresInfo, type SharedState } from './postgres-cluster.js';

export { startPostgres, type PostgresCluster, type PostgresInfo } from './postgres-cluster.js';

export interface SharedPostgres extends PostgresInfo {
  /** A new, empty database owned by the password role: its URL as that role. */
  freshDatabase(hint?: string): Promise<string>;
  /** How long the shared cluster took to start: initdb, then to accepting connections (ms). */
  timing: SharedState['timing'];
}

const WAIT_MS = 60_000;
let shared: Promise<SharedState> | undefined;

async function sharedState(): Promise<SharedState> {
  const state = inject('payctlPostgres');
  if (!state) throw new Error('No shared PostgreSQL: vitest.config.ts must list test/helpers/postgres-global.ts in globalSetup.');
  // The cluster starts when first asked for (test/helpers/postgres-global.ts).
  if (!existsSync(join(state, WANTED))) writeFileSync(join(state, WANTED), String(process.pid));
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (existsSync(join(state, READY))) return JSON.parse(readFileSync(join(state, READY), 'utf8')) as SharedState;
    if (existsSync(join(state, FAILED))) throw new Error(`The shared PostgreSQL did not start:\n${readFileSync(join(state, FAILED), 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`The shared PostgreSQL was not ready in ${WAIT_MS / 1000} s (${state})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The suite's shared cluster, once it accepts connections. */
export async function sharedPostgres(): Promise<SharedPostgres> {
  // A failure is not kept: each file that asks is told why.
  shared ??= sharedState().catch((err: unknown) => {
    shared = undefined;
    throw err;
  });
  const state = await shared;
  const { template: _t, ...info } = state;
  return { ...info, freshDatabase: (hint?: string) => freshDatabase(state, hint) };
}

/** A cluster of the caller's own, copied from the shared cluster's initdb; the caller stops it. */
export async function privatePostgres(): Promise<PostgresCluster> {
  if (!inject('payctlPostgres')) return startPostgres();
  const { template } = await sharedState();
  return startPostgres({ template });
}

/** Runs one statement in a connection of its own, closed after: the rows it returns. */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}
