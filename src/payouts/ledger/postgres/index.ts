/**
 * The PostgreSQL store of the ledger, as commands use it (docs/architecture.md, "The ledger";
 * issue #30): open one from a URL and the run's environment (connected, its schema made current,
 * or a clear error: nothing is sent), ask its status, import a local ledger into it, check every
 * row's signature (`ledger verify`), close it.
 */
import { hostname } from 'node:os';
import type { Clock } from '../../../clock.js';
import { ConfigError } from '../../../errors.js';
import { LedgerUnreachable, connectionOf, openPool, reasonOf, unreachable, type LedgerEnv } from './connect.js';
import { migrate } from './schema.js';
import { PostgresLedger } from './store.js';
import type { RowSigner, VerifyCommand } from './signing.js';

export { LedgerUnreachable, type LedgerEnv } from './connect.js';
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
  /** The run's clock (default: the system's): what the database's is compared with (PostgresLedger.clockSkew). */
  clock?: Pick<Clock, 'now'>;
  /**
   * Told, once, when this machine's clock is far from the database's (clockWarning), and when the
   * server asks for a password and the password file was passed over for its mode (connect.ts).
   */
  warn?: (line: string) => void;
  /** The `payctl ledger verify` a row that does not verify points to, with the run's profile (openLedger prints it; default: bare). */
  verifyCommand?: VerifyCommand;
}

/** How far this machine's clock may be from the database's before it is said (a machine kept by NTP is within a second). */
export const CLOCK_WARN_MS = 60_000;

/**
 * What is said when this machine's clock is `skewMs` from the database's (ahead when negative:
 * the skew is how far the database is ahead); undefined within CLOCK_WARN_MS. Nothing is wrong
 * in the ledger: its rows and daily totals go by the database's clock; the times this machine
 * writes elsewhere (a plan's, an approval's, a report's) go by its own.
 */
export function clockWarning(skewMs: number, dbNow: Date, masked: string): string | undefined {
  if (Math.abs(skewMs) < CLOCK_WARN_MS) return undefined;
  const how = skewMs > 0 ? 'behind' : 'ahead of';
  return (
    `This machine's clock is ${span(Math.abs(skewMs))} ${how} the clock of the payout ledger ${masked} (${dbNow.toISOString().slice(0, 16).replace('T', ' ')} UTC there). ` +
    "The shared ledger dates its rows and counts daily totals and the last 24 hours by the database's clock, not this one; set this machine's clock right (NTP) for the times it writes elsewhere (plans, approvals, reports)."
  );
}

/** "3 minutes", "5 hours", "2 days": about how long. */
function span(ms: number): string {
  const min = Math.round(ms / 60_000);
  const [n, unit] = min < 90 ? [min, 'minute'] : min < 48 * 60 ? [Math.round(min / 60), 'hour'] : [Math.round(min / 1440), 'day'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/**
 * The ledger at `url`, connected and with its schema current (migrated on first use). Throws
 * LedgerUnreachable (exit 2) when the database cannot be reached or refuses the user, and
 * ConfigError (exit 2) for a URL that cannot be read or a schema newer than this payctl's;
 * every message names the URL with its password masked. Close it (`close()`) when done.
 */
export async function openPostgresLedger(url: string, o: OpenOptions): Promise<PostgresLedger> {
  const connection = connectionOf(url, o.env, o.warn);
  const pool = await openPool(connection);
  let schema: { version: number; dbNow: Date };
  try {
    schema = await migrate(pool, connection.masked);
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
  const ledger = new PostgresLedger(pool, connection, {
    schemaVersion: schema.version,
    host: o.host ?? hostname(),
    signer: o.signer,
    clock: o.clock,
    dbNow: schema.dbNow,
    verifyCommand: o.verifyCommand,
  });
  const warning = clockWarning(ledger.clockSkew(), schema.dbNow, connection.masked);
  if (warning) o.warn?.(warning);
  return ledger;
}
