/**
 * Four eyes (issue 16), end to end: the built binary against the sandbox, with a maker, two
 * listed approvers and one unlisted person, each with their own config folder (their own
 * machine) and key. A plan is made, approved and sent (every payout once, the bodies and keys
 * byte for byte the plan's); a plan changed by one byte, approved by the wrong people, too
 * old, for another service or made with a key the policy does not list as a maker's (a
 * throwaway key, issue 27) sends nothing (exit 2); the policy refuses direct sends over its
 * limits and lets small ones through; a plan sent twice, or twice at once, pays each row once.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { payctlShim, runAsPrinted, tempConfigDir } from '../helpers/cli.js';
import { payctl, startCli, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { heldCounts, payoutPosts, postedPayoutId, tempWorkDir } from '../helpers/batch.js';
import { loadSigningKey, signText, type SigningKey } from '../../src/plans/keys.js';
import { approvalMessage, makePlan, planText, readPlan, type Plan } from '../../src/plans/plan.js';
import { validatePayout } from '../../src/payouts/request.js';

const ctx = useSandbox();
const work = tempWorkDir();
const people: Record<'maker' | 'alice' | 'bob' | 'mallory', { dir: string; cleanup(): void; key?: SigningKey }> = {
  maker: tempConfigDir(),
  alice: tempConfigDir(),
  bob: tempConfigDir(),
  mallory: tempConfigDir(),
};
const maker = () => people.maker.dir;
let policyFile: string;

const HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';

function batchFile(wallet: string, amounts: string[], tag = randomUUID().slice(0, 8)): string {
  const file = join(work.dir, `pay-${tag}.csv`);
  writeFileSync(
    file,
    HEADER +
      amounts
        .map(
          (a, i) =>
            `${tag}-${i + 1},${wallet},${a},SLE,wallet,Fatmata Sesay ${i + 1},orange_money,07655${String(i).padStart(4, '0')},+2327655${String(i).padStart(4, '0')},stipend`,
        )
        .join('\n') +
      '\n',
  );
  return file;
}

async function run(args: string[], dir = maker(), input?: string): Promise<Run> {
  return payctl(args, { dir, ...(input !== undefined ? { input } : {}) });
}

function expectNothingSent(from: number): void {
  expect(payoutPosts(ctx.sb, from)).toEqual([]);
}

beforeAll(async () => {
  for (const [name, p] of Object.entries(people)) {
    const r = await run(['keys', 'create', '--name', name[0]!.toUpperCase() + name.slice(1)], p.dir);
    expect(r.code, r.stderr).toBe(0);
    p.key = loadSigningKey(p.dir)!;
  }
  policyFile = join(work.dir, 'policy.json');
  writeFileSync(
    policyFile,
    JSON.stringify({
      members: { Maker: { keys: [people.maker.key!.publicKey], roles: ['maker'] } },
      approvers: { Alice: people.alice.key!.publicKey, Bob: people.bob.key!.publicKey },
      approvals: {
        SLE: [
          { from: '1000', required: 1 },
          { over: '100000', required: 2 },
        ],
      },
      max_per_payout: { SLE: '150000' },
      daily_total: { SLE: '400000' },
    }),
  );
  await writeLoggedIn(ctx.sb, maker());
  const set = await run(['config', 'set', 'policy', policyFile]);
  expect(set.code, set.stderr).toBe(0);
});

afterAll(() => {
  for (const p of Object.values(people)) p.cleanup();
  work.cleanup();
});

beforeEach(() => ctx.sb.faults.clear());

/** A plan of `amounts` from a fresh wallet, made by the maker: its path. */
async function madePlan(amounts: string[], balance = '1000000.00'): Promise<{ path: string; wallet: string }> {
  const wallet = freshWallet(ctx.sb, balance, 'SLE');
  const file = batchFile(wallet, amounts);
  const path = file.replace(/\.csv$/, '.plan.json');
  const r = await run(['plan', 'create', file, '--batch-id', `b-${randomUUID().slice(0, 8)}`]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(`Plan written to ${path}`);
  return { path, wallet };
}

async function approveAs(who: 'alice' | 'bob' | 'mallory' | 'maker', path: string): Promise<Run> {
  return run(['plan', 'approve', path, '--yes'], people[who].dir);
}

/** An approval added by hand (the CLI refuses these), signed with `key`. */
function addApproval(path: string, key: SigningKey): void {
  const plan = JSON.parse(readFileSync(path, 'utf8')) as Plan;
  const a = { name: key.name, public_key: key.publicKey, fingerprint: key.fingerprint, signed_at: new Date().toISOString() };
  plan.approvals.push({ ...a, signature: signText(key, approvalMessage(plan.hash, a)) });
  writeFileSync(path, JSON.stringify(plan, null, 2));
}

/** A bank payout of `amount` SLE from `wallet`, with --yes. */
function bankPayout(wallet: string, amount: string, id = randomUUID()): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    wallet,
    '--amount',
    amount,
    '--currency',
    'SLE',
    '--type',
    'bank',
    '--name',
    'Ibrahim Sesay',
    '--provider',
    'uba',
    '--account',
    '0123456789',
    '--payout-id',
    id,
    '--yes',
  ];
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
    const { plan } = readPlan(path);
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
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const v = validatePayout({ walletId: wallet, amount: '50000', currency: 'SLE', type: 'bank', name: 'Ibrahim Sesay', provider: 'uba', account: '0123456789' });
    if (!v.ok) throw new Error(v.problems.join('; '));
    // Mallory's key (made in a folder of its own) calls itself the maker's name: the policy says who is who.
    const throwaway = { ...people.mallory.key!, name: 'Maker' };
    const plan = makePlan({
      baseUrl: ctx.sb.baseUrl,
      batchId: null,
      source: 'test',
      now: new Date(),
      maker: throwaway,
      payouts: [{ request: v.request, idempotencyKey: randomUUID() }],
    });
    const path = join(work.dir, `throwaway-${randomUUID().slice(0, 6)}.plan.json`);
    writeFileSync(path, planText(plan));
    expect((await approveAs('alice', path)).code).toBe(0);
    const from = ctx.sb.requests().length;
    const r = await run(['plan', 'send', path, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/calling itself "Maker"\), which the policy .* does not list; only a maker listed in the policy can make a plan/);
    expectNothingSent(from);
  });

  it('a plan more than 7 days old, or made for another base URL: exit 2', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const v = validatePayout({ walletId: wallet, amount: '1200', currency: 'SLE', type: 'bank', name: 'Ibrahim Sesay', provider: 'uba', account: '0123456789' });
    if (!v.ok) throw new Error(v.problems.join('; '));
    const plans = {
      old: makePlan({
        baseUrl: ctx.sb.baseUrl,
        batchId: null,
        source: 'test',
        now: new Date(Date.now() - 8 * 86_400_000),
        maker: people.maker.key!,
        payouts: [{ request: v.request, idempotencyKey: randomUUID() }],
      }),
      elsewhere: makePlan({
        baseUrl: 'https://api.example.com/v2',
        batchId: null,
        source: 'test',
        now: new Date(),
        maker: people.maker.key!,
        payouts: [{ request: { ...v.request, payoutId: randomUUID() }, idempotencyKey: randomUUID() }],
      }),
    };
    for (const [name, plan] of Object.entries(plans)) {
      const path = join(work.dir, `${name}-${randomUUID().slice(0, 6)}.plan.json`);
      writeFileSync(path, planText(plan));
      expect((await approveAs('alice', path)).code).toBe(0);
      const from = ctx.sb.requests().length;
      const r = await run(['plan', 'send', path, '--yes']);
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(name === 'old' ? 'more than 7 days ago' : 'it was made for https://api.example.com/v2');
      expectNothingSent(from);
    }
  });
});

describe('the policy on direct sends', () => {
  it('one under the no-approval threshold is sent directly; one needing approval is refused with the command that makes a plan, which works as printed', async () => {
    const wallet = freshWallet(ctx.sb, '500000.00', 'SLE');
    const small = await run(bankPayout(wallet, '999.99'));
    expect(small.code, small.stderr).toBe(0);

    const id = randomUUID();
    const from = ctx.sb.requests().length;
    const big = await run(bankPayout(wallet, '5000', id));
    expect(big.code, big.stderr).toBe(2);
    expect(big.stderr).toContain('1 approval: the SLE total 5,000.00 SLE is from 1000');
    expectNothingSent(from);
    const printed = /^\s*(payctl payout create .* --plan-out \S+)$/m.exec(big.stderr)?.[1];
    expect(printed, big.stderr).toBeDefined();
    const shim = payctlShim();
    const made = await runAsPrinted(`cd ${work.dir} && ${printed!}`, { shim: shim.dir, configDir: maker() });
    shim.cleanup();
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain('Plan written to');
    expectNothingSent(from);
  });

  it('over the per-payout maximum, or over the daily total: exit 2 naming the rule, nothing sent', async () => {
    const wallet = freshWallet(ctx.sb, '2000000.00', 'SLE');
    let from = ctx.sb.requests().length;
    const over = await run(bankPayout(wallet, '150000.01'));
    expect(over.code, over.stderr).toBe(2);
    expect(over.stderr).toContain('policy max_per_payout.SLE');
    expectNothingSent(from);

    // Today: a plan of 3 × 140,000 = 420,000 > 400,000 from one wallet breaks the daily total.
    const { path } = await madePlan(['140000', '140000', '140000'], '2000000.00');
    expect((await approveAs('alice', path)).code).toBe(0);
    expect((await approveAs('bob', path)).code).toBe(0);
    from = ctx.sb.requests().length;
    const daily = await run(['plan', 'send', path, '--yes']);
    expect(daily.code, daily.stderr).toBe(2);
    expect(daily.stderr).toContain('policy daily_total.SLE');
    expectNothingSent(from);
  });
});

describe('the daily total on direct sends', () => {
  it("counted from this machine's journal: the send that would pass it is refused (exit 2, rule named), the ones before go", async () => {
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
      expect(third.stderr).toContain('over the daily total of 2,000.00 SLE (policy daily_total.SLE; 2,000.00 SLE already sent today from this machine)');
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

describe('a plan sent twice', () => {
  it('one after the other, and two at once: exactly one payout per row', async () => {
    const { path } = await madePlan(['1100', '1200', '1300', '1400']);
    expect((await approveAs('alice', path)).code).toBe(0);
    const ids = readPlan(path).plan.payouts.map((p) => p.payout_id);

    const both = await Promise.all(
      ['a', 'b'].map((n) => startCli(['plan', 'send', path, '--yes', '--report', join(work.dir, `twice-${n}-${randomUUID()}.report.csv`)], { dir: maker() }).done),
    );
    expect(
      both.map((r) => r.code),
      both.map((r) => r.stderr).join('\n'),
    ).toEqual([0, 0]);
    const again = await run(['plan', 'send', path, '--yes', '--report', join(work.dir, `again-${randomUUID()}.report.csv`)]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Nothing to send');
    expect([...heldCounts(ctx.sb, ids).values()]).toEqual([1, 1, 1, 1]);
  });
});
