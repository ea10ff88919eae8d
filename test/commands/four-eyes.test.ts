/**
 * Four eyes (issue 16), in process against the sandbox over real HTTP, with a maker, two
 * listed approvers and one unlisted person, each with their own config folder (their own
 * machine) and key. A plan is made, approved and sent (every payout once, the bodies and keys
 * byte for byte the plan's); a plan changed by one byte, approved by the wrong people, too
 * old, for another service or made with a key the policy does not list as a maker's (a
 * throwaway key, issue 27) sends nothing (exit 2); the policy refuses direct sends over its
 * limits. What needs processes stays in test/e2e/four-eyes.test.ts: a printed command run in
 * a shell, and one plan sent by two processes at once.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { heldCounts, payoutPosts, postedPayoutId, tempWorkDir } from '../helpers/batch.js';
import { addApproval, bankPayout, PLAN_BATCH_HEADER, planBatchFile, planPathOf, readPlanFile, setUpTeam } from '../helpers/four-eyes.js';
import type { SigningKey } from '../../src/plans/keys.js';
import type { Plan } from '../../src/plans/plan.js';

const ctx = useSandbox();
const work = tempWorkDir();
const people: Record<'maker' | 'alice' | 'bob' | 'mallory', { dir: string; cleanup(): void; key?: SigningKey }> = {
  maker: tempConfigDir(),
  alice: tempConfigDir(),
  bob: tempConfigDir(),
  mallory: tempConfigDir(),
};
const maker = () => people.maker.dir;

function run(args: string[], dir = maker(), opts: { clock?: TestClock } = {}): Promise<Run> {
  return payctl(args, { dir, ...opts });
}

function expectNothingSent(from: number): void {
  expect(payoutPosts(ctx.sb, from)).toEqual([]);
}

beforeAll(async () => {
  await setUpTeam(ctx.sb, people, work.dir);
});

afterAll(() => {
  for (const p of Object.values(people)) p.cleanup();
  work.cleanup();
});

beforeEach(() => ctx.sb.faults.clear());

/** A plan of `amounts` from a fresh wallet, made by the maker: its path. */
async function madePlan(amounts: string[], balance = '1000000.00', clock?: TestClock): Promise<{ path: string; wallet: string }> {
  const wallet = freshWallet(ctx.sb, balance, 'SLE');
  const file = planBatchFile(work.dir, wallet, amounts);
  const path = planPathOf(file);
  const r = await run(['plan', 'create', file, '--batch-id', `b-${randomUUID().slice(0, 8)}`], maker(), { clock });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(`Plan written to ${path}`);
  return { path, wallet };
}

async function approveAs(who: 'alice' | 'bob' | 'mallory' | 'maker', path: string): Promise<Run> {
  return run(['plan', 'approve', path, '--yes'], people[who].dir);
}

describe('a plan made, approved and sent', () => {
  it("sends every payout exactly once, with the plan's bodies and keys byte for byte", async () => {
    const { path } = await madePlan(['1500.50', '2500', '99.99']);
    const shown = await run(['plan', 'show', path]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('4,100.49 SLE');
    expect(shown.stdout).toMatch(/1 approval: the SLE total 4,100.49 SLE is from 1000/);
    expect((await approveAs('alice', path)).code).toBe(0);

    const from = ctx.sb.requests().length;
    const r = await run(['plan', 'send', path, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    const posts = payoutPosts(ctx.sb, from);
    const plan = readPlanFile(path);
    expect(posts.map((p) => p.body).sort()).toEqual(plan.payouts.map((p) => p.body).sort());
    for (const p of plan.payouts) {
      const sent = posts.filter((x) => postedPayoutId(x) === p.payout_id);
      expect(sent.map((x) => x.headers['idempotency-key'])).toEqual([p.idempotency_key]);
    }
    expect([
      ...heldCounts(
        ctx.sb,
        plan.payouts.map((p) => p.payout_id),
      ).values(),
    ]).toEqual([1, 1, 1]);
  });
});

describe('plan send refuses, and sends nothing', () => {
  it.each([
    ['an amount', (t: string) => t.replace(/\\"amount\\":2500,/, '\\"amount\\":2600,')],
    ['a recipient', (t: string) => t.replace(/07655000/g, '07655999')],
    ['a key', (t: string) => t.replace(/"idempotency_key": "(.)/, (_m, c: string) => `"idempotency_key": "${c === 'a' ? 'b' : 'a'}`)],
  ])('one byte of %s changed after approval: exit 2', async (_what, change) => {
    const { path } = await madePlan(['1500.50', '2500']);
    expect((await approveAs('alice', path)).code).toBe(0);
    const text = readFileSync(path, 'utf8');
    const changed = change(text);
    expect(changed).not.toBe(text);
    writeFileSync(path, changed);
    const from = ctx.sb.requests().length;
    const r = await run(['plan', 'send', path, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/does not match its hash|not in the form payctl writes/);
    expect(r.stderr).toContain('Nothing was sent');
    expectNothingSent(from);
  });

  it('an approval by an unlisted key, by the maker, or the same approver twice where two are needed: exit 2', async () => {
    const small = await madePlan(['1500']);
    expect((await approveAs('mallory', small.path)).code).toBe(0);
    let from = ctx.sb.requests().length;
    let r = await run(['plan', 'send', small.path, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('not an approver in the policy');
    expectNothingSent(from);

    const own = await madePlan(['1500']);
    const refusedOwn = await approveAs('maker', own.path);
    expect(refusedOwn.code).toBe(2);
    expect(refusedOwn.stderr).toContain('its maker cannot approve it');
    addApproval(own.path, people.maker.key!);
    from = ctx.sb.requests().length;
    r = await run(['plan', 'send', own.path, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('the maker cannot approve their own plan');
    expectNothingSent(from);

    const big = await madePlan(['90000', '60000']);
    expect((await approveAs('alice', big.path)).code).toBe(0);
    const twice = await approveAs('alice', big.path);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('already carries your approval');
    // A refusal, not a slip in how the command was typed: it does not point at the help.
    expect(twice.stderr).not.toContain('for usage');
    addApproval(big.path, people.alice.key!);
    from = ctx.sb.requests().length;
    r = await run(['plan', 'send', big.path, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('each person counts once');
    expectNothingSent(from);
    // With Bob's approval instead of the second of Alice's, it goes.
    const fixed = JSON.parse(readFileSync(big.path, 'utf8')) as Plan;
    fixed.approvals.pop();
    writeFileSync(big.path, JSON.stringify(fixed));
    r = await run(['plan', 'send', big.path, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/needs 2 approvals \(people other than its maker, Maker\) and carries 1 \(Alice\)/);
    expect((await approveAs('bob', big.path)).code).toBe(0);
    r = await run(['plan', 'send', big.path, '--yes']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('a plan made with a throwaway key the policy does not list, approved by a listed approver: exit 2, nothing sent', async () => {
    // A key made in a folder with no policy, calling itself the maker's name: the policy says who is who.
    const throwaway = tempConfigDir();
    try {
      expect((await run(['keys', 'create', '--name', 'Maker'], throwaway.dir)).code).toBe(0);
      await writeLoggedIn(ctx.sb, throwaway.dir);
      const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
      const file = join(work.dir, `throwaway-${randomUUID().slice(0, 6)}.csv`);
      writeFileSync(file, `${PLAN_BATCH_HEADER}${randomUUID()},${wallet},50000,SLE,bank,Ibrahim Sesay,uba,0123456789,,\n`);
      const made = await run(['plan', 'create', file], throwaway.dir);
      expect(made.code, made.stderr).toBe(0);
      const path = planPathOf(file);
      expect(readPlanFile(path).maker.fingerprint).not.toBe(people.maker.key!.fingerprint);
      expect((await approveAs('alice', path)).code).toBe(0);
      const from = ctx.sb.requests().length;
      const r = await run(['plan', 'send', path, '--yes']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/calling itself "Maker"\), which the policy .* does not list; only a maker listed in the policy can make a plan/);
      expectNothingSent(from);
    } finally {
      throwaway.cleanup();
    }
  });

  it('a plan more than 7 days old, or made for another base URL: exit 2', async () => {
    // Made 8 days ago (the maker's clock then), approved today.
    const old = await madePlan(['1200'], '10000.00', new TestClock(new Date(Date.now() - 8 * 86_400_000)));
    // Made with the maker's key for another service (a key for it in the environment; nothing is sent to make a plan).
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const file = planBatchFile(work.dir, wallet, ['1200']);
    const made = await payctl(['plan', 'create', file, '--base-url', 'https://api.example.com/v2'], {
      dir: maker(),
      env: { PAYCTL_API_KEY: 'sk_live_elsewhere_0000000000' },
    });
    expect(made.code, made.stderr).toBe(0);
    const plans = { old: old.path, elsewhere: planPathOf(file) };
    expect(readPlanFile(plans.elsewhere).base_url).toBe('https://api.example.com/v2');
    for (const [name, path] of Object.entries(plans)) {
      // Approving refuses the old one too (nothing signed); send refuses it either way.
      const approved = await approveAs('alice', path);
      expect(approved.code, approved.stderr).toBe(name === 'old' ? 2 : 0);
      if (name === 'old') expect(approved.stderr).toContain('more than 7 days ago. Nothing was signed.');
      const from = ctx.sb.requests().length;
      const r = await run(['plan', 'send', path, '--yes']);
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(name === 'old' ? 'more than 7 days ago' : 'it was made for https://api.example.com/v2');
      expectNothingSent(from);
    }
  });
});

describe('the policy on direct sends', () => {
  it("over the per-payout maximum, or over the daily total: exit 2 naming the rule and what to do (not the command's usage), nothing sent", async () => {
    const wallet = freshWallet(ctx.sb, '2000000.00', 'SLE');
    let from = ctx.sb.requests().length;
    const over = await run(bankPayout(wallet, '150000.01'));
    expect(over.code, over.stderr).toBe(2);
    expect(over.stderr).toContain('policy max_per_payout.SLE');
    // Before: the input was valid, yet it ended "(run `payctl payout create --help` for usage)", and that was --json's hint.
    const maxHint = 'No approval lifts max_per_payout: a payout over it is refused whatever approvals it has.';
    expect(over.stderr).toMatch(new RegExp(`\\n${maxHint.replace(/[.]/g, '\\.')}\\n$`));
    expect(over.stderr).not.toContain('for usage');
    const overJson = await run([...bankPayout(wallet, '150000.01'), '--json']);
    expect(overJson.code).toBe(2);
    expect(JSON.parse(overJson.stderr)).toMatchObject({ error: { code: 'USAGE_ERROR', hint: maxHint } });
    const file = join(work.dir, `over-${randomUUID().slice(0, 8)}.csv`);
    writeFileSync(file, `${PLAN_BATCH_HEADER}over-1,${wallet},150000.01,SLE,wallet,Fatmata Sesay,orange_money,076550000,+23276550000,stipend\n`);
    const batch = await run(['payout', 'batch', file, '--yes']);
    expect(batch.code, batch.stderr).toBe(2);
    expect(batch.stderr).toContain('policy max_per_payout.SLE');
    expect(batch.stderr).toContain(maxHint);
    expect(batch.stderr).not.toContain('for usage');
    expectNothingSent(from);

    // Today: a plan of 3 × 140,000 = 420,000 > 400,000 from one wallet breaks the daily total.
    const { path } = await madePlan(['140000', '140000', '140000'], '2000000.00');
    expect((await approveAs('alice', path)).code).toBe(0);
    expect((await approveAs('bob', path)).code).toBe(0);
    from = ctx.sb.requests().length;
    const daily = await run(['plan', 'send', path, '--yes']);
    expect(daily.code, daily.stderr).toBe(2);
    expect(daily.stderr).toContain('policy daily_total.SLE');
    expect(daily.stderr).toContain(
      "The daily total counts one UTC day (the ledger's): what is over it today can be sent on a later day, once the day's total leaves room.",
    );
    expect(daily.stderr).not.toContain('for usage');
    expectNothingSent(from);
  });
});

describe('the daily total on direct sends', () => {
  it("counted from this config folder's journal: the send that would pass it is refused (exit 2, rule named), the ones before go", async () => {
    const cfg = tempConfigDir();
    try {
      const policy = join(work.dir, `daily-${randomUUID().slice(0, 6)}.json`);
      writeFileSync(policy, JSON.stringify({ approvers: {}, max_per_payout: { SLE: '1500' }, daily_total: { SLE: '2000' } }));
      await writeLoggedIn(ctx.sb, cfg.dir);
      expect((await run(['config', 'set', 'policy', policy], cfg.dir)).code).toBe(0);
      const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
      const pay = (amount: string) => run(bankPayout(wallet, amount), cfg.dir);
      expect((await pay('1200')).code).toBe(0);
      expect((await pay('800')).code).toBe(0);
      const from = ctx.sb.requests().length;
      const third = await pay('0.01');
      expect(third.code, third.stderr).toBe(2);
      expect(third.stderr).toContain(
        `over the daily total of 2,000.00 SLE (policy daily_total.SLE; 2,000.00 SLE already sent today from this config folder (${cfg.dir}))`,
      );
      expectNothingSent(from);
      // Another wallet has its own daily total.
      const other = freshWallet(ctx.sb, '100000.00', 'SLE');
      const elsewhere = await run(bankPayout(other, '1500'), cfg.dir);
      expect(elsewhere.code, elsewhere.stderr).toBe(0);
    } finally {
      cfg.cleanup();
    }
  });
});
