/**
 * A resend that resolves an unknown outcome, refused (payouts/resend-refused.ts), against the
 * in-process sandbox over real HTTP. The first create is committed and its every answer lost
 * (exit 4, unknown); the resend (history reconcile's, the printed `--idempotency-key` retry, a
 * batch's rerun) is answered with a proxy's 404 page or a 400 "Insufficient wallet balance"
 * (a service that did not honour the key). That refusal speaks of the resend only: the payout
 * list is searched for the earlier attempt, which is found, so the outcome stays unknown (exit 4),
 * the repeat guard still holds, and the sandbox holds one payout. When the first attempt never
 * reached the service (reset before the commit), the search finds nothing and the refusal is
 * recorded as refused. A first attempt refused outright, alone or in a batch, searches nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { batchRows, tempWorkDir, toCsv, withOwnPayees, writeFile } from '../helpers/batch.js';
import { heldFor, heldFrom, loginInProcess } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { printed } from '../helpers/printed.js';
import { Journal } from '../../src/payouts/journal.js';
import { sandboxProxy, useHostileCleanups, type Proxy } from '../helpers/hostile.js';
import { writeProfile } from '../helpers/e2e.js';

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
});

afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

const run = (args: string[]): Promise<Run> => payctl(args, { dir, clock: new TestClock() });

const NGINX_404 = '<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>';

/** A bank payout to its own account (other tests' payouts never match it); with `payoutId`, under that id. */
function createArgs(walletId: string, account: string, payoutId?: string, amount = '15.00'): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    walletId,
    '--amount',
    amount,
    '--currency',
    'SLE',
    '--type',
    'bank',
    '--name',
    'John Kamara',
    '--provider',
    'ecobank',
    '--account',
    account,
    ...(payoutId ? ['--payout-id', payoutId] : []),
    '--yes',
  ];
}

const account = () => String(Math.floor(1e9 + Math.random() * 8e9));

/** `payout create` whose every attempt loses its answer (after the commit, or before it): exit 4, journaled unknown. */
async function lostAnswer(args: string[], payoutId: string, fault: 'reset-after-commit' | 'reset-before-commit'): Promise<Run> {
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: fault, times: Infinity });
  const r = await run(args);
  expect(r.code, r.stderr).toBe(4);
  ctx.sb.faults.clear();
  expect(await outcome(payoutId)).toBe('unknown');
  return r;
}

const outcome = async (payoutId: string) => (await new Journal(dir).get(ctx.sb.baseUrl, payoutId))?.outcome?.kind;

/** GET /payout/list requests the sandbox had from request `from` on. */
const listReads = (from: number) =>
  ctx.sb
    .requests()
    .slice(from)
    .filter((q) => q.method === 'GET' && q.path === '/v2/payout/list').length;

describe('the resend of a payout made, its answer lost, is refused: still unknown, never "no payout was made"', () => {
  it("reconcile's resend answered with a proxy's 404 page: exit 4, still unknown, the earlier payout named; retyped, refused as a repeat; one payout", async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const acct = account();
    await lostAnswer(createArgs(wallet, acct, id), id, 'reset-after-commit');
    const held = heldFor(ctx.sb, id);
    expect(held).toHaveLength(1);
    const txn = held[0]!.transaction_id;

    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 404, body: NGINX_404 });
    const from = ctx.sb.requests().length;
    const r = await run(['history', 'reconcile']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toContain(
      `unknown   ${id}  resent with its journaled idempotency key: the service refused the resend (The service answered HTTP 404 with a body that is not JSON: `,
    );
    expect(r.stdout).toContain(`but an earlier attempt may have been made: a record at the service could be it`);
    expect(r.stdout).toContain(`: ${txn}\n`);
    expect(r.stdout).toContain(`payctl history reconcile --payout-id ${id} --made-by ${txn}`);
    expect(r.stdout).not.toMatch(/no payout was made/);
    expect(r.stderr).toContain('now 0 accepted, 0 refused, 1 still unknown.');
    expect(listReads(from)).toBeGreaterThan(0);
    expect(await outcome(id)).toBe('unknown');

    // A day on, reconcile holds it (no resend) and says the records judged as the deciding search judged them.
    const later = await payctl(['history', 'reconcile'], { dir, clock: new TestClock(new Date(Date.now() + 25 * 3600_000)) });
    expect(later.code, later.stderr).toBe(4);
    expect(later.stdout + later.stderr).toMatch(/could be it \(same amount and currency, created at any time;/);

    // The printed command records it as made.
    const made = await run(printed(r.stdout, 'history reconcile --payout-id'));
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`recorded as made by transaction ${txn}`);

    // Typed again (a new payout id): the repeat guard holds; nothing sent.
    const posts = ctx.sb.requests().length;
    const again = await run(createArgs(wallet, acct));
    expect(again.code, again.stderr).toBe(2);
    expect(
      ctx.sb
        .requests()
        .slice(posts)
        .filter((q) => q.method === 'POST'),
    ).toHaveLength(0);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });

  it('the printed --idempotency-key retry answered 400 "Insufficient wallet balance": exit 4, still unknown, the repeat guard holds; one payout', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const acct = account();
    const lost = await lostAnswer(createArgs(wallet, acct, id), id, 'reset-after-commit');
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;

    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 400, code: 'INSUFFICIENT_FUNDS', message: 'Insufficient wallet balance' });
    const retry = await run(printed(lost.stderr, 'payout create'));
    expect(retry.code, retry.stderr).toBe(4);
    expect(retry.stderr).toContain('the service refused the resend (HTTP 400: Insufficient wallet balance), but an earlier attempt may have been made');
    expect(retry.stderr).toContain(txn);
    expect(retry.stderr).toContain(`payctl history reconcile --payout-id ${id} --made-by ${txn}`);
    expect(retry.stderr).not.toMatch(/no payout was made/);
    expect(await outcome(id)).toBe('unknown');

    const history = await run(['history']);
    expect(history.stdout).not.toMatch(/rejected|refused/);
    const again = await run(createArgs(wallet, acct));
    expect(again.code, again.stderr).toBe(2);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });
});

describe('a rerun of a payout whose run was killed before its outcome was written', () => {
  it('its resend refused 400: the payout list searched, the earlier payout named, exit 4; never "refused" (before: recorded refused, exit 1)', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const acct = account();
    const lost = await lostAnswer(createArgs(wallet, acct, id), id, 'reset-after-commit');
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    // As a run killed while its request was in flight leaves it: journaled, no outcome.
    const journal = new Journal(dir);
    await journal.put({ ...(await journal.get(ctx.sb.baseUrl, id))!, outcome: undefined });

    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 400, code: 'INSUFFICIENT_FUNDS', message: 'Insufficient wallet balance' });
    const retry = await run(printed(lost.stderr, 'payout create'));
    expect(retry.code, retry.stderr).toBe(4);
    expect(retry.stderr).toContain(txn);
    expect(await outcome(id)).toBe('unknown');
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });
});

describe('the first attempt never reached the service', () => {
  it("reconcile's resend refused 400: the payout list searched, none pays it: recorded as refused (exit 0), saying so", async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    // An amount no other payout of the sandbox has: only amount and currency rule a record out of this search.
    await lostAnswer(createArgs(wallet, account(), id, '31.17'), id, 'reset-before-commit');
    expect(heldFor(ctx.sb, id)).toHaveLength(0);

    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 400, code: 'INSUFFICIENT_FUNDS', message: 'Insufficient wallet balance' });
    const from = ctx.sb.requests().length;
    const r = await run(['history', 'reconcile']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^refused   ${id}  resent with its journaled idempotency key: INSUFFICIENT_FUNDS: Insufficient wallet balance; the payout list was searched: \\d+ records? read, the whole list, none pays it; no payout was made\\n$`,
      ),
    );
    expect(listReads(from)).toBeGreaterThan(0);
    expect(await outcome(id)).toBe('rejected');
    expect(heldFor(ctx.sb, id)).toHaveLength(0);
  });

  it('a fresh payout refused outright (400) is refused as before: exit 1, no search of the payout list', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 400, code: 'INSUFFICIENT_FUNDS', message: 'Insufficient wallet balance' });
    const from = ctx.sb.requests().length;
    const r = await run(createArgs(wallet, account(), id));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('Insufficient wallet balance');
    expect(r.stderr).not.toContain('payout list was searched');
    expect(listReads(from)).toBe(0);
    expect(await outcome(id)).toBe('rejected');
  });
});

describe('payout batch', () => {
  let work: ReturnType<typeof tempWorkDir>;
  beforeEach(() => (work = tempWorkDir()));
  afterEach(() => work.cleanup());

  it('run again after a row was left unknown (made, answer lost), its resend answered 404: still unknown (exit 4), the earlier payout named; one payout a row', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00');
    const prefix = `rr-${randomUUID().slice(0, 8)}`;
    const rows = withOwnPayees(batchRows(2, wallet, prefix), prefix);
    const file = writeFile(work.file('rows.csv'), toCsv(rows));
    const args = ['payout', 'batch', file, '--concurrency', '1', '--yes'];
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 0 });
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const first = await run(args);
    expect(first.code, first.stderr).toBe(4);
    ctx.sb.faults.clear();
    const lostId = rows[1]!.payout_id!;
    expect(await outcome(lostId)).toBe('unknown');
    const txn = heldFor(ctx.sb, lostId)[0]!.transaction_id;

    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 404, body: NGINX_404 });
    const again = await run(args);
    expect(again.code, again.stderr).toBe(4);
    expect(await outcome(lostId)).toBe('unknown');
    const reason = (await new Journal(dir).get(ctx.sb.baseUrl, lostId))!.outcome;
    expect(reason?.kind === 'unknown' && reason.reason).toContain(`the service refused the resend (The service answered HTTP 404 with a body that is not JSON: `);
    expect(reason?.kind === 'unknown' && reason.reason).toContain(txn);
    expect(heldFor(ctx.sb, lostId)).toHaveLength(1);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);
  });

  it('many fresh rows refused outright: each refused, no search of the payout list', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00');
    const prefix = `rf-${randomUUID().slice(0, 8)}`;
    const rows = withOwnPayees(batchRows(6, wallet, prefix), prefix);
    const file = writeFile(work.file('rows.csv'), toCsv(rows));
    ctx.sb.faults.add({
      method: 'POST',
      path: '/v2/payout',
      kind: 'status',
      status: 400,
      code: 'INSUFFICIENT_FUNDS',
      message: 'Insufficient wallet balance',
      times: Infinity,
    });
    const from = ctx.sb.requests().length;
    const r = await run(['payout', 'batch', file, '--concurrency', '3', '--yes']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('6 rejected');
    expect(listReads(from)).toBe(0);
    for (const row of rows) expect(await outcome(row.payout_id!)).toBe('rejected');
  });
});

describe("this machine's clock 15 minutes ahead of the service's", () => {
  const AHEAD_MS = 15 * 60 * 1000;
  const fast = (args: string[]): Promise<Run> => payctl(args, { dir, clock: new TestClock(new Date(Date.now() + AHEAD_MS)) });

  it('the sandbox dates its answers (a Date header), by its own clock', async () => {
    const res = await fetch(`${ctx.sb.baseUrl}/v2/payout/list`);
    const date = Date.parse(res.headers.get('date') ?? '');
    expect(Math.abs(date - Date.now())).toBeLessThan(5_000);
  });

  it('a rerun refused 400 after the payout was made: the search goes back by the service\'s clock, finds it: exit 4, still unknown; retyped, refused as a repeat; one payout (before: "none pays it", refused, paid twice)', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const id = randomUUID();
    const acct = account();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const lost = await fast(createArgs(wallet, acct, id));
    expect(lost.code, lost.stderr).toBe(4);
    ctx.sb.faults.clear();
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;

    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 400, code: 'INSUFFICIENT_FUNDS', message: 'Insufficient wallet balance' });
    const rerun = await fast(createArgs(wallet, acct, id));
    ctx.sb.faults.clear();
    expect(rerun.code, rerun.stderr).toBe(4);
    expect(rerun.stderr).not.toContain('none pays it');
    expect(rerun.stderr).toContain(txn);
    expect(await outcome(id)).toBe('unknown');

    const again = await fast(createArgs(wallet, acct));
    expect(again.code, again.stderr).toBe(2);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);

    // The printed --made-by command records it (its record checked by the service's clock too).
    const made = await fast(printed(rerun.stderr, 'history reconcile --payout-id'));
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`recorded as made by transaction ${txn}`);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });
});

describe('the search that decides "not made" trusts no clock and reads the list to a certain end', () => {
  useHostileCleanups();
  const AHEAD_MS = 15 * 60 * 1000;
  const fast = (args: string[]): Promise<Run> => payctl(args, { dir, clock: new TestClock(new Date(Date.now() + AHEAD_MS)) });
  const outcomeAt = async (base: string, payoutId: string) => (await new Journal(dir).get(base, payoutId))?.outcome;
  const refuse400 = () =>
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 400, code: 'INSUFFICIENT_FUNDS', message: 'Insufficient wallet balance' });

  /** This config folder sends through a proxy in front of the sandbox. */
  async function viaProxy(): Promise<Proxy> {
    const proxy = await sandboxProxy(ctx.sb);
    writeProfile(dir, { baseUrl: proxy.baseUrl, apiKey: ctx.sb.apiKey });
    return proxy;
  }

  it("the first attempt on a clock 20 minutes ahead of the service's, corrected before the rerun 30 minutes later: refused 400, its payout found, exit 4; the printed --made-by records it; retyped, refused as a repeat; one payout (before: refused)", async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    // Simulated: the entry dated 10 minutes ago, the service's record 30 minutes ago; the rerun's clock agrees with the service's.
    const proxy = await viaProxy();
    const earlier = (raw: string) => raw.replace(/"created_at":"([^"]+)"/g, (_, t: string) => `"created_at":"${new Date(Date.parse(t) - 30 * 60 * 1000).toISOString()}"`);
    proxy.rewriteLists(earlier);
    proxy.rewriteLookups(earlier);
    const id = randomUUID();
    const acct = account();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await payctl(createArgs(wallet, acct, id), { dir, clock: new TestClock(new Date(Date.now() - 10 * 60 * 1000)) })).code).toBe(4);
    ctx.sb.faults.clear();
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;

    refuse400();
    const rerun = await run(createArgs(wallet, acct, id));
    ctx.sb.faults.clear();
    expect(rerun.stderr).not.toContain('none pays it');
    expect(rerun.code, rerun.stderr).toBe(4);
    expect(rerun.stderr).toContain(txn);
    expect(await outcomeAt(proxy.baseUrl, id)).toMatchObject({ kind: 'unknown', anyTime: true });
    expect((await run(createArgs(wallet, acct))).code).toBe(2);

    const made = await run(printed(rerun.stderr, 'history reconcile --payout-id'));
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`recorded as made by transaction ${txn}`);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });

  it('a record older than the first attempt on page 1 (a list not newest first), the payout on page 2: read on, found, exit 4; one payout (before: page 1 ended the search, refused)', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00');
    const proxy = await viaProxy();
    proxy.capPerPage(50);
    const id = randomUUID();
    const acct = account();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await run(createArgs(wallet, acct, id))).code).toBe(4);
    ctx.sb.faults.clear();
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    // 60 payouts to other accounts made since: the payout is on page 2.
    for (let i = 0; i < 60; i++) expect((await run(createArgs(wallet, `77700${1000 + i}`))).code).toBe(0);
    // Page 1 holds a record of 2020, as a list served oldest first does.
    proxy.rewriteLists((raw) => {
      const j = JSON.parse(raw) as { data: { current_page: number; data: { created_at: string }[] } };
      if (j.data.current_page === 1) j.data.data[10]!.created_at = '2020-01-01 00:00:00';
      return JSON.stringify(j);
    });

    refuse400();
    const rerun = await run(createArgs(wallet, acct, id));
    ctx.sb.faults.clear();
    expect(rerun.stderr).not.toContain('none pays it');
    expect(rerun.code, rerun.stderr).toBe(4);
    expect(rerun.stderr).toContain(`--made-by ${txn}`);
    expect((await outcomeAt(proxy.baseUrl, id))?.kind).toBe('unknown');
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  }, 30_000);

  it("this machine's clock 15 minutes fast, the service sends no Date header: the printed --made-by records the record the search offered (before: refused as created before the first attempt)", async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const proxy = await viaProxy();
    proxy.dropDates();
    const id = randomUUID();
    const acct = account();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await fast(createArgs(wallet, acct, id))).code).toBe(4);
    ctx.sb.faults.clear();
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;

    refuse400();
    const rerun = await fast(createArgs(wallet, acct, id));
    ctx.sb.faults.clear();
    expect(rerun.code, rerun.stderr).toBe(4);
    const made = await fast(printed(rerun.stderr, 'history reconcile --payout-id'));
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`recorded as made by transaction ${txn}`);
    expect((await outcomeAt(proxy.baseUrl, id))?.kind).toBe('accepted');
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });

  it('the printed command that looks for the earlier payout finds it (before: --wallet, which documented records lack, left every one out)', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    // Records as documented: they name no wallet.
    const proxy = await viaProxy();
    proxy.rewriteLists((raw) => raw.replace(/,"wallet_id":"[^"]*"|"wallet_id":"[^"]*",/g, ''));
    const id = randomUUID();
    const acct = account();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await run(createArgs(wallet, acct, id))).code).toBe(4);
    ctx.sb.faults.clear();
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    refuse400();
    const rerun = await run(createArgs(wallet, acct, id));
    ctx.sb.faults.clear();
    expect(rerun.code, rerun.stderr).toBe(4);
    const look = printed(rerun.stderr, 'payouts list');
    const listed = await run(look);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(txn);
    expect(look).toEqual(['payouts', 'list', '--currency', 'SLE', '--all']);
  });

  it('records naming payout id "" and wallet "" (the service\'s "none"): the earlier payout found, exit 4, still unknown; the same command again too; one payout (before: refused, exit 1)', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00');
    const proxy = await viaProxy();
    proxy.rewriteLists((raw) => raw.replace(/"payout_id":"[^"]*"/g, '"payout_id":""').replace(/"wallet_id":"[^"]*"/g, '"wallet_id":""'));
    const id = randomUUID();
    const acct = account();
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await run(createArgs(wallet, acct, id))).code).toBe(4);
    ctx.sb.faults.clear();
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    ctx.sb.faults.add({
      method: 'POST',
      path: '/v2/payout',
      kind: 'status',
      status: 400,
      code: 'INSUFFICIENT_FUNDS',
      message: 'Insufficient wallet balance',
      times: Infinity,
    });
    for (let i = 0; i < 2; i++) {
      const rerun = await run(createArgs(wallet, acct, id));
      expect(rerun.stderr).not.toContain('none pays it');
      expect(rerun.code, rerun.stderr).toBe(4);
      expect(rerun.stderr).toContain(`--made-by ${txn}`);
      expect(await outcomeAt(proxy.baseUrl, id)).toMatchObject({ kind: 'unknown', anyTime: true });
    }
    ctx.sb.faults.clear();
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });

  for (const blank of ['', '   ']) {
    it(`records whose currency is ${JSON.stringify(blank)}: a record payctl cannot check, never another currency: exit 4, still unknown; one payout (probe 49-P #5: "none pays it", refused)`, async () => {
      const wallet = freshWallet(ctx.sb, '10000.00');
      const proxy = await viaProxy();
      proxy.rewriteLists((raw) => raw.replace(/"currency":"SLE"/g, `"currency":${JSON.stringify(blank)}`));
      const id = randomUUID();
      const acct = account();
      ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
      expect((await run(createArgs(wallet, acct, id))).code).toBe(4);
      ctx.sb.faults.clear();
      ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 404, body: NGINX_404, times: Infinity });
      const rerun = await run(createArgs(wallet, acct, id));
      ctx.sb.faults.clear();
      expect(rerun.stderr).not.toContain('none pays it');
      expect(rerun.code, rerun.stderr).toBe(4);
      expect(await outcomeAt(proxy.baseUrl, id)).toMatchObject({ kind: 'unknown' });
      expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
    });
  }
});
