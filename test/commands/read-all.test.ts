/**
 * In process (payctl's main with in-memory streams, the sandbox over real HTTP).
 * `payouts list --all` over 260 records: every record exactly once, in --json (one
 * envelope), --csv and the table, following every page; and the filters applied by payctl
 * in each list shape the sandbox can serve (it ignores every filter parameter).
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { newKey, oneJson, since, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';

const KEY = newKey();
const COUNT = 260;
const ctx = useSandbox({ apiKey: KEY, demoPayouts: false });
const cfg = useConfigDir();
let ids: string[];

beforeAll(() => {
  ctx.sb.generatePayouts(COUNT);
  ids = ctx.sb.payouts().map((p) => p.transaction_id);
});
beforeEach(() => writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }));
afterEach(() => ctx.sb.setShapes({ list: 'paginator' }));

/** Each id in `found` once, and the same ids in the same order as the sandbox holds (newest first). */
function expectEveryRecordOnce(found: string[]): void {
  expect(ids).toHaveLength(COUNT);
  expect(new Set(found).size).toBe(found.length);
  expect(found).toEqual(ids);
}

function listQueries(from: number): Array<Record<string, string>> {
  return since(ctx.sb, from)
    .filter((x) => x.path === '/v2/payout/list')
    .map((x) => x.query);
}

describe('payouts list --all', () => {
  it('--json: one envelope whose data holds every record, the paginator of 100 followed by its next_page_url', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['payouts', 'list', '--all', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const doc = oneJson(r.stdout);
    expect(Object.keys(doc)).toEqual(['status', 'message', 'data', 'timestamp']);
    expect(doc.status).toBe('Successful');
    expect(doc.message).toBe('Transfers retrieved');
    expect(doc.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(doc.data).toHaveLength(COUNT);
    expectEveryRecordOnce(doc.data.map((p: { transaction_id: string }) => p.transaction_id));
    // Records as the service sent them: the status word in lower case, the wallet beside it.
    const p = ctx.sb.payouts()[150]!;
    expect(doc.data[150]).toMatchObject({
      transaction_id: p.transaction_id,
      wallet_id: p.wallet_id,
      status: p.status.toLowerCase(),
      currency: p.currency,
      created_at: p.created_at,
    });
    expect(listQueries(from)).toEqual([
      { page: '1', per_page: '100' },
      { per_page: '100', page: '2' },
      { per_page: '100', page: '3' },
    ]);
  });

  it('--csv: a header and one row per record', async () => {
    const r = await payctl(['payouts', 'list', '--all', '--csv'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.endsWith('\r\n')).toBe(true);
    const lines = r.stdout.slice(0, -2).split('\r\n');
    expect(lines).toHaveLength(COUNT + 1);
    expect(lines[0]!.startsWith('created_at,transaction_id,payout_id,')).toBe(true);
    expectEveryRecordOnce(lines.slice(1).map((l) => l.split(',')[1]!));
  });

  // Off a terminal nothing is cut: a column is as wide as its widest cell so far, so a later page
  // with a longer recipient name widens it from there on (test/unit/width.test.ts). The generated
  // records differ from run to run (about 1 run in 60 had a longer name after the first page, and
  // this test, asking every row to line up with the header, failed then).
  it('table: one header, one row per record, the first page lined up under it and no column narrower later, a count on stderr', async () => {
    const r = await payctl(['payouts', 'list', '--all'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`${COUNT} payouts.\n`);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(COUNT + 1);
    expect(lines[0]).toMatch(/^CREATED \(UTC\)\s+TRANSACTION\s+WALLET\s+RECIPIENT\s+AMOUNT\s+STATUS$/);
    expect(lines.filter((l) => l.startsWith('CREATED'))).toHaveLength(1);
    expectEveryRecordOnce(lines.slice(1).map((l) => l.split(/\s+/)[2]!));
    const statusAt = lines[0]!.indexOf('STATUS');
    for (const l of lines.slice(1, 101)) expect(l.slice(statusAt)).toMatch(/^(Successful|Pending|Failed)$/);
    // Every row ends with its status after at least two spaces; a row's status never starts left
    // of the row above's, and rows of one page share one start.
    const starts = lines.slice(1).map((l) => {
      const m = / {2}(Successful|Pending|Failed)$/.exec(l);
      expect(m, l).not.toBeNull();
      return m!.index + 2;
    });
    for (let i = 1; i < starts.length; i++) expect(starts[i]!, lines[i + 1]).toBeGreaterThanOrEqual(starts[i - 1]!);
    for (const page of [starts.slice(0, 100), starts.slice(100, 200), starts.slice(200)]) expect(new Set(page).size).toBe(1);
  });

  it('--limit with --all is the page size asked: pages of 15 until the last (short) one', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['payouts', 'list', '--all', '--limit', '15', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expectEveryRecordOnce(oneJson(r.stdout).data.map((p: { transaction_id: string }) => p.transaction_id));
    const pages = Math.ceil(COUNT / 15);
    // 15 is the sandbox's default page size: its links carry no per_page.
    expect(listQueries(from)).toEqual([{ page: '1', per_page: '15' }, ...Array.from({ length: pages - 1 }, (_, i) => ({ page: String(i + 2) }))]);
  });
});

describe.each(['paginator', 'resource', 'array', 'items'] as const)("the sandbox's %s shape, filters applied by payctl", (shape) => {
  beforeEach(() => ctx.sb.setShapes({ list: shape }));

  it('--all --json --status failed: every failed payout of every page; only page and per_page sent', async () => {
    const failed = ctx.sb.payouts().filter((p) => p.status === 'Failed');
    expect(failed.length).toBeGreaterThan(20);
    expect(failed.length).toBeLessThan(COUNT);
    const from = ctx.sb.requests().length;
    const r = await payctl(['payouts', 'list', '--all', '--status', 'failed', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const doc = oneJson(r.stdout);
    expect(doc.data.map((p: { transaction_id: string }) => p.transaction_id)).toEqual(failed.map((p) => p.transaction_id));
    const queries = listQueries(from);
    expect(queries.length).toBe(3);
    for (const q of queries) for (const k of Object.keys(q)) expect(['page', 'per_page']).toContain(k);
  });

  it('--limit 20 --currency NGN: the first 20 NGN payouts, as a table', async () => {
    const ngn = ctx.sb.payouts().filter((p) => p.currency === 'NGN');
    expect(ngn.length).toBeGreaterThan(20);
    const r = await payctl(['payouts', 'list', '--limit', '20', '--currency', 'ngn'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').slice(1);
    expect(rows.map((l) => l.split(/\s+/)[2])).toEqual(ngn.slice(0, 20).map((p) => p.transaction_id));
    expect(r.stderr).toMatch(
      /^Page 1 holds \d+ more matching payouts than shown\.\nAll of page 1: payctl payouts list --currency ngn --limit \d+ --page 1\nNext page: payctl payouts list --currency ngn --limit 20 --page 2\nEvery page: payctl payouts list --currency ngn --all\n$/,
    );
  });
});
