/**
 * In process (payctl's main with in-memory streams, the sandbox over real HTTP).
 * `payouts list --all` over 260 records: every record exactly once, in --json (one
 * envelope), --csv and the table, following every page.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
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

/** Each id in `found` once, and the same ids in the same order as the sandbox holds (newest first). */
function expectEveryRecordOnce(found: string[]): void {
  expect(ids).toHaveLength(COUNT);
  expect(new Set(found).size).toBe(found.length);
  expect(found).toEqual(ids);
}

function listQueries(from: number): Array<Record<string, string>> {
  return since(ctx.sb, from)
    .filter((x) => x.path === '/v2/payouts')
    .map((x) => x.query);
}

describe('payouts list --all', () => {
  it('--json: one envelope whose data holds every record, pages of 100 followed', async () => {
    const from = ctx.sb.requests().length;
    const r = await payctl(['payouts', 'list', '--all', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const doc = oneJson(r.stdout);
    expect(Object.keys(doc)).toEqual(['status', 'message', 'data', 'timestamp']);
    expect(doc.status).toBe('Successful');
    expect(doc.message).toBe('Payouts retrieved successfully');
    expect(doc.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(doc.data).toHaveLength(COUNT);
    expectEveryRecordOnce(doc.data.map((p: { transaction_id: string }) => p.transaction_id));
    // Records as the service sent them.
    const p = ctx.sb.payouts()[150]!;
    expect(doc.data[150]).toMatchObject({ transaction_id: p.transaction_id, payout_id: p.payout_id, status: p.status, currency: p.currency, created_at: p.created_at });
    expect(listQueries(from)).toEqual([
      { page: '1', limit: '100' },
      { page: '2', limit: '100' },
      { page: '3', limit: '100' },
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

  it('table: one header, one row per record with columns lined up across pages, and a count on stderr', async () => {
    const r = await payctl(['payouts', 'list', '--all'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`${COUNT} payouts.\n`);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(COUNT + 1);
    expect(lines[0]).toMatch(/^CREATED \(UTC\)\s+TRANSACTION\s+PAYOUT ID\s+RECIPIENT\s+AMOUNT\s+STATUS$/);
    expect(lines.filter((l) => l.startsWith('CREATED'))).toHaveLength(1);
    expectEveryRecordOnce(lines.slice(1).map((l) => l.split(/\s+/)[2]!));
    const statusAt = lines[0]!.indexOf('STATUS');
    for (const l of lines.slice(1)) expect(l.slice(statusAt)).toMatch(/^(Successful|Pending|Failed)$/);
  });

  it('with a filter and --limit: pages of that size until a short page', async () => {
    const failed = ctx.sb.payouts().filter((p) => p.status === 'Failed');
    expect(failed.length).toBeGreaterThan(50);
    const from = ctx.sb.requests().length;
    const r = await payctl(['payouts', 'list', '--all', '--status', 'Failed', '--limit', '50', '--json'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(oneJson(r.stdout).data.map((p: { transaction_id: string }) => p.transaction_id)).toEqual(failed.map((p) => p.transaction_id));
    const pages = Math.floor(failed.length / 50) + 1;
    expect(listQueries(from)).toEqual(Array.from({ length: pages }, (_, i) => ({ page: String(i + 1), limit: '50', status: 'Failed' })));
  });
});
