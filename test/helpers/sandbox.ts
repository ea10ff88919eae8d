/**
 * Helpers for tests that talk to the sandbox over real HTTP: one sandbox per test file
 * (`useSandbox`), requests with parsed and raw bodies (the API key is the bearer token),
 * and payout bodies.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { startSandbox as startBareSandbox, type RecordedRequest, type Sandbox, type SandboxAnswer, type SandboxOptions } from '../../src/sandbox/server.js';
import { requestProblems, responseProblems } from './openapi.js';

export type { Sandbox, SandboxOptions };

export interface TestSandboxOptions extends SandboxOptions {
  /**
   * Default true: every answer the sandbox gives (but those an injected `status` fault makes up)
   * and every request payctl sends it (User-Agent payctl/...) is checked against openapi/v2.yaml,
   * and close() fails with the list of what broke the description. Off only for a test that
   * points payctl at routes the description does not have (route overrides).
   */
  conformance?: boolean;
  /**
   * Paths a test points payctl at on purpose though the description has no such route (a route
   * override): payctl's requests there are not held to the description; the answers still are.
   */
  offContractPaths?: RegExp;
}

/** The sandbox of the test tier: a real sandbox whose traffic is held to openapi/v2.yaml both ways. */
export async function startSandbox(opts: TestSandboxOptions = {}): Promise<Sandbox> {
  const { conformance = true, offContractPaths, ...rest } = opts;
  if (!conformance) return startBareSandbox(rest);
  const problems: string[] = [];
  let checked: Promise<unknown> = Promise.resolve();
  const onExchange = (req: RecordedRequest, res: SandboxAnswer) => {
    rest.onExchange?.(req, res);
    checked = Promise.all([checked, conformanceProblems(req, res, offContractPaths).then((p) => problems.push(...p))]);
  };
  const sb = await startBareSandbox({ ...rest, onExchange });
  const close = sb.close.bind(sb);
  let closed: Promise<void> | undefined;
  sb.close = () =>
    (closed ??= (async () => {
      await close();
      await checked;
      if (problems.length) {
        const shown = problems.slice(0, 20).map((p) => `  - ${p}`);
        if (problems.length > 20) shown.push(`  … and ${problems.length - 20} more`);
        throw new Error(`The sandbox's traffic broke openapi/v2.yaml ${problems.length} time(s):\n${shown.join('\n')}`);
      }
    })());
  return sb;
}

/** What one exchange breaks: payctl's request (only payctl's: tests send bad requests on purpose) and the sandbox's answer. */
async function conformanceProblems(req: RecordedRequest, res: SandboxAnswer, offContractPaths: RegExp | undefined): Promise<string[]> {
  const exchange = { method: req.method, path: req.path, query: req.query, headers: req.headers, body: req.body };
  const out: string[] = [];
  if ((req.headers['user-agent'] ?? '').startsWith('payctl/') && !offContractPaths?.test(req.path)) {
    for (const p of await requestProblems(exchange)) out.push(`payctl's request ${req.method} ${req.path}: ${p}`);
  }
  if (res.fault !== 'status') {
    for (const p of await responseProblems(exchange, res)) out.push(`the sandbox's answer ${res.status} to ${req.method} ${req.path}: ${p}`);
  }
  return out;
}

/** Starts one sandbox for the file (beforeAll) and closes it (afterAll). */
export function useSandbox(opts: TestSandboxOptions = {}): { readonly sb: Sandbox } {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ settleAfterMs: 60_000, ...opts });
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  return {
    get sb(): Sandbox {
      if (!sandbox) throw new Error('the sandbox starts in beforeAll');
      return sandbox;
    },
  };
}

export interface ApiResult<T = any> {
  status: number;
  headers: Headers;
  /** The parsed JSON body (undefined when the body is not JSON). */
  body: T;
  /** The body text exactly as received. */
  raw: string;
}

export interface ApiCallOptions {
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The bearer token: undefined sends the sandbox's API key (the key is the token); null sends none. */
  token?: string | null;
  /** Shorthand for the Idempotency-Key header. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** Calls `path` (relative to the base URL, e.g. '/payout/list?per_page=5') on the sandbox. */
export async function api<T = any>(sb: Sandbox, method: string, path: string, opts: ApiCallOptions = {}): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  const token = opts.token === undefined ? sb.apiKey : opts.token;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (opts.idempotencyKey !== undefined) headers['Idempotency-Key'] = opts.idempotencyKey;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = body;
  if (opts.signal) init.signal = opts.signal;
  const res = await fetch(sb.baseUrl + path, init);
  const raw = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, raw };
}

/** Calls an admin route (`/_sandbox/...`). */
export async function admin<T = any>(sb: Sandbox, method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  const init: RequestInit = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
  }
  const res = await fetch(`${sb.url}/_sandbox${path}`, init);
  const raw = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, raw };
}

export interface PayoutBody {
  amount: number;
  currency: string;
  payoutId: string;
  walletId: string;
  recipient: {
    type: 'bank' | 'wallet';
    accountDetails: Record<string, string | null | undefined>;
  };
  metadata?: Record<string, unknown>;
}

/** A valid wallet payout body for `walletId` (override any field). */
export function payoutBody(walletId: string, overrides: Partial<PayoutBody> = {}): PayoutBody {
  return {
    amount: 1500.5,
    currency: 'SLE',
    payoutId: randomUUID(),
    walletId,
    recipient: {
      type: 'wallet',
      accountDetails: {
        name: 'Aminata Kamara',
        provider: 'orange_money',
        accountNumber: '076123456',
        phoneNumber: '+23276123456',
        note: 'October stipend',
      },
    },
    metadata: { batch: 'oct-stipends' },
    ...overrides,
  };
}

/** The first demo wallet in `currency`. */
export function walletIn(sb: Sandbox, currency: string): ReturnType<Sandbox['wallets']>[number] {
  const w = sb.wallets().find((x) => x.currency === currency);
  if (!w) throw new Error(`no ${currency} wallet`);
  return w;
}

/** Resolves once the sandbox has had a request of this method and path since request `from` (a run held in flight by a delay fault, before a second starts). */
export async function requestArrived(sb: Sandbox, from: number, method: string, path: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (
    !sb
      .requests()
      .slice(from)
      .some((q) => q.method === method && q.path === path)
  ) {
    if (Date.now() > deadline) throw new Error(`no ${method} ${path} within 10 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A fresh wallet (a ten-digit id, as the service's) with an exact balance, so each test has its own money. */
export function freshWallet(sb: Sandbox, balance: string, currency = 'SLE'): string {
  const id = String(randomInt(1_000_000_000, 10_000_000_000));
  sb.setWallet({ wallet_id: id, wallet_name: `Test ${id.slice(-4)}`, currency, balance });
  return id;
}

export interface ReceivedHook {
  headers: IncomingMessage['headers'];
  raw: string;
  body: any;
  at: number;
}

/**
 * A webhook receiver on 127.0.0.1 port 0. `answer` picks the status for each delivery
 * (default 200).
 */
export async function webhookReceiver(answer: (n: number, hook: ReceivedHook) => number = () => 200): Promise<{
  url: string;
  received: ReceivedHook[];
  close(): Promise<void>;
}> {
  const received: ReceivedHook[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const hook = { headers: req.headers, raw, body, at: Date.now() };
      received.push(hook);
      res.writeHead(answer(received.length, hook), { 'Content-Type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Polls `check` until it returns a truthy value, and returns that (fails after `timeoutMs`). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5000, stepMs = 20): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
