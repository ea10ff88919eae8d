/**
 * Two approved plans paying the same person, sent at the same moment (src/commands/plan/send.ts,
 * refusePaidSince under the wallets' locks): of the two, one pays and the other is refused, "pays
 * what was paid after the plan was made", exit 2, nothing sent. In process against the sandbox
 * over real HTTP, on one config folder's local journal (one machine, two terminals), there again
 * under a policy that counts no day (plan send took no wallet lock then, and its plans need no
 * approval), and on a real PostgreSQL shared by two config folders (two machines). The plans are
 * two batches of one one-row file (its payout ids made from the batch id, so each plan pays it
 * under ids of its own), both approved before either is sent. Before: the check ran before the
 * claims, outside any lock the two runs shared (each holds its own batch's lock), so both passed
 * it and the person was paid twice: in all 24 pairs of a run here; a probe with two binaries on
 * PostgreSQL saw it in 5 of 8.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { setUpTeam, type Person } from '../helpers/four-eyes.js';
import { sharedPostgres } from '../helpers/postgres.js';

const ctx = useSandbox();
const work = tempWorkDir();
const folders = ['maker', 'alice', 'bob', 'other', 'lone'].map(() => tempConfigDir());
const people = { maker: { dir: folders[0]!.dir }, alice: { dir: folders[1]!.dir }, bob: { dir: folders[2]!.dir } } as Record<'maker' | 'alice' | 'bob', Person>;
/** The second machine of the shared ledger (its own config folder, the same database). */
const other = folders[3]!.dir;
/** A machine whose policy counts no day (no approval tiers, no daily total): its plans need no approval. */
const lone = folders[4]!.dir;
let policy: string;

beforeAll(async () => {
  policy = await setUpTeam(ctx.sb, people, work.dir);
});
afterAll(() => {
  for (const f of folders) f.cleanup();
  work.cleanup();
});

/** Pairs raced on each ledger. */
const PAIRS = 8;

/**
 * A one-row file paying 1,050 SLE (1 approval under the team's policy) from a fresh wallet to a
 * fresh account, planned twice by the maker (batches of their own) and, unless `approve` is
 * false, both plans approved by Alice: the wallet and the two plans' paths.
 */
async function twoPlans(approve: boolean): Promise<{ wallet: string; plans: [string, string] }> {
  const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  const tag = randomUUID().slice(0, 8);
  const file = join(work.dir, `race-${tag}.csv`);
  writeFileSync(
    file,
    `wallet_id,amount,currency,type,name,provider,account_number,note\n${wallet},1050.00,SLE,bank,Hawa Kargbo,ecobank,0099${tag.replace(/\D/g, '7')},Salary\n`,
  );
  const plans: string[] = [];
  for (const b of ['a', 'b']) {
    const plan = join(work.dir, `race-${tag}-${b}.plan.json`);
    const made = await payctl(['plan', 'create', file, '--batch-id', `rT${b}-${tag}`, '-o', plan], { dir: people.maker.dir });
    expect(made.code, made.stderr).toBe(0);
    if (approve) {
      const approved = await payctl(['plan', 'approve', plan, '--yes'], { dir: people.alice.dir });
      expect(approved.code, approved.stderr).toBe(0);
    }
    plans.push(plan);
  }
  return { wallet, plans: plans as [string, string] };
}

/**
 * `PAIRS` times: two plans of one row (approved unless `approve` is false), then sent at the
 * same moment, plan a from `dirs[0]` and plan b from `dirs[1]`. Each time the person is paid exactly once (every pair is
 * raced before any is judged, so a failure says in how many pairs they were paid twice): one run
 * sent (exit 0), the other refused (exit 2) naming the payout that paid, and nothing of it sent.
 */
async function raceEachPair(dirs: [string, string], approve = true): Promise<void> {
  const pairs: Array<{ plans: [string, string]; runs: Run[]; paid: number; posts: number }> = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    const { wallet, plans } = await twoPlans(approve);
    const from = ctx.sb.requests().length;
    const runs = await Promise.all(plans.map((plan, i) => payctl(['plan', 'send', plan, '--yes'], { dir: dirs[i]! })));
    pairs.push({ plans, runs, paid: ctx.sb.payouts().filter((p) => p.wallet_id === wallet).length, posts: payoutPosts(ctx.sb, from).length });
  }
  const said = pairs.map((p, i) => `pair ${i + 1}: exit ${p.runs.map((r) => r.code).join(' and ')}\n${p.runs.map((r) => r.stderr).join('---\n')}`).join('\n');
  expect(
    pairs.map((p) => p.paid),
    `payouts to the account in each pair\n${said}`,
  ).toEqual(Array<number>(PAIRS).fill(1));
  expect(pairs.map((p) => p.posts)).toEqual(Array<number>(PAIRS).fill(1));
  for (const { plans, runs } of pairs) {
    expect(runs.map((r) => r.code).sort(), said).toEqual([0, 2]);
    const loser = runs.findIndex((r) => r.code === 2);
    const lines = runs[loser]!.stderr.split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^Error: Cannot send the plan ${plans[loser]!.replace(/[.]/g, '\\.')}: 1 payout of it pays what was paid after the plan was made \\(\\S+\\), which its approvers did not see\\. Nothing was sent\\.$`,
      ),
    );
    // Named with the payout the other plan sent, in its batch (race-<tag>-<b>.plan.json is batch rT<b>-<tag>).
    const [, tag, b] = /race-(\w+)-([ab])\.plan\.json$/.exec(plans[1 - loser]!)!;
    // Paid, or still in flight when looked at (then said as it was: may have been paid).
    const how = '(?:paid|was journaled for the same, its outcome unknown \\(it may have been paid\\))';
    expect(lines[1]).toMatch(new RegExp(`^ {2}- payout \\S+ \\(row 2\\) pays what payout \\S+ ${how} in batch "rT${b}-${tag}" from `));
  }
}

describe('two approved plans paying one person, sent at the same moment', () => {
  it(`on one machine's local journal (two terminals): one pays, the other is refused, ${PAIRS} pairs`, { timeout: 120_000 }, async () => {
    await raceEachPair([people.maker.dir, people.maker.dir]);
  });

  it(
    `on the local journal under a policy that counts no day (plan send took no wallet lock then): one pays, the other is refused, ${PAIRS} pairs`,
    { timeout: 120_000 },
    async () => {
      await writeLoggedIn(ctx.sb, lone);
      const file = join(work.dir, 'makers-only.json');
      writeFileSync(file, JSON.stringify({ makers: { Maker: people.maker.key!.publicKey }, max_per_payout: { SLE: '150000' } }));
      expect((await payctl(['config', 'set', 'policy', file], { dir: lone })).code).toBe(0);
      await raceEachPair([lone, lone], false);
    },
  );

  it(`on a shared PostgreSQL ledger from two machines: one pays, the other is refused, ${PAIRS} pairs`, { timeout: 120_000 }, async () => {
    const url = await (await sharedPostgres()).freshDatabase('planrace');
    await writeLoggedIn(ctx.sb, other);
    expect((await payctl(['config', 'set', 'policy', policy], { dir: other })).code).toBe(0);
    for (const dir of [people.maker.dir, other]) {
      const set = await payctl(['config', 'set', 'ledger', '--stdin'], { dir, input: `${url}\n` });
      expect(set.code, set.stderr).toBe(0);
    }
    await raceEachPair([people.maker.dir, other]);
  });
});
