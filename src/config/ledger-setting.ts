/**
 * The ledger setting (README "Working as a team"): where a profile's payout journal is kept.
 * `local`, the journal in the config folder (the default), or the connection string of a
 * PostgreSQL database a team shares (`postgres://` or `postgresql://`, as libpq takes it).
 * PAYCTL_LEDGER_URL is above the profile's `ledger`, which is above the default. A value is
 * checked before it is saved or used (bad input: exit 2), and shown only with its password
 * masked (`postgres://user:****@host:5432/db`): in `config`, `status`, messages and --verbose.
 */
import { UsageError } from '../errors.js';
import type { Profile } from './profile.js';
import { SSL_MODES, decideTls, type TlsDecision } from './ledger-tls.js';

export { SSL_MODES };

/** The setting's value for the journal in the config folder. */
export const LOCAL_LEDGER = 'local';

/** The variable that chooses the ledger of a run, above the profile. */
export const LEDGER_ENV = 'PAYCTL_LEDGER_URL';

/** What stands in for a password wherever a ledger URL is shown. */
const MASK = '****';

/** Query parameters that carry a password (libpq's `password`, and the client key's `sslpassword`). */
const PASSWORD_PARAMS = new Set(['password', 'sslpassword']);

/** The ledger of a run, as chosen (resolveLedger). */
export type LedgerSetting =
  | { backend: 'local'; source: 'env' | 'profile' | 'default' }
  | {
      backend: 'postgresql';
      /** The connection string, password and all: only ever handed to the client. */
      url: string;
      /** The same with its password masked: what people see. */
      masked: string;
      source: 'env' | 'profile';
    };

/** An example that works as typed (once the database exists). */
const EXAMPLE = 'postgres://payctl@db.example.com:5432/payctl?sslmode=verify-full';

/**
 * The URL with its password masked, even when it does not parse: everything between the
 * user name's `:` and the last `@` of the whole text, and password parameters. The last `@`
 * anywhere, not only before a `?` or `#`: a password with a raw `?`, `#` or `/` in it
 * ("payctl:5432?x@db") ends the URL's authority early, and a search that stopped there printed
 * the password whole. More is masked when a query holds an `@`, never less.
 */
export function maskLedgerUrl(raw: string): string {
  // The user part starts after the scheme's //, or after postgres(ql): written without it; any
  // other value is masked as if it were all user part (more masked, never less).
  const start = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/|postgres(ql)?:)/i.exec(raw)?.[0].length ?? 0;
  let out = raw;
  const at = raw.lastIndexOf('@');
  if (at >= start) {
    const colon = raw.indexOf(':', start);
    if (colon >= 0 && colon < at) out = raw.slice(0, colon + 1) + MASK + raw.slice(at);
  }
  return (
    out
      // A fragment is never shown (refused anyway): a password with `#` and `&` in it
      // (`?password=Xk3#HUNTER&TWO`) left "&TWO" after the mask.
      .replace(/#.*$/s, `#${MASK}`)
      // A password parameter's value up to the next `&`, a raw `#` in it too (`?password=Xk3#Hunter2`:
      // a fragment to a URL parser, which would leave "Hunter2" shown in the refusal of it).
      .replace(/([?&])([^=&#]*)=([^&]*)/g, (whole, sep: string, key: string) => (PASSWORD_PARAMS.has(safeDecode(key).toLowerCase()) ? `${sep}${key}=${MASK}` : whole))
      // libpq's keyword/value form ("host=db password='s3 cret'"), refused as a ledger but shown in the refusal.
      .replace(/(^|\s)([A-Za-z_]+)(\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)/g, (whole, pre: string, key: string, eq: string) =>
        PASSWORD_PARAMS.has(key.toLowerCase()) ? `${pre}${key}${eq}${MASK}` : whole,
      )
  );
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The passwords a ledger URL holds (as written and decoded): registered with the run's secret mask. */
export function ledgerSecrets(raw: string | undefined): string[] {
  if (!raw || raw === LOCAL_LEDGER) return [];
  // Not a URL: it is refused before it is used, and shown only masked. A socket folder's URL
  // ("postgres://u:pw@/db?host=/run/postgresql") is one, as pg reads it.
  const parsed = parseLedgerUrl(raw);
  if (!parsed) return [];
  const { url } = parsed;
  const out: string[] = [];
  if (url.password) out.push(url.password, safeDecode(url.password));
  for (const [k, v] of url.searchParams) if (PASSWORD_PARAMS.has(k.toLowerCase()) && v) out.push(v);
  // A password with a raw `#` (the rest a fragment to the parser): the whole of it, as written.
  if (url.hash) for (const m of raw.matchAll(/[?&]([^=&#]*)=([^&#]*#.*)$/g)) if (PASSWORD_PARAMS.has(safeDecode(m[1]!).toLowerCase())) out.push(m[2]!);
  return out;
}

/** Whether the URL carries a password (in its user part or as a parameter). */
export function hasPassword(raw: string): boolean {
  return ledgerSecrets(raw).length > 0;
}

/**
 * The URL as pg reads it: a user and password with no host before the path
 * ("postgres://u:pw@/db?host=/run/postgresql", a socket folder) is no URL to WHATWG, and pg
 * reads it with a stand-in host, as here (`noHost`). Undefined when it is no URL at all.
 */
function parseLedgerUrl(raw: string): { url: URL; noHost: boolean } | undefined {
  try {
    return { url: new URL(raw), noHost: false };
  } catch {
    try {
      return { url: new URL(raw.replace('@/', '@payctl-no-host/')), noHost: true };
    } catch {
      return undefined;
    }
  }
}

/**
 * The port of a URL that would not parse, when it is digits past 65535 (`db:99999`); undefined
 * otherwise. Read from the authority's host part (after the last @, before / ? #), so a password
 * with a raw / or @ is left to the escaping hint.
 */
function outOfRangePort(raw: string, scheme: string): string | undefined {
  const rest = raw.slice(scheme.length + 1);
  if (!rest.startsWith('//')) return undefined;
  const authority = rest.slice(2).split(/[/?#]/)[0]!;
  const m = /^(?:\[[^\]]*\]|[^:[\]]*):(\d+)$/.exec(authority.slice(authority.lastIndexOf('@') + 1));
  return m && Number(m[1]) > 65535 ? m[1] : undefined;
}

/** What of the run's environment a ledger URL's TLS depends on: the sslmode and root certificate it leaves out. */
export type TlsEnv = Readonly<{ PGSSLMODE?: string; PGSSLROOTCERT?: string }>;

/**
 * The value as it is saved or used: `local`, or a PostgreSQL URL with a host (or a `host`
 * parameter: a Unix socket folder), a known sslmode, and TLS for a host that is not this
 * machine (ledger-tls.ts: disable, allow and prefer refused there; none given is verify-full).
 * `from` names where it came from in the message (`PAYCTL_LEDGER_URL`). Without `env` the URL
 * alone decides (`config set`: it is used later, elsewhere); with it, PGSSLMODE and
 * PGSSLROOTCERT fill what the URL leaves out, as the client reads them. Throws a UsageError
 * (exit 2) that shows it masked.
 */
export function checkLedgerSetting(value: string, from = 'The ledger', env?: TlsEnv): string {
  const raw = checkLedgerUrl(value, from);
  tlsOf(raw, from, env);
  return raw;
}

/**
 * The warning a ledger URL calls for when it is set or used (sslmode=require to another
 * machine: the server's certificate is not checked), or undefined.
 */
export function ledgerTlsWarning(value: string, env?: TlsEnv, from = 'The ledger'): string | undefined {
  return tlsOf(value.trim(), from, env)?.warning;
}

function tlsOf(raw: string, from: string, env: TlsEnv | undefined): TlsDecision | undefined {
  const parsed = raw === LOCAL_LEDGER ? undefined : parseLedgerUrl(raw);
  if (!parsed) return undefined;
  const { url, noHost } = parsed;
  const host = url.searchParams.get('host') || (noHost ? '' : safeDecode(url.hostname));
  const inUrl = url.searchParams.get('sslmode') ?? undefined;
  const inEnv = env?.PGSSLMODE || undefined;
  const rootCert = !!(url.searchParams.get('sslrootcert') || env?.PGSSLROOTCERT);
  const shown = maskLedgerUrl(raw);
  return decideTls({ host, sslmode: inUrl ?? inEnv, fromEnv: inUrl === undefined && inEnv !== undefined, rootCert }, from, shown, shown !== raw);
}

function checkLedgerUrl(value: string, from: string): string {
  const raw = value.trim();
  if (raw === LOCAL_LEDGER) return raw;
  const shown = maskLedgerUrl(raw);
  const hint = `Give local, or a PostgreSQL URL such as ${EXAMPLE}.`;
  if (raw === '') throw new UsageError(`${from} cannot be empty.`, [], hint);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new UsageError(`${from} must be local or a postgres:// or postgresql:// URL (got "${shown}").`, [], hint);
  }
  const parsed = parseLedgerUrl(raw);
  if (!parsed) {
    // A port past 65535 fails the parse too: said as the port, not as a password to escape.
    const port = outOfRangePort(raw, scheme);
    if (port !== undefined) throw new UsageError(`${from} "${shown}" has the port ${port}: a port is a whole number from 1 to 65535.`, [], hint);
    throw new UsageError(`${from} "${shown}" is not a valid URL.`, [], `${hint} Characters such as @ : / ? # % in the password are written %40 %3A %2F %3F %23 %25.`);
  }
  if (!raw.slice(scheme.length + 1).startsWith('//')) throw new UsageError(`${from} "${shown}" is not a valid URL: it must start with ${scheme}://.`, [], hint);
  const { url, noHost } = parsed;
  if ((noHost || !url.hostname) && !url.searchParams.get('host')) throw new UsageError(`${from} "${shown}" names no host.`, [], hint);
  // A password with a raw ? # or / ends the authority early: the host would be part of the
  // password and the password part of the query ("payctl:5432?x@db.example.com" is host payctl).
  const authorityEnd = raw.slice(scheme.length + 3).search(/[/?#]/);
  if (authorityEnd >= 0 && raw.indexOf('@', scheme.length + 3 + authorityEnd) >= 0) {
    throw new UsageError(
      `${from} "${shown}" has an @ after a / ? or #: is the password written with one of them?`,
      [],
      `${hint} Characters such as @ : / ? # % in the password are written %40 %3A %2F %3F %23 %25.`,
    );
  }
  // pg decodes the user name and password: a % that starts no escape would fail every connection.
  for (const part of [url.username, url.password]) {
    try {
      decodeURIComponent(part);
    } catch {
      throw new UsageError(
        `${from} "${shown}" has a % in its user name or password that is not an escape such as %40.`,
        [],
        `${hint} A % in the password is written %25.`,
      );
    }
  }
  if (url.hash) throw new UsageError(`${from} "${shown}" must not have a #fragment.`, [], hint);
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode !== null && !SSL_MODES.includes(sslmode)) {
    throw new UsageError(`${from} "${shown}" has an unknown sslmode "${sslmode}".`, [], `sslmode is one of ${SSL_MODES.join(', ')}.`);
  }
  return raw;
}

/**
 * The ledger of a run: PAYCTL_LEDGER_URL (`local` too), else the profile's `ledger`, else the
 * local one. A bad value in either is a UsageError (exit 2) before anything is sent.
 */
export function resolveLedger(env: NodeJS.ProcessEnv, profile: Pick<Profile, 'ledger'> | undefined): LedgerSetting {
  const fromEnv = env[LEDGER_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return setting(checkLedgerSetting(fromEnv, LEDGER_ENV, env), 'env');
  if (profile?.ledger) return setting(checkLedgerSetting(profile.ledger, "The profile's ledger", env), 'profile');
  return { backend: 'local', source: 'default' };
}

function setting(value: string, source: 'env' | 'profile'): LedgerSetting {
  if (value === LOCAL_LEDGER) return { backend: 'local', source };
  return { backend: 'postgresql', url: value, masked: maskLedgerUrl(value), source };
}

/** Where a setting came from, for people: " (from PAYCTL_LEDGER_URL)", or nothing. */
export function ledgerSource(s: LedgerSetting): string {
  return s.source === 'env' ? ` (from ${LEDGER_ENV})` : '';
}
