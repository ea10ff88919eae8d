/**
 * One approver who signs from two machines (README "Four eyes": one person may list several
 * keys), in process against the sandbox over real HTTP, each machine a config folder of its own.
 * Ibrahim approves one plan file with his desk's key and his laptop's (both machines name no
 * policy, as an approver's need not), Aminata with hers. His second approval repeats him: `plan
 * approve` says so instead of "it now carries 2 approvals", `plan show` and `policy check` list
 * it as left out, and `plan send` leaves it out, counting him once: the plan is sent once
 * Aminata approved it too, and not before (exit 2, nothing sent). With the team's shared
 * ledger (a real PostgreSQL), his approvals by hash and in the file are counted the same way.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl, type InProcessOptions } from '../helpers/in-process.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { planBatchFile, planPathOf, readPlanFile } from '../helpers/four-eyes.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const work = tempWorkDir();

type Who = 'mariama' | 'ibrahimDesk' | 'ibrahimLaptop' | 'aminata';
const NAMES: Record<Who, string> = { mariama: 'Mariama Kanu', ibrahimDesk: 'Ibrahim Sesay', ibrahimLaptop: 'Ibrahim Sesay', aminata: 'Aminata Kamara' };
const people = Object.fromEntries(Object.keys(NAMES).map((w) => [w, { ...tempConfigDir(), publicKey: '', fingerprint: '' }])) as Record<
  Who,
  { dir: string; cleanup(): void; publicKey: string; fingerprint: string }
>;
let policyFile: string;

const run = (who: Who, args: string[], opts: Omit<InProcessOptions, 'dir'> = {}): Promise<Run> => payctl(args, { dir: people[who].dir, ...opts });

beforeAll(async () => {
  for (const who of Object.keys(NAMES) as Who[]) {
    const r = await run(who, ['keys', 'create', '--name', NAMES[who], '--json']);
    expect(r.code, r.stderr).toBe(0);
    const key = oneJson(r.stdout) as { public_key: string; fingerprint: string };
    people[who].publicKey = key.public_key;
    people[who].fingerprint = key.fingerprint;
  }
  policyFile = join(work.dir, 'policy.json');
  writeFileSync(
    policyFile,
    JSON.stringify({
      members: {
        'Mariama Kanu': { keys: [people.mariama.publicKey], roles: ['maker'] },
        'Ibrahim Sesay': { keys: [people.ibrahimDesk.publicKey, people.ibrahimLaptop.publicKey], roles: ['approver'] },
        'Aminata Kamara': { keys: [people.aminata.publicKey], roles: ['approver'] },
      },
      approvals: {
        SLE: [
          { from: '1000', required: 1 },
          { over: '100000', required: 2 },
        ],
      },
    }),
  );
  // Only the maker's machine is logged in and names the policy: approving needs neither.
  await writeLoggedIn(ctx.sb, people.mariama.dir);
  const set = await run('mariama', ['config', 'set', 'policy', policyFile]);
  expect(set.code, set.stderr).toBe(0);
});

afterAll(() => {
  for (const p of Object.values(people)) p.cleanup();
  work.cleanup();
});

/** A plan file of `amounts` SLE from a fresh wallet, made by Mariama: its path and wallet. */
async function madePlan(amounts: string[], maker: Who = 'mariama'): Promise<{ path: string; wallet: string }> {
  const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
  const file = planBatchFile(work.dir, wallet, amounts);
  const made = await run(maker, ['plan', 'create', file, '--batch-id', `k-${randomUUID().slice(0, 8)}`]);
  expect(made.code, made.stderr).toBe(0);
  return { path: planPathOf(file), wallet };
}

/** What is said of Ibrahim's laptop approval, the second in the file: left out, never a refusal. */
const leftOut = (n: number) =>
  `approval ${n} (Ibrahim Sesay, ${people.ibrahimLaptop.fingerprint}): Ibrahim Sesay approved already, with another of their keys (${people.ibrahimDesk.fingerprint}); each person counts once, whatever keys they hold (left out: it does not stop the plan)`;

describe('one approver who signs a plan file from two machines', () => {
  it('counts once: plan approve says the second repeats him, plan send leaves it out and needs another person (exit 2, nothing sent), then sends', async () => {
    // Before: "it now carries 2 approvals", then plan send refused the whole file (exit 2,
    // "approval 2 (Ibrahim Sesay, …): Ibrahim Sesay approved already") even with Aminata's.
    const { path, wallet } = await madePlan(['60000', '50000']);
    const desk = await run('ibrahimDesk', ['plan', 'approve', path, '--yes']);
    expect(desk.code, desk.stderr).toBe(0);
    expect(desk.stderr).toContain(`as Ibrahim Sesay (${people.ibrahimDesk.fingerprint}); it now carries 1 approval.`);

    const laptop = await run('ibrahimLaptop', ['plan', 'approve', path, '--yes']);
    expect(laptop.code, laptop.stderr).toBe(0);
    expect(laptop.stderr).toContain(`as Ibrahim Sesay (${people.ibrahimLaptop.fingerprint}).\n`);
    expect(laptop.stderr).not.toContain('2 approvals');
    expect(laptop.stderr).toContain(
      `This approval repeats a person who approved already: Ibrahim Sesay signed the plan with another key (${people.ibrahimDesk.fingerprint}), and each person counts once, whatever keys they sign with (plan send leaves this one out). It carries approvals by 1 person.`,
    );
    expect(readPlanFile(path).approvals.map((a) => a.fingerprint)).toEqual([people.ibrahimDesk.fingerprint, people.ibrahimLaptop.fingerprint]);

    // One person's two signatures are not two people: not sendable, exit 2, nothing sent.
    const from = ctx.sb.requests().length;
    const early = await run('mariama', ['plan', 'send', path, '--yes']);
    expect(early.code, early.stderr).toBe(2);
    expect(early.stderr).toContain('it needs 2 approvals (people other than its maker, Mariama Kanu) and carries 1 (Ibrahim Sesay)');
    expect(early.stderr).toContain(`Not counted: ${leftOut(2)}`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    const shown = await run('mariama', ['plan', 'show', path]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Counts: Ibrahim Sesay (${people.ibrahimDesk.fingerprint}) at `);
    expect(shown.stdout).toContain(`Not counted: ${leftOut(2)}`);
    expect(shown.stdout).toContain(`Policy ${policyFile}: 2 approvals needed from people other than the maker; 1 count (Ibrahim Sesay).`);
    const checked = await run('mariama', ['policy', 'check', path]);
    expect(checked.code, checked.stdout).toBe(1);
    expect(checked.stdout).toContain('Approved by: 1 that count: Ibrahim Sesay.');
    expect(checked.stdout).toContain('It cannot be sent yet.');

    const aminata = await run('aminata', ['plan', 'approve', path, '--yes', '--json']);
    expect(aminata.code, aminata.stderr).toBe(0);
    expect(oneJson(aminata.stdout)).toMatchObject({ approved_by: 'Aminata Kamara', approvals: 2 });
    expect(oneJson(aminata.stdout)).not.toHaveProperty('repeat_of');

    const json = oneJson((await run('mariama', ['plan', 'show', path, '--json'])).stdout) as { policy: Record<string, unknown>; send_refusals: unknown[] };
    expect(json.policy).toMatchObject({ required: 2, not_counted: [], ignored: [leftOut(2)] });
    expect((json.policy.counted as Array<{ name: string }>).map((c) => c.name)).toEqual(['Ibrahim Sesay', 'Aminata Kamara']);
    expect(json.send_refusals).toEqual([]);
    const ready = await run('mariama', ['policy', 'check', path, '--json']);
    expect(ready.code, ready.stdout).toBe(0);
    expect(oneJson(ready.stdout)).toMatchObject({ sendable: true, not_counted: [], ignored: [leftOut(2)] });

    const sent = await run('mariama', ['plan', 'send', path, '--yes']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toContain(`Not counted: ${leftOut(2)}`);
    expect(sent.stderr).toContain('2 accepted');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
    expect(ctx.sb.payouts().filter((p) => p.wallet_id === wallet)).toHaveLength(2);
  });

  it('--json says which approval it repeats; the same name after another approver, and in other letter case, still repeats him', async () => {
    const { path } = await madePlan(['1500']);
    expect((await run('ibrahimDesk', ['plan', 'approve', path, '--yes'])).code).toBe(0);
    expect((await run('aminata', ['plan', 'approve', path, '--yes'])).code).toBe(0);
    const laptop = await run('ibrahimLaptop', ['plan', 'approve', path, '--yes', '--json']);
    expect(laptop.code, laptop.stderr).toBe(0);
    expect(oneJson(laptop.stdout)).toMatchObject({
      approved_by: 'Ibrahim Sesay',
      fingerprint: people.ibrahimLaptop.fingerprint,
      approvals: 2,
      repeat_of: { name: 'Ibrahim Sesay', fingerprint: people.ibrahimDesk.fingerprint },
    });
    expect(laptop.stderr).toContain('It carries approvals by 2 people.');

    // A key named in other letter case and spacing is the same name to a reader.
    const cased = tempConfigDir();
    try {
      expect((await payctl(['keys', 'create', '--name', '  ibrahim   SESAY '], { dir: cased.dir })).code).toBe(0);
      const third = await payctl(['plan', 'approve', path, '--yes', '--json'], { dir: cased.dir });
      expect(third.code, third.stderr).toBe(0);
      expect(oneJson(third.stdout)).toMatchObject({ approvals: 2, repeat_of: { fingerprint: people.ibrahimDesk.fingerprint } });
    } finally {
      cased.cleanup();
    }
  });

  it('every other approval that does not count still refuses the file: a key the policy does not list, though named as him', async () => {
    const { path } = await madePlan(['60000', '50000']);
    expect((await run('ibrahimDesk', ['plan', 'approve', path, '--yes'])).code).toBe(0);
    const stranger = tempConfigDir();
    try {
      expect((await payctl(['keys', 'create', '--name', 'Ibrahim Sesay'], { dir: stranger.dir })).code).toBe(0);
      // Without a policy it is signed (said as a repeat of his name); under the policy it is nobody's.
      const signed = await payctl(['plan', 'approve', path, '--yes'], { dir: stranger.dir });
      expect(signed.code, signed.stderr).toBe(0);
      expect(signed.stderr).toContain('This approval repeats a person who approved already');
    } finally {
      stranger.cleanup();
    }
    expect((await run('aminata', ['plan', 'approve', path, '--yes'])).code).toBe(0);
    const from = ctx.sb.requests().length;
    const r = await run('mariama', ['plan', 'send', path, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /1 approval does not count\. Nothing was sent\.\n {2}- approval 2 \(Ibrahim Sesay, SHA256:[^)]+\): the key is not an approver in the policy /,
    );
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});

describe("one approver's two keys with the team's shared ledger", () => {
  /** The same people on machines that share one ledger: their keys copied into config folders of their own; only the maker's names the policy. */
  const shared = Object.fromEntries((Object.keys(NAMES) as Who[]).map((w) => [w, tempConfigDir()])) as Record<Who, { dir: string; cleanup(): void }>;
  const on = (who: Who, args: string[]): Promise<Run> => payctl(args, { dir: shared[who].dir });
  afterAll(() => {
    for (const f of Object.values(shared)) f.cleanup();
  });
  beforeAll(async () => {
    const url = await (await sharedPostgres()).freshDatabase('two_keys');
    for (const who of Object.keys(NAMES) as Who[]) {
      copyFileSync(join(people[who].dir, 'signing-key.json'), join(shared[who].dir, 'signing-key.json'));
      await writeLoggedIn(ctx.sb, shared[who].dir);
      const set = await payctl(['config', 'set', 'ledger', '--stdin'], { dir: shared[who].dir, input: `${url}\n` });
      expect(set.code, set.stderr).toBe(0);
    }
    const set = await on('mariama', ['config', 'set', 'policy', policyFile]);
    expect(set.code, set.stderr).toBe(0);
  });

  it('signed by hash from one machine and in the file from the other: said as a repeat, counted once by hash and as a file', async () => {
    const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
    const batch = planBatchFile(work.dir, wallet, ['60000', '50000']);
    const made = await on('mariama', ['plan', 'create', batch, '--batch-id', `s-${randomUUID().slice(0, 8)}`]);
    expect(made.code, made.stderr).toBe(0);
    const file = planPathOf(batch);
    const { hash } = readPlanFile(file);

    const desk = await on('ibrahimDesk', ['plan', 'approve', hash, '--yes']);
    expect(desk.code, desk.stderr).toBe(0);
    expect(desk.stderr).toContain('it now carries 1 approval.');
    // Before: "it now carries 2 approvals" (his approval by hash and his file's counted as two).
    const laptop = await on('ibrahimLaptop', ['plan', 'approve', file, '--yes', '--json']);
    expect(laptop.code, laptop.stderr).toBe(0);
    expect(oneJson(laptop.stdout)).toMatchObject({ approvals: 1, repeat_of: { name: 'Ibrahim Sesay', fingerprint: people.ibrahimDesk.fingerprint } });
    expect(laptop.stderr).toContain('This approval repeats a person who approved already');

    const from = ctx.sb.requests().length;
    const report = () => ['--report', join(work.dir, `${randomUUID()}.report.jsonl`)];
    for (const ref of [hash, file]) {
      const r = await on('mariama', ['plan', 'send', ref, '--yes', ...report()]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('it needs 2 approvals (people other than its maker, Mariama Kanu) and carries 1 (Ibrahim Sesay)');
      expect(r.stderr).toMatch(
        /Not counted: approval 2 \(Ibrahim Sesay, SHA256:[^,]+, kept in the team's shared ledger\): Ibrahim Sesay approved already, with another of their keys \(SHA256:[^)]+\); .*\(left out: it does not stop the plan\)/,
      );
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    const aminata = await on('aminata', ['plan', 'approve', hash, '--yes']);
    expect(aminata.code, aminata.stderr).toBe(0);
    expect(aminata.stderr).toContain('it now carries 2 approvals.');
    const shown = await on('mariama', ['plan', 'show', hash]);
    expect(shown.stdout).toContain(`Policy ${policyFile}: 2 approvals needed from people other than the maker; 2 count (Ibrahim Sesay, Aminata Kamara).`);
    const sent = await on('mariama', ['plan', 'send', file, '--yes', ...report()]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
    expect(ctx.sb.payouts().filter((p) => p.wallet_id === wallet)).toHaveLength(2);
  });
});
