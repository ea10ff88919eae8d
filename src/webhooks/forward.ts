/**
 * Forwarding an accepted webhook event to the person's app (`webhooks listen --forward-to`):
 * the raw body with the sender's headers (less hop-by-hop ones), through the one HTTP client
 * (docs/architecture.md, "Layers": api), and the app's answer, up to 1 MiB, to pass back to the
 * sender. A password in the URL is sent to the app as Basic auth and shown as `***` wherever
 * the URL or an error quoting it is printed (docs/architecture.md, "Where each rule lives":
 * secrets masked in everything printed). A forward is given up to its limit (`limitMs`: ten
 * minutes, or --timeout when longer), not --timeout: the sender is answered at --timeout
 * (relay.ts), but the app may still answer, and a late 2xx must be seen so that the event's
 * retry is not forwarded again (the app would act twice). Only --timeout bounds the connection.
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
  /** The Location of a redirect (a 3xx), as the app wrote it: never followed, never passed on. */
  location?: string;
  error?: string;
}

/** How long a forward may wait for the app's whole answer: ten minutes, or --timeout when longer. */
export const FORWARD_LIMIT_MS = 10 * 60_000;

/** The URL as printed: its password (if any) as `***`, or a user name given alone (a token, as often) as `***`. */
export function shownUrl(u: URL): string {
  if (!u.password && !u.username) return u.href;
  const shown = new URL(u.href);
  if (u.password) shown.password = '***';
  else shown.username = '***';
  return shown.href;
}

/** A time as the listener says it: "30 s", "0.3 s", "10 min", "2 min 5 s". */
export function shownSeconds(ms: number): string {
  const s = Math.round(ms / 100) / 10;
  if (s < 60) return `${s} s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)} min${whole % 60 ? ` ${whole % 60} s` : ''}`;
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
    /** How long a forward may wait for the app's whole answer. */
    readonly limitMs: number,
  ) {
    this.shown = shownUrl(to);
  }

  /** Set once the listener stops: what a forward ended then comes to is not said. */
  stopping = false;

  /** Forwards not settled yet: stopping ends them (close). */
  private readonly pending = new Set<{ abort(reason: Error): void }>();

  /**
   * Loads the HTTP client (only a listener that forwards needs it) and makes its dispatcher:
   * connecting bounded by --timeout, an answer by `limitMs`.
   */
  static async open(to: URL, agent: { env: NodeJS.ProcessEnv; timeoutMs: number; limitMs: number }): Promise<Forwarder> {
    const http = await import('../api/http.js');
    return new Forwarder(to, http, await http.createDispatcher(agent), agent.limitMs);
  }

  /** How many forwards are still waiting for the app's answer. */
  get outstanding(): number {
    return this.pending.size;
  }

  /** Any text that might quote the URL's password (an error from the connection): masked. */
  mask(t: string): string {
    return this.to.password ? t.split(this.to.password).join('***') : t;
  }

  /**
   * POSTs the raw body with the sender's headers (less hop-by-hop ones) to the app and waits up
   * to `limitMs` for its whole answer (undici's own per-request limits off: this one timer
   * bounds it), or until `end` is aborted (relay.ts ends a forward it cannot hold); never throws.
   */
  async send(req: IncomingMessage, body: Buffer, end?: AbortSignal): Promise<Forwarded> {
    const started = performance.now();
    const headers = forwardHeaders(this.to, req);
    // The app's answer, up to MAX_BODY; past it, the rest is dropped (body undefined).
    const x = this.http.exchange(this.dispatcher, this.to, { method: 'POST', headers, body, maxBytes: MAX_BODY, headersTimeout: 0, bodyTimeout: 0 });
    const limit = setTimeout(() => x.abort(new Error(`the app did not answer within ${shownSeconds(this.limitMs)} (the forward limit)`)), this.limitMs);
    this.pending.add(x);
    end?.addEventListener('abort', () => x.abort(end.reason as Error), { once: true });
    try {
      const r = await x.answer;
      const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
      return {
        status: r.statusCode,
        ms: Math.round(performance.now() - started),
        body: r.tooLarge ? undefined : r.body,
        contentType: one(r.headers['content-type']),
        retryAfter: one(r.headers['retry-after']),
        location: r.statusCode >= 300 && r.statusCode < 400 ? one(r.headers.location) : undefined,
      };
    } catch (err) {
      return { status: null, ms: Math.round(performance.now() - started), error: (err as Error).message };
    } finally {
      clearTimeout(limit);
      this.pending.delete(x);
    }
  }

  /** Stops: forwards still waiting for the app are ended (the listener said so), then the connections closed. */
  async close(): Promise<void> {
    this.stopping = true;
    for (const x of this.pending) x.abort(new Error('the listener stopped'));
    await this.dispatcher.close();
  }
}
