/**
 * The sandbox: an in-process HTTP server (node:http) serving the documented Bokumonie
 * API v2 (docs/service.md) on loopback, with demo data, faults, webhooks and an optional
 * state file. Where the documentation is silent it serves the first tolerated variant,
 * and a setting (`listShape`, `errorShape`) makes it answer each other one. This module is
 * the server: it makes the parts (parts.ts), keeps the state file, listens, tracks
 * connections and closes; dispatch.ts answers each request, router.ts and api.ts the /v2
 * routes, admin.ts the admin routes.
 */
import { createServer, type Server } from 'node:http';
import type { AdminControl } from './admin.js';
import { Api } from './api.js';
import { Closing } from './closing.js';
import { Dispatcher } from './dispatch.js';
import type { Faults } from './faults.js';
import { boundHostNames } from './host-check.js';
import { MAX_SETTLE_AFTER_MS, type SandboxOptions } from './options.js';
import { checkWebhookUrl, SandboxParts } from './parts.js';
import { loadState, StateWriter } from './persist.js';
import type { RecordedRequest } from './recording.js';
import { render } from './respond.js';
import { API_PREFIX } from './router.js';
import type { ErrorShape, ListShape } from './shapes.js';
import { payoutRecord, walletRecord, type PayoutRecord, type WalletRecord } from './wire.js';
import type { DeliveryLog } from './webhooks.js';

export type { RecordedRequest } from './recording.js';
export type { WalletRecord, PayoutRecord } from './wire.js';
export type { Fault, FaultSpec, FaultKind } from './faults.js';
export type { SandboxOptions, SandboxAnswer } from './options.js';
export { Faults } from './faults.js';
export { ERROR_SHAPES, LIST_SHAPES, type ErrorShape, type ListShape } from './shapes.js';

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

/** Where the sandbox listens, once it does. */
interface Address {
  port: number;
  url: string;
}

/** Keeps the state file: every change of the books, the stored answers or the key is written (coalesced). */
function keepStateFile(file: string, parts: SandboxParts, fresh: boolean, warn: SandboxOptions['warn']): StateWriter {
  const writer = new StateWriter(file, () => parts.snapshot(), undefined, warn);
  const changed = () => writer.changed();
  parts.ledger.onChange = changed;
  parts.idempotency.onChange = changed;
  parts.auth.onChange = changed;
  if (fresh) changed();
  return writer;
}

/** What the admin routes may see and change. */
function adminControl(parts: SandboxParts, where: Address, opts: SandboxOptions): AdminControl {
  const { ledger, auth, account, log } = parts;
  return {
    faults: parts.faults,
    get apiKey() {
      return auth.apiKey;
    },
    requests: () => log.all(),
    clearRequests: () => log.clear(),
    putWallet: (w) => ledger.setWallet(w),
    generatePayouts: (count, o) => parts.generate(count, o),
    revokeApiKey: (k) => void auth.revoke(k),
    get kycStatus() {
      return account.kycStatus;
    },
    set kycStatus(k: string) {
      account.kycStatus = k;
    },
    shapes: parts.shapes,
    health: () => ({
      status: 'ok',
      pid: opts.pid ?? null,
      instance: opts.instance ?? null,
      port: where.port,
      base_url: `${where.url}${API_PREFIX}`,
      wallets: ledger.wallets().length,
      payouts: ledger.count(),
    }),
    deliveries: () => parts.deliveries(),
  };
}

/** Listens on `port` and `host`; the port it got. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** The handle tests and `payctl sandbox start` hold. */
function sandboxHandle(parts: SandboxParts, where: Address, close: () => Promise<void>): Sandbox {
  const { ledger, auth, account, log } = parts;
  return {
    url: where.url,
    baseUrl: `${where.url}${API_PREFIX}`,
    port: where.port,
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
    webhookSecret: parts.webhookSecret,
    faults: parts.faults,
    requests: () => log.all(),
    clearRequests: () => log.clear(),
    wallets: () => ledger.wallets().map(walletRecord),
    payouts: () => [...ledger.allPayouts()].reverse().map(payoutRecord),
    setWallet: (w) => walletRecord(ledger.setWallet(w)),
    generatePayouts: (count, o) => parts.generate(count, o),
    revokeApiKey: (k) => void auth.revoke(k),
    shapes: () => ({ ...parts.shapes }),
    setShapes: (s) => parts.setShapes(s),
    webhookDeliveries: () => parts.deliveries(),
    close,
  };
}

/** Refuses a settle delay that no timer can wait (it would fire at once, again and again). */
function checkSettleAfter(ms: number | undefined): void {
  if (ms === undefined) return;
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_SETTLE_AFTER_MS) {
    throw new RangeError(`The settle delay must be a whole number of milliseconds from 0 to ${MAX_SETTLE_AFTER_MS}, got ${ms}.`);
  }
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const host = opts.host ?? '127.0.0.1';
  checkWebhookUrl(opts.webhookUrl);
  checkSettleAfter(opts.settleAfterMs);
  const loaded = opts.stateFile ? await loadState(opts.stateFile) : undefined;
  const parts = new SandboxParts(opts, loaded);
  const writer = opts.stateFile ? keepStateFile(opts.stateFile, parts, !loaded, opts.warn) : undefined;

  const closing = new Closing();
  const where: Address = { port: 0, url: '' };
  const api = new Api({
    ledger: parts.ledger,
    auth: parts.auth,
    idempotency: parts.idempotency,
    settlement: parts.settlement,
    created: (p) => parts.emit('transfer.initiated', p),
    sleep: closing.sleep,
    account: () => parts.account,
    listShape: () => parts.shapes.list,
    origin: () => where.url,
    render: (reply) => render(reply, parts.shapes.error),
  });
  const dispatcher = new Dispatcher({ parts, api, admin: adminControl(parts, where, opts), closing, hosts: boundHostNames(host), onExchange: opts.onExchange });
  const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    dispatcher.handle(req, res).catch(() => {
      if (!res.headersSent) req.socket.destroy();
    });
  });
  closing.track(server);
  server.on('clientError', (_err, socket) => socket.destroy());

  try {
    where.port = await listen(server, opts.port ?? 0, host);
  } catch (err) {
    parts.close();
    throw err;
  }
  where.url = `http://${host.includes(':') ? `[${host}]` : host}:${where.port}`;

  let closePromise: Promise<void> | undefined;
  const close = () =>
    (closePromise ??= (async () => {
      closing.begin();
      parts.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      closing.destroySockets();
      await closed;
      await writer?.flush();
    })());
  return sandboxHandle(parts, where, close);
}
