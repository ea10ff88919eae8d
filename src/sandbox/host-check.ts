/**
 * What a local HTTP server of payctl (the sandbox, `webhooks listen`) refuses before
 * it reads a request, so that a web page in the user's browser cannot drive it:
 *
 * - a Host that is not a loopback name (421): DNS rebinding points evil.example at
 *   127.0.0.1, and the browser then sends `Host: evil.example`;
 * - an Origin of another site (403): a page may send a "simple" cross-origin POST
 *   without a CORS preflight, e.g. an empty one to an admin route;
 * - a POST (PUT, PATCH) whose body is not `application/json` (415): text/plain and
 *   forms are exactly what a page can send without a preflight.
 *
 * Loopback names are the ones config/resolve.ts knows (isLoopbackHost): localhost, 127.x.y.z,
 * [::1], each with an optional :port. A server bound to one specific other address
 * also answers to that address.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from '../config/resolve.js';
import { sanitizeInline } from '../output/sanitize.js';

export interface LocalRequestRefusal {
  status: 421 | 403 | 415;
  code: 'MISDIRECTED_REQUEST' | 'FORBIDDEN_ORIGIN' | 'UNSUPPORTED_MEDIA_TYPE';
  message: string;
}

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** `host` or `host:port` (a name or IPv4), or `[ipv6]` with an optional port. */
const HOST_HEADER = /^(?:(\[[0-9a-f:.]+\])|([a-z0-9.-]+))(?::(\d{1,5}))?$/i;
/** application/json, any case, with optional parameters (charset=utf-8). */
const JSON_TYPE = /^\s*application\/json\s*(?:;.*)?$/is;

/** The names besides loopback a server bound to `host` answers to: that address, unless it is a wildcard. */
export function boundHostNames(host: string | undefined): string[] {
  if (host === undefined) return [];
  const h = host.trim().toLowerCase();
  if (WILDCARDS.has(h) || isLoopbackHost(h)) return [];
  return [h.includes(':') && !h.startsWith('[') ? `[${h}]` : h];
}

function nameAllowed(hostname: string, extra: readonly string[]): boolean {
  const h = hostname.toLowerCase();
  if (isLoopbackHost(h)) return true;
  return extra.some((e) => {
    const name = e.trim().toLowerCase();
    if (WILDCARDS.has(name)) return false;
    return (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name) === h;
  });
}

/** A Host header naming this machine: a loopback name or one of `extra` (see boundHostNames), with an optional port. */
export function hostHeaderAllowed(host: string | undefined, extra: readonly string[] = []): boolean {
  if (host === undefined) return false;
  const m = HOST_HEADER.exec(host);
  if (!m) return false;
  if (m[3] !== undefined && Number(m[3]) > 65535) return false;
  return nameAllowed(m[1] ?? m[2]!, extra);
}

/** An Origin header of a page on this machine (http(s) on a loopback name or one of `extra`). */
export function originAllowed(origin: string, extra: readonly string[] = []): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return nameAllowed(url.hostname, extra);
}

export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && JSON_TYPE.test(value);
}

/** Whether the request carries a body (a length above 0, or chunked). */
function hasBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length.trim() !== '0';
}

/** A header value as shown in a refusal: sanitized, on one line, bounded. */
function shown(value: string): string {
  const s = sanitizeInline(value);
  return s.length > 100 ? s.slice(0, 100) + '…' : s;
}

/**
 * Why this request must be refused before it is read, or undefined when it may go on.
 * `hosts`: names besides loopback this server answers to (boundHostNames of its address).
 */
export function checkLocalRequest(
  req: { method?: string | undefined; headers: IncomingHttpHeaders },
  opts: { hosts?: readonly string[] } = {},
): LocalRequestRefusal | undefined {
  const hosts = opts.hosts ?? [];
  const host = req.headers.host;
  if (!hostHeaderAllowed(host, hosts)) {
    return {
      status: 421,
      code: 'MISDIRECTED_REQUEST',
      message:
        host === undefined
          ? 'Refusing a request without a Host header: this local server answers only to localhost, 127.0.0.1 and [::1].'
          : `Refusing a request for host "${shown(host)}": this local server answers only to localhost, 127.0.0.1 and [::1].`,
    };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, hosts)) {
    return {
      status: 403,
      code: 'FORBIDDEN_ORIGIN',
      message: `Refusing a request from a web page at "${shown(origin)}": only pages on this machine may call this local server.`,
    };
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const type = req.headers['content-type'];
  if (BODY_METHODS.has(method) && (type !== undefined ? !isJsonContentType(type) : hasBody(req.headers))) {
    return {
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message:
        type === undefined
          ? 'Request bodies must be JSON, sent with Content-Type: application/json (none was given).'
          : `Request bodies must be JSON, sent with Content-Type: application/json (got "${shown(type)}").`,
    };
  }
  return undefined;
}
