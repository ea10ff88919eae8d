/**
 * `payouts list` against a plain node:http server (not the sandbox) that answers
 * `GET /v2/payout/list` in each list shape docs/service.md tolerates (a Laravel paginator, a
 * resource collection, an array alone, `data.items` with `has_more`), 15 records a page whatever
 * `per_page` asks, and IGNORING every filter: payctl's own filtering is what is tested. Also:
 * `--limit` across pages of 15, `--all` across pages, a next-page link on another origin never
 * followed (that origin never called, so the key never went there), a link on the same origin
 * followed, and a service that pages without progress stopped with an error.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newKey, oneJson, tableIds, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { asText, warningsOf } from '../helpers/stderr-json.js';
import { CSV_HEADER } from '../../src/output/payout.js';

const KEY = newKey();
const cfg = useConfigDir();
const PAGE = 15;
const WALLET_A = '5553881136';
const WALLET_B = '5564222970';
const STATUS_WORDS = ['successful', 'Failed', 'PENDING', 'processing', 'failed', 'Successful'];

interface Rec {
  transaction_id: string;
  status: string;
  amount: string;
  currency: string;
  fee: string;
  total_amount: string;
  recipient: { transfer_type: string; account_number: string; name: string; bank: string };
  description: string;
  created_at: string;
  updated_at: string;
  provider_reference: string;
  wallet_id?: string;
}

/** Cents as the look-up writes an amount: "1,105.00". */
const grouped = (cents: number) => `${Math.floor(cents / 100).toLocaleString('en-US')}.${String(cents % 100).padStart(2, '0')}`;

/** 100 records, newest first: statuses in every case, two currencies, two wallets and some without one, grouped amounts. */
function makeRecords(n: number): Rec[] {
  const out: Rec[] = [];
  const start = Date.UTC(2026, 10, 30, 12, 0, 0);
  for (let i = 0; i < n; i++) {
    const at = new Date(start - i * 3_600_000).toISOString().replace(/\.\d{3}Z$/, `.${String(100000 + i).slice(1)}0Z`);
    const r: Rec = {
      transaction_id: `TXN-BOK-${String(i).padStart(26, '0')}`,
      status: STATUS_WORDS[i % STATUS_WORDS.length]!,
      amount: `${1 + (i % 3)},${String(100 + i).padStart(3, '0')}.${String(i % 100).padStart(2, '0')}`,
      currency: i % 4 === 0 ? 'NGN' : 'SLE',
      fee: '5.00',
      // The amount plus the fee, as the documented look-up writes it ("1,000.00" + "5.00" = "1,005.00").
      total_amount: grouped(((1 + (i % 3)) * 1000 + 100 + i) * 100 + (i % 100) + 500),
      recipient: { transfer_type: i % 2 ? 'bank' : 'wallet', account_number: `0427${String(i).padStart(6, '0')}`, name: `Person ${i}`, bank: 'ECOBANK' },
      description: 'Payment for services',
      created_at: at,
      updated_at: at,
      provider_reference: `ORD-${i}`,
    };
    if (i % 7 !== 3) r.wallet_id = i % 2 ? WALLET_A : WALLET_B;
    out.push(r);
  }
  return out;
}

const RECORDS = makeRecords(100);
const isStatus = (r: Rec, s: string) => ({ successful: 'Successful', failed: 'Failed', pending: 'Pending', processing: 'Pending' })[r.status.toLowerCase()] === s;

type Shape = 'paginator' | 'resource' | 'array' | 'items';

interface Got {
  url: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
}

interface ListServer {
  origin: string;
  baseUrl: string;
  requests: Got[];
  close(): Promise<void>;
}

interface ServerOptions {
  shape?: Shape;
  /** The answer's body for a page (instead of the shape's). */
  body?: (page: number, query: Record<string, string>, origin: string) => unknown;
  /** Where the paginator's next_page_url points (default: this server's own list URL). */
  nextBase?: string;
  records?: Rec[];
  /** Changes the answer's JSON text before it is sent (to write number literals JSON.stringify cannot). */
  rewrite?: (json: string) => string;
}

/** A plain server of GET /v2/payout/list, 15 a page, filters ignored; every request recorded. */
async function listServer(o: ServerOptions = {}): Promise<ListServer> {
  const requests: Got[] = [];
  const records = o.records ?? RECORDS;
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const query = Object.fromEntries(url.searchParams);
    requests.push({ url: req.url ?? '', query, headers: req.headers });
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end((o.rewrite ?? ((t: string) => t))(JSON.stringify(body)));
    if (req.headers.authorization !== `Bearer ${KEY}`) return send(401, { message: 'Unauthenticated.' });
    if (req.method !== 'GET' || url.pathname !== '/v2/payout/list') return send(404, { message: 'Not Found' });
    const page = Math.max(1, Number(query.page ?? '1') || 1);
    const timestamp = '2026-12-01T00:00:00.000000Z';
    if (o.body) return send(200, { status: 'Successful', message: 'Transfers retrieved', data: o.body(page, query, origin), timestamp });
    const last = Math.max(1, Math.ceil(records.length / PAGE));
    const items = records.slice((page - 1) * PAGE, page * PAGE);
    const link = (n: number) => `${o.nextBase ?? `${origin}/v2/payout/list`}?page=${n}`;
    const next = page < last ? link(page + 1) : null;
    const env: Record<string, unknown> = { status: 'Successful', message: 'Transfers retrieved' };
    switch (o.shape ?? 'paginator') {
      case 'paginator':
        env.data = {
          current_page: page,
          data: items,
          first_page_url: link(1),
          last_page: last,
          next_page_url: next,
          path: `${origin}/v2/payout/list`,
          per_page: PAGE,
          total: records.length,
        };
        break;
      case 'resource':
        env.data = items;
        env.links = { first: link(1), last: link(last), prev: null, next };
        env.meta = { current_page: page, last_page: last, per_page: PAGE, total: records.length };
        break;
      case 'array':
        env.data = items;
        break;
      case 'items':
        env.data = { items, has_more: page < last, total: records.length, page };
        break;
    }
    env.timestamp = timestamp;
    send(200, env);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    origin,
    baseUrl: `${origin}/v2`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const servers: ListServer[] = [];
async function serve(o: ServerOptions = {}): Promise<ListServer> {
  const s = await listServer(o);
  servers.push(s);
  writeProfile(cfg.dir, { baseUrl: s.baseUrl, apiKey: KEY });
  return s;
}
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const run = (...args: string[]) => payctl(args, { dir: cfg.dir });
const idsOf = (doc: { data: Array<{ transaction_id: string }> }) => doc.data.map((p) => p.transaction_id);

/** The transaction ids `payouts list` printed, in order, for `--json`, `--csv` or a table. */
const listedIds = (format: string, stdout: string) =>
  format === '--json'
    ? idsOf(oneJson(stdout))
    : format === '--csv'
      ? stdout
          .trimEnd()
          .split('\r\n')
          .slice(1)
          .map((l) => l.split(',')[1])
      : tableIds(stdout);

/** payctl asked only for pages: no filter of any name reached the service. */
function onlyPaging(requests: Got[]): void {
  for (const r of requests) for (const k of Object.keys(r.query)) expect(['page', 'per_page'], r.url).toContain(k);
}

describe.each(['paginator', 'resource', 'array', 'items'] as const)('the %s shape, filters ignored by the server', (shape) => {
  it('--all --json: every matching record of every page, the filters applied by payctl', async () => {
    const s = await serve({ shape });
    const expected = RECORDS.filter((r) => isStatus(r, 'Failed') && r.currency === 'SLE');
    expect(expected.length).toBeGreaterThan(5);
    const r = await run('payouts', 'list', '--all', '--json', '--status', 'FAILED', '--currency', 'sle');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const doc = oneJson(r.stdout);
    expect(idsOf(doc)).toEqual(expected.map((x) => x.transaction_id));
    // The records as the service sent them (grouped amounts, the status word as it came).
    expect(doc.data[0]).toEqual(expected[0]);
    expect(doc.status).toBe('Successful');
    expect(s.requests).toHaveLength(Math.ceil(RECORDS.length / PAGE));
    onlyPaging(s.requests);
    for (const req of s.requests) expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('--limit 20 over pages of 15: the first 20 matches, pages read until there are 20', async () => {
    const s = await serve({ shape });
    const expected = RECORDS.filter((r) => isStatus(r, 'Pending'));
    const r = await run('payouts', 'list', '--status', 'pending', '--limit', '20');
    expect(r.code, r.stderr).toBe(0);
    expect(tableIds(r.stdout)).toEqual(expected.slice(0, 20).map((x) => x.transaction_id));
    // 20 pending payouts are in the first 60 records (1 in 3): four pages of 15.
    const needed = Math.ceil((RECORDS.indexOf(expected[19]!) + 1) / PAGE);
    expect(s.requests.map((x) => x.query.page)).toEqual(Array.from({ length: needed }, (_, i) => String(i + 1)));
    onlyPaging(s.requests);
  });

  it('--wallet: only that wallet; records that name no wallet never match, said once on stderr', async () => {
    await serve({ shape });
    const expected = RECORDS.filter((r) => r.wallet_id === WALLET_A);
    const without = RECORDS.filter((r) => r.wallet_id === undefined).length;
    const r = await run('payouts', 'list', '--all', '--csv', '--wallet', WALLET_A);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trimEnd().split('\r\n').slice(1);
    expect(rows.map((l) => l.split(',')[1])).toEqual(expected.map((x) => x.transaction_id));
    expect(r.stderr).toBe(`Warning: ${without} payouts left out by --wallet: the service's records do not say which wallet paid them.\n`);
  });
});

describe('--limit and --page without filters', () => {
  it('--limit 20 when the service gives 15 a page: 20 shown from two pages, the hint says page 2 holds more', async () => {
    const s = await serve();
    const r = await run('payouts', 'list', '--limit', '20');
    expect(r.code, r.stderr).toBe(0);
    expect(tableIds(r.stdout)).toEqual(RECORDS.slice(0, 20).map((x) => x.transaction_id));
    // Page 2 as the service's own next_page_url names it (same origin): its parameters, no per_page.
    expect(s.requests.map((x) => x.query)).toEqual([{ page: '1', per_page: '20' }, { page: '2' }]);
    expect(r.stderr).toBe(
      [
        'Page 2 holds 10 more matching payouts than shown.',
        'All of page 2: payctl payouts list --limit 15 --page 2',
        'Next page: payctl payouts list --limit 20 --page 3',
        'Every page: payctl payouts list --all',
        '',
      ].join('\n'),
    );
  });

  it('--limit 5 when the service gives 15 a page: the hint leads to the payouts not shown, never to the same five again', async () => {
    await serve();
    const r = await run('payouts', 'list', '--limit', '5');
    expect(r.code, r.stderr).toBe(0);
    expect(tableIds(r.stdout)).toEqual(RECORDS.slice(0, 5).map((x) => x.transaction_id));
    expect(r.stderr).toBe(
      [
        'Page 1 holds 10 more matching payouts than shown.',
        'All of page 1: payctl payouts list --limit 15 --page 1',
        'Next page: payctl payouts list --limit 5 --page 2',
        'Every page: payctl payouts list --all',
        '',
      ].join('\n'),
    );
    const whole = await run('payouts', 'list', '--page', '1', '--limit', '15');
    expect(whole.code, whole.stderr).toBe(0);
    expect(tableIds(whole.stdout)).toEqual(RECORDS.slice(0, 15).map((x) => x.transaction_id));
    expect(whole.stderr).toBe('Page 1. Next page: payctl payouts list --limit 15 --page 2\nEvery page: payctl payouts list --all\n');
    const next = await run('payouts', 'list', '--page', '2', '--limit', '15');
    expect(tableIds(next.stdout)).toEqual(RECORDS.slice(15, 30).map((x) => x.transaction_id));
  });

  it('--json of one untouched page is the answer byte for byte; cut to --limit, the same envelope with only the payouts shown', async () => {
    await serve({ shape: 'paginator' });
    const whole = await run('payouts', 'list', '--limit', '15', '--json');
    const direct = await fetch(`${servers[0]!.baseUrl}/payout/list?page=1&per_page=15`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(whole.stdout).toBe((await direct.text()) + '\n');
    const cut = oneJson((await run('payouts', 'list', '--limit', '5', '--json')).stdout);
    expect(cut.data.data.map((p: Rec) => p.transaction_id)).toEqual(RECORDS.slice(0, 5).map((x) => x.transaction_id));
    expect(cut.data.current_page).toBe(1);
  });

  it('--page 3 asks the service for its page 3', async () => {
    const s = await serve({ shape: 'resource' });
    const r = await run('payouts', 'list', '--page', '3', '--limit', '15', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(idsOf(oneJson(r.stdout))).toEqual(RECORDS.slice(30, 45).map((x) => x.transaction_id));
    expect(s.requests.map((x) => x.query)).toEqual([{ page: '3', per_page: '15' }]);
  });
});

describe('next-page links', () => {
  it('a next_page_url on another origin is never followed: that server is never called, the key never sent there, pages asked by number', async () => {
    const other = await listServer();
    servers.push(other);
    const s = await serve({ nextBase: `${other.origin}/v2/payout/list` });
    const r = await run('payouts', 'list', '--all', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(idsOf(oneJson(r.stdout))).toEqual(RECORDS.map((x) => x.transaction_id));
    expect(other.requests).toEqual([]);
    expect(s.requests.map((x) => x.query)).toEqual(Array.from({ length: 7 }, (_, i) => ({ page: String(i + 1), per_page: '100' })));
    expect(r.stderr).toContain(`The service's next-page link points at another origin (${other.origin}/v2/payout/list?page=2)`);
    expect(warningsOf(r.stderr)).toHaveLength(1);
  });

  it('a next_page_url on another origin is said only when payctl asks for the next page: one page shown asks none, says nothing', async () => {
    const other = await listServer();
    servers.push(other);
    const s = await serve({ nextBase: `${other.origin}/v2/payout/list` });
    const one = await run('payouts', 'list', '--limit', '5');
    expect(one.code, one.stderr).toBe(0);
    expect(s.requests).toHaveLength(1);
    expect(one.stderr).not.toContain('another origin');
    // Twenty to show, fifteen a page: the second page is asked of the base URL by number, and said.
    const two = await run('payouts', 'list', '--limit', '20');
    expect(two.code, two.stderr).toBe(0);
    expect(s.requests.slice(1).map((x) => x.query)).toEqual([
      { page: '1', per_page: '20' },
      { page: '2', per_page: '20' },
    ]);
    expect(two.stderr).toContain(`The service's next-page link points at another origin (${other.origin}/v2/payout/list?page=2); payctl asked ${s.baseUrl}`);
    expect(other.requests).toEqual([]);
  });

  it('a next_page_url on the same origin is followed as given (its own parameters sent)', async () => {
    const s = await serve({
      body: (page, _q, origin) => ({
        current_page: page,
        data: RECORDS.slice((page - 1) * PAGE, page * PAGE),
        next_page_url: page < 3 ? `${origin}/v2/payout/list?cursor=c${page + 1}&page=${page + 1}` : null,
        per_page: PAGE,
      }),
    });
    const r = await run('payouts', 'list', '--all', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(idsOf(oneJson(r.stdout))).toEqual(RECORDS.slice(0, 45).map((x) => x.transaction_id));
    expect(s.requests.map((x) => x.query)).toEqual([
      { page: '1', per_page: '100' },
      { cursor: 'c2', page: '2' },
      { cursor: 'c3', page: '3' },
    ]);
  });
});

describe('amounts as JSON numbers longer than a double holds', () => {
  // "RAW:<literal>" strings become bare number literals on the wire.
  const raw = (json: string) => json.replace(/"RAW:([^"]+)"/g, '$1');
  const records = RECORDS.slice(0, 3).map((r, i) => ({
    ...r,
    currency: 'SLE',
    amount: ['RAW:12345678901234567890.12', 'RAW:1469.950000000000001', 'RAW:10.5'][i]!,
    fee: 'RAW:1.10',
  }));

  it('CSV and a computed summary show every digit sent; --json gives every amount as the service wrote it', async () => {
    await serve({ records, rewrite: raw });
    const csv = await run('payouts', 'list', '--all', '--csv');
    expect(csv.code, csv.stderr).toBe(0);
    const amountAt = CSV_HEADER.indexOf('amount');
    const feeAt = CSV_HEADER.indexOf('fee');
    const rows = csv.stdout
      .trimEnd()
      .split('\r\n')
      .slice(1)
      .map((l) => l.split(','));
    expect(rows.map((c) => c[amountAt])).toEqual(['12345678901234567890.12', '1469.950000000000001', '10.50']);
    expect(rows.map((c) => c[feeAt])).toEqual(['1.10', '1.10', '1.10']);

    const json = await run('payouts', 'list', '--all', '--json');
    expect(json.code, json.stderr).toBe(0);
    // Before: the long ones as strings of their digits, the short one a number (one field, two JSON types).
    expect(json.stdout.match(/"amount":[^,]*/g)).toEqual(['"amount":12345678901234567890.12', '"amount":1469.950000000000001', '"amount":10.5']);

    const sum = await run('summary', '--currency', 'SLE', '--csv');
    expect(sum.code, sum.stderr).toBe(0);
    expect(sum.stdout).toBe(
      ['currency,status,count,amount', 'SLE,Successful,1,12345678901234567890.12', 'SLE,Pending,1,10.50', 'SLE,Failed,1,1469.950000000000001', ''].join('\r\n'),
    );
  });
});

describe('payouts made while the list is read', () => {
  /** Three payouts made before each page is answered: the list's older payouts move down three places a page. */
  const growing = () => {
    let made = 0;
    return (page: number, _q: Record<string, string>, origin: string) => {
      const newer = makeRecords(made).map((r, i) => ({ ...r, transaction_id: `TXN-BOK-${String(900_000 + made - i).padStart(26, '0')}` }));
      made += 3;
      const all = [...newer, ...RECORDS];
      const last = Math.ceil(all.length / PAGE);
      return {
        current_page: page,
        data: all.slice((page - 1) * PAGE, page * PAGE),
        next_page_url: page < last ? `${origin}/v2/payout/list?page=${page + 1}` : null,
        last_page: last,
        per_page: PAGE,
        total: all.length,
      };
    };
  };

  it.each(['--csv', '--json', 'as a table'])('--all %s: each payout once, in order, and a note says how many were on two pages', async (format) => {
    await serve({ body: growing() });
    const r = await run('payouts', 'list', '--all', ...(format.startsWith('--') ? [format] : []));
    expect(r.code, r.stderr).toBe(0);
    const ids = listedIds(format, r.stdout);
    // Page n was read after 3(n-1) payouts were made: its first three are the last three of page n-1.
    expect(ids).toEqual(RECORDS.map((x) => x.transaction_id));
    // Nine pages read (100 payouts, 124 by the ninth): three repeated on each of pages 2 to 9.
    expect(r.stderr).toContain(`Note: 24 payouts were on two pages (payouts made while the list was read move the older ones down a page); each is listed once.`);
  });

  /** Pages of 15 of RECORDS, with page 4 ending in the first payout of page 1 again (paging moved under it further than a page or two). */
  const repeatedLater = (page: number, _q: Record<string, string>, origin: string) => {
    const last = Math.ceil(RECORDS.length / PAGE);
    const data = RECORDS.slice((page - 1) * PAGE, page * PAGE);
    return {
      current_page: page,
      data: page === 4 ? [...data.slice(0, -1), RECORDS[0]] : data,
      next_page_url: page < last ? `${origin}/v2/payout/list?page=${page + 1}` : null,
      last_page: last,
      per_page: PAGE,
      total: RECORDS.length,
    };
  };

  it.each(['--csv', '--json', 'as a table'])('--all %s: a payout sent again three pages later is listed once', async (format) => {
    await serve({ body: repeatedLater });
    const r = await run('payouts', 'list', '--all', ...(format.startsWith('--') ? [format] : []));
    expect(r.code, r.stderr).toBe(0);
    const ids = listedIds(format, r.stdout);
    expect(ids).toEqual(RECORDS.filter((_, i) => i !== 4 * PAGE - 1).map((x) => x.transaction_id));
    expect(ids.filter((id) => id === RECORDS[0]!.transaction_id)).toHaveLength(1);
    expect(r.stderr).toContain('Note: 1 payout was on two pages');
  });

  it('a computed summary counts a payout sent again three pages later once', async () => {
    await serve({ body: repeatedLater });
    const r = await run('summary', '--currency', 'NGN', '--json');
    expect(r.code, r.stderr).toBe(0);
    const ngn = RECORDS.filter((x, i) => x.currency === 'NGN' && i !== 4 * PAGE - 1);
    expect(oneJson(r.stdout).payouts).toBe(ngn.length);
    expect(r.stderr).toContain('Note: 1 payout was on two pages');
  });

  it('--limit 20 across pages: 20 different payouts', async () => {
    await serve({ body: growing() });
    const r = await run('payouts', 'list', '--limit', '20', '--status', 'failed', '--csv');
    expect(r.code, r.stderr).toBe(0);
    const ids = r.stdout
      .trimEnd()
      .split('\r\n')
      .slice(1)
      .map((l) => l.split(',')[1]);
    expect(ids).toEqual(
      RECORDS.filter((x) => isStatus(x, 'Failed'))
        .slice(0, 20)
        .map((x) => x.transaction_id),
    );
  });
});

describe('paging without progress stops with an error (exit 1)', () => {
  it.each([
    [
      'a paginator that always answers page 1',
      (_p: number, _q: Record<string, string>, origin: string) => ({
        current_page: 1,
        data: RECORDS.slice(0, PAGE),
        next_page_url: `${origin}/v2/payout/list?page=2`,
        last_page: 9,
        per_page: PAGE,
      }),
      /the service sent page 1 again/,
    ],
    ['an array that repeats the same full page', () => RECORDS.slice(0, 100), /page 2 repeats the page before it/],
    [
      'has_more that never ends, on an empty page',
      (p: number) => ({ items: p === 1 ? RECORDS.slice(0, PAGE) : [], has_more: true }),
      /page 2 is empty but the service says there are more/,
    ],
    [
      'a next link back to a page already read',
      (p: number, _q: Record<string, string>, origin: string) => ({
        current_page: p,
        data: RECORDS.slice((p - 1) * PAGE, p * PAGE),
        next_page_url: `${origin}/v2/payout/list?page=1&per_page=100`,
      }),
      /the next page the service names \(1\) was read already/,
    ],
    [
      'pages A, B, A, B... with a next link whose query changes every time',
      (p: number, _q: Record<string, string>, origin: string) => ({
        current_page: p,
        data: RECORDS.slice(((p - 1) % 2) * PAGE, (((p - 1) % 2) + 1) * PAGE),
        next_page_url: `${origin}/v2/payout/list?page=${p + 1}&j=${p}`,
      }),
      /page 3 repeats page 1/,
    ],
    [
      'has_more pages A, B, A, B...',
      (p: number) => ({ items: RECORDS.slice(((p - 1) % 2) * PAGE, (((p - 1) % 2) + 1) * PAGE), has_more: true }),
      /page 3 repeats page 1/,
    ],
  ])('%s', async (_name, body, message) => {
    const s = await serve({ body });
    const r = await run('payouts', 'list', '--all', '--csv');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('Stopped following pages');
    expect(s.requests.length).toBeLessThanOrEqual(3);
  });
});

describe('an array alone, shorter than asked on its first page', () => {
  it('one more page is asked: all there is when it comes back empty', async () => {
    const s = await serve({ shape: 'array', records: RECORDS.slice(0, 10) });
    const r = await run('payouts', 'list', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(idsOf(oneJson(r.stdout))).toEqual(RECORDS.slice(0, 10).map((x) => x.transaction_id));
    expect(s.requests.map((x) => x.query.page)).toEqual(['1', '2']);
  });

  it('a service that ignores page (the same short array again) ends there, nothing shown twice', async () => {
    await serve({ body: () => RECORDS.slice(0, 10) });
    const r = await run('payouts', 'list', '--all', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(idsOf(oneJson(r.stdout))).toEqual(RECORDS.slice(0, 10).map((x) => x.transaction_id));
  });
});

// The server module's own checks (a wrong key is refused) keep the tests above honest.
describe('the test server', () => {
  let s: ListServer;
  beforeAll(async () => {
    s = await listServer();
  });
  afterAll(async () => {
    await s.close();
  });
  beforeEach(() => writeProfile(cfg.dir, { baseUrl: s.baseUrl, apiKey: 'sk_wrong_key_for_this_server_0000' }));
  it('refuses another key (exit 3)', async () => {
    const r = await run('payouts', 'list');
    expect(r.code).toBe(3);
  });
});

describe('records whose created_at is not ISO 8601 (a Laravel service writes "2026-11-26 23:30:00")', () => {
  it('read in UTC by --from and --to, in the list and the summary; one that cannot be read is left out and said once', async () => {
    const times = ['2026-11-26 23:30:00', '26/11/2026 10:00', '2026-11-26T10:00:00.000000Z'];
    const recs = RECORDS.slice(0, 3).map((r, i) => ({ ...r, created_at: times[i]! }));
    await serve({ records: recs });
    const day = await run('payouts', 'list', '--all', '--json', '--from', '2026-11-26', '--to', '2026-11-26');
    expect(day.code, day.stderr).toBe(0);
    // Before: only the ISO one, and not a word of the others.
    expect(idsOf(JSON.parse(day.stdout) as { data: Array<{ transaction_id: string }> })).toEqual([recs[0]!.transaction_id, recs[2]!.transaction_id]);
    expect(asText(day.stderr)).toBe("Warning: 1 payout left out by --from/--to: the service's record gives no creation time payctl can read (created_at).\n");
    const next = await run('payouts', 'list', '--all', '--json', '--from', '2026-11-27');
    expect(idsOf(JSON.parse(next.stdout) as { data: Array<{ transaction_id: string }> })).toEqual([]);
    const sum = await run('summary', '--from', '2026-11-26');
    expect(sum.code, sum.stderr).toBe(0);
    expect(sum.stdout).toContain('from 2 payouts (of 3 listed)');
    expect(sum.stderr).toContain('1 payout left out by --from/--to');
  });
});
