/**
 * The PostgreSQL store of the ledger, as commands use it (docs/architecture.md, "The ledger";
 * issue #30): open one from a URL and the run's environment (connected, its schema made current,
 * or a clear error: nothing is sent), ask its status, import a local ledger into it, check every
 * row's signature (`ledger verify`), close it.
 */
import { hostname } from 'node:os';
import { ConfigError } from '../../../errors.js';
import { LedgerUnreachable, connectionOf, openPool, reasonOf, unreachable, type LedgerEnv } from './connect.js';
import { migrate } from './schema.js';
import { PostgresLedger } from './store.js';
import type { RowSigner } from './signing.js';

export { LedgerUnreachable, maskUrl, type LedgerEnv } from './connect.js';
export { SCHEMA_VERSION, MIGRATIONS } from './schema.js';
export { PostgresLedger, type PostgresLedgerStatus } from './store.js';
export { importEntries, type ImportCounts, type ImportConflict } from './import.js';
export { checkRow, problemText, rowMessage, type RowProblem, type RowSigner } from './signing.js';
export type { StoredRow } from './rows.js';
export { auditRows, type AuditReport, type KnownKey, type RowFailure, type SignerSeen } from './audit.js';

export interface OpenOptions {
  /** The run's environment: PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, PGPASSFILE, HOME, ... (connect.ts). */
  env: LedgerEnv;
  /** This machine's name, written with the rows it makes (default: the host name). */
  host?: string;
  /**
   * What signs the rows it writes (signing.ts), asked on the first write: openLedger hands in
   * the config folder's key (../ledger-key.ts). Without one, a key made for this process alone.
   */
  signer?: () => RowSigner;
}

/**
 * The ledger at `url`, connected and with its schema current (migrated on first use). Throws
 * LedgerUnreachable (exit 2) when the database cannot be reached or refuses the user, and
 * ConfigError (exit 2) for a URL that cannot be read or a schema newer than this payctl's;
 * every message names the URL with its password masked. Close it (`close()`) when done.
 */
export async function openPostgresLedger(url: string, o: OpenOptions): Promise<PostgresLedger> {
  const connection = connectionOf(url, o.env);
  const pool = await openPool(connection);
  let schemaVersion: number;
  try {
    schemaVersion = await migrate(pool, connection.masked);
  } catch (err) {
    await pool.end().catch(() => {});
    if (err instanceof ConfigError) throw err;
    const reason = reasonOf(err, connection);
    if (unreachable(err)) throw new LedgerUnreachable(connection.masked, reason);
    throw new ConfigError(
      `Cannot set up the schema of the payout ledger ${connection.masked}: ${reason}. Nothing was sent.`,
      'The first payctl to use a ledger makes its tables: its user needs the right to create them (or have the owner of the database run payctl once).',
    );
  }
  return new PostgresLedger(pool, connection, { schemaVersion, host: o.host ?? hostname(), signer: o.signer });
}
