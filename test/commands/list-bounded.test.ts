/**
 * `payouts list` without --all against a service that always has another page (probe 70-S,
 * finding 3): a filter nothing matches once read pages forever, silently. Now a list without
 * --all reads at most MAX_PAGES_WITHOUT_ALL (100) pages, then shows what matched, warns how
 * many pages and payouts it read and how many matched, and prints the commands to read on
 * (--page, --all), exit 0; at a terminal a progress line shows the reading, as summary's does.
 * Against a plain node:http service whose every page is full of new payouts and links the next.
 */
import { describe, expect, it } from 'vitest';
import { hostile, hostileProfile, useHostileCleanups, type Hostile } from '../helpers/hostile.js';
import { useConfigDir } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { MAX_PAGES_WITHOUT_ALL } from '../../src/commands/payouts/list.js';

const cfg = useConfigDir();
useHostileCleanups();

const txn = (i: number) => 'TXN-BOK-' + i.toString(16).toUpperCase().padStart(26, '0');

/** Record `i`: Successful, unless `failed(i)`. */
function rec(i: number, failed: boolean): Record<string, unknown> {
  return {
    transaction_id: txn(i),
    status: failed ? 'failed' : 'successful',
    amount: '10.00',
    currency: 'SLE',
    fee: '0.10',
    total_amount: '10.10',
    recipient: { transfer_type: 'bank', account_number: '123456', name: `Rec ${i}`, bank: 'ECOBANK' },
    description: 'n',
    created_at: '2026-11-20T10:00:00.000000Z',
    updated_at: '2026-11-20T10:00:00.000000Z',
    wallet_id: '6643665465',
  };
}

/** A list that never ends: page p holds records (p-1)*per_page+1..p*per_page, each new; `failed(i)` marks the Failed ones. */
async function endless(failed: (i: number) => boolean = () => false): Promise<Hostile> {
  const h = await hostile((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const page = Number(u.searchParams.get('page') ?? 1);
    const pp = Number(u.searchParams.get('per_page') ?? 15);
    const base = `http://${req.headers.host}/v2/payout/list`;
    const data = Array.from({ length: pp }, (_, k) => (page - 1) * pp + k + 1).map((i) => rec(i, failed(i)));
    const body = JSON.stringify({
      status: 'Successful',
      message: 'ok',
      data: { current_page: page, data, next_page_url: `${base}?page=${page + 1}&per_page=${pp}`, per_page: pp, path: base },
      timestamp: 'x',
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  hostileProfile(cfg.dir, h);
  return h;
}

const pagesAsked = (h: Hostile) => h.seen.filter((s) => s.url.startsWith('/v2/payout/list')).map((s) => Number(new URL(s.url, 'http://x').searchParams.get('page')));

describe('payouts list without --all, a filter, and a service that always has another page', () => {
  it('nothing matches: stops after 100 pages, exit 0, says so and how to read on; the printed command reads on from page 101', async () => {
    expect(MAX_PAGES_WITHOUT_ALL).toBe(100);
    const h = await endless();
    const r = await payctl(['payouts', 'list', '--status', 'failed'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(pagesAsked(h)).toEqual(Array.from({ length: 100 }, (_, k) => k + 1));
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'Warning: Stopped after 100 pages (pages 1-100, 10000 payouts read): none matches. A list without --all reads at most 100 pages, and the service has more.',
    );
    expect(r.stderr).not.toContain('No payouts match.');
    expect(r.stderr).toContain('Every page: payctl payouts list --status failed --all');
    const next = /Next pages: (payctl .*)/.exec(r.stderr)![1]!;
    expect(next).toBe('payctl payouts list --status failed --page 101');
    h.seen.length = 0;
    const again = await payctl(next.split(' ').slice(1), { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(pagesAsked(h)).toEqual(Array.from({ length: 100 }, (_, k) => k + 101));
    expect(again.stderr).toContain('(pages 101-200, 10000 payouts read)');
  });

  it('fewer than --limit match in 100 pages: those are shown, the warning counts them', async () => {
    await endless((i) => i % 1000 === 0);
    const r = await payctl(['payouts', 'list', '--status', 'failed'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/Failed/g)).toHaveLength(10);
    expect(r.stdout).toContain(txn(10_000));
    expect(r.stderr).toContain('Stopped after 100 pages (pages 1-100, 10000 payouts read): 10 match, fewer than the 20 asked (--limit).');
    expect(r.stderr).not.toMatch(/^Pages 1-100\. Next page/m);
  });

  it('--json and --csv: the matches on stdout as usual, the warning on stderr', async () => {
    await endless((i) => i % 5000 === 0);
    const j = await payctl(['payouts', 'list', '--status', 'failed', '--json'], { dir: cfg.dir });
    expect(j.code, j.stderr).toBe(0);
    expect((JSON.parse(j.stdout) as { data: { data: unknown[] } }).data.data).toHaveLength(2);
    expect(j.stderr).toContain('Stopped after 100 pages');
    const c = await payctl(['payouts', 'list', '--status', 'failed', '--csv'], { dir: cfg.dir });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.trim().split('\n')).toHaveLength(3);
    expect(c.stderr).toContain('2 match, fewer than the 20 asked');
  });

  it('enough match before the bound: no warning, no more pages read than needed', async () => {
    const h = await endless((i) => i % 400 === 0);
    const r = await payctl(['payouts', 'list', '--status', 'failed', '--limit', '3'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(pagesAsked(h)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(r.stderr).not.toContain('Stopped');
  });

  it('at a terminal, a progress line shows the pages read, and is cleared at the end', async () => {
    await endless();
    const r = await payctl(['payouts', 'list', '--status', 'failed'], { dir: cfg.dir, tty: { stderr: true } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Reading payouts: page 1, 100 read, 0 of 20 found');
    expect(r.stderr).toContain('Reading payouts: page 100, 10000 read, 0 of 20 found');
    expect(r.stderr).toContain('\r\u001b[2KWarning: Stopped after 100 pages');
    const off = await payctl(['payouts', 'list', '--status', 'failed'], { dir: cfg.dir });
    expect(off.stderr).not.toContain('Reading payouts');
  });
});
