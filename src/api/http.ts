/**
 * The undici pieces payctl uses: a keep-alive Agent (the environment-proxy agent when a
 * proxy is set) and request(). They are imported directly rather than through undici's
 * index: its public entry also requires fetch, WebSocket, cookies, caches and mocks at load,
 * and even with V8's code cache (bin/payctl.js) it made `balances --json` about 40 ms slower
 * on the 2-core development machine (126 ms against 87 ms, medians of 21 interleaved runs),
 * which is most of the distance to the floor of a bare Node http.get. The proxy agent loads
 * only when a proxy is configured. undici is pinned by package-lock.json, and the
 * end-to-end tests exercise this path.
 */
import { setFlagsFromString } from 'node:v8';
import Agent from 'undici/lib/dispatcher/agent.js';
import requestOn from 'undici/lib/api/api-request.js';
import type { Dispatcher } from 'undici';

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

/** One keep-alive dispatcher; HTTP(S)_PROXY and NO_PROXY from `env`; loopback never proxied. */
export async function createDispatcher(opts: AgentOptions): Promise<Dispatcher> {
  const env = opts.env;
  const timeouts = {
    // HTTP/1.1 only: the build leaves undici's HTTP/2 client out (scripts/build.mjs).
    allowH2: false,
    connect: { timeout: opts.timeoutMs },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 10_000,
  };
  const httpProxy = env.HTTP_PROXY ?? env.http_proxy ?? '';
  const httpsProxy = env.HTTPS_PROXY ?? env.https_proxy ?? '';
  if (!httpProxy && !httpsProxy) return new Agent(timeouts);
  const { default: EnvHttpProxyAgent } = await import('undici/lib/dispatcher/env-http-proxy-agent.js');
  return new EnvHttpProxyAgent({
    httpProxy,
    httpsProxy,
    noProxy: [env.NO_PROXY ?? env.no_proxy ?? '', 'localhost', '127.0.0.1', '[::1]'].filter(Boolean).join(','),
    ...timeouts,
  });
}

export interface RequestInput {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  headersTimeout?: number;
  bodyTimeout?: number;
}

/** undici's request() on a given dispatcher, taking a full URL. */
export function httpRequest(dispatcher: Dispatcher, url: string | URL, input: RequestInput): Promise<Dispatcher.ResponseData> {
  const u = typeof url === 'string' ? new URL(url) : url;
  return requestOn.call(dispatcher, { origin: u.origin, path: u.pathname + u.search, ...input });
}
