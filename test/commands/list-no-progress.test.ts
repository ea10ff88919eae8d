/**
 * Paging that brings nothing new (docs/service.md "Payout list"): a service that answers
 * `GET /v2/payout/list` with payouts it sent already (the same ones shuffled anew on every
 * request, or other mixes of them) and "more" (`has_more: true`, no total) is stopped with an
 * error (exit 1) by `payouts list --all`, a filtered `payouts list` and a computed `summary`,
 * after a few requests; while a burst of payouts made during the read (more than a page of
 * them between two requests: one page of nothing but repeats) is read to the end, each payout
 * once. Small node:http servers (test/helpers/hostile.ts) play the service; each stops saying
 * "more" after CAP requests, so a run that would page forever ends (and fails the test).
 */
import { describe, expect, it } from 'vitest';
import { oneJson } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { configDir, hostile, hostileProfile, json, useHostileCleanups, type Hostile } from '../helpers/hostile.js';

useHostileCleanups();

/** Requests after which the servers below end their list (an empty last page). */
const CAP = 40;
const PAGE = 15;

/** A documented look-up record: newest first, statuses in turn, SLE, one a minute. */
function rec(i: number): Record<string, unknown> {
  const at = new Date(Date.UTC(2026, 10, 30, 12, 0, 0) - i * 60_000).toISOString().replace(/\.\d{3}Z$/, '.000000Z');
  return {
    transaction_id: `TXN-BOK-${String(i).padStart(26, '0')}`,
    status: ['successful', 'failed', 'pending'][i % 3],
    amount: '1,000.00',
    currency: 'SLE',
    fee: '10.00',
    total_amount: '1,010.00',
    recipient: { transfer_type: 'bank', account_number: `0427${String(i).padStart(6, '0')}`, name: `Person ${i}`, bank: 'ECOBANK' },
    description: 'Payment for services',
    created_at: at,
    updated_at: at,
    provider_reference: `ORD-${i}`,
  };
}
const RECORDS = Array.from({ length: 100 }, (_, i) => rec(i));

/** `items` shuffled by a small seeded generator (a new order for every seed). */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let x = seed * 2_654_435_761 + 1;
  for (let i = out.length - 1; i > 0; i--) {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b_3c6d) + 0x9e37_79b9) >>> 0;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A list service answering `data.items` with `has_more` (no total): `items(n)` for its n-th list request. */
async function listService(items: (n: number) => unknown[], more: (n: number) => boolean = () => true): Promise<{ h: Hostile; dir: string; lists: () => number }> {
  let n = 0;
  const h = await hostile((req, res) => {
    if (!req.url?.startsWith('/v2/payout/list')) return json(res, 404, { message: 'Not Found' });
    n++;
    const data = n > CAP ? { items: [], has_more: false } : { items: items(n), has_more: more(n) };
    json(res, 200, { status: 'Successful', message: 'Transfers retrieved', data, timestamp: '2026-12-01T00:00:00.000000Z' });
  });
  const dir = configDir();
  hostileProfile(dir, h);
  return { h, dir, lists: () => h.seen.filter((s) => s.url.startsWith('/v2/payout/list')).length };
}

const COMMANDS = [
  ['payouts', 'list', '--all', '--json'],
  ['payouts', 'list', '--all', '--csv'],
  ['payouts', 'list', '--status', 'failed'],
  ['summary', '--currency', 'SLE'],
];

describe('a service that sends the same payouts again, in a new order every time, with "more"', () => {
  it.each(COMMANDS.map((c) => [c.join(' '), c]))('%s stops with an error after a few requests (exit 1)', async (_name, args) => {
    // Before: every record was left out as listed already, and paging went on (8,710 pages in 30 s).
    const s = await listService((n) => shuffled(RECORDS.slice(0, PAGE), n));
    const r = await payctl(args, { dir: s.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('Stopped following pages: page 2 repeats the page before it (15 payouts read before).');
    expect(s.lists()).toBe(2);
  });
});

describe('a service that sends other mixes of payouts it sent already, with "more"', () => {
  /** Pages 1 and 2 are the first 30 payouts; then 15 of those 30 from the n-th on (round), never the same 15 as a page before. */
  const mixes = (n: number) => (n <= 2 ? RECORDS.slice((n - 1) * PAGE, n * PAGE) : Array.from({ length: PAGE }, (_, i) => RECORDS[(n + i) % (2 * PAGE)]));

  it.each(COMMANDS.map((c) => [c.join(' '), c]))('%s stops after three pages in a row with nothing new (exit 1)', async (_name, args) => {
    const s = await listService(mixes);
    const r = await payctl(args, { dir: s.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('Stopped following pages: pages 3-5 brought no payout that was not listed before, yet the service says there are more');
    expect(r.stderr).toContain('payouts are being made as fast as the list is read');
    expect(s.lists()).toBe(5);
  });
});

describe('payouts made while the list is read', () => {
  /** Pages of 15 from newest; 20 payouts made after page 2 was read: page 3 holds only payouts of page 2, page 4 goes on. */
  const burst = (n: number) => {
    const made = n >= 3 ? 20 : 0;
    const newer = Array.from({ length: made }, (_, i) => ({ ...rec(1000 + i), transaction_id: `TXN-BOK-${String(900_000 + made - i).padStart(26, '0')}` }));
    return [...newer, ...RECORDS].slice((n - 1) * PAGE, n * PAGE);
  };

  it('a burst of more than a page of them: a page of nothing new, then the list goes on to its end, each payout once', async () => {
    const s = await listService(burst, (n) => (n - 1) * PAGE + PAGE < RECORDS.length + (n >= 3 ? 20 : 0));
    const r = await payctl(['payouts', 'list', '--all', '--json'], { dir: s.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(oneJson(r.stdout).data.map((p: { transaction_id: string }) => p.transaction_id)).toEqual(RECORDS.map((x) => x.transaction_id));
    // Page 3 (payouts 10-24) and the first five of page 4 (25-29) were on page 2 already.
    expect(r.stderr).toContain('Note: 20 payouts were on two pages');
    expect(s.lists()).toBe(Math.ceil((RECORDS.length + 20) / PAGE));
  });
});
