/**
 * The sandbox: an in-process HTTP server (node:http) serving the documented Bokumonie
 * API v2 (docs/service.md) on loopback, with demo data, faults, webhooks and an optional
 * state file. Where the documentation is silent it serves the first tolerated variant,
 * and a setting (`listShape`, `errorShape`) makes it answer each other one. This module
 * wires the parts together and does the HTTP plumbing: request ids, recording, rate
 * limit, faults, admin routes, error shapes; the /v2 routes live in api.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { handleAdmin, type AdminControl } from './admin.js';
import { boundHostNames, checkLocalRequest } from './host-check.js';
import { Api, type Account } from './api.js';
import { Auth, newApiKey } from './auth.js';
import { Faults } from './faults.js';
import { IdempotencyStore } from './idempotency.js';
import { loadState, StateWriter, type PersistedState } from './persist.js';
import { RateLimiter } from './rate-limit.js';
import { RequestLog, type RecordedRequest } from './recording.js';
import { failure, failureForStatus, rateLimited, render, requestId, type Reply } from './respond.js';
import { ERROR_SHAPES, LIST_SHAPES, type ErrorShape, type ListShape } from './shapes.js';
import { demoData, generatedPayouts } from './seed.js';
import { Settlement } from './settlement.js';
import { Ledger, payoutRecord, walletRecord, webhookWire, type Payout, type PayoutRecord, type WalletRecord } from './state.js';
import { isoFromMicros, nowMicros } from './time.js';
import { WebhookSender, type DeliveryLog, type EventType } from './webhooks.js';

export type { RecordedRequest } from './recording.js';
export type { WalletRecord, PayoutRecord } from './state.js';
export type { Fault, FaultSpec, FaultKind } from './faults.js';
export { Faults } from './faults.js';
export { ERROR_SHAPES, LIST_SHAPES, type ErrorShape, type ListShape } from './shapes.js';

export interface SandboxOptions {
  /** Default 0 (a free port). */
  port?: number;
  /** The process id that /_sandbox/health reports (how `payctl sandbox stop` knows its sandbox). */
  pid?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: a random `sk_sandbox_` key (or the one kept in the state file). */
  apiKey?: string;
  /** Default 1; the demo data is a pure function of the seed (and the UTC day). */
  seed?: number;
  /** Keep state in this file across restarts (atomic, coalesced writes; flushed on close). */
  stateFile?: string;
  /** The account's `kycStatus` in GET /v2/auth/user; default "Verified". */
  kycStatus?: string;
  /** The answer of GET /v2/payout/list; default 'paginator' (Laravel's). */
  listShape?: ListShape;
  /** How errors are written; default 'laravel'. */
  errorShape?: ErrorShape;
  /** Default 3000. */
  settleAfterMs?: number;
  webhookUrl?: string;
  /** Default 'whsec_sandbox'. */
  webhookSecret?: string;
  /** Requests per second on /v2 before 429 with Retry-After; 0 or undefined: no limit. */
  rateLimit?: number;
  /** Default 500; the backoff doubles with each attempt. */
  webhookRetryBaseMs?: number;
  /** Default 8. */
  webhookMaxAttempts?: number;
  /** Default true: seed about 25 historic payouts in every status. */
  demoPayouts?: boolean;
  /**
   * Told of every request on /v2 and the answer the sandbox gave it (not of requests that got
   * no answer, nor of admin routes): how tests check both against openapi/v2.yaml. `fault` names
   * the injected fault that made the answer, if one did.
   */
  onExchange?: (request: RecordedRequest, answer: SandboxAnswer) => void;
}

/** An answer as it was written: status, headers (lower-case names) and the body text. */
export interface SandboxAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  fault?: string;
}

export interface Sandbox {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** url + '/v2' */
  readonly baseUrl: string;
  readonly port: number;
  /** The API key the sandbox accepts as the bearer token; setting it replaces the key. */
  apiKey: string;
  /** The account's KYC status (GET /v2/auth/user); settable. */
  kycStatus: string;
  readonly webhookSecret: string;
  readonly faults: Faults;
  /** Every request received on /v2, oldest first (the last 20,000). */
  requests(): RecordedRequest[];
  clearRequests(): void;
  wallets(): WalletRecord[];
  /** Every payout, newest first. */
  payouts(): PayoutRecord[];
  /** Adds or replaces a wallet; balance as a decimal string ("1250000.75"). */
  setWallet(w: { wallet_id?: string; wallet_name: string; currency: string; balance: string }): WalletRecord;
  /** Bulk records for list tests and benchmarks (they never settle). */
  generatePayouts(count: number, opts?: { walletId?: string; status?: string }): void;
  /** The old key stops working. */
  revokeApiKey(newKey?: string): void;
  /** The answer shapes served now. */
  shapes(): { list: ListShape; error: ErrorShape };
  /** Serves another list or error shape from now on. */
  setShapes(s: { list?: ListShape; error?: ErrorShape }): void;
  /** Recent webhook delivery attempts. */
  webhookDeliveries(): DeliveryLog[];
  /** Stops the server, timers and webhook retries, flushes the state file, closes open and hung sockets. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** Whose key the sandbox's is (GET /v2/auth/user); `walletId` is the first wallet's. */
const SANDBOX_ACCOUNT: Omit<Account, 'kycStatus'> = {
  email: 'aminata.kamara@sandbox.payctl.test',
  firstName: 'Aminata',
  lastName: 'Kamara',
  phone: '+23276123456',
  status: 'ACTIVE',
  businessName: 'Sandbox Payouts Ltd',
  address: '1, Water-side road, Freetown',
  country: 'SL',
};

/** Sets the answer shapes from `s`, refusing a name it does not know. */
function setShapes(target: { list: ListShape; error: ErrorShape }, { list, error }: { list?: string | undefined; error?: string | undefined }): void {
  if (list !== undefined && !LIST_SHAPES.includes(list as ListShape)) throw new RangeError(`The list shape must be one of ${LIST_SHAPES.join(', ')}, got "${list}".`);
  if (error !== undefined && !ERROR_SHAPES.includes(error as ErrorShape))
    throw new RangeError(`The error shape must be one of ${ERROR_SHAPES.join(', ')}, got "${error}".`);
  if (list !== undefined) target.list = list as ListShape;
  if (error !== undefined) target.error = error as ErrorShape;
}

class Closed extends Error {}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const host = opts.host ?? '127.0.0.1';
  const seed = opts.seed ?? 1;
  const settleAfterMs = opts.settleAfterMs ?? 3000;
  const webhookSecret = opts.webhookSecret ?? 'whsec_sandbox';

  if (opts.webhookUrl !== undefined) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(opts.webhookUrl).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw new RangeError(`The webhook URL must be an http:// or https:// URL, got "${opts.webhookUrl}".`);
  }

  const loaded: PersistedState | undefined = opts.stateFile ? await loadState(opts.stateFile) : undefined;
  const ledger = new Ledger();
  const auth = new Auth(opts.apiKey ?? loaded?.apiKey ?? newApiKey());
  const idempotency = new IdempotencyStore();
  const faults = new Faults();
  const log = new RequestLog();
  const limiter = new RateLimiter(opts.rateLimit ?? 0);
  const webhooks = opts.webhookUrl
    ? new WebhookSender({
        url: opts.webhookUrl,
        secret: webhookSecret,
        retryBaseMs: opts.webhookRetryBaseMs ?? 500,
        maxAttempts: opts.webhookMaxAttempts ?? 8,
      })
    : undefined;
  // Webhooks never fail the request that caused them.
  const emit = (event: EventType, p: Payout) => {
    try {
      webhooks?.send(event, webhookWire(p));
    } catch {
      // delivery problems show in webhookDeliveries()
    }
  };
  const settlement = new Settlement(ledger, settleAfterMs, (p) => emit(p.status === 'Failed' ? 'transfer.failed' : 'transfer.success', p));
  const shapes: { list: ListShape; error: ErrorShape } = { list: 'paginator', error: 'laravel' };
  setShapes(shapes, { list: opts.listShape, error: opts.errorShape });
  const account: Account = { ...SANDBOX_ACCOUNT, kycStatus: opts.kycStatus ?? 'Verified' };

  if (loaded) {
    for (const w of loaded.wallets) ledger.putWallet(w);
    ledger.insertMany(loaded.payouts);
    idempotency.load(loaded.idempotency);
    for (const p of loaded.payouts) if (p.autoSettle && p.status === 'Pending') settlement.schedule(p);
  } else {
    const demo = demoData(seed, Date.now(), opts.demoPayouts ?? true);
    for (const w of demo.wallets) ledger.putWallet(w);
    ledger.insertMany(demo.payouts);
  }

  const writer = opts.stateFile
    ? new StateWriter(opts.stateFile, () => ({
        version: 1,
        apiKey: auth.apiKey,
        wallets: ledger.wallets(),
        payouts: [...ledger.allPayouts()],
        idempotency: idempotency.stored().map((e) => ({
          key: e.key,
          body: e.fingerprint.raw,
          createdMs: e.createdMs,
          answer: e.answer!,
        })),
      }))
    : undefined;
  if (writer) {
    const changed = () => writer.changed();
    ledger.onChange = changed;
    idempotency.onChange = changed;
    auth.onChange = changed;
    if (!loaded) changed();
  }

  // --- closing: sleeps end, sockets are tracked ------------------------------------
  let closing = false;
  const sleepers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve, reject) => {
      if (closing) return reject(new Closed());
      const timer = setTimeout(() => {
        sleepers.delete(cancel);
        resolve();
      }, ms);
      const cancel = () => {
        clearTimeout(timer);
        reject(new Closed());
      };
      sleepers.add(cancel);
    });
  const sockets = new Set<Socket>();

  const api = new Api({
    ledger,
    auth,
    idempotency,
    settlement,
    created: (p) => emit('transfer.initiated', p),
    sleep,
    account: () => account,
    listShape: () => shapes.list,
    origin: () => url,
    render: (reply) => render(reply, shapes.error),
  });

  let port = 0;
  const control: AdminControl = {
    faults,
    get apiKey() {
      return auth.apiKey;
    },
    requests: () => log.all(),
    clearRequests: () => log.clear(),
    putWallet: (w) => ledger.setWallet(w),
    generatePayouts: (count, o) => generate(count, o),
    revokeApiKey: (k) => void auth.revoke(k),
    get kycStatus() {
      return account.kycStatus;
    },
    set kycStatus(k: string) {
      account.kycStatus = k;
    },
    shapes,
    health: () => ({
      status: 'ok',
      pid: opts.pid ?? null,
      port,
      base_url: `${url}/v2`,
      wallets: ledger.wallets().length,
      payouts: ledger.count(),
    }),
    deliveries: () => webhooks?.deliveries.slice() ?? [],
  };

  function generate(count: number, o: { walletId?: string; status?: string } = {}): void {
    if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a whole number of at least 1');
    let wallets = ledger.wallets();
    if (o.walletId !== undefined) {
      const w = ledger.wallet(o.walletId);
      if (!w) throw new RangeError(`no wallet "${o.walletId}"`);
      wallets = [w];
    }
    ledger.insertMany(generatedPayouts(count, wallets, Date.now(), o.status));
  }

  /** Writes a reply (a failure in the error shape of the moment, or the admin routes' own). */
  function send(res: ServerResponse, answer: Reply, rid: string, admin = false): { headers: Record<string, string | number>; body: string } | undefined {
    if (res.destroyed || res.headersSent) return undefined;
    const reply = render(answer, admin ? 'admin' : shapes.error);
    const headers: Record<string, string | number> = {
      'Content-Type': reply.contentType ?? 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(reply.body),
      'X-Request-Id': rid,
      'Cache-Control': 'no-store',
      ...reply.headers,
    };
    if (closing) headers.Connection = 'close';
    res.writeHead(reply.status, headers);
    res.end(reply.body);
    return { headers, body: reply.body };
  }

  async function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), tooLarge };
  }

  const localNames = boundHostNames(host);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rid = requestId();
    const method = (req.method ?? 'GET').toUpperCase();
    // A web page must not drive the sandbox (DNS rebinding, cross-site simple requests):
    // refused before the body is read, not recorded, and the connection is not reused.
    const refusal = checkLocalRequest(req, { hosts: localNames });
    if (refusal) {
      send(res, failure(refusal.status, refusal.code, refusal.message, { headers: { Connection: 'close' } }), rid);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const receivedAt = isoFromMicros(nowMicros());
    const { text: body, tooLarge } = await readBody(req);
    if (closing) {
      req.socket.destroy();
      return;
    }

    if (path === '/_sandbox' || path.startsWith('/_sandbox/')) {
      send(res, tooLarge ? failure(413, 'PAYLOAD_TOO_LARGE', 'Body too large.') : handleAdmin(control, method, path, body), rid, true);
      return;
    }
    if (path !== '/v2' && !path.startsWith('/v2/')) {
      send(res, failure(404, 'NOT_FOUND', `No route for ${method} ${path}; the API lives under /v2.`), rid);
      return;
    }

    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    }
    const record = log.add({ method, path, query, headers, body, receivedAt, outcome: 0 });
    let faultKind: string | undefined = undefined;
    const answer = (reply: Reply) => {
      record.outcome = reply.status;
      const sent = send(res, reply, rid);
      if (sent && opts.onExchange) {
        const lower: Record<string, string> = {};
        for (const [k, v] of Object.entries(sent.headers)) lower[k.toLowerCase()] = String(v);
        opts.onExchange(
          { ...record, query: { ...query }, headers: { ...headers } },
          { status: reply.status, headers: lower, body: sent.body, ...(faultKind ? { fault: faultKind } : {}) },
        );
      }
    };
    const reset = () => {
      record.outcome = 'reset';
      req.socket.destroy();
    };

    if (tooLarge) return answer(failure(413, 'PAYLOAD_TOO_LARGE', `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`));
    const wait = limiter.check();
    if (wait !== undefined) return answer(rateLimited(wait));

    const fault = faults.take(method, path);
    faultKind = fault?.kind;
    if (fault?.kind === 'reset-before-commit') return reset();
    if (fault?.kind === 'hang') {
      record.outcome = 'hang';
      return;
    }
    if (fault?.kind === 'status') {
      const reply = failureForStatus(fault.status!, { ...(fault.code ? { code: fault.code } : {}), ...(fault.message ? { message: fault.message } : {}) });
      if (fault.body !== undefined) {
        delete reply.failure;
        reply.body = fault.body;
        reply.contentType = 'text/html; charset=utf-8';
      }
      return answer(reply);
    }

    let reply: Reply;
    try {
      reply = await api.handle({ method, path, query, headers, body, delayMs: fault?.kind === 'delay' ? (fault.delayMs ?? 0) : 0 });
    } catch (err) {
      if (err instanceof Closed) return reset();
      reply = failure(500, 'INTERNAL_ERROR', `Internal error: ${(err as Error).message}`);
    }
    if (fault?.kind === 'reset-after-commit') return reset();
    answer(reply);
  }

  const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) req.socket.destroy();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    settlement.close();
    webhooks?.close();
    throw err;
  }
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostInUrl}:${port}`;

  let closePromise: Promise<void> | undefined;
  const sandbox: Sandbox = {
    url,
    baseUrl: `${url}/v2`,
    port,
    get apiKey() {
      return auth.apiKey;
    },
    set apiKey(k: string) {
      auth.apiKey = k;
      auth.onChange();
    },
    get kycStatus() {
      return account.kycStatus;
    },
    set kycStatus(k: string) {
      account.kycStatus = k;
    },
    webhookSecret,
    faults,
    requests: () => log.all(),
    clearRequests: () => log.clear(),
    wallets: () => ledger.wallets().map(walletRecord),
    payouts: () => [...ledger.allPayouts()].reverse().map(payoutRecord),
    setWallet: (w) => walletRecord(ledger.setWallet(w)),
    generatePayouts: (count, o) => generate(count, o),
    revokeApiKey: (k) => void auth.revoke(k),
    shapes: () => ({ ...shapes }),
    setShapes: (s) => setShapes(shapes, s),
    webhookDeliveries: () => webhooks?.deliveries.slice() ?? [],
    close: () =>
      (closePromise ??= (async () => {
        closing = true;
        for (const cancel of sleepers) cancel();
        sleepers.clear();
        settlement.close();
        webhooks?.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
        await closed;
        await writer?.flush();
      })()),
  };
  return sandbox;
}
