/**
 * Journal entries dated in the future by the ledger's clock (README "The 24-hour rule"), in
 * process against the sandbox over real HTTP and a real PostgreSQL: a TestClock two days ahead
 * stands for a machine whose clock was fast when it journaled a payout whose answer was lost
 * (the sandbox made it). Before: such an entry was "under 24 hours old" for days, so the machine
 * with its clock set right again (the local journal), or any machine of the team once `ledger
 * import` had copied it into the shared ledger, resent it on its own under its key (history
 * reconcile, payout create run again, a batch run again) until a day after its future date, past
 * the time the service may forget the key; the repeat guard called it sent "less than a minute
 * ago", and the import said nothing. Now its age is unknown: held as an old one, its candidates
 * (of any time) listed for a person to choose, the texts say "dated in the future", and the
 * import names it. An entry a few minutes ahead (within FUTURE_TOLERANCE_MS) is still taken at
 * its time.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts } from '../helpers/batch.js';
import { heldFor } from '../helpers/payout-fixtures.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { shellSplit } from '../helpers/pty.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { Journal } from '../../src/payouts/journal.js';

const ctx = useSandbox();
useHostileCleanups();
const folders: Array<{ cleanup(): void }> = [];
afterEach(() => ctx.sb.faults.clear());
afterAll(() => {
  for (const f of folders) f.cleanup();
});

const MINUTE = 60 * 1000;
const DAY = 24 * 60 * MINUTE;
/** A machine's clock `ms` ahead of the real one (negative: behind), moving only when a run waits on it. */
const off = (ms: number) => new TestClock(new Date(Date.now() + ms));

/** A config folder logged in to the sandbox: one machine. */
async function machine(): Promise<string> {
  const cfg = tempConfigDir();
  folders.push(cfg);
  await writeLoggedIn(ctx.sb, cfg.dir);
  return cfg.dir;
}

/** A fresh 10-digit account number: no other payout of the sandbox is to it. */
const account = () => String(Math.floor(1e9 + Math.random() * 8e9));

/** `payout create` of 72.00 SLE to `acct` (with `payoutId`, or none: typed by hand), --yes. */
function createArgs(wallet: string, acct: string, payoutId?: string): string[] {
  return [
    ...['payout', 'create', '--wallet', wallet, '--amount', '72.00', '--currency', 'SLE', '--type', 'bank'],
    ...['--name', 'Future Two', '--provider', 'ecobank', '--account', acct, '--note', 'fast clock', ...(payoutId ? ['--payout-id', payoutId] : []), '--yes'],
  ];
}

/** `payout create` from `dir` on a clock `aheadMs` ahead whose every answer is lost after the sandbox made the payout: exit 4, the entry unknown. */
async function lostAnswer(dir: string, args: string[], aheadMs: number): Promise<void> {
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: 10 });
  const r = await payctl(args, { dir, clock: off(aheadMs) });
  expect(r.code, r.stderr).toBe(4);
  ctx.sb.faults.clear();
}

/** The printed `payctl history reconcile ... --made-by ...` line, as argv without `payctl`. */
function madeByCommand(out: string): string[] {
  const line = out.split('\n').find((l) => l.includes('payctl history reconcile') && l.includes('--made-by'));
  expect(line, out).toBeDefined();
  return shellSplit(line!.trim()).slice(1);
}

/** Held by the 24-hour rule as of unknown age: nothing sent, the candidate the sandbox made listed, searched at any time. */
function expectHeldInFuture(r: Run, out: string, payoutId: string, from: number): void {
  expect(r.code, r.stdout + r.stderr).toBe(4);
  expect(payoutPosts(ctx.sb, from)).toEqual([]);
  expect(out).toMatch(
    /is dated in the future \(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC, 2 days from now\), so when it was first sent cannot be told, and no answer was read\./,
  );
  expect(out).toContain('so payctl does not resend it on its own');
  expect(out).toMatch(/1 payout at the service could be it \(same account, amount and currency, same note, created at any time; \d+ records? of the payout list read\):/);
  expect(out).toContain(heldFor(ctx.sb, payoutId)[0]!.transaction_id);
  expect(out).not.toMatch(/first sent -?\d+ h ago|less than a minute ago/);
}

describe('the local journal of a machine whose clock was two days ahead, its clock set right since', () => {
  it('payout create run again, history reconcile and a batch run again hold the unknown payouts (exit 4, nothing sent); the printed --made-by records the one the service made', async () => {
    const dir = await machine();
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const id = randomUUID();
    const acct = account();
    await lostAnswer(dir, createArgs(wallet, acct, id), 2 * DAY);
    expect((await new Journal(dir).get(ctx.sb.baseUrl, id))?.outcome?.kind).toBe('unknown');

    // payout create's retry path: the same payout id again.
    let from = ctx.sb.requests().length;
    const again = await payctl(createArgs(wallet, acct, id), { dir });
    expect(again.stderr).toMatch(/Payout \S+ is dated in the future \(.*, 2 days from now\), so when it was journaled cannot be told: it is not resent on its own/);
    expectHeldInFuture(again, again.stderr, id, from);

    // history reconcile: held, not resent with its journaled idempotency key.
    from = ctx.sb.requests().length;
    const r = await payctl(['history', 'reconcile'], { dir });
    expect(r.stdout).toContain(`unknown   ${id}  not resent: dated in the future (2 days from now)`);
    expect(r.stderr).toContain('1 unknown: 0 resent with their journaled idempotency keys, 1 not resent (older than 24 hours or dated in the future)');
    expectHeldInFuture(r, r.stdout, id, from);
    // The printed --made-by, run as printed: the record made before the entry's date is taken.
    const m = await payctl(madeByCommand(r.stdout), { dir });
    expect(m.code, m.stderr).toBe(0);
    expect((await new Journal(dir).get(ctx.sb.baseUrl, id))?.outcome).toMatchObject({ kind: 'accepted', lookedUp: true });
    expect(heldFor(ctx.sb, id)).toHaveLength(1);

    // A batch sent on the fast clock, its answers lost, run again on the right one.
    const tag = randomUUID().slice(0, 8);
    const file = join(dir, 'fast.csv');
    writeFileSync(
      file,
      'payout_id,wallet_id,amount,currency,type,name,provider,account_number,note\n' +
        `${tag}-1,${wallet},11.00,SLE,bank,Fatmata Sesay,ecobank,${account()},fast one\n` +
        `${tag}-2,${wallet},12.00,SLE,bank,Fatmata Sesay,ecobank,${account()},fast two\n`,
    );
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    expect((await payctl(['payout', 'batch', file, '--yes'], { dir, clock: off(2 * DAY) })).code).toBe(4);
    ctx.sb.faults.clear();
    from = ctx.sb.requests().length;
    const rerun = await payctl(['payout', 'batch', file, '--yes'], { dir });
    expect(rerun.code, rerun.stderr).toBe(4);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(rerun.stderr).toContain('2 payouts may or may not have been made, first sent more than 24 hours ago (or dated in the future: when cannot be told)');
    expect(rerun.stderr).not.toContain('Run the same command again');
  });

  it('an entry a few minutes ahead is taken at its time (resent under its key); ten minutes ahead, held', async () => {
    const dir = await machine();
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const near = randomUUID();
    await lostAnswer(dir, createArgs(wallet, account(), near), 2 * MINUTE);
    let from = ctx.sb.requests().length;
    const r = await payctl(['history', 'reconcile', '--payout-id', near], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`accepted  ${near}  resent with its journaled idempotency key`);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);

    const far = randomUUID();
    await lostAnswer(dir, createArgs(wallet, account(), far), 10 * MINUTE);
    from = ctx.sb.requests().length;
    const held = await payctl(['history', 'reconcile', '--payout-id', far], { dir });
    expect(held.code, held.stderr).toBe(4);
    expect(held.stdout).toContain(`unknown   ${far}  not resent: dated in the future (10 minutes from now)`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});

describe('a machine whose clock was 20 minutes fast when it sent, reconciled two days later', () => {
  it('lists the payout\'s record, flagged that the clock may have been off, and its printed --made-by records it (before: left out as created before the first attempt, "No payout at the service matches it", only --resend offered)', async () => {
    const dir = await machine();
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const id = randomUUID();
    await lostAnswer(dir, createArgs(wallet, account(), id), 20 * MINUTE);
    const from = ctx.sb.requests().length;
    const r = await payctl(['history', 'reconcile', '--payout-id', id], { dir, clock: off(2 * DAY) });
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(r.stdout).not.toContain('No payout at the service matches it');
    expect(r.stdout).toContain(heldFor(ctx.sb, id)[0]!.transaction_id);
    expect(r.stdout).toMatch(/created .*, 20 minutes before the first attempt \(.*\) by the clock that dated it: that clock may have been off/);
    const m = await payctl(madeByCommand(r.stdout), { dir, clock: off(2 * DAY) });
    expect(m.code, m.stderr).toBe(0);
    expect((await new Journal(dir).get(ctx.sb.baseUrl, id))?.outcome).toMatchObject({ kind: 'accepted', lookedUp: true });
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  });
});

describe('ledger import of a journal a fast clock dated into a shared PostgreSQL ledger', () => {
  let url: string;
  beforeAll(async () => {
    url = await (await sharedPostgres()).freshDatabase('future');
  });

  it('prints a reconcile for each base URL the unknown entries were sent to; run as printed, each holds its entry (none says "No unknown outcomes")', async () => {
    const fast = await machine();
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const own = `fut-${randomUUID().slice(0, 8)}`;
    const elsewhere = `fut-${randomUUID().slice(0, 8)}`;
    await lostAnswer(fast, createArgs(wallet, account(), own), 2 * DAY);
    // The same service behind a proxy of its own port: another base URL, which no profile of this folder is logged in to.
    const otherUrl = (await sandboxProxy(ctx.sb)).baseUrl;
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: 10 });
    const env = { PAYCTL_API_KEY: ctx.sb.apiKey };
    const lost = await payctl([...createArgs(wallet, account(), elsewhere), '--base-url', otherUrl], { dir: fast, clock: off(2 * DAY), env });
    expect(lost.code, lost.stderr).toBe(4);
    ctx.sb.faults.clear();
    const db = await (await sharedPostgres()).freshDatabase('future-urls');
    expect((await payctl(['config', 'set', 'ledger', '--stdin'], { dir: fast, input: `${db}\n` })).code).toBe(0);
    const imp = await payctl(['ledger', 'import'], { dir: fast });
    expect(imp.code, imp.stderr).toBe(0);
    // One a base URL, in no set order.
    const lines = imp.stderr.slice(imp.stderr.indexOf('Settle them now:')).split('\n').slice(1, 3).sort();
    expect(lines).toEqual(
      [
        `  with ${otherUrl}'s API key in PAYCTL_API_KEY (no profile here is logged in to it): payctl history reconcile --base-url ${otherUrl}`,
        '  payctl history reconcile',
      ].sort(),
    );
    const ownLine = lines.find((l) => !l.includes('--base-url'))!;
    const otherLine = lines.find((l) => l.includes('--base-url'))!;
    for (const [line, id] of [
      [ownLine, own],
      [otherLine, elsewhere],
    ] as const) {
      // The command ends its line: what follows the last ": " (or the whole line), run as printed.
      const argv = shellSplit(line.trim().replace(/^.*: (?=payctl )/, '')).slice(1);
      const from = ctx.sb.requests().length;
      const r = await payctl(argv, { dir: fast, env });
      expect(r.stdout + r.stderr).not.toContain('No unknown outcomes');
      expect(r.stdout + r.stderr).toContain(id);
      expect(r.code, r.stderr).toBe(4);
      expect(payoutPosts(ctx.sb, from)).toEqual([]);
    }
  });

  it('imports it and names it; on the shared ledger, from machines of any clock, the repeat guard says it is dated in the future and reconcile holds it', async () => {
    const fast = await machine();
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const id = `fut-${randomUUID().slice(0, 8)}`;
    const acct = account();
    await lostAnswer(fast, createArgs(wallet, acct, id), 2 * DAY);
    // Its clock set right, the machine joins the team's ledger and copies its journal there.
    expect((await payctl(['config', 'set', 'ledger', '--stdin'], { dir: fast, input: `${url}\n` })).code).toBe(0);
    const imp = await payctl(['ledger', 'import'], { dir: fast });
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout).toContain('Imported 1 entry from');
    expect(imp.stderr).toMatch(/Warning: 1 entry is dated in the future by the shared ledger's clock \(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC there\)/);
    expect(imp.stderr).toMatch(
      new RegExp(`^  ${id} \\(${ctx.sb.baseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): dated in the future \\(.*, 2 days from now\\), outcome unknown$`, 'm'),
    );
    expect(imp.stderr).toContain('one of unknown outcome is never resent on its own');
    expect(imp.stderr).toContain('Settle them now:\n  payctl history reconcile\n');
    const json = oneJson((await payctl(['ledger', 'import', '--json'], { dir: fast })).stdout);
    expect(json).toMatchObject({ imported: 0, already: 1, dated_in_future_total: 1 });
    expect(json.dated_in_future).toEqual([{ payout_id: id, base_url: ctx.sb.baseUrl, created_at: expect.any(String), outcome: 'unknown' }]);

    // Another machine of the team, its clock an hour behind: the same payout typed again is a repeat, said as dated in the future.
    const other = await machine();
    expect((await payctl(['config', 'set', 'ledger', '--stdin'], { dir: other, input: `${url}\n` })).code).toBe(0);
    let from = ctx.sb.requests().length;
    const typed = await payctl(createArgs(wallet, acct), { dir: other, clock: off(-60 * MINUTE) });
    expect(typed.code, typed.stderr).toBe(2);
    expect(typed.stderr).toMatch(
      new RegExp(
        `repeats one sent through the team's shared ledger and dated in the future \\(.*, 2 days from now\\) with the same wallet, account, amount and currency: payout id ${id}`,
      ),
    );
    expect(typed.stderr).not.toContain('less than a minute ago');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // Reconcile goes by the database's clock: held from a machine three hours ahead too.
    for (const clock of [off(-60 * MINUTE), off(3 * 60 * MINUTE)]) {
      from = ctx.sb.requests().length;
      const r = await payctl(['history', 'reconcile'], { dir: other, clock });
      expect(r.stdout).toContain(`unknown   ${id}  not resent: dated in the future (2 days from now)`);
      expectHeldInFuture(r, r.stdout, id, from);
    }
  });
});
