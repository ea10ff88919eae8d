/**
 * Hostile services for the issue-11 tests (test/commands/hostile-service.test.ts in
 * process, test/e2e/hostile-service.test.ts spawned): small node:http servers that record
 * every request, a stand-in for the documented service (docs/service.md: the API key is the
 * bearer token, every request carries an Idempotency-Key) that hostile tests bend, a
 * forwarding proxy in front of the in-process sandbox that rewrites payout answers, look-ups and lists,
 * profiles pointing at them, and what the journal and the sandbox hold.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { tempConfigDir } from './cli.js';
import { newKey, stackLines, writeProfile, type Run } from './e2e.js';
import type { Sandbox } from './sandbox.js';
import { payoutPosts, postedPayoutId } from './batch.js';

export { heldFor } from './payout-fixtures.js';

const cleanups: Array<() => void | Promise<void>> = [];

/** Runs what the helpers below registered (servers closed, folders removed) after each test of the file. */
export function useHostileCleanups(): void {
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
}

/** Something to undo after the test. */
export function deferCleanup(fn: () => void | Promise<void>): void {
  cleanups.push(fn);
}

/** A temp config folder removed after the test. */
export function configDir(): string {
  const c = tempConfigDir();
  cleanups.push(c.cleanup);
  return c.dir;
}

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** When the request arrived (before its body was read). */
  at: number;
  /** The request body as text (filled in before the handler runs). */
  body: string;
}

export interface Hostile {
  url: string;
  baseUrl: string;
  seen: Seen[];
  close(): Promise<void>;
}

/**
 * A hostile service on 127.0.0.1 port 0 that records every request; closed after the test.
 * The handler runs once the request body has been read (`seen.body`).
 */
export async function hostile(handler: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void): Promise<Hostile> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, at: Date.now(), body: '' };
    seen.push(s);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      s.body = Buffer.concat(chunks).toString('utf8');
      handler(req, res, s);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  const h: Hostile = {
    url,
    baseUrl: `${url}/v2`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  cleanups.push(() => h.close());
  return h;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}

/** A profile for a hostile server, as `payctl login` leaves it: its own base URL and a key (the key is the bearer token). */
export function hostileProfile(dir: string, h: Pick<Hostile, 'baseUrl'>, key = newKey()): { key: string } {
  writeProfile(dir, { baseUrl: h.baseUrl, apiKey: key });
  return { key };
}

/** Laravel's answer to a missing or wrong bearer token (what the documented service sends). */
export function unauthenticated(res: ServerResponse): void {
  json(res, 401, { message: 'Unauthenticated.' });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Every request carried what the documentation sends on every request: `Authorization: Bearer
 * <key>` (the key itself: there is no token exchange), an Idempotency-Key that is a UUID, and
 * no other credential header.
 */
export function expectDocumentedHeaders(seen: Seen[], key: string): void {
  expect(seen.length, 'requests were made').toBeGreaterThan(0);
  for (const s of seen) {
    const name = `${s.method} ${s.url}`;
    expect(s.headers.authorization, name).toBe(`Bearer ${key}`);
    expect(s.headers['idempotency-key'], name).toMatch(UUID);
    expect(s.headers['api-key'], name).toBeUndefined();
    expect(s.headers['x-api-key'], name).toBeUndefined();
  }
}

/** A timestamp as the documented service writes them: ISO 8601 UTC with microseconds. */
function serviceTime(ms = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function envelope(message: string, data: unknown): Record<string, unknown> {
  return { status: 'Successful', message, data, timestamp: serviceTime() };
}

/** An amount as the documented look-up writes it: a string grouped by thousands ("1,000.00"). */
function grouped(amount: number): string {
  return amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

export interface StandInWallet {
  wallet_id: string;
  wallet_name: string;
  currency: string;
  balance: number | string;
}

export interface StandIn extends Hostile {
  /** The key it accepts as the bearer token. */
  key: string;
  wallet: StandInWallet;
  /** Transaction ids of the payouts it made. */
  transactions(): string[];
}

interface StandInPayout {
  create: Record<string, unknown>;
  lookup: Record<string, unknown>;
  key: string;
  body: string;
}

/**
 * A stand-in for the documented service (docs/service.md), answering its documented paths in
 * its documented shapes, for one key sent as `Authorization: Bearer <key>`; anything else is
 * Laravel's 401 `{"message":"Unauthenticated."}`, an unknown path a 404:
 *   GET  /v2/auth/user                 whose the key is (walletId: the wallet's)
 *   GET  /v2/wallets/balances          the one wallet
 *   POST /v2/payout                    201, a `TXN-BOK-` transaction id; same key and body: the first answer
 *   GET  /v2/payout/{transactionId}    the look-up record (grouped amount strings, lower-case status)
 *   GET  /v2/payout/list               a Laravel paginator of the look-up records
 *   POST /v2/payout/summary            the flat counts
 */
export async function standIn(key: string, wallet: Partial<StandInWallet> = {}): Promise<StandIn> {
  const w: StandInWallet = { wallet_id: '5553881136', wallet_name: 'Stand-in Wallet', currency: 'SLE', balance: 1469.95, ...wallet };
  const payouts = new Map<string, StandInPayout>();
  const byKey = new Map<string, StandInPayout>();
  const h = await hostile((req, res, seen) => {
    if (req.headers.authorization !== `Bearer ${key}`) return unauthenticated(res);
    const path = new URL(seen.url, 'http://stand-in').pathname;
    const route = `${seen.method} ${path}`;
    if (route === 'GET /v2/auth/user') {
      return json(
        res,
        200,
        envelope('User Authenticated successfully', {
          walletId: w.wallet_id,
          email: 'ops@stand-in.example',
          firstName: 'Stand',
          lastName: 'In',
          phone: '+23276000000',
          status: 'ACTIVE',
          kycStatus: 'Verified',
          businessName: 'Stand-in Payouts Ltd',
          address: '1, Water-side road, Freetown',
          country: 'SL',
        }),
      );
    }
    if (route === 'GET /v2/wallets/balances') {
      return json(res, 200, envelope('Balances retrieved', [{ ...w, updated_at: serviceTime() }]));
    }
    if (route === 'POST /v2/payout') {
      const idem = String(req.headers['idempotency-key'] ?? '');
      const earlier = byKey.get(idem);
      if (earlier) {
        if (earlier.body !== seen.body) return json(res, 422, { message: 'The Idempotency-Key was used with another body.' });
        return json(res, 201, envelope('Transfer initiated successfully', earlier.create));
      }
      let b: { amount?: number; currency?: string; payoutId?: string; recipient?: { type?: string; accountDetails?: Record<string, string | null> } };
      try {
        b = JSON.parse(seen.body) as typeof b;
      } catch {
        return json(res, 422, { message: 'The given data was invalid.', errors: { amount: ['The amount field is required.'] } });
      }
      const d = b.recipient?.accountDetails ?? {};
      const transactionId = `TXN-BOK-${randomBytes(13).toString('hex').toUpperCase()}`;
      const orderId = `ORD-${randomBytes(8).toString('hex').toUpperCase()}`;
      const at = serviceTime();
      const p: StandInPayout = {
        key: idem,
        body: seen.body,
        create: {
          transaction_id: transactionId,
          amount: b.amount,
          fee: 0,
          currency: b.currency,
          provider_response: {
            status: 'Pending',
            beneficiary: d.accountNumber ?? null,
            provider: String(d.provider ?? '').toUpperCase(),
            orderId,
            idempotency_key: idem,
          },
          payout_id: b.payoutId,
          created_at: at,
        },
        lookup: {
          transaction_id: transactionId,
          status: 'pending',
          amount: grouped(Number(b.amount)),
          currency: b.currency,
          fee: '0.00',
          total_amount: grouped(Number(b.amount)),
          recipient: { transfer_type: b.recipient?.type, account_number: d.accountNumber ?? null, name: d.name ?? null, bank: String(d.provider ?? '').toUpperCase() },
          description: d.note ?? null,
          created_at: at,
          updated_at: at,
          provider_reference: orderId,
        },
      };
      payouts.set(transactionId, p);
      byKey.set(idem, p);
      return json(res, 201, envelope('Transfer initiated successfully', p.create));
    }
    if (route === 'GET /v2/payout/list') {
      const records = [...payouts.values()].map((p) => p.lookup).reverse();
      const base = `${h.baseUrl}/payout/list`;
      return json(
        res,
        200,
        envelope('Transfers retrieved', {
          current_page: 1,
          data: records,
          first_page_url: `${base}?page=1`,
          from: records.length ? 1 : null,
          last_page: 1,
          last_page_url: `${base}?page=1`,
          links: [],
          next_page_url: null,
          path: base,
          per_page: 15,
          prev_page_url: null,
          to: records.length || null,
          total: records.length,
        }),
      );
    }
    if (route === 'POST /v2/payout/summary') {
      const all = [...payouts.values()];
      const ofType = (t: string) => all.filter((p) => (p.lookup.recipient as { transfer_type?: string }).transfer_type === t).length;
      return json(
        res,
        200,
        envelope('Payout summary retrieved', {
          total_transfers: all.length,
          successful: 0,
          pending: all.length,
          failed: 0,
          total_sent: all.reduce((a, p) => a + Number(p.create.amount), 0),
          wallet_transfers: ofType('wallet'),
          bank_transfers: ofType('bank'),
        }),
      );
    }
    const one = /^GET \/v2\/payout\/([^/]+)$/.exec(route);
    if (one) {
      const p = payouts.get(decodeURIComponent(one[1]!));
      return p ? json(res, 200, envelope('Transfer status retrieved', p.lookup)) : json(res, 404, { message: 'Transfer not found.' });
    }
    json(res, 404, { message: `The route ${path.replace(/^\//, '')} could not be found.` });
  });
  return Object.assign(h, { key, wallet: w, transactions: () => [...payouts.keys()] });
}

export type Rewrite = (status: number, raw: string) => { status: number; body: string; contentType: string };

export interface Proxy {
  baseUrl: string;
  /** Rewrites the next answer to POST /v2/payout (after the sandbox processed the request), once. */
  rewriteNextPayout(fn: Rewrite): void;
  /** Rewrites every answer to POST /v2/payout from now on (one given to rewriteNextPayout first). */
  rewriteEveryPayout(fn: Rewrite): void;
  /** Rewrites the body of every answer to a look-up, GET /v2/payout/{transactionId}, from now on. */
  rewriteLookups(fn: (raw: string) => string): void;
  /** Rewrites the body of every answer to GET /v2/payout/list from now on. */
  rewriteLists(fn: (raw: string) => string): void;
  /** Asks the sandbox for at most `n` records a page of GET /v2/payout/list from now on (as services that cap per_page do). */
  capPerPage(n: number): void;
  /** Asks the sandbox for page 1 of GET /v2/payout/list whatever page was asked, from now on (a service that ignores `page`). */
  ignorePage(): void;
  /** Sends every answer without its Date header from now on (a service behind a proxy that drops it). */
  dropDates(): void;
  rewritten: number;
}

/** A forwarding proxy in front of the sandbox: passes everything through, except the answers to POST /payout, look-ups and lists it is told to rewrite. */
export async function sandboxProxy(sb: Sandbox): Promise<Proxy> {
  let pending: Rewrite | undefined;
  let every: Rewrite | undefined;
  let lookups: ((raw: string) => string) | undefined;
  let lists: ((raw: string) => string) | undefined;
  let cap: number | undefined;
  let firstPageOnly = false;
  let noDates = false;
  const state = { rewritten: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = { ...req.headers, host: `127.0.0.1:${sb.port}` };
      let path = req.url ?? '/';
      if (cap !== undefined && /^\/v2\/payout\/list(\?|$)/.test(path))
        path = path.replace(/([?&]per_page=)(\d+)/, (_, k: string, n: string) => `${k}${Math.min(Number(n), cap!)}`);
      if (firstPageOnly && /^\/v2\/payout\/list(\?|$)/.test(path)) path = path.replace(/([?&]page=)\d+/, (_, k: string) => `${k}1`);
      const up = httpRequest({ host: '127.0.0.1', port: sb.port, method: req.method, path, headers }, (upRes) => {
        const body: Buffer[] = [];
        upRes.on('data', (c: Buffer) => body.push(c));
        upRes.on('end', () => {
          let raw = Buffer.concat(body);
          if (lookups && req.method === 'GET' && /^\/v2\/payout\/TXN-/.test(req.url ?? '')) raw = Buffer.from(lookups(raw.toString('utf8')));
          if (lists && req.method === 'GET' && /^\/v2\/payout\/list(\?|$)/.test(req.url ?? '')) raw = Buffer.from(lists(raw.toString('utf8')));
          const rewrite = req.method === 'POST' && req.url === '/v2/payout' ? (pending ?? every) : undefined;
          if (rewrite) {
            pending = undefined;
            state.rewritten++;
            const out = rewrite(upRes.statusCode ?? 0, raw.toString('utf8'));
            if (noDates) res.sendDate = false;
            res.writeHead(out.status, { 'content-type': out.contentType, 'content-length': Buffer.byteLength(out.body) }).end(out.body);
            return;
          }
          const h = { ...upRes.headers };
          delete h['transfer-encoding'];
          h['content-length'] = String(raw.length);
          if (noDates) {
            delete h['date'];
            res.sendDate = false;
          }
          res.writeHead(upRes.statusCode ?? 502, h).end(raw);
        });
      });
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return {
    baseUrl: `http://127.0.0.1:${port}/v2`,
    rewriteNextPayout: (fn) => (pending = fn),
    rewriteEveryPayout: (fn) => (every = fn),
    rewriteLookups: (fn) => (lookups = fn),
    rewriteLists: (fn) => (lists = fn),
    capPerPage: (n) => (cap = n),
    ignorePage: () => (firstPageOnly = true),
    dropDates: () => (noDates = true),
    get rewritten() {
      return state.rewritten;
    },
  };
}

/** A wallet payout of 12.50 SLE from `walletId`, with --yes. */
export function payoutArgs(walletId: string, payoutId: string): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    walletId,
    '--amount',
    '12.50',
    '--currency',
    'SLE',
    '--type',
    'wallet',
    '--name',
    'Fatmata Sesay',
    '--provider',
    'orange_money',
    '--account',
    '076555111',
    '--phone',
    '+23276555111',
    '--note',
    "Fatmata's refund",
    '--payout-id',
    payoutId,
    '--yes',
  ];
}

export interface JournalFile {
  payoutId: string;
  idempotencyKey: string;
  outcome?: { kind: string; reason?: string };
}

/** The journal entries (<config>/journal/*.json) of `payoutId`. */
export function journalOf(dir: string, payoutId: string): JournalFile[] {
  const folder = join(dir, 'journal');
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(folder, f), 'utf8')) as JournalFile)
    .filter((e) => e.payoutId === payoutId);
}

/** The line after the one starting with `intro`. */
export function lineAfter(text: string, intro: string): string {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.startsWith(intro));
  expect(i, `a line starting with ${JSON.stringify(intro)} in:\n${text}`).toBeGreaterThanOrEqual(0);
  return lines[i + 1] ?? '';
}

export function postsFor(sb: Sandbox, payoutId: string) {
  return payoutPosts(sb).filter((p) => postedPayoutId(p) === payoutId);
}

export function expectNoCrash(r: Run): void {
  expect(r.stderr).not.toContain('This is a bug');
  expect(stackLines(r.stderr)).toEqual([]);
}
