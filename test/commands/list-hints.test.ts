/**
 * The hints `payouts list` prints on stderr after its table ("More: …", "Page N holds N more
 * …"): printed only when there is more, and every command in them works as printed. The
 * in-process sandbox over real HTTP answers the list as an array alone (docs/service.md list
 * variant 3, `--list-shape array`), whose short first page payctl follows with a probe of page
 * 2, or in each other shape (its shapes control); a small node:http server
 * (test/helpers/hostile.ts) plays a service that ignores `page`. The commands printed are run
 * as printed, under a profile that is not the default one (so each must name it).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newKey, tableIds, useConfigDir, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { admin, api, useSandbox } from '../helpers/sandbox.js';
import { shellSplit } from '../helpers/pty.js';
import { configDir, hostile, hostileProfile, json, useHostileCleanups } from '../helpers/hostile.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY, listShape: 'array' });
const cfg = useConfigDir();
useHostileCleanups();

const run = (...args: string[]) => {
  writeProfile(cfg.dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY });
  return payctl(args, { dir: cfg.dir });
};

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

/** The command of the stderr line starting with `label`, as argv without `payctl`. */
function printed(stderr: string, label: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith(`${label}: payctl `));
  expect(line, `no "${label}: payctl" in:\n${stderr}`).toBeDefined();
  return shellSplit(line!.slice(label.length + 2)).slice(1);
}

/** For each test: the sandbox answering lists in `shape`, and a config folder whose only profile is "ops" (a printed command without --profile ops would not work). */
function inShape(shape: string): (args: string[]) => ReturnType<typeof payctl> {
  let dir: string;
  beforeEach(async () => {
    expect((await admin(ctx.sb, 'POST', '/shapes', { list: shape })).status).toBe(200);
    dir = configDir();
    writeProfile(dir, { baseUrl: ctx.sb.baseUrl, apiKey: KEY }, 'ops');
  });
  afterEach(async () => {
    await admin(ctx.sb, 'POST', '/shapes', { list: 'array' });
  });
  return (args) => payctl(args, { dir });
}

describe.each(['paginator', 'resource', 'array', 'items'])('the commands in the hints run as printed (%s)', (shape) => {
  const ops = inShape(shape);

  it('--limit 5: the next page is payouts 6-10, its command carries --limit 5; every page is every payout', async () => {
    const all = ctx.sb.payouts().map((p) => p.transaction_id);
    expect(all.length).toBeGreaterThan(10);
    const r = await ops(['payouts', 'list', '--profile', 'ops', '--limit', '5']);
    expect(r.code, r.stderr).toBe(0);
    expect(tableIds(r.stdout)).toEqual(all.slice(0, 5));
    // Before: "Page 1. More: --page 2, ...": page 2 of 20-payout pages, payouts 21-40 (6-20 never shown).
    expect(r.stderr).toBe('Page 1. Next page: payctl payouts list --profile ops --limit 5 --page 2\nEvery page: payctl payouts list --profile ops --all\n');
    const next = await ops(printed(r.stderr, 'Page 1. Next page'));
    expect(next.code, next.stderr).toBe(0);
    expect(tableIds(next.stdout)).toEqual(all.slice(5, 10));
    expect(printed(next.stderr, 'Page 2. Next page')).toEqual(['payouts', 'list', '--profile', 'ops', '--limit', '5', '--page', '3']);
    const every = await ops(printed(r.stderr, 'Every page'));
    expect(every.code, every.stderr).toBe(0);
    expect(tableIds(every.stdout)).toEqual(all);
  });
});

// As an array alone, page 1 (the whole list) is shorter than asked: the probe of page 2 tells that no page follows, and no "Next page" is printed.
describe.each(['paginator', 'resource', 'array', 'items'])('the commands in the hints of a filtered list run as printed (%s)', (shape) => {
  const ops = inShape(shape);

  it('a filter with more matches on the page than --limit: each command keeps the filter and shows what it says', async () => {
    const failed = ctx.sb
      .payouts()
      .filter((p) => p.status === 'Failed')
      .map((p) => p.transaction_id);
    expect(failed.length).toBeGreaterThan(2);
    const r = await ops(['payouts', 'list', '--profile', 'ops', '--status', 'failed', '--limit', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(tableIds(r.stdout)).toEqual(failed.slice(0, 2));
    expect(r.stderr).toBe(
      [
        `Page 1 holds ${failed.length - 2} more matching payouts than shown.`,
        `All of page 1: payctl payouts list --profile ops --status failed --limit ${failed.length} --page 1`,
        'Every page: payctl payouts list --profile ops --status failed --all',
        '',
      ].join('\n'),
    );
    for (const label of ['All of page 1', 'Every page']) {
      const again = await ops(printed(r.stderr, label));
      expect(again.code, again.stderr).toBe(0);
      expect(tableIds(again.stdout), label).toEqual(failed);
    }
  });
});
