/**
 * The hints `payouts list` prints on stderr after its table ("More: …", "Page N holds N more
 * …"): printed only when there is more, and every command in them works as printed. The
 * in-process sandbox over real HTTP answers the list as an array alone (docs/service.md list
 * variant 3, `--list-shape array`), whose short first page payctl follows with a probe of page
 * 2; a small node:http server (test/helpers/hostile.ts) plays a service that ignores `page`.
 */
import { describe, expect, it } from 'vitest';
import { newKey, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { api, useSandbox } from '../helpers/sandbox.js';
import { configDir, hostile, hostileProfile, json, useHostileCleanups } from '../helpers/hostile.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY, listShape: 'array' });
const cfg = useConfigDir();
useHostileCleanups();

const run = (...args: string[]) => {
  writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  return payctl(args, { dir: cfg.dir });
};

/** The transaction ids of a table (column 2 of each data line). */
const tableIds = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => l.split(/\s+/)[2]);

describe('no "More" hint once the list has ended', () => {
  it('an array alone, every payout on a short first page: the probe of page 2 finds nothing, and no hint says there is more', async () => {
    const all = ctx.sb.payouts();
    expect(all.length).toBeGreaterThan(0);
    expect(all.length).toBeLessThan(100);
    const r = await run('payouts', 'list', '--limit', '100');
    expect(r.code, r.stderr).toBe(0);
    expect(tableIds(r.stdout)).toEqual(all.map((p) => p.transaction_id));
    // Before: "Page 1. More: --page 2, or --all for every page.", and page 2 is empty.
    expect(r.stderr).toBe('');
    const next = await run('payouts', 'list', '--limit', '100', '--page', '2');
    expect(next.stderr).toBe('No payouts on page 2.\n');
  });

  it('an array alone, filtered: every matching payout shown, no hint', async () => {
    const failed = ctx.sb.payouts().filter((p) => p.status === 'Failed');
    expect(failed.length).toBeGreaterThan(0);
    const r = await run('payouts', 'list', '--status', 'failed');
    expect(r.code, r.stderr).toBe(0);
    expect(tableIds(r.stdout)).toEqual(failed.map((p) => p.transaction_id));
    expect(r.stderr).toBe('');
  });

  it('a service that ignores page (the same short array every time): its payouts, no hint', async () => {
    // Three of the sandbox's listed records, as it writes them.
    const records = (await api<{ data: Array<{ transaction_id: string }> }>(ctx.sb, 'GET', '/payout/list?per_page=3')).body.data;
    expect(records).toHaveLength(3);
    const h = await hostile((req, res) => {
      if (!req.url?.startsWith('/v2/payout/list')) return json(res, 404, { message: 'Not Found' });
      json(res, 200, { status: 'Successful', message: 'Transfers retrieved', data: records, timestamp: '2026-12-01T00:00:00.000000Z' });
    });
    const dir = configDir();
    hostileProfile(dir, h);
    const r = await payctl(['payouts', 'list'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(tableIds(r.stdout)).toEqual(records.map((p) => p.transaction_id));
    expect(r.stderr).toBe('');
    expect(h.seen.map((s) => new URL(s.url, 'http://x').searchParams.get('page'))).toEqual(['1', '2']);
  });
});
