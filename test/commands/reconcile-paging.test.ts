/**
 * `payctl history reconcile` past 24 hours searches the payout list for a payout whose answer
 * was lost (src/payouts/lookup.ts findCandidates). A candidate the list shows on two pages
 * (payouts made while it is read push it down a page) is one candidate, with one `--made-by`
 * command; a service that sends the same records again in a new order, with "more", stops the
 * search at its second page (the search failed, said) instead of reading 100 pages and listing
 * the candidate 100 times. The in-process sandbox, behind a proxy that rewrites its list answers
 * (test/helpers/hostile.ts), plays the service; a TestClock a day ahead makes the entry old.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeLoggedIn, writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { heldFor } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { sandboxProxy, useHostileCleanups, type Proxy } from '../helpers/hostile.js';

const ctx = useSandbox();
useHostileCleanups();

let dir: string;
let cleanup: () => void;
let proxy: Proxy;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  proxy = await sandboxProxy(ctx.sb);
  writeProfile(dir, { ...(await writeLoggedIn(ctx.sb, dir)), baseUrl: proxy.baseUrl });
});

afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

const later = () => new TestClock(new Date(Date.now() + 25 * 60 * 60 * 1000));

/** A bank payout of 250.75 SLE to `account`, its every answer lost: the journal holds it unknown. */
async function lostPayout(): Promise<{ id: string; txn: string; account: string }> {
  const wallet = freshWallet(ctx.sb, '10000.00');
  const id = randomUUID();
  const account = String(Math.floor(1e9 + Math.random() * 8e9));
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: 10 });
  const args = ['payout', 'create', '--wallet', wallet, '--amount', '250.75', '--currency', 'SLE', '--type', 'bank', '--name', 'Fatmata Sesay'];
  const r = await payctl([...args, '--provider', 'ecobank', '--account', account, '--note', 'November rent', '--payout-id', id, '--yes'], {
    dir,
    clock: new TestClock(),
  });
  expect(r.code, r.stderr).toBe(4);
  ctx.sb.faults.clear();
  return { id, txn: heldFor(ctx.sb, id)[0]!.transaction_id, account };
}

type ListDoc = { data: { current_page: number; data: Array<Record<string, unknown>>; next_page_url: string | null; last_page: number; per_page: number } };

describe('history reconcile past 24 hours, the list read page by page', () => {
  it('a candidate on two pages (pushed down a page while the list was read) is one candidate, with one --made-by', async () => {
    const { id, txn } = await lostPayout();
    let mine: Record<string, unknown> | undefined;
    proxy.rewriteLists((raw) => {
      const doc = JSON.parse(raw) as ListDoc;
      mine ??= doc.data.data.find((r) => r.transaction_id === txn)!;
      // Page 1: a newer payout (another amount), then it; page 2 starts with it again, and is the last.
      const newer = { ...mine, transaction_id: `${txn.slice(0, -1)}X`, amount: '99.00', total_amount: '100.00' };
      doc.data.data = doc.data.current_page === 1 ? [newer, mine] : [mine];
      doc.data.per_page = 2;
      doc.data.last_page = 2;
      doc.data.next_page_url = doc.data.current_page === 1 ? `${proxy.baseUrl}/payout/list?page=2` : null;
      return JSON.stringify(doc);
    });
    const r = await payctl(['history', 'reconcile', '--payout-id', id], { dir, clock: later() });
    expect(r.code, r.stdout + r.stderr).toBe(4);
    // Before: "2 payouts at the service could be it", the same transaction twice, two --made-by lines.
    expect(r.stdout).toMatch(/^ +1 payout at the service could be it .*; 2 records of the payout list read\):$/m);
    expect(r.stdout.split('\n').filter((l) => l.includes(txn))).toHaveLength(2);
    expect(
      r.stdout
        .split('\n')
        .filter((l) => l.includes('--made-by'))
        .map((l) => l.trim()),
    ).toEqual([`payctl history reconcile --payout-id ${id} --made-by ${txn}`]);
  });

  it('a service that sends the same records again in a new order, with more: the search stops at page 2, said; not 100 pages', async () => {
    const { id, txn, account } = await lostPayout();
    const lists = () => ctx.sb.requests().filter((q) => q.path === '/v2/payout/list').length;
    const before = lists();
    let same: Array<Record<string, unknown>> | undefined;
    proxy.rewriteLists((raw) => {
      const doc = JSON.parse(raw) as ListDoc;
      // This test's payout and two made up beside it (other amounts), every page, turned round by one each time.
      same ??= doc.data.data
        .filter((r) => r.transaction_id === txn)
        .flatMap((r) => [r, ...['X', 'Y'].map((c) => ({ ...r, transaction_id: `${txn.slice(0, -1)}${c}`, amount: '99.00', total_amount: '100.00' }))]);
      const n = doc.data.current_page;
      doc.data.data = [...same.slice(n % 3), ...same.slice(0, n % 3)];
      doc.data.per_page = 3;
      doc.data.last_page = 1000;
      doc.data.next_page_url = `${proxy.baseUrl}/payout/list?page=${n + 1}`;
      return JSON.stringify(doc);
    });
    const r = await payctl(['history', 'reconcile', '--payout-id', id], { dir, clock: later() });
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stdout).toContain(
      "Searching the service's payout list for it failed: Searching the payout list: page 2 repeats page 1; the service's paging does not progress",
    );
    expect(lists() - before).toBe(2);
    expect(r.stdout).not.toContain(account);
  });

  it('a service that sends other mixes of records it sent already, with more: the search stops after three pages with nothing new', async () => {
    const { id, txn } = await lostPayout();
    const lists = () => ctx.sb.requests().filter((q) => q.path === '/v2/payout/list').length;
    const before = lists();
    let four: Array<Record<string, unknown>> | undefined;
    proxy.rewriteLists((raw) => {
      const doc = JSON.parse(raw) as ListDoc;
      // Page 1: this test's payout and three made up beside it (other amounts); then two of those four each time, never the same two twice running.
      four ??= doc.data.data
        .filter((r) => r.transaction_id === txn)
        .flatMap((r) => [r, ...['X', 'Y', 'Z'].map((c) => ({ ...r, transaction_id: `${txn.slice(0, -1)}${c}`, amount: '99.00', total_amount: '100.00' }))]);
      const n = doc.data.current_page;
      doc.data.data = n === 1 ? four : [four[(n - 1) % 4]!, four[n % 4]!];
      doc.data.per_page = n === 1 ? 4 : 2;
      doc.data.last_page = 1000;
      doc.data.next_page_url = `${proxy.baseUrl}/payout/list?page=${n + 1}`;
      return JSON.stringify(doc);
    });
    const r = await payctl(['history', 'reconcile', '--payout-id', id], { dir, clock: later() });
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stdout).toContain(
      "Searching the service's payout list for it failed: Searching the payout list: pages 2-4 brought no record not read before, yet the service says there are more; the service's paging does not progress",
    );
    expect(lists() - before).toBe(4);
  });
});
