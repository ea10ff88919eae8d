/**
 * The undici pieces payctl uses: a keep-alive Agent (the environment-proxy agent when a
 * proxy is set) and its dispatch(). The Agent is imported directly rather than through
 * undici's index: its public entry also requires fetch, WebSocket, cookies, caches and mocks
 * at load, and even with V8's code cache (bin/payctl.js) it made `balances --json` about 40 ms
 * slower on the 2-core development machine (126 ms against 87 ms, medians of 21 interleaved
 * runs), which is most of the distance to the floor of a bare Node http.get. The proxy agent
 * loads only when a proxy is configured. undici is pinned by package-lock.json, and the
 * end-to-end tests exercise this path.
 */
import { isIP } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import Agent from 'undici/lib/dispatcher/agent.js';
import type { Dispatcher } from 'undici';
import { isLoopbackHost } from '../config/resolve.js';
import { maskBaseUrl } from '../config/mask.js';
import { UsageError } from '../errors.js';

export type { Dispatcher };

// undici parses HTTP with a WebAssembly build of llhttp. V8 first compiles it with its
// baseline compiler and then optimizes it on background threads, and a process cannot
// exit before those threads finish: about 90 ms on every short command on this 2-core
// machine (`npm run bench`). The baseline code parses the few responses of a CLI run fast
// enough, so payctl keeps to it. This must run before undici compiles llhttp. (bin/payctl.js
// sets it too, before compiling the bundle: V8 checks its code cache against the flags.)
setFlagsFromString('--liftoff-only');

export interface AgentOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/**
 * One keep-alive dispatcher; HTTP(S)_PROXY and NO_PROXY from `env`; loopback (localhost, [::1],
 * all of 127.0.0.0/8, as config/resolve.ts isLoopbackHost) never proxied: a request to it goes
 * through a direct Agent, whatever NO_PROXY says (undici's list has no address ranges).
 */
export async function createDispatcher(opts: AgentOptions): Promise<Dispatcher> {
  const env = opts.env;
  const timeouts = {
    // HTTP/1.1 only: the build leaves undici's HTTP/2 client out (scripts/build.mjs).
    allowH2: false,
    // Certificates are checked whatever NODE_TLS_REJECT_UNAUTHORIZED says: Node's TLS reads it
    // only when no rejectUnauthorized is given, and "0" would send the key to whoever answers.
    // NODE_EXTRA_CA_CERTS still adds to the certificates trusted.
    connect: { timeout: opts.timeoutMs, rejectUnauthorized: true },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 10_000,
  };
  const httpProxy = proxyFrom(env, 'HTTP_PROXY');
  const httpsProxy = proxyFrom(env, 'HTTPS_PROXY');
  if (!httpProxy && !httpsProxy) return new Agent(timeouts);
  const [{ default: EnvHttpProxyAgent }, { default: connect }, { default: DispatcherClass }, { default: Pool }] = await Promise.all([
    import('undici/lib/dispatcher/env-http-proxy-agent.js'),
    import('undici/lib/api/api-connect.js'),
    import('undici/lib/dispatcher/dispatcher.js'),
    import('undici/lib/dispatcher/pool.js'),
  ]);
  // The proxy agent opens its tunnel with the proxy client's connect(), one of the methods
  // undici's index gives every dispatcher (Object.assign(Dispatcher.prototype, api)). Loaded
  // piece by piece, nothing had: every request behind a proxy failed with "this[...].connect
  // is not a function". Only connect is needed; the rest of the index is not loaded.
  (DispatcherClass.prototype as { connect?: unknown }).connect ??= connect;
  const tunnels = new Map<string, Tunnels>();
  const proxied = new EnvHttpProxyAgent({
    httpProxy,
    httpsProxy,
    noProxy: [env.NO_PROXY ?? env.no_proxy ?? '', 'localhost', '127.0.0.1', '[::1]'].filter(Boolean).join(','),
    ...timeouts,
    // The TLS inside the tunnel to the service, and to an https:// proxy: checked too.
    requestTls: { rejectUnauthorized: true, timeout: opts.timeoutMs },
    proxyTls: { rejectUnauthorized: true, timeout: opts.timeoutMs },
    clientFactory: tunnelClient(Pool, opts.timeoutMs, tunnels),
  });
  return loopbackDirect(new Agent(timeouts), proxied, tunnels);
}

/**
 * A failure to open the tunnel through the proxy (the proxy refused the connection, closed it,
 * did not answer, or answered CONNECT with anything but 200): no byte of the request reached the
 * service. `proxy` is the proxy's host:port, never its credentials; `cause` undici's error.
 */
export class ProxyError extends Error {
  /** Not undici's UND_ERR_SOCKET: its client takes that for a connection to retry at once, forever (nodejs/undici#3897). */
  readonly code = 'PAYCTL_PROXY';
  constructor(
    readonly proxy: string,
    readonly target: string,
    readonly status: number | undefined,
    override readonly cause: unknown,
  ) {
    super(status === undefined ? `the proxy ${proxy} failed` : `the proxy ${proxy} answered CONNECT with HTTP ${status}`);
  }
}

/** The tunnels to one target (host:port): through which proxy (host:port), and how many CONNECTs it has not answered yet. */
export interface Tunnels {
  proxy: string;
  opening: number;
}

type Tunnel = { socket: { on(e: string, f: () => void): { destroy(): void } }; statusCode: number };
type Connect = (params: { path?: string }, callback?: unknown) => Promise<Tunnel>;

/**
 * The client to the proxy (ProxyAgent's clientFactory), whose CONNECT opens each tunnel: it is
 * bounded by --timeout (undici's default waits 300 s for the proxy's answer), and any failure of
 * it becomes a ProxyError. undici 7.30 passes a dropped CONNECT on as UND_ERR_SOCKET, which its
 * client retries at once without end (a proxy that accepts and closes: thousands of CONNECTs a
 * second, the run never ending; fixed upstream by nodejs/undici#5441). Each tunnel's target
 * (host:port) is noted in `tunnels` with the proxy's host:port and the CONNECTs still unanswered.
 */
function tunnelClient(Pool: new (url: URL, o: object) => Dispatcher, timeoutMs: number, tunnels: Map<string, Tunnels>) {
  return (url: URL, o: { connect: Connector }): Dispatcher => {
    const pool = new Pool(url, { ...o, connect: byAddress(url, o.connect), headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const open = (pool.connect as unknown as Connect).bind(pool);
    const connect: Connect = (params, callback) => {
      if (callback) return open(params, callback);
      const target = params.path ?? '';
      const noted = tunnels.get(target) ?? { proxy: url.host, opening: 0 };
      tunnels.set(target, noted);
      noted.opening += 1;
      const answered = () => (noted.opening -= 1);
      return open(params)
        .finally(answered)
        .then(
          (r) => {
            if (r.statusCode === 200) return r;
            r.socket.on('error', () => {}).destroy();
            throw new ProxyError(url.host, target, r.statusCode, undefined);
          },
          (err: unknown) => {
            throw err instanceof ProxyError ? err : new ProxyError(url.host, target, undefined, err);
          },
        );
    };
    (pool as unknown as { connect: Connect }).connect = connect;
    return pool;
  };
}

type Connector = (opts: { servername?: string | null }, callback: unknown) => unknown;

/**
 * The connector to an https:// proxy given by IP address: undici names the IP as the TLS
 * ServerName (or, given none, the CONNECT's target host), and Node warned on stderr (DEP0123, with
 * --json too). Without one, the proxy's certificate is checked against its address.
 */
function byAddress(url: URL, connector: Connector): Connector {
  if (url.protocol !== 'https:' || !isIP(url.hostname.replace(/^\[|\]$/g, ''))) return connector;
  return (opts, callback) => connector({ ...opts, servername: null }, callback);
}

/**
 * The tunnels through a proxy to `url`'s host: the proxy's host:port and how many CONNECTs it has
 * not answered; undefined when no proxy was used for that host yet.
 */
export function proxyOf(dispatcher: Dispatcher, url: string): Tunnels | undefined {
  const tunnels = (dispatcher as { tunnels?: Map<string, Tunnels> }).tunnels;
  if (!tunnels) return undefined;
  try {
    const u = new URL(url);
    return tunnels.get(`${u.hostname}:${u.port || (u.protocol === 'https:' ? 443 : 80)}`);
  } catch {
    return undefined;
  }
}

/**
 * A proxy variable's value (`HTTP_PROXY`, else its lower-case name), checked to be an http:// or
 * https:// URL: anything else is bad input (exit 2, before anything is sent), said with the
 * variable's name and its value masked (a proxy password), never "a bug in payctl".
 */
function proxyFrom(env: NodeJS.ProcessEnv, name: 'HTTP_PROXY' | 'HTTPS_PROXY'): string {
  const lower = name.toLowerCase();
  const [given, value] = env[name] !== undefined ? [name, env[name]] : [lower, env[lower]];
  if (!value) return '';
  // host:port without a scheme is an http:// proxy, as curl reads it.
  const full = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) ? value : `http://${value}`;
  let url: URL | undefined;
  try {
    url = new URL(full);
  } catch {
    url = undefined;
  }
  if (url?.protocol === 'http:' || url?.protocol === 'https:') {
    checkCredentials(url, given);
    return full;
  }
  throw new UsageError(
    `${given} "${maskBaseUrl(value)}" is not a proxy payctl can use: it must be an http:// or https:// URL. Nothing was sent.`,
    [],
    `Set it as http://host:port (for example http://proxy.example:3128), or unset ${given}.`,
  );
}

/**
 * The proxy's user and password as undici reads them (decodeURIComponent): a raw `%` in them (a
 * password "50%off") threw URIError from undici's proxy agent, "URI malformed. This is a bug in
 * payctl", exit 1. Bad input instead: exit 2 naming the variable, the proxy as host:port only.
 */
function checkCredentials(url: URL, given: string): void {
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw new UsageError(
      `${given} (the proxy ${url.host}) has a user or password that is not valid percent-encoding: a "%" must be followed by two hex digits. Nothing was sent.`,
      [],
      `Write a "%" in the proxy's user or password as %25 (for example http://user:pa%25ss@${url.host}).`,
    );
  }
}

/** A dispatcher that sends to loopback origins through `direct` and to every other through `proxied`. */
function loopbackDirect(direct: Dispatcher, proxied: Dispatcher, tunnels: Map<string, Tunnels>): Dispatcher {
  const pick = (origin: unknown): Dispatcher => {
    try {
      return isLoopbackHost(new URL(String(origin)).hostname) ? direct : proxied;
    } catch {
      return proxied;
    }
  };
  const both = async (how: 'close' | 'destroy'): Promise<void> => {
    await Promise.all([direct[how](), proxied[how]()]);
  };
  return {
    dispatch: (options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => pick(options.origin).dispatch(options, handler),
    close: () => both('close'),
    destroy: () => both('destroy'),
    tunnels,
  } as unknown as Dispatcher;
}

export interface ExchangeInput {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string | Buffer;
  headersTimeout?: number;
  bodyTimeout?: number;
  /** The most of an answer's body that is read: past it the connection is dropped and the answer marked tooLarge. */
  maxBytes: number;
}

export interface Answer {
  statusCode: number;
  /** Header names in lower case; a header given more than once, as a list. */
  headers: Record<string, string | string[] | undefined>;
  /** The whole body; empty when tooLarge. */
  body: Buffer;
  /** The body was larger than maxBytes: the rest was not read, and the connection was dropped. */
  tooLarge: boolean;
}

export interface Exchange {
  /** The whole answer, once its last byte has arrived; rejects with undici's error, or with the reason given to abort(). */
  answer: Promise<Answer>;
  /**
   * Ends the exchange, its answer rejected with `reason` at once: not sent when it has not
   * started (one still waiting for a connection is dropped when it gets one), the connection
   * dropped when it has.
   */
  abort(reason: Error): void;
  /** The request has started to be written: it may have reached the service. */
  readonly started: boolean;
  /** The answer's status and headers have arrived (its body may still be arriving). */
  readonly answering: boolean;
}

let lastUrl: { text: string; url: URL } | undefined;

/** A URL parsed once for the calls made to it in a row (a batch posts every row to the same URL). */
function parsedUrl(text: string): URL {
  if (lastUrl?.text !== text) lastUrl = { text, url: new URL(text) };
  return lastUrl.url;
}

/**
 * One request and its whole answer, through the dispatcher's dispatch() with a handler that
 * gathers the body: no response stream, no AbortSignal. (undici's request() makes a Readable
 * for every body, and the caller an AbortController for every deadline: a batch sends a
 * request a row, and they cost more CPU than the rest of undici's work for it.) Errors are
 * undici's own, as request() gives them.
 */
export function exchange(dispatcher: Dispatcher, url: string | URL, input: ExchangeInput): Exchange {
  const u = typeof url === 'string' ? parsedUrl(url) : url;
  let controller: Dispatcher.DispatchController | undefined;
  let reason: Error | undefined;
  let settled = false;
  let status = 0;
  let headers: Answer['headers'] = {};
  let chunks: Buffer[] = [];
  let size = 0;
  let resolve!: (a: Answer) => void;
  let reject!: (err: unknown) => void;
  const answer = new Promise<Answer>((res, rej) => ((resolve = res), (reject = rej)));
  const finish = (a: Answer | undefined, err?: unknown) => {
    if (settled) return;
    settled = true;
    chunks = [];
    if (a) resolve(a);
    else reject(err);
  };
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(c) {
      controller = c;
      // Aborted before the request was written: it never is.
      if (reason) c.abort(reason);
    },
    onResponseStart(_c, statusCode, h) {
      // 1xx answers are informational: the answer follows.
      if (statusCode < 200) return;
      status = statusCode;
      headers = h;
    },
    onResponseData(c, chunk) {
      // Settled: too large already (the rest is dropped with the connection).
      if (settled) return;
      size += chunk.length;
      if (size > input.maxBytes) {
        finish({ statusCode: status, headers, body: Buffer.alloc(0), tooLarge: true });
        c.abort(new Error('the answer is too large'));
        return;
      }
      chunks.push(chunk);
    },
    onResponseEnd() {
      finish({ statusCode: status, headers, body: Buffer.concat(chunks, size), tooLarge: false });
    },
    onResponseError(_c, err) {
      finish(undefined, err);
    },
  };
  dispatcher.dispatch(
    {
      origin: u.origin,
      path: u.pathname + u.search,
      method: input.method,
      headers: input.headers,
      body: input.body,
      headersTimeout: input.headersTimeout,
      bodyTimeout: input.bodyTimeout,
    },
    handler,
  );
  return {
    answer,
    abort(why: Error) {
      if (settled || reason) return;
      reason = why;
      if (controller) controller.abort(why);
      // Still waiting for a connection (a proxy that never opens the tunnel): undici has no
      // controller to abort yet, and would not settle the answer until it had one.
      else finish(undefined, why);
    },
    get started() {
      return controller !== undefined;
    },
    get answering() {
      return status !== 0;
    },
  };
}
