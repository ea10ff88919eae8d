/**
 * Forwarding an accepted webhook event to the person's app (`webhooks listen --forward-to`):
 * the raw body with the sender's headers (less hop-by-hop ones), through the one HTTP client
 * (docs/architecture.md, "Layers": api), and the app's answer, up to 1 MiB, to pass back to the
 * sender. A password in the URL is sent to the app as Basic auth and shown as `***` wherever
 * the URL or an error quoting it is printed (docs/architecture.md, "Where each rule lives":
 * secrets masked in everything printed).
 */
import type { IncomingMessage } from 'node:http';
import { MAX_BODY } from './event.js';

type Http = typeof import('../api/http.js');
type Dispatcher = import('../api/http.js').Dispatcher;

/** Headers not passed on when forwarding (hop-by-hop, or set by the forwarder). */
const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

/** What the app answered a forwarded event (status null: it could not be reached). */
export interface Forwarded {
  status: number | null;
  ms: number;
  /** The app's answer, up to MAX_BODY; undefined when it was larger (or there was none). */
  body?: Buffer;
  contentType?: string;
  retryAfter?: string;
  error?: string;
}

/** The URL as printed: its password (if any) as `***`, or a user name given alone (a token, as often) as `***`. */
export function shownUrl(u: URL): string {
  if (!u.password && !u.username) return u.href;
  const shown = new URL(u.href);
  if (u.password) shown.password = '***';
  else shown.username = '***';
  return shown.href;
}

/** The sender's headers for the app: hop-by-hop ones dropped, the URL's credentials as Basic auth. */
function forwardHeaders(to: URL, req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined && !HOP.has(k.toLowerCase())) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  // Credentials in the URL are for the app (as curl sends them): Basic auth, not the path.
  if (to.username || to.password) {
    for (const k of Object.keys(headers)) if (k.toLowerCase() === 'authorization') delete headers[k];
    const user = `${decodeURIComponent(to.username)}:${decodeURIComponent(to.password)}`;
    headers.authorization = `Basic ${Buffer.from(user, 'utf8').toString('base64')}`;
  }
  return headers;
}

/** The app at one URL, reached through one keep-alive dispatcher made when the listener starts. */
export class Forwarder {
  /** The URL as printed (its password as `***`). */
  readonly shown: string;

  private constructor(
    readonly to: URL,
    private readonly http: Http,
    private readonly dispatcher: Dispatcher,
  ) {
    this.shown = shownUrl(to);
  }

  /** Loads the HTTP client (only a listener that forwards needs it) and makes its dispatcher. */
  static async open(to: URL, agent: { env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Forwarder> {
    const http = await import('../api/http.js');
    return new Forwarder(to, http, await http.createDispatcher(agent));
  }

  /** Any text that might quote the URL's password (an error from the connection): masked. */
  mask(t: string): string {
    return this.to.password ? t.split(this.to.password).join('***') : t;
  }

  /** POSTs the raw body with the sender's headers (less hop-by-hop ones) to the app; never throws. */
  async send(req: IncomingMessage, body: Buffer): Promise<Forwarded> {
    const started = performance.now();
    const headers = forwardHeaders(this.to, req);
    try {
      // The app's answer, up to MAX_BODY; past it, the rest is dropped (body undefined).
      const r = await this.http.exchange(this.dispatcher, this.to, { method: 'POST', headers, body, maxBytes: MAX_BODY }).answer;
      const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
      return {
        status: r.statusCode,
        ms: Math.round(performance.now() - started),
        body: r.tooLarge ? undefined : r.body,
        contentType: one(r.headers['content-type']),
        retryAfter: one(r.headers['retry-after']),
      };
    } catch (err) {
      return { status: null, ms: Math.round(performance.now() - started), error: (err as Error).message };
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
