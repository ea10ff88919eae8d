/**
 * The one HTTP client: one undici keep-alive dispatcher for the process (proxy from the
 * environment, explicit connect / headers / body timeouts), wrapped by auth (the API key is the
 * bearer token: docs/service.md), an Idempotency-Key on every request (the caller's for a
 * payout, a fresh UUID otherwise), retries for reads, and --verbose logging with secrets as ***.
 */
import { createDispatcher, exchange, proxyOf, type Dispatcher } from './http.js';
import { hostOf, notConnectedError, seconds, toNetworkError, triedFor } from './network-error.js';
import { ApiError, AuthError, InterruptedError, NetworkError, NotSentError, UsageError } from '../errors.js';
import { sanitize, sanitizeInline } from '../output/sanitize.js';
import { redactBody, redactHeader } from './redact.js';
import { SecretMask } from '../output/secrets.js';
import { compressedBody, parseEnvelope } from './envelope.js';
import { apiErrorFrom } from './error-answer.js';
import type { Clock } from '../clock.js';
import { READ_RETRY, isRetryableStatus, parseRetryAfter, withRetries, type RetryPolicy } from './retry.js';
import { joinUrl, resolveRoute, type RouteName } from '../service/routes.js';
import { parseErrorBody, parseOrThrow, authUserSchema, walletsSchema, type AuthUser, type Envelope, type Wallet } from '../service/schemas.js';
import { sizeWords } from '../config/regular-file.js';
import { refusedKeyHint, type KeySource } from './refused-key.js';
import { commandLine, type Invocation } from '../config/command-line.js';
import { keyIdOf } from '../config/key-id.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  raw: string;
  requestId: string | undefined;
}

export interface Credentials {
  /** The API key: sent as the bearer token. */
  apiKey: string | undefined;
  /** Where it came from, for the hint when it is refused (api/refused-key.ts). */
  source?: KeySource;
  /** For a key from PAYCTL_API_KEY: the profile's own key, sent once it is unset, as a refusal's hint names it. */
  stored?: string;
}

export interface ClientOptions {
  baseUrl: string;
  routes: Record<string, string>;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  credentials: Credentials;
  /** The time, and the waits between retries. */
  clock: Clock;
  /** --verbose sink; undefined when not verbose. */
  verbose: ((line: string) => void) | undefined;
  retry?: RetryPolicy;
  userAgent?: string;
  /** The login command for these settings, as printed in hints (default `payctl login`). */
  loginCommand?: string;
  /** The run's profile, base URL and time limit, carried by the commands printed for its answers (command()). */
  invocation?: Invocation;
  /** Answers larger than this are refused (default MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  /** Told of every credential this client holds or receives, so that output can mask it. */
  onSecret?: (secret: string) => void;
}

export interface CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: string;
  headers?: Record<string, string>;
  /** Retry connection errors, 408, 429 and 5xx (reads and other safe calls). */
  retry?: boolean;
  /** Interrupts this call instead of the process's Ctrl-C signal. */
  signal?: AbortSignal;
  /** Ends this call with NotSentError if its request has not started when it aborts (a batch's first stop); a request started goes on. */
  unsentStop?: AbortSignal;
  /** When the call ends at the latest (ms, the client's clock): an attempt is cut off then (as at --timeout), and no retry waits past it. */
  endBy?: number;
}

/**
 * A fresh version-4 UUID for the Idempotency-Key of a request that is not a payout (a read, the
 * summary): the documentation's examples send one on every request. It only has to be new, not
 * secret (a payout's key is journaled, from node:crypto, and reused on every retry), so it comes
 * from Math.random: loading node:crypto for it cost `balances --json` about 5 ms of its start.
 */
export function freshKey(): string {
  let hex = '';
  for (let i = 0; i < 4; i++)
    hex += Math.floor(Math.random() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The largest answer read (PAYCTL_MAX_RESPONSE_BYTES overrides it): a hostile or broken service cannot fill memory. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * PAYCTL_MAX_RESPONSE_BYTES (undefined when not set): a whole number of bytes, at least 1. Any
 * other value is refused before anything is sent (exit 2): `' 100'` or `1e3`, set to bound a
 * hostile service, had left the 64 MiB default in force without a word.
 */
export function maxResponseBytesFrom(env: NodeJS.ProcessEnv): number | undefined {
  const v = env.PAYCTL_MAX_RESPONSE_BYTES;
  if (v === undefined || v === '') return undefined;
  if (/^\d{1,15}$/.test(v) && Number(v) > 0) return Number(v);
  throw new UsageError(
    `PAYCTL_MAX_RESPONSE_BYTES is "${sanitizeInline(v)}": it must be a whole number of bytes, at least 1 (digits only). Nothing was sent.`,
    [],
    `For example PAYCTL_MAX_RESPONSE_BYTES=${MAX_RESPONSE_BYTES} (64 MiB, the default), or unset it.`,
  );
}

/** The code of a NetworkError for an answer that started but did not finish within --timeout: not retried. */
export const DEADLINE_CODE = 'PAYCTL_DEADLINE';

function deadlineError(url: string, timeoutMs: number): NetworkError {
  return new NetworkError(`The answer from ${hostOf(url)} did not finish within ${seconds(timeoutMs)} (it was still arriving).`, {
    causeCode: DEADLINE_CODE,
    hint: 'The service answers too slowly; try again later, or raise --timeout.',
  });
}

export class ApiClient {
  readonly baseUrl: string;
  readonly #opts: ClientOptions;
  #dispatcher: Promise<Dispatcher> | undefined;
  #sentPayout = false;
  /** A request was given up while still waiting for its connection: undici holds it queued until it gets one. */
  #abandoned = false;
  /** The key in every form a service could echo it in, masked in what it answers (made once). */
  readonly #mask = new SecretMask(4);

  constructor(opts: ClientOptions) {
    this.#opts = opts;
    this.baseUrl = opts.baseUrl;
    this.#mask.add(opts.credentials.apiKey);
    if (opts.credentials.apiKey) opts.onSecret?.(opts.credentials.apiKey);
  }

  /** Whether a payout request has left through this client (its outcome aside): cli.ts, OutputError. */
  get sentPayout(): boolean {
    return this.#sentPayout;
  }

  /**
   * The id of the key this client sends (config/key-id.ts), journaled with each payout, and
   * whether it came from PAYCTL_API_KEY: how a run tells the payouts its key sent (payouts/sender-profile.ts).
   */
  get runKey(): { keyId: string; keyFrom?: 'env' } | undefined {
    const key = this.#opts.credentials.apiKey;
    if (!key) return undefined;
    return this.#opts.credentials.source === 'env' ? { keyId: keyIdOf(key), keyFrom: 'env' } : { keyId: keyIdOf(key) };
  }

  async close(): Promise<void> {
    // A dispatcher never made (a bad proxy variable: its error is the command's) has nothing to close.
    const d = await this.#dispatcher?.catch(() => undefined);
    if (!d) return;
    // A graceful close waits for every queued request, a given-up one too (behind a proxy that
    // never opens the tunnel: for ever); such a request is not sent, so the connections go.
    if (this.#abandoned) await d.destroy().catch(() => {});
    else await d.close().catch(() => d.destroy());
  }

  /** The process's one keep-alive dispatcher, made on first use. */
  #getDispatcher(): Promise<Dispatcher> {
    this.#dispatcher ??= createDispatcher({ env: this.#opts.env, timeoutMs: this.#opts.timeoutMs });
    return this.#dispatcher;
  }

  #login(): string {
    return this.#opts.loginCommand ?? 'payctl login';
  }

  /** A payctl command for a person to run about this client's answers, with the run's --profile, --base-url and --timeout. */
  command(words: string[], args: string[] = []): string {
    return commandLine(this.#opts.invocation ?? {}, words, args);
  }

  /** One HTTP exchange, no auth, no retry. Network faults become NetworkError; Ctrl-C InterruptedError. */
  async send(
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: string,
    signal?: AbortSignal,
    timeoutMs = this.#opts.timeoutMs,
    unsentStop?: AbortSignal,
  ): Promise<HttpResponse> {
    // Built by assignment, not with spreads: in Node 20's V8 an object made by a spread and
    // more properties gets a hidden class of its own, one per request of a batch.
    const all: Record<string, string> = { accept: 'application/json', 'user-agent': this.#opts.userAgent ?? 'payctl' };
    if (body !== undefined) all['content-type'] = 'application/json';
    Object.assign(all, headers);
    const log = this.#opts.verbose;
    const secrets = this.#mask;
    if (log) {
      log(`> ${method} ${url}`);
      for (const [k, v] of Object.entries(all)) log(`> ${k}: ${redactHeader(k, v)}`);
      if (body !== undefined) log(`> ${sanitize(redactBody(body, secrets))}`);
    }
    // Timed only for --verbose: the global `performance` loads perf_hooks on first use (about a millisecond).
    const started = log ? performance.now() : 0;
    // A per-call signal replaces the process's Ctrl-C signal (a batch lets requests in flight finish).
    const interrupt = signal ?? this.#opts.signal;
    // --timeout bounds the whole exchange: a service that drips its answer a byte at a time
    // keeps undici's idle timers happy, not this one. The exchange is ended by Ctrl-C or by
    // the deadline's timer.
    let pastDeadline = false;
    const max = this.#opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    const dispatcher = await this.#getDispatcher();
    const ex = exchange(dispatcher, url, {
      method,
      headers: all,
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      maxBytes: max,
    });
    const onInterrupt = () => ex.abort(interrupt.reason instanceof Error ? interrupt.reason : new InterruptedError());
    if (interrupt.aborted) onInterrupt();
    else interrupt.addEventListener('abort', onInterrupt, { once: true });
    // Not started (waiting for its connection, or for a tunnel the proxy has not opened): nothing left, so it ends now.
    const onStop = () => ex.started || ex.abort(new NotSentError());
    if (unsentStop?.aborted) onStop();
    else unsentStop?.addEventListener('abort', onStop, { once: true });
    const deadline = setTimeout(() => {
      pastDeadline = true;
      ex.abort(new Error('deadline'));
    }, timeoutMs);
    deadline.unref();
    try {
      const res = await ex.answer;
      if (res.tooLarge) {
        throw new ApiError(`The answer from ${hostOf(url)} (HTTP ${res.statusCode}) is larger than ${sizeWords(max)}; payctl stopped reading it.`, {
          status: res.statusCode,
          hint: 'The service or a proxy in between is misbehaving. PAYCTL_MAX_RESPONSE_BYTES raises the limit.',
        });
      }
      // Our own key echoed back is masked at once, before any excerpt can cut it in half.
      const raw = secrets.applyToAnswer(res.body.toString('utf8'));
      const out: Record<string, string> = {};
      for (const k in res.headers) {
        const v = res.headers[k];
        if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      }
      if (log) {
        log(`< ${res.statusCode} (${Math.round(performance.now() - started)} ms)`);
        for (const [k, v] of Object.entries(out)) log(`< ${k}: ${sanitize(redactHeader(k, v))}`);
        // A compressed body's bytes read as text are noise: its size said instead.
        if (raw)
          log(`< ${compressedBody({ status: res.statusCode, headers: out }) ? `(${res.body.length} bytes, compressed: not shown)` : sanitize(redactBody(raw, secrets))}`);
      }
      return { status: res.statusCode, headers: out, raw, requestId: out['x-request-id'] };
    } catch (err) {
      if (!ex.started) this.#abandoned = true;
      if (interrupt.aborted) throw new InterruptedError();
      if (err instanceof ApiError || err instanceof NotSentError) throw err;
      const e = pastDeadline
        ? ex.answering
          ? deadlineError(url, timeoutMs)
          : ex.started
            ? toNetworkError({ code: 'UND_ERR_HEADERS_TIMEOUT' }, url, timeoutMs)
            : notConnectedError(url, timeoutMs, proxyOf(dispatcher, url))
        : toNetworkError(err, url, timeoutMs);
      log?.(`< ${e.causeCode ?? 'error'}: ${e.message} (${Math.round(performance.now() - started)} ms)`);
      throw e;
    } finally {
      clearTimeout(deadline);
      interrupt.removeEventListener('abort', onInterrupt);
      unsentStop?.removeEventListener('abort', onStop);
    }
  }

  /** The bearer token: the API key itself (there is no token exchange). */
  #bearer(): string {
    const key = this.#opts.credentials.apiKey;
    if (!key) throw new AuthError('Not logged in: no API key for this profile.', { hint: `Run \`${this.#login()}\` (or set PAYCTL_API_KEY).` });
    return key;
  }

  /**
   * GET /auth/user: whose the key is. A refused key is an AuthError (exit 3). Any field of the
   * account may be absent, the account itself may not: an answer without one (a 200 carrying
   * `{"message": "Unauthenticated."}`) says nothing of whose the key is, so login and status
   * never take it for a key that works.
   */
  async authUser(): Promise<{ user: AuthUser; envelope: Envelope; res: HttpResponse }> {
    const { envelope, res } = await this.callEnvelope('authUser');
    return { user: parseOrThrow(authUserSchema, envelope.data, 'the account', res.requestId), envelope, res };
  }

  /** Reads and other safe calls: connection errors, 408, 429 and 5xx retried by the one engine (retry.ts). */
  async #withRetry(attempt: () => Promise<HttpResponse>, retry: boolean, endBy?: number): Promise<HttpResponse> {
    if (!retry) return attempt();
    let last: { res?: HttpResponse; failure?: NetworkError } = {};
    const policy = this.#opts.retry ?? READ_RETRY;
    const start = this.#opts.clock.now().getTime();
    return withRetries<HttpResponse>(
      endBy === undefined ? policy : { ...policy, deadlineMs: Math.min(policy.deadlineMs, endBy - this.#opts.clock.now().getTime()) },
      async () => {
        try {
          const res = await attempt();
          last = { res };
          if (!isRetryableStatus(res.status)) return { done: res };
          return { retry: `HTTP ${res.status}`, retryAfterMs: parseRetryAfter(res.headers['retry-after'], this.#opts.clock.now()) };
        } catch (err) {
          // An answer still dripping at the deadline already used the time limit: not retried.
          if (!(err instanceof NetworkError) || err.causeCode === DEADLINE_CODE) throw err;
          last = { failure: err };
          return { retry: err.message };
        }
      },
      {
        signal: this.#opts.signal,
        clock: this.#opts.clock,
        onRetry: ({ attempt: n, waitMs }) => this.#opts.verbose?.(`* retrying in ${waitMs} ms (attempt ${n + 1} of ${(this.#opts.retry ?? READ_RETRY).maxAttempts})`),
        giveUp: (_, attempts) => {
          if (last.failure) throw triedFor(last.failure, attempts, this.#opts.clock.now().getTime() - start);
          return last.res!;
        },
      },
    );
  }

  /**
   * An authenticated call by route name: `Authorization: Bearer <API key>` and an Idempotency-Key
   * (the caller's, for a payout; else a fresh UUID, as the documentation's examples send one on
   * every request). Reads retry by default; non-2xx answers are returned, not thrown, but a 401
   * or a 403, from any route (docs/service.md: "401 (or 403) for a missing or wrong key"), is an
   * AuthError (exit 3): one rule for every command, so a script tells "log in again" from "the
   * service failed". A 403 is said as what it is, the key not allowed this request.
   */
  async call(name: RouteName, opts: CallOptions = {}): Promise<HttpResponse> {
    const route = resolveRoute(name, opts.params, this.#opts.routes);
    const url = joinUrl(this.baseUrl, route.path, opts.query);
    const retry = opts.retry ?? route.method === 'GET';
    const headers: Record<string, string> = Object.assign({}, opts.headers);
    headers.authorization = `Bearer ${this.#bearer()}`;
    headers['idempotency-key'] ??= freshKey();
    if (name === 'payoutCreate') this.#sentPayout = true;
    const limit = () => (opts.endBy === undefined ? undefined : Math.max(1, Math.min(this.#opts.timeoutMs, opts.endBy - this.#opts.clock.now().getTime())));
    const res = await this.#withRetry(() => this.send(route.method, url, headers, opts.body, opts.signal, limit(), opts.unsentStop), retry, opts.endBy);
    if (res.status === 401 || res.status === 403) {
      const parsed = parseErrorBody(res.raw);
      const said = parsed?.message ? ` (${parsed.message})` : '';
      const forbidden = res.status === 403;
      throw new AuthError(forbidden ? `The service forbids this request with this API key${said}.` : `The service refused the API key${said}.`, {
        status: res.status,
        requestId: res.requestId,
        hint: refusedKeyHint(this.#opts.credentials.source, this.#login(), forbidden, this.#opts.credentials.stored),
      });
    }
    return res;
  }

  /** GET the wallet balances, validated (balances, status, payout create and batch). */
  async wallets(): Promise<{ wallets: Wallet[]; envelope: Envelope; res: HttpResponse }> {
    const { envelope, res } = await this.callEnvelope('balances');
    return { wallets: parseOrThrow(walletsSchema, envelope.data, 'wallet balances', res.requestId), envelope, res };
  }

  /** An authenticated call whose 2xx envelope is returned; anything else throws. */
  async callEnvelope(name: RouteName, opts: CallOptions = {}): Promise<{ envelope: Envelope; res: HttpResponse }> {
    const res = await this.call(name, opts);
    if (res.status < 200 || res.status > 299) throw apiErrorFrom(res);
    return { envelope: parseEnvelope(res), res };
  }
}

export { parseEnvelope } from './envelope.js';

export { apiErrorFrom };
