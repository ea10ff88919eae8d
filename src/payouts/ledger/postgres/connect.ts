/**
 * Reaching a team's PostgreSQL ledger (docs/architecture.md, "The ledger"): the connection
 * settings of a URL read as libpq (psql) reads them, with its PG* variables and password file
 * from the environment handed in (never the process's own); the `pg` client loaded only when a
 * PostgreSQL ledger is opened (in the build, dist/vendor/pg.cjs: scripts/build.mjs); a small
 * pool; and the URL as payctl shows it, its password masked by the one rule of every path
 * (config/ledger-setting.ts maskLedgerUrl). Nothing here ever puts the password in a message. A password file passed over for its mode (others can read it) is said,
 * with the chmod that fixes it: psql warns of it, and payctl said only that no password was given.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { ConfigError } from '../../../errors.js';
import { SSL_MODES, decideTls } from '../../../config/ledger-tls.js';
import { maskLedgerUrl } from '../../../config/ledger-setting.js';
import { shellQuote } from '../../../config/shell.js';
import { homeOf } from '../../../config/paths.js';

/** The environment a ledger is opened with: PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, PGPASSFILE, ... */
export type LedgerEnv = Readonly<Record<string, string | undefined>>;

/**
 * Connections of one ledger: a batch's 8-32 claims in flight share them (each is a short
 * statement), beside the one a batch run's lock holds for its length (batch-lock.ts).
 */
export const POOL_MAX = 5;
/** How long opening a connection may take before the ledger counts as unreachable (PGCONNECT_TIMEOUT overrides). */
const CONNECT_TIMEOUT_MS = 10_000;
/** How long a statement may go unanswered. */
const QUERY_TIMEOUT_MS = 60_000;

/**
 * The shared ledger cannot be reached (or refused this user): nothing was sent (exit 2). The
 * message says which ledger (its URL masked), why, and that payctl does not fall back to the
 * local journal.
 */
export class LedgerUnreachable extends ConfigError {
  constructor(
    readonly url: string,
    readonly reason: string,
    after = 'Nothing was sent.',
  ) {
    super(
      `Cannot reach the payout ledger ${url}: ${reason}.${after ? ` ${after}` : ''}`,
      'Check the URL, that the server is running and that it accepts this user (PGUSER, PGPASSWORD and ~/.pgpass are read as psql reads them), then run the same command again. payctl never falls back to the local journal when the shared ledger is unreachable.',
    );
  }
}

/** What a URL and the environment say about a connection: the pool's settings, the URL masked, and what to keep out of messages. */
export interface Connection {
  config: PoolConfig;
  /** The URL as shown, its password masked: maskLedgerUrl (config/ledger-setting.ts, the one rule). */
  masked: string;
  /** A message with any occurrence of the password replaced: for errors of the client or the server. */
  scrub(message: string): string;
  /** Set when the server asked for a password and the password file was passed over for its mode: why, and the chmod (passwordFile's `skipped`). */
  passFileSkipped?: string;
}

/**
 * The connection a URL names, libpq's way: what the URL (or its query: host, port, user,
 * password, dbname, sslmode, sslrootcert, sslcert, sslkey, connect_timeout, options) leaves out
 * comes from PGHOST, PGPORT, PGUSER (else USER, LOGNAME or USERNAME: the login name),
 * PGDATABASE (else the user), PGPASSWORD (else the password file: PGPASSFILE or ~/.pgpass,
 * 0600), PGSSLMODE (else prefer on this machine, verify-full for another: ledger-tls.ts,
 * which refuses a non-TLS sslmode there), PGSSLROOTCERT, PGSSLCERT, PGSSLKEY, PGCONNECT_TIMEOUT
 * and PGOPTIONS. Every setting is given to the client, so it never reads the process's own
 * environment (a host left unset is localhost over TCP, not libpq's socket folder). A URL that cannot be read is a
 * ConfigError (masked); a non-TLS sslmode for another machine a UsageError (both exit 2).
 * `warn` is told, once, when the server asks for a password and there is none because the
 * password file was passed over for its mode (and reasonOf says it in the error that follows).
 */
export function connectionOf(url: string, env: LedgerEnv, warn?: (line: string) => void): Connection {
  const masked = maskLedgerUrl(url);
  const u = parseUrl(url, masked);
  const q = (name: string) => u.searchParams.get(name) || undefined;
  const host = q('host') ?? (u.hostname ? decodeURIComponent(u.hostname.replace(/^\[(.*)\]$/, '$1')) : undefined) ?? env.PGHOST ?? 'localhost';
  const portText = q('port') ?? (u.port || undefined) ?? env.PGPORT ?? '5432';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw new ConfigError(`The ledger URL ${masked} names port "${portText}", which is not a port.`);
  const user = q('user') ?? (u.username ? decodeURIComponent(u.username) : undefined) ?? env.PGUSER ?? env.USER ?? env.LOGNAME ?? env.USERNAME;
  const database = q('dbname') ?? (u.pathname.length > 1 ? decodeURIComponent(u.pathname.slice(1)) : undefined) ?? env.PGDATABASE ?? user;
  const given = q('password') ?? (u.password ? decodeURIComponent(u.password) : undefined) ?? env.PGPASSWORD;
  const root = q('sslrootcert') ?? env.PGSSLROOTCERT;
  // Decided before anything connects: no password in clear text to another machine (ledger-tls.ts).
  const inUrl = q('sslmode');
  const tls = decideTls(
    { host, sslmode: inUrl ?? env.PGSSLMODE, fromEnv: inUrl === undefined && env.PGSSLMODE !== undefined, rootCert: !!root },
    'The ledger URL',
    masked,
    masked !== url,
  );
  const timeout = q('connect_timeout') ?? env.PGCONNECT_TIMEOUT;
  const seconds = timeout === undefined ? undefined : Number(timeout);
  const config: PoolConfig = {
    host,
    port,
    user,
    database,
    // A function: the client then never looks for a password itself (in the process's
    // environment). Undefined when there is none: the client then sends none.
    password: (() => given ?? fromFile()) as () => string,
    ssl: sslOf(tls.mode, { root, cert: q('sslcert') ?? env.PGSSLCERT, key: q('sslkey') ?? env.PGSSLKEY }, masked),
    options: q('options') ?? env.PGOPTIONS,
    application_name: 'payctl',
    client_encoding: 'UTF8',
    connectionTimeoutMillis: seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? Math.max(seconds, 2) * 1000 : CONNECT_TIMEOUT_MS,
    // A connection that went silent (a network gone) is noticed in seconds, not hours; a
    // statement unanswered for a minute fails (a claim: nothing sent; an outcome: unknown).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    query_timeout: QUERY_TIMEOUT_MS,
    max: POOL_MAX,
    idleTimeoutMillis: 10_000,
    // Idle connections do not keep a finished run's process alive.
    allowExitOnIdle: true,
  };
  const words = [given, given === undefined ? undefined : encodeURIComponent(given)].filter((w): w is string => !!w && w.length >= 3);
  const scrub = (message: string) => {
    let out = message;
    for (const w of words) out = out.split(w).join('****');
    return out.split(url).join(masked);
  };
  const connection: Connection = { config, masked, scrub };
  // Asked only when the server asks for a password (each new connection of the pool).
  function fromFile(): string | undefined {
    const found = passwordFile(env, { host, port, database, user });
    if (found.skipped && connection.passFileSkipped === undefined) {
      connection.passFileSkipped = found.skipped;
      warn?.(`The password file ${found.skipped}. Until then no password is read from it.`);
    }
    return found.password;
  }
  return connection;
}

function parseUrl(url: string, masked: string): URL {
  if (!/^postgres(?:ql)?:\/\//i.test(url)) {
    throw new ConfigError(`The ledger URL ${masked} is not a PostgreSQL URL: write it as postgres://user@host:port/database.`);
  }
  try {
    return new URL(url);
  } catch {
    // An empty host with a user (postgres://user@/db?host=/run/postgresql): libpq's default host.
    try {
      const u = new URL(url.replace('@/', '@placeholder.invalid/'));
      u.hostname = '';
      return u;
    } catch {
      throw new ConfigError(`The ledger URL ${masked} cannot be read as a URL: write it as postgres://user@host:port/database.`);
    }
  }
}

/**
 * TLS as libpq's sslmode asks: disable, allow and prefer connect without it (the client cannot
 * fall back from TLS to plain as libpq does: so they are refused for a host that is not this
 * machine, and none given there is verify-full, by decideTls before this); require encrypts
 * without checking the server's certificate (unless a root certificate is given: then as
 * verify-ca); verify-ca checks the certificate's chain; verify-full also checks it names the host.
 */
function sslOf(mode: string, files: { root?: string; cert?: string; key?: string }, masked: string): false | ConnectionOptions {
  if (!SSL_MODES.includes(mode)) throw new ConfigError(`The ledger URL ${masked} asks for sslmode "${mode}": it is one of ${SSL_MODES.join(', ')}.`);
  if (mode === 'disable' || mode === 'allow' || mode === 'prefer') return false;
  const read = (file: string | undefined, what: string) => {
    if (!file) return undefined;
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`Cannot read the ${what} ${file} of the ledger ${masked}: ${(err as Error).message}.`);
    }
  };
  const ca = read(files.root, 'root certificate (sslrootcert)');
  const tls: ConnectionOptions = { cert: read(files.cert, 'client certificate (sslcert)'), key: read(files.key, 'client key (sslkey)') };
  if (ca) tls.ca = ca;
  if (mode === 'require' && !ca) return { ...tls, rejectUnauthorized: false };
  if (mode === 'verify-full') return { ...tls, rejectUnauthorized: true };
  // verify-ca (or require with a root certificate): the chain, not the name.
  return { ...tls, rejectUnauthorized: true, checkServerIdentity: () => undefined };
}

/**
 * The password from libpq's password file (PGPASSFILE, else ~/.pgpass): the first line
 * `host:port:database:user:password` whose fields match (`*` matches anything; `\:` and `\\`
 * are escapes). A file group or others can read is passed over, as libpq does: `skipped` then
 * says so ("<path> was passed over: …"), with the chmod that fixes it, as psql warns of it.
 */
export function passwordFile(
  env: LedgerEnv,
  c: { host: string; port: number; database: string | undefined; user: string | undefined },
): { password?: string; skipped?: string } {
  // An empty or relative HOME is no home (paths.ts homeOf): never a .pgpass of the working folder.
  const home = homeOf(env);
  const file = env.PGPASSFILE || (home === undefined ? undefined : join(home, '.pgpass'));
  if (file === undefined) return {};
  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile()) return {};
    if ((st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
      return {
        skipped: `${file} was passed over: group or others can read it (mode ${mode}), and libpq (psql) passes such a file over too. Make it yours alone with: chmod 600 ${shellQuote(file)}`,
      };
    }
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const want = [c.host, String(c.port), c.database ?? '', c.user ?? ''];
  for (const line of text.split(/\r?\n/)) {
    if (!line || line.startsWith('#')) continue;
    const fields = splitPassLine(line);
    if (fields.length < 5) continue;
    if (want.every((w, i) => fields[i] === '*' || fields[i] === w)) return { password: fields.slice(4).join(':') };
  }
  return {};
}

function splitPassLine(line: string): string[] {
  const fields: string[] = [];
  let cur = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && i + 1 < line.length) cur += line[++i];
    else if (ch === ':' && fields.length < 4) {
      fields.push(cur);
      cur = '';
    } else cur += ch;
  }
  fields.push(cur);
  return fields;
}

/** The `pg` module, loaded now (its namespace under vitest, its default under the CommonJS bundle: either). */
export async function loadPg(): Promise<typeof import('pg')> {
  let mod: typeof import('pg') & { default?: typeof import('pg') };
  try {
    mod = (await import('pg')) as typeof mod;
  } catch (err) {
    throw new ConfigError(
      `The PostgreSQL client (pg) cannot be loaded: ${(err as Error).message}. Nothing was sent.`,
      'Reinstall payctl (npm install -g payctl): pg comes with it.',
    );
  }
  return mod.default ?? mod;
}

/** A pool of connections to the ledger; errors of idle connections (a restarted server) only retire them. */
export async function openPool(c: Connection): Promise<Pool> {
  const pg = await loadPg();
  const pool = new pg.Pool(c.config);
  pool.on('error', () => {
    // An idle connection broke: the pool drops it and the next query opens another (or fails, said then).
  });
  return pool;
}

/**
 * Hears a connection's 'error' events while it is checked out of the pool (the pool hears only
 * idle ones): the server ending it between two queries (a restart, pg_terminate_backend, a network
 * cut) is otherwise an unhandled 'error' event, which ends the process with a stack trace. `onError`
 * is told the first; the next query on the connection fails and says why. Returns what to call
 * before the connection is released: its listener removed when nothing was heard; a broken one,
 * which the pool ends, keeps hearing (and ignoring) what it still says.
 */
export function hearErrors(client: PoolClient, onError: (err: Error) => void = () => {}): () => void {
  let heard = false;
  const listener = (err: Error) => {
    if (!heard) onError(err);
    heard = true;
  };
  client.on('error', listener);
  return () => {
    if (!heard) client.off('error', listener);
  };
}

/**
 * Why a query or a connection failed, in words, without the password: the server's or the
 * client's message; when no password was given and the password file was passed over for its
 * mode, that too, with the chmod that fixes it.
 */
export function reasonOf(err: unknown, c: Pick<Connection, 'scrub' | 'passFileSkipped'>): string {
  const e = err as Error & { code?: string; errors?: Error[] };
  let message = e?.message || e?.errors?.map((x) => x.message).find(Boolean) || e?.code || String(err);
  if (/client password must be a string/.test(message))
    message = c.passFileSkipped
      ? `the server asks for a password and none was given: none is in the URL or PGPASSWORD, and the password file ${c.passFileSkipped}`
      : 'the server asks for a password and none was given (in the URL, PGPASSWORD or the password file)';
  if (/^timeout expired$|Connection terminated due to connection timeout/i.test(message)) message = 'no connection within the time allowed (connect_timeout)';
  if (/^Query read timeout$/i.test(message)) message = `no answer within ${QUERY_TIMEOUT_MS / 1000} s`;
  // Said inside a sentence: "The server does not support SSL connections" as "the server ...".
  if (/^[A-Z][a-z]/.test(message)) message = message[0]!.toLowerCase() + message.slice(1);
  return c.scrub(message.replace(/\.$/, ''));
}

/**
 * Whether a failure is of reaching the database (refused, timed out, the connection lost, the
 * server shutting down or not accepting this user), not of a statement it ran.
 */
export function unreachable(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown } | undefined;
  // The server's errors come with a severity and a SQLSTATE; the others are the network's or the client's.
  if (typeof e?.severity !== 'string') return true;
  return typeof e.code === 'string' && /^(08|28|3D|53|57P)/.test(e.code);
}
