/**
 * Two accounts of one service behind one base URL (probe 54-H finding 1): a node:http front routes
 * each API key to an in-process sandbox of its own, recording which key each request came with;
 * a fresh config folder for each test, where profiles teama and teamb log in to the front with
 * the keys of accounts A and B. What a payout resent with another profile's key would do to the
 * other account is then seen, not assumed. The front can answer a path itself (answerWith: a
 * service that answers a read in part, say) until the test ends.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { tempConfigDir } from './cli.js';
import type { Run } from './e2e.js';
import { payctl } from './in-process.js';
import { TestClock } from './clock.js';
import { useSandbox } from './sandbox.js';
import { Journal, type JournalEntry } from '../../src/payouts/journal.js';

export const KEY_A = 'sk_test_accountA_0123456789abcdef';
export const KEY_B = 'sk_test_accountB_0123456789abcdef';

export interface TwoAccounts {
  readonly a: ReturnType<typeof useSandbox>;
  readonly b: ReturnType<typeof useSandbox>;
  /** Each request the front passed on: which account's key it came with. */
  readonly seen: Array<{ key: 'A' | 'B'; method: string; path: string }>;
  /** The front's base URL, and this test's config folder. */
  readonly base: string;
  readonly dir: string;
  /** payctl in process in this test's folder, retries on a TestClock. */
  readonly run: (args: string[]) => Promise<Run>;
  /** How many POSTs went out with that account's key. */
  readonly postsWith: (key: 'A' | 'B') => number;
  /** The journal's entry of a payout id at the front's base URL. */
  readonly entry: (payoutId: string) => Promise<JournalEntry | undefined>;
  /** `profile` logged in (again) at the front with `key` (exit 0). */
  readonly login: (profile: string, key: string) => Promise<void>;
  /** Until the test ends (or the function returned is called), requests of `method` whose path starts with `path` are answered by the front: HTTP 200, `body` as JSON. */
  readonly answerWith: (method: string, path: string, body: unknown) => () => void;
}

export function useTwoAccounts(): TwoAccounts {
  const a = useSandbox();
  const b = useSandbox();
  const seen: TwoAccounts['seen'] = [];
  let front: Server;
  let base = '';
  let dir = '';
  let cleanup: () => void = () => undefined;
  const answers: Array<{ method: string; path: string; body: string }> = [];
  beforeAll(async () => {
    front = createServer((req, res) => {
      const key = req.headers.authorization === `Bearer ${KEY_A}` ? 'A' : req.headers.authorization === `Bearer ${KEY_B}` ? 'B' : undefined;
      if (!key) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Unauthenticated."}');
      seen.push({ key, method: req.method!, path: req.url! });
      const own = answers.find((x) => x.method === req.method && req.url!.startsWith(x.path));
      if (own) return void req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(own.body));
      const sb = key === 'A' ? a.sb : b.sb;
      const up = new URL(sb.url);
      const fwd = request(
        { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host, authorization: `Bearer ${sb.apiKey}` } },
        (ans) => {
          res.writeHead(ans.statusCode!, ans.headers);
          ans.pipe(res);
        },
      );
      // The account's service dropped it (a fault): so does the front, as the network would.
      fwd.on('error', () => req.socket.destroy());
      req.pipe(fwd);
    });
    await new Promise<void>((ok) => front.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(front.address() as AddressInfo).port}/v2`;
  });
  afterAll(() => new Promise<void>((ok) => front.close(() => ok())));
  beforeEach(async () => {
    ({ dir, cleanup } = tempConfigDir());
    for (const [profile, key] of [
      ['teama', KEY_A],
      ['teamb', KEY_B],
    ] as const) {
      const r = await payctl(['login', '--api-key-stdin', '--base-url', base, '--profile', profile], { dir, input: key + '\n' });
      expect(r.code, r.stderr).toBe(0);
    }
    seen.length = 0;
  });
  afterEach(() => {
    a.sb.faults.clear();
    b.sb.faults.clear();
    answers.length = 0;
    cleanup();
  });
  return {
    a,
    b,
    seen,
    get base() {
      return base;
    },
    get dir() {
      return dir;
    },
    run: (args) => payctl(args, { dir, clock: new TestClock() }),
    postsWith: (key) => seen.filter((s) => s.key === key && s.method === 'POST').length,
    entry: (payoutId) => new Journal(dir).get(base, payoutId),
    login: async (profile, key) => {
      const r = await payctl(['login', '--api-key-stdin', '--base-url', base, '--profile', profile], { dir, input: key + '\n' });
      expect(r.code, r.stderr).toBe(0);
    },
    answerWith: (method, path, body) => {
      const answer = { method, path, body: JSON.stringify(body) };
      answers.push(answer);
      return () => void answers.splice(answers.indexOf(answer), 1);
    },
  };
}
