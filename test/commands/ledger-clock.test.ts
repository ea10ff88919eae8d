/**
 * A machine whose clock is wrong on a team's shared ledger (README "Working as a team": the
 * database's clock dates every row), in process against the sandbox and a real PostgreSQL: config
 * folders stand for machines on one database, and a TestClock a day behind or ahead stands for a
 * machine's clock set wrong (the database's is the real one). What the slow machine sends counts
 * in the database's day and in its last 24 hours, for itself and for the others: it cannot pass
 * a daily total a correct machine used up, nor a correct machine one it used up (payout create,
 * payout batch, plan send); the same payout typed on a slow machine and then a correct one, or a
 * correct one and then a fast one, is caught as a repeat; a fast machine still sends (its own
 * claim is not taken for a day-old one); a row whose created_at was moved in the database is
 * reported by `ledger verify` and refused by the reads that find it; and a plan made on a machine
 * an hour ahead is made when the ledger stored it, so a payout paid by hand just after it is
 * after it (plan send refuses the plan), not a repeat paid a second time; one made on a machine
 * an hour behind goes by when the ledger stored it, so a payout paid by hand just before it is
 * before it (as plan create said), and one a few minutes behind is refused saying the clock may be
 * why, and that the plan made again on a clock set right is sent.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { planBatchFile, planPathOf } from '../helpers/four-eyes.js';
import { sharedPostgres, sql } from '../helpers/postgres.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { journalBase } from '../../src/payouts/ledger/base-url.js';

const ctx = useSandbox();
const work = tempWorkDir();
const folders: Array<{ cleanup(): void }> = [];
afterAll(() => {
  for (const f of folders) f.cleanup();
  work.cleanup();
});

const HOUR = 60 * 60 * 1000;
/** A machine's clock `hours` behind (negative) or ahead of the database's, made when it is asked for (a run's own). */
const hoursOff = (hours: number) => new TestClock(new Date(Date.now() + hours * HOUR));

let url: string;
beforeAll(async () => {
  url = await (await sharedPostgres()).freshDatabase('clock');
});

/** A machine on the test's ledger, logged in to the sandbox, its profile's policy `policy` (a file's content) when given. */
async function machine(policy?: object): Promise<string> {
  const cfg = tempConfigDir();
  folders.push(cfg);
  await writeLoggedIn(ctx.sb, cfg.dir);
  expect((await payctl(['config', 'set', 'ledger', '--stdin'], { dir: cfg.dir, input: `${url}\n` })).code).toBe(0);
  if (policy) await usePolicy(cfg.dir, policy);
  return cfg.dir;
}

/** The profile's policy set to a file of this content. */
async function usePolicy(dir: string, policy: object): Promise<void> {
  const file = join(work.dir, `policy-${randomUUID().slice(0, 8)}.json`);
  writeFileSync(file, JSON.stringify(policy));
  expect((await payctl(['config', 'set', 'policy', file], { dir })).code).toBe(0);
}

/** A payout of `amount` SLE from `wallet` to one account: a new payout id each time unless `id` is given (null: none, as typed by hand). */
function pay(wallet: string, amount: string, id: string | null = randomUUID()): string[] {
  return [
    ...['payout', 'create', '--wallet', wallet, '--amount', amount, '--currency', 'SLE', '--type', 'bank'],
    ...['--name', 'Ibrahim Sesay', '--provider', 'uba', '--account', '0123456789', ...(id === null ? [] : ['--payout-id', id]), '--yes'],
  ];
}

const held = (wallet: string) => ctx.sb.payouts().filter((p) => p.wallet_id === wallet);

function refusedByDailyTotal(r: Run, sent: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain('policy daily_total.SLE');
  expect(r.stderr).toContain(`${sent} SLE already sent today through the team's shared ledger`);
  expect(r.stderr).toContain('Nothing was sent.');
}

describe('a machine whose clock is a day behind the database', () => {
  it('its payouts count in the daily total: a correct machine cannot pass one it used up, nor it one a correct machine used up', async () => {
    const policy = { daily_total: { SLE: '1000' } };
    const [slow, right] = [await machine(policy), await machine(policy)];

    // The slow machine first: 800 of 1,000, then the correct machine's 300 is refused.
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const first = await payctl(pay(wallet, '800.00'), { dir: slow, clock: hoursOff(-24) });
    expect(first.code, first.stderr).toBe(0);
    let from = ctx.sb.requests().length;
    refusedByDailyTotal(await payctl(pay(wallet, '300.00'), { dir: right }), '800.00');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(held(wallet)).toHaveLength(1);
    // Dated by the database, not by the machine's clock a day behind; and the machine is told.
    const [row] = await sql<{ created_at: Date; entry: string }>(url, 'SELECT created_at, entry FROM payctl_ledger_entries ORDER BY created_at DESC LIMIT 1');
    expect(Math.abs(row!.created_at.getTime() - Date.now())).toBeLessThan(60_000);
    expect((JSON.parse(row!.entry) as { createdAt: string }).createdAt).toBe(row!.created_at.toISOString());
    expect(first.stderr).toMatch(/Warning: This machine's clock is 24 hours behind the clock of the payout ledger postgres:\/\/\S+:\*\*\*\*@/);

    // The other way: the correct machine's 800 counts for the slow machine.
    const other = freshWallet(ctx.sb, '100000.00', 'SLE');
    expect((await payctl(pay(other, '800.00'), { dir: right })).code).toBe(0);
    from = ctx.sb.requests().length;
    refusedByDailyTotal(await payctl(pay(other, '300.00'), { dir: slow, clock: hoursOff(-24) }), '800.00');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(held(other)).toHaveLength(1);
  });

  it('nor through payout batch or plan send: what it sends counts for the correct machine', async () => {
    const [slow, right] = [await machine(), await machine()];
    // The slow machine's person makes plans: a maker of the policy.
    const key = await payctl(['keys', 'create', '--name', 'Mariama Kanu', '--json'], { dir: slow, clock: hoursOff(-24) });
    expect(key.code, key.stderr).toBe(0);
    const maker = (oneJson(key.stdout) as { public_key: string }).public_key;
    const policy = { members: { 'Mariama Kanu': { keys: [maker], roles: ['maker'] } }, daily_total: { SLE: '1000' } };
    for (const dir of [slow, right]) await usePolicy(dir, policy);

    // A batch of 3 x 300 from the slow machine, then the correct machine's 300: refused.
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const batch = planBatchFile(work.dir, wallet, ['300.00', '300.00', '300.00']);
    const sent = await payctl(['payout', 'batch', batch, '--yes'], { dir: slow, clock: hoursOff(-24) });
    expect(sent.code, sent.stderr).toBe(0);
    let from = ctx.sb.requests().length;
    refusedByDailyTotal(await payctl(pay(wallet, '300.00'), { dir: right }), '900.00');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // A plan made and sent on the slow machine, then the correct machine's 300: refused.
    const planned = freshWallet(ctx.sb, '100000.00', 'SLE');
    const file = planBatchFile(work.dir, planned, ['450.00', '450.00']);
    const made = await payctl(['plan', 'create', file], { dir: slow, clock: hoursOff(-24) });
    expect(made.code, made.stderr).toBe(0);
    const plan = await payctl(['plan', 'send', planPathOf(file), '--yes'], { dir: slow, clock: hoursOff(-24) });
    expect(plan.code, plan.stderr).toBe(0);
    from = ctx.sb.requests().length;
    refusedByDailyTotal(await payctl(pay(planned, '300.00'), { dir: right }), '900.00');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(held(wallet)).toHaveLength(3);
    expect(held(planned)).toHaveLength(2);
  });
});

describe('the repeat guard with clocks set wrong', () => {
  it('the same payout typed on a slow machine, then on a correct one a moment later: refused as a repeat (exit 2, nothing sent)', async () => {
    const [slow, right] = [await machine(), await machine()];
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const first = await payctl(pay(wallet, '999.00', null), { dir: slow, clock: hoursOff(-24) });
    expect(first.code, first.stderr).toBe(0);
    const from = ctx.sb.requests().length;
    const again = await payctl(pay(wallet, '999.00', null), { dir: right });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain("This payout repeats one sent through the team's shared ledger less than a minute ago");
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(held(wallet)).toHaveLength(1);
  });

  it('on a correct machine, then on one a day and an hour ahead: refused as a repeat; a payout of its own the fast machine still sends (not held as one a day old)', async () => {
    const [right, fast] = [await machine(), await machine()];
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    expect((await payctl(pay(wallet, '999.00', null), { dir: right })).code).toBe(0);
    const from = ctx.sb.requests().length;
    // A day and an hour ahead: past the 24 hours of a service's key memory, by its clock.
    const again = await payctl(pay(wallet, '999.00', null), { dir: fast, clock: hoursOff(25) });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain("This payout repeats one sent through the team's shared ledger less than a minute ago");
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(again.stderr).toContain("This machine's clock is 25 hours ahead of the clock of the payout ledger");

    const own = await payctl(pay(wallet, '12.00'), { dir: fast, clock: hoursOff(25) });
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).not.toContain('more than 24 hours');
    expect(held(wallet)).toHaveLength(2);
  });
});

describe("a row's created_at moved in the database", () => {
  it('is reported by ledger verify (exit 1) and refused by the reads that find it; a daily total that meets it counts nothing and sends nothing', async () => {
    const policy = { daily_total: { SLE: '10000' } };
    const [a, b] = [await machine(policy), await machine(policy)];
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const [moved, nudged] = [`moved-${randomUUID()}`, `nudged-${randomUUID()}`];
    for (const id of [moved, nudged]) expect((await payctl(pay(wallet, '100.00', id), { dir: a })).code).toBe(0);
    const clean = await payctl(['ledger', 'verify'], { dir: a });
    expect(clean.code, clean.stdout).toBe(0);

    // A day back: out of today's total and the last 24 hours, and no longer its signed entry's time.
    await sql(url, `UPDATE payctl_ledger_entries SET created_at = created_at - interval '1 day' WHERE payout_id = $1`, [moved]);
    const r = await payctl(['ledger', 'verify'], { dir: b });
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toContain(`  ${moved} (${journalBase(ctx.sb.baseUrl)}): its created_at column does not match its entry\n`);
    const j = oneJson((await payctl(['ledger', 'verify', '--json'], { dir: b })).stdout) as { not_verified: Array<{ payout_id: string; problem: string }> };
    expect(j.not_verified.filter((f) => f.payout_id.startsWith('moved-'))).toEqual([expect.objectContaining({ payout_id: moved, problem: 'column' })]);
    // Read by its payout id: refused, nothing sent.
    let from = ctx.sb.requests().length;
    const resend = await payctl(pay(wallet, '100.00', moved), { dir: b });
    expect(resend.code, resend.stderr).toBe(2);
    expect(resend.stderr).toContain(`payout ${moved}`);
    expect(resend.stderr).toContain('the shared ledger row was changed outside payctl (its created_at column does not match its entry)');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // A millisecond on, still today: the daily total finds it, and will not count past it.
    await sql(url, `UPDATE payctl_ledger_entries SET created_at = created_at + interval '1 millisecond' WHERE payout_id = $1`, [nudged]);
    from = ctx.sb.requests().length;
    const counted = await payctl(pay(wallet, '50.00'), { dir: b });
    expect(counted.code, counted.stderr).toBe(2);
    expect(counted.stderr).toContain("The policy's daily limits cannot be counted");
    expect(counted.stderr).toContain(`payout ${nudged}`);
    expect(counted.stderr).toContain('its created_at column does not match its entry');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});

describe('a plan made on a machine whose clock is ahead', () => {
  it("a payout paid by hand after the plan was made is after it by the database's clock: plan show, policy check and plan send say so; nobody is paid twice", async () => {
    // Before: the maker's clock an hour ahead dated the plan an hour late, so a payout paid by hand
    // a moment after the plan looked earlier than it: "plan send pays it again", "It can be sent",
    // and plan send paid the person a second time (exit 0).
    const [fast, clerk] = [await machine(), await machine()];
    const key = await payctl(['keys', 'create', '--name', 'Yeabu Koroma', '--json'], { dir: fast, clock: hoursOff(1) });
    expect(key.code, key.stderr).toBe(0);
    const maker = (oneJson(key.stdout) as { public_key: string }).public_key;
    // No daily total: a row moved in the database by the test above is not counted here.
    await usePolicy(fast, { members: { 'Yeabu Koroma': { keys: [maker], roles: ['maker'] } } });
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const file = join(work.dir, `fast-${randomUUID().slice(0, 8)}.csv`);
    writeFileSync(file, `wallet_id,amount,currency,type,name,provider,account_number\n${wallet},334.00,SLE,bank,Ibrahim Sesay,uba,0123456789\n`);
    const made = await payctl(['plan', 'create', file, '--batch-id', `fast-${randomUUID().slice(0, 8)}`], { dir: fast, clock: hoursOff(1) });
    expect(made.code, made.stderr).toBe(0);
    const plan = planPathOf(file);
    const hash = (JSON.parse(readFileSync(plan, 'utf8')) as { hash: string }).hash;

    // A clerk on a correct machine pays the same by hand, after the plan was made.
    const byHand = await payctl(pay(wallet, '334.00', null), { dir: clerk });
    expect(byHand.code, byHand.stderr).toBe(0);

    const shown = await payctl(['plan', 'show', plan, '--json'], { dir: fast, clock: hoursOff(1) });
    expect((oneJson(shown.stdout) as { sent_before: Array<{ kind: string }> }).sent_before).toMatchObject([{ kind: 'after' }]);
    const checked = await payctl(['policy', 'check', plan], { dir: fast, clock: hoursOff(1) });
    expect(checked.code, checked.stdout).toBe(1);
    expect(checked.stdout).toContain('what was paid after the plan was made');
    const from = ctx.sb.requests().length;
    for (const named of [plan, hash]) {
      const sent = await payctl(['plan', 'send', named, '--yes'], { dir: fast, clock: hoursOff(1) });
      expect(sent.code, sent.stderr).toBe(2);
      expect(sent.stderr).toContain('1 payout of it pays what was paid after the plan was made');
      expect(sent.stderr).toContain('Nothing was sent.');
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(held(wallet)).toHaveLength(1);
  });
});

describe('a plan made on a machine whose clock is behind', () => {
  /** A maker's machine (a policy that lists its key as a maker's, nothing to approve) and a clerk's on a correct clock. */
  async function makerAndClerk(name: string): Promise<[string, string]> {
    const [maker, clerk] = [await machine(), await machine()];
    const key = await payctl(['keys', 'create', '--name', name, '--json'], { dir: maker });
    expect(key.code, key.stderr).toBe(0);
    await usePolicy(maker, { members: { [name]: { keys: [(oneJson(key.stdout) as { public_key: string }).public_key], roles: ['maker'] } } });
    return [maker, clerk];
  }

  /** A one-payout plan file of what `pay(wallet, amount)` pays, under a batch id of its own. */
  function planFile(wallet: string, amount: string): string {
    const file = join(work.dir, `slow-${randomUUID().slice(0, 8)}.csv`);
    writeFileSync(file, `wallet_id,amount,currency,type,name,provider,account_number\n${wallet},${amount},SLE,bank,Ibrahim Sesay,uba,0123456789\n`);
    return file;
  }

  it('an hour behind: a payout paid by hand before the plan is before it, as plan create said, in plan show, policy check and plan send; one paid after the ledger stored it is still after it', async () => {
    // Before: the plan was dated by the slow clock, an hour before the ledger stored it, so a
    // payout paid by hand a moment before the plan was "paid after the plan was made": plan show
    // said so (plan create the opposite), policy check exit 1, plan send refused (exit 2), and a
    // new plan from the same maker was refused the same way.
    const [maker, clerk] = await makerAndClerk('Hawa Conteh');
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const byHand = await payctl(pay(wallet, '336.00', null), { dir: clerk });
    expect(byHand.code, byHand.stderr).toBe(0);

    const file = planFile(wallet, '336.00');
    const made = await payctl(['plan', 'create', file, '--batch-id', `slow-${randomUUID().slice(0, 8)}`], { dir: maker, clock: hoursOff(-1) });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain('plan send pays it again as new payouts');
    const plan = planPathOf(file);
    const shown = await payctl(['plan', 'show', plan, '--json'], { dir: maker, clock: hoursOff(-1) });
    expect((oneJson(shown.stdout) as { sent_before: Array<{ kind: string }> }).sent_before).toMatchObject([{ kind: 'repeat' }]);
    // And plan show says why it goes by the ledger's time.
    const shownText = await payctl(['plan', 'show', plan], { dir: maker, clock: hoursOff(-1) });
    expect(shownText.stdout).toMatch(
      /\nStored +in the team's shared ledger at [^:]+:\d\d:\d\d UTC: its maker's clock was 60 minutes behind the ledger's, so what was paid after the plan was made goes by this time\n/,
    );
    const checked = await payctl(['policy', 'check', plan], { dir: maker, clock: hoursOff(-1) });
    expect(checked.code, checked.stdout).toBe(0);
    const sent = await payctl(['plan', 'send', plan, '--yes'], { dir: maker, clock: hoursOff(-1) });
    expect(sent.code, sent.stderr).toBe(0);
    expect(held(wallet)).toHaveLength(2);

    // Still: a payout paid by hand after the ledger stored the plan is after it (refused, nothing sent).
    const other = freshWallet(ctx.sb, '100000.00', 'SLE');
    const later = planFile(other, '337.00');
    expect((await payctl(['plan', 'create', later, '--batch-id', `slow-${randomUUID().slice(0, 8)}`], { dir: maker, clock: hoursOff(-1) })).code).toBe(0);
    expect((await payctl(pay(other, '337.00', null), { dir: clerk })).code).toBe(0);
    const from = ctx.sb.requests().length;
    const refused = await payctl(['plan', 'send', planPathOf(later), '--yes'], { dir: maker, clock: hoursOff(-1) });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('1 payout of it pays what was paid after the plan was made');
    expect(refused.stderr).not.toContain("Its maker's clock");
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(held(other)).toHaveLength(1);
  });

  it('3 minutes behind (within the tolerance): the refusal says the clock may be why, and a plan made again on a correct clock is sent', async () => {
    // Before: refused without a word of the maker's clock ("make a new plan of that").
    const [maker, clerk] = await makerAndClerk('Musa Kamara');
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    expect((await payctl(pay(wallet, '338.00', null), { dir: clerk })).code).toBe(0);
    const file = planFile(wallet, '338.00');
    const batchId = `slow-${randomUUID().slice(0, 8)}`;
    const behind = () => new TestClock(new Date(Date.now() - 3 * 60_000));
    expect((await payctl(['plan', 'create', file, '--batch-id', batchId], { dir: maker, clock: behind() })).code).toBe(0);
    const from = ctx.sb.requests().length;
    const refused = await payctl(['plan', 'send', planPathOf(file), '--yes'], { dir: maker, clock: behind() });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('1 payout of it pays what was paid after the plan was made');
    expect(refused.stderr).toMatch(
      /Its maker's clock was 3 minutes behind the shared ledger's: the plan says it was made at \S+, the ledger stored it at \S+, and what was paid in between may have been paid before the plan was made\. If so, have its maker set the machine's clock right \(NTP\) and make the plan again\./,
    );
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // As it says: the clock set right, the plan made again, and sent.
    const remade = join(work.dir, `remade-${randomUUID().slice(0, 8)}.plan.json`);
    const again = await payctl(['plan', 'create', file, '--batch-id', batchId, '-o', remade], { dir: maker });
    expect(again.code, again.stderr).toBe(0);
    const sent = await payctl(['plan', 'send', remade, '--yes'], { dir: maker });
    expect(sent.code, sent.stderr).toBe(0);
    expect(held(wallet)).toHaveLength(2);
  });
});
