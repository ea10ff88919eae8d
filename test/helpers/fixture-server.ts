/**
 * A plain node:http server (not the sandbox) on 127.0.0.1 port 0 that answers the
 * documentation's own example answers (test/fixtures/documented/) byte for byte, the
 * files' text as it is, never a parsed and re-serialized object:
 *   GET  /v2/auth/user                                  auth-user.json
 *   GET  /v2/wallets/balances                           balances.json
 *   POST /v2/payout                                     payout-create.json (200, whatever the body)
 *   GET  /v2/payout/TXN-BOK-FF051A7F00A49EB6AF225D10EA  payout-get.json
 *   POST /v2/payout/summary                             payout-summary.json
 * 401 {"message":"Unauthenticated."} unless `Authorization: Bearer <the key chosen>`;
 * 404 for anything else. Every request is recorded first: method, path, headers, raw body.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join, resolve } from 'node:path';

export const FIXTURES_DIR = resolve(__dirname, '../fixtures/documented');

export type FixtureName = 'auth-user' | 'balances' | 'payout-create' | 'payout-get' | 'payout-summary' | 'webhook-transfer-initiated' | 'webhook-transfer-initiated-full';

/** A fixture's bytes, exactly as stored. */
export function fixtureBytes(name: FixtureName): Buffer {
  return readFileSync(join(FIXTURES_DIR, `${name}.json`));
}

/** A fixture's text, exactly as stored. */
export function fixtureText(name: FixtureName): string {
  return fixtureBytes(name).toString('utf8');
}

/** The documented look-up example's transaction id. */
export const DOCUMENTED_TXN = 'TXN-BOK-FF051A7F00A49EB6AF225D10EA';

const ROUTES: Record<string, FixtureName> = {
  'GET /v2/auth/user': 'auth-user',
  'GET /v2/wallets/balances': 'balances',
  'POST /v2/payout': 'payout-create',
  [`GET /v2/payout/${DOCUMENTED_TXN}`]: 'payout-get',
  'POST /v2/payout/summary': 'payout-summary',
};

export interface RecordedRequest {
  method: string;
  /** The path without the query. */
  path: string;
  /** The request target as sent (path and query). */
  url: string;
  /** Header names in lower case (node's parsing). */
  headers: IncomingHttpHeaders;
  /** The body's bytes as received. */
  raw: Buffer;
  /** The body as UTF-8 text. */
  body: string;
  /** What the server answered. */
  status: number;
}

export interface FixtureServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** http://127.0.0.1:<port>/v2 */
  baseUrl: string;
  /** Every request so far, in order. */
  readonly requests: RecordedRequest[];
  /** Forgets the recorded requests. */
  clear(): void;
  close(): Promise<void>;
}

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-cache, private' };

/** Starts the server; answers only requests carrying `Authorization: Bearer <apiKey>`. */
export async function startFixtureServer(opts: { apiKey: string }): Promise<FixtureServer> {
  const requests: RecordedRequest[] = [];
  // Read once: the answers are the files as they were when the server started.
  const answers = new Map<string, Buffer>(Object.entries(ROUTES).map(([route, name]) => [route, fixtureBytes(name)]));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      const path = url.split('?')[0]!;
      const method = req.method ?? '';
      const raw = Buffer.concat(chunks);
      const entry: RecordedRequest = { method, path, url, headers: req.headers, raw, body: raw.toString('utf8'), status: 0 };
      requests.push(entry);
      const answer = (status: number, body: Buffer | string) => {
        entry.status = status;
        const bytes = Buffer.from(body);
        res.writeHead(status, { ...JSON_HEADERS, 'content-length': String(bytes.length) }).end(bytes);
      };
      if (req.headers.authorization !== `Bearer ${opts.apiKey}`) {
        answer(401, '{"message":"Unauthenticated."}');
        return;
      }
      const found = answers.get(`${method} ${path}`);
      if (!found) {
        answer(404, '{"message":"Not Found"}');
        return;
      }
      answer(200, found);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v2`,
    requests,
    clear: () => {
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
