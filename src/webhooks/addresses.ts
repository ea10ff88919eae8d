/**
 * The webhook listener's addresses as names (no DNS): whether the host it binds is a loopback
 * address or every interface (listener.ts warns about any other), and whether a --forward-to
 * URL is the listener itself (`--port 4242 --forward-to http://localhost:4242/webhooks`). Such
 * a listener forwarded each event back to itself: the copy waited for the first copy's forward,
 * which waited for the copy, until --timeout; the sender got a 502 and sent it again. Also the
 * checks of --host and --path before anything listens (a blank host, one with white space around
 * it, a host with a port, a path
 * no URL reaches; a bracketed IPv6 address is taken without its brackets).
 */
import { isIPv6 } from 'node:net';
import { networkInterfaces } from 'node:os';
import { UsageError } from '../errors.js';
import { sanitizeInline } from '../output/sanitize.js';

/**
 * A host as URL parsing writes it (127.1 is 127.0.0.1, [0:0::1] is ::1), lower case, without
 * brackets or a trailing dot; an IPv4-mapped IPv6 address ([::ffff:7f00:1]) as its IPv4.
 */
function canonicalHost(host: string): string {
  const bare = host.trim().replace(/^\[|\]$/g, '');
  let h: string;
  try {
    h = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
  } catch {
    h = bare;
  }
  h = h
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(h);
  if (!mapped) return h.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True for an address only this machine can reach: 127.x.y.z, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = canonicalHost(host);
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** True for a host that means every interface: blank (what Node does with no host), 0.0.0.0, ::. */
export function isEveryInterface(host: string): boolean {
  const h = host.trim() === '' ? '' : canonicalHost(host);
  return h === '' || h === '0.0.0.0' || h === '::';
}

/** This machine's interface addresses, as canonicalHost writes them. */
function machineAddresses(): Set<string> {
  const all = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  return new Set(all.map((a) => canonicalHost(a.address)));
}

/**
 * Whether `forward` reaches the listener on `host`, `port`: the same port, and the same address,
 * or, for a listener on loopback or every interface, any loopback or every-interface name
 * (localhost, 127.x.y.z, [::1], 0.0.0.0, [::]: which of them reaches which socket depends on
 * the system and on what localhost resolves to, so each counts), or for one on every interface
 * any of this machine's addresses. Any path: nothing but the listener answers on its port.
 */
export function forwardsToItself(forward: URL, host: string, port: number): boolean {
  const forwardPort = Number(forward.port || (forward.protocol === 'https:' ? 443 : 80));
  if (forwardPort !== port) return false;
  const f = canonicalHost(forward.hostname);
  if (f === canonicalHost(host)) return true;
  const local = (h: string) => isLoopback(h) || isEveryInterface(h);
  if (!local(host)) return false;
  return local(f) || (isEveryInterface(host) && machineAddresses().has(f));
}

/** Refuses (usage error, before anything listens) a --forward-to that is the listener itself. */
export function checkNotItself(forward: URL, shownForward: string, host: string, port: number): void {
  if (!forwardsToItself(forward, host, port)) return;
  throw new UsageError(
    `--forward-to ${shownForward} is this listener itself (port ${port} on ${sanitizeInline(host)}): every event would be forwarded back to the listener, never to your app.`,
    [],
    'Give the address your app listens on (another port), e.g. --forward-to http://localhost:3000/webhooks, or listen on another --port.',
  );
}

/**
 * The path of a request target or a --path as URL parsing leaves it (percent-encoded, dot
 * segments resolved, query and fragment dropped): what the listener compares, so a --path is
 * compared like with like. Undefined for what is not a path at all.
 */
export function urlPath(target: string): string | undefined {
  try {
    return new URL(target, 'http://listener').pathname;
  } catch {
    return undefined;
  }
}

/**
 * Refuses (usage error) a --path a sender's URL could not reach as typed: one that does not
 * start with "/", has a query or fragment, or that URL parsing would change (a space or other
 * character it percent-encodes, a "." or ".." segment, a backslash). Such a path was once
 * accepted, printed unpasteable in the Ready line, and then no event could ever match it.
 */
export function checkListenPath(path: string): string {
  if (!path.startsWith('/')) throw new UsageError('--path must start with "/".');
  const parsed = /[?#]/.test(path) ? undefined : urlPath(path);
  if (parsed === path) return path;
  const shown = `"${sanitizeInline(path)}"`;
  const why = /[?#]/.test(path) ? 'a path has no query (?) or fragment (#)' : `a URL reaches it as "${sanitizeInline(parsed ?? '')}", so no event would ever match it`;
  throw new UsageError(
    `--path ${shown} is not a plain URL path: ${why}.`,
    [],
    'Give the path as it appears in a URL: no spaces or non-ASCII characters (percent-encode them), no "." or ".." segments, no "?" or "#". For example: --path /webhooks',
  );
}

/**
 * The --host to listen on: a bracketed IPv6 address (`[::1]`, as URLs and the Ready line write
 * it) without its brackets. Refused (usage error): a blank host (Node would listen on every
 * interface, and the Ready line say "http://:PORT"), brackets around what is no IPv6 address, and
 * a host with a port (`127.0.0.1:4242`, `[::1]:4242`, `localhost:4242`), which was refused as a
 * name that "does not resolve": the port is given with --port.
 */
export function checkListenHost(host: string): string {
  if (!host.trim()) {
    throw new UsageError('--host cannot be empty: it would listen on every interface.', [], 'Use --host 127.0.0.1 (the default), or an address of this machine.');
  }
  // Not trimmed silently: said, the white space shown ("127.0.0.1 " was "does not resolve").
  if (host !== host.trim()) {
    throw new UsageError(
      `--host ${sanitizeInline(JSON.stringify(host))} has white space around it.`,
      [],
      `Give the address without it: --host ${sanitizeInline(host.trim())}`,
    );
  }
  const shown = sanitizeInline(host);
  // One colon (an IPv6 address has two or more), or one after the brackets: a port.
  const withPort = /^\[([^\]]*)\]:(.*)$/.exec(host) ?? /^([^:[\]]*):([^:]*)$/.exec(host);
  if (withPort) {
    const [, name, port] = withPort;
    throw new UsageError(
      `--host ${shown} has a port: --host takes the address only.`,
      [],
      `Give the port with --port: --host ${sanitizeInline(isIPv6(name!) ? `[${name}]` : name!)} --port ${/^\d{1,5}$/.test(port!) ? port : 'N'}`,
    );
  }
  const bracketed = /^\[(.*)\]$/.exec(host);
  if (bracketed) {
    if (isIPv6(bracketed[1]!)) return bracketed[1]!;
    throw new UsageError(`--host ${shown}: only an IPv6 address is written in brackets.`, [], 'Give a name or an IPv4 address without brackets, e.g. --host 127.0.0.1.');
  }
  if (/[[\]]/.test(host))
    throw new UsageError(`--host ${shown} is not an address: its brackets do not match.`, [], 'Write an IPv6 address as --host ::1 or --host [::1].');
  return host;
}
