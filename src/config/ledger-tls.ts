/**
 * Whether a PostgreSQL ledger's password may travel as its sslmode says (README "Working as a
 * team"). payctl's client never falls back from plain to TLS or back as libpq does: with
 * `disable`, `allow` and `prefer` it connects without TLS, and a server that asks for a
 * cleartext password gets it. So for a host other than this machine (not loopback, not a Unix
 * socket folder) those are refused (exit 2, before anything is sent), and no sslmode at all
 * means `verify-full`. `require` keeps libpq's meaning (encrypted, the certificate not checked)
 * and is said plainly, with the form to use instead. Loopback and sockets keep libpq's default.
 */
import { UsageError } from '../errors.js';

/** libpq's sslmode values. */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/**
 * A dotted IPv4 address as node:net's isIPv4 reads one (four decimal bytes, no leading zeros),
 * without loading node:net: every command reads its ledger setting at start, and that module
 * cost `--help`, which opens no socket, about 2 ms (docs/performance.md).
 */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** The modes payctl connects without TLS in. */
const PLAIN_MODES = ['disable', 'allow', 'prefer'];

/**
 * Whether a host is this machine: a Unix socket folder (a path), `localhost`, 127.0.0.0/8 or
 * ::1 (an IPv4-mapped 127.x too). Anything else, a name that may resolve anywhere included, is
 * another machine.
 */
export function isLocalHost(host: string): boolean {
  const h = host
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase();
  if (h.startsWith('/')) return true;
  if (h === 'localhost' || h === 'localhost.') return true;
  if (IPV4.test(h)) return /^127\./.test(h);
  // An IPv6 address in its canonical form (0:0:0:0:0:0:0:1 is ::1, ::ffff:127.0.0.1 is
  // ::ffff:7f00:1), as URLs read it; anything else (a name, a zone such as ::1%lo) is not.
  let canonical: string;
  try {
    canonical = new URL(`http://[${h}]/`).hostname.slice(1, -1);
  } catch {
    return false;
  }
  return canonical === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}

/** What a ledger's connection asks for, and where. */
export interface TlsAsked {
  /** The host connected to: a name, an address, or a socket folder. */
  host: string;
  /** The sslmode given (the URL's, else PGSSLMODE), or undefined. */
  sslmode: string | undefined;
  /** Whether the sslmode came from PGSSLMODE, not the URL. */
  fromEnv?: boolean;
  /** Whether a root certificate is given (sslrootcert or PGSSLROOTCERT): `require` then checks the chain. */
  rootCert?: boolean;
}

/** The decision: the sslmode to connect with, and a warning to show when the certificate goes unchecked. */
export interface TlsDecision {
  mode: string;
  /** Set for `require` without a root certificate to another machine: the server's certificate is not checked. */
  warning?: string;
}

/**
 * The sslmode a connection uses, or a UsageError (exit 2) when it would send the password
 * without TLS to another machine. `what` names the ledger in messages ("The ledger",
 * "PAYCTL_LEDGER_URL"); `masked` is its URL with the password masked (maskLedgerUrl), and
 * `hasPassword` whether that hides one (the suggested form then says to put it back).
 * An unknown sslmode is left to the caller's own check.
 */
export function decideTls(asked: TlsAsked, what: string, masked: string, hasPassword: boolean): TlsDecision {
  const local = isLocalHost(asked.host);
  const mode = asked.sslmode ?? (local ? 'prefer' : 'verify-full');
  if (local) return { mode };
  const instead = `${verifyFullForm(masked)}${hasPassword ? ' (your password in place of ****)' : ''}`;
  if (PLAIN_MODES.includes(mode)) {
    const said = asked.fromEnv ? `PGSSLMODE=${mode}` : `sslmode=${mode}`;
    throw new UsageError(
      `${what} "${masked}" asks for ${said}, which would send the password to ${asked.host} without TLS: ` +
        'payctl connects without TLS with sslmode disable, allow and prefer, so it refuses them for a host that is not this machine. Nothing was sent.',
      [],
      `Write it with sslmode=verify-full (TLS, the server's certificate checked, and that it names the host): ${instead}. ` +
        "If the server's certificate is signed by your own CA, add sslrootcert=/path/to/root.crt as well.",
    );
  }
  if (mode === 'require' && !asked.rootCert) {
    return {
      mode,
      warning:
        `${what} ${masked} uses sslmode=require: the connection is encrypted but the server's certificate is not checked, ` +
        `so the password goes to whoever answers for ${asked.host}. Use sslmode=verify-full instead: ${instead}.`,
    };
  }
  return { mode };
}

/** The URL (masked) with sslmode=verify-full in place of any sslmode it names, or added. */
export function verifyFullForm(masked: string): string {
  if (/[?&]sslmode=[^&#]*/.test(masked)) return masked.replace(/([?&])sslmode=[^&#]*/g, '$1sslmode=verify-full');
  return `${masked}${masked.includes('?') ? '&' : '?'}sslmode=verify-full`;
}
