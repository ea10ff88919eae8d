/**
 * Hostile services for the issue-11 tests (test/commands/hostile-service.test.ts in
 * process, test/e2e/hostile-service.test.ts spawned): small node:http servers that record
 * every request, a forwarding proxy in front of the in-process sandbox that rewrites one
 * payout answer, profiles pointing at them, and what the journal and the sandbox hold.
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
  at: number;
}

export interface Hostile {
  url: string;
  baseUrl: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** A hostile service on 127.0.0.1 port 0 that records every request; closed after the test. */
export async function hostile(handler: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void): Promise<Hostile> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, at: Date.now() };
    seen.push(s);
    req.resume();
    handler(req, res, s);
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

/** A profile for a hostile server: its own base URL, a key and a fresh token (so no token request is needed). */
export function hostileProfile(dir: string, h: Hostile, key = newKey(), token = `tok_${randomBytes(16).toString('hex')}`): { key: string; token: string } {
  writeProfile(dir, { baseUrl: h.baseUrl, apiKey: key, token, tokenExpiresAt: new Date(Date.now() + 3_600_000).toISOString() });
  return { key, token };
}

export type Rewrite = (status: number, raw: string) => { status: number; body: string; contentType: string };

export interface Proxy {
  baseUrl: string;
  /** Rewrites the next answer to POST /v2/payout (after the sandbox processed the request), once. */
  rewriteNextPayout(fn: Rewrite): void;
  rewritten: number;
}

/** A forwarding proxy in front of the sandbox: passes everything through, except one rewritten answer. */
export async function sandboxProxy(sb: Sandbox): Promise<Proxy> {
  let pending: Rewrite | undefined;
  const state = { rewritten: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = { ...req.headers, host: `127.0.0.1:${sb.port}` };
      const up = httpRequest({ host: '127.0.0.1', port: sb.port, method: req.method, path: req.url, headers }, (upRes) => {
        const body: Buffer[] = [];
        upRes.on('data', (c: Buffer) => body.push(c));
        upRes.on('end', () => {
          const raw = Buffer.concat(body);
          const rewrite = req.method === 'POST' && req.url === '/v2/payout' ? pending : undefined;
          if (rewrite) {
            pending = undefined;
            state.rewritten++;
            const out = rewrite(upRes.statusCode ?? 0, raw.toString('utf8'));
            res.writeHead(out.status, { 'content-type': out.contentType, 'content-length': Buffer.byteLength(out.body) }).end(out.body);
            return;
          }
          const h = { ...upRes.headers };
          delete h['transfer-encoding'];
          h['content-length'] = String(raw.length);
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
