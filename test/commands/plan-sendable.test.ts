/**
 * What `policy check` and `plan show` say of a plan is what `plan send` does with it
 * (src/commands/plan/sendable.ts), in process against the sandbox over real HTTP. Before,
 * policy check looked only at approvals and limits: a plan more than 7 days old, one dated
 * ahead, one made for another service, or one paying what was paid after it was made was
 * "It can be sent: payctl plan send …" (exit 0, "sendable": true), and the command it printed
 * failed (exit 2); plan show said nothing of it. Now both say plan send's reason, in its words.
 * And a payout over the policy's max_per_payout, which no approval lifts: plan create wrote such
 * a plan ("Approvals: 1 needed"), plan show and plan approve said nothing; now plan create and
 * payout create --plan-out write none, plan show says it and plan approve signs nothing. And a
 * plan that carries an approval that does not count, which plan send refuses whatever else it
 * carries: plan approve signed it ("it now carries 2 approvals", exit 0); now it signs nothing,
 * and plan send's refusal says what to do (it pointed at `plan send --help`).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl, type InProcessOptions } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payoutPosts } from '../helpers/batch.js';
import { addApproval, bankPayout, planBatchFile, planPathOf, readPlanFile, setUpTeam, useTeamFolders } from '../helpers/four-eyes.js';
import { loadSigningKey } from '../../src/plans/keys.js';
import type { Plan } from '../../src/plans/plan.js';

const ctx = useSandbox();
const { work, people } = useTeamFolders();

const run = (args: string[], opts: Omit<InProcessOptions, 'dir'> & { dir?: string } = {}): Promise<Run> => payctl(args, { dir: people.maker.dir, ...opts });

let policyFile: string;
beforeAll(async () => {
  policyFile = await setUpTeam(ctx.sb, people, work.dir);
  // The approvers go by the team's policy too.
  for (const p of [people.alice, people.bob]) {
    await writeLoggedIn(ctx.sb, p.dir);
    const set = await run(['config', 'set', 'policy', policyFile], { dir: p.dir });
    expect(set.code, set.stderr).toBe(0);
  }
});

interface Checked {
  sendable: boolean;
  send_refusals: Array<{ reason: string; details: string[]; hint?: string }>;
}

/** policy check, plan show and plan send of `plan` agree that it cannot be sent, for `reason`: nothing sent. */
async function refusedByAll(plan: string, reason: string | RegExp): Promise<void> {
  const matches = (s: string) => (typeof reason === 'string' ? s.includes(reason) : reason.test(s));
  const checked = await run(['policy', 'check', plan]);
  expect(checked.code, checked.stdout + checked.stderr).toBe(1);
  expect(checked.stdout).not.toContain('It can be sent');
  const line = checked.stdout.split('\n').find((l) => l.startsWith('It cannot be sent: '));
  expect(line, checked.stdout).toBeDefined();
  expect(matches(line!), line).toBe(true);
  const json = oneJson((await run(['policy', 'check', plan, '--json'])).stdout) as Checked;
  expect(json.sendable).toBe(false);
  expect(
    json.send_refusals.some((r) => matches(r.reason)),
    JSON.stringify(json.send_refusals),
  ).toBe(true);

  const shown = await run(['plan', 'show', plan]);
  expect(shown.code, shown.stderr).toBe(0);
  expect(
    shown.stdout.split('\n').some((l) => l.startsWith('It cannot be sent: ') && matches(l)),
    shown.stdout,
  ).toBe(true);
  const shownJson = oneJson((await run(['plan', 'show', plan, '--json'])).stdout) as Checked;
  expect(shownJson.send_refusals.some((r) => matches(r.reason))).toBe(true);

  const from = ctx.sb.requests().length;
  const sent = await run(['plan', 'send', plan, '--yes']);
  expect(sent.code, sent.stderr).toBe(2);
  expect(matches(sent.stderr.split('\n')[0]!), sent.stderr).toBe(true);
  expect(payoutPosts(ctx.sb, from)).toEqual([]);
}

/** A plan of 1,200 SLE made by the maker and approved by Alice, both at `clock`: its path. */
async function approvedPlan(clock?: TestClock): Promise<string> {
  const file = planBatchFile(work.dir, freshWallet(ctx.sb, '100000.00', 'SLE'), ['1200.00']);
  const made = await run(['plan', 'create', file, '--batch-id', `b-${randomUUID().slice(0, 8)}`], { clock });
  expect(made.code, made.stderr).toBe(0);
  const approved = await run(['plan', 'approve', planPathOf(file), '--yes'], { dir: people.alice.dir, clock });
  expect(approved.code, approved.stderr).toBe(0);
  return planPathOf(file);
}

describe('policy check and plan show say what plan send refuses', () => {
  it('an approved plan that plan send takes: policy check says so (exit 0) and prints the command that sends it', async () => {
    const plan = await approvedPlan();
    const checked = await run(['policy', 'check', plan]);
    expect(checked.code, checked.stdout).toBe(0);
    expect(checked.stdout).toContain(`It can be sent: payctl plan send ${plan}\n`);
    expect(checked.stdout).not.toContain('It cannot be sent');
    expect((oneJson((await run(['policy', 'check', plan, '--json'])).stdout) as Checked).send_refusals).toEqual([]);
    expect((await run(['plan', 'show', plan])).stdout).not.toContain('It cannot be sent');
    const sent = await run(['plan', 'send', plan, '--yes']);
    expect(sent.code, sent.stderr).toBe(0);
  });

  it('a plan more than 7 days old: not "It can be sent" (exit 1), plan send refuses it', async () => {
    const eightDaysAgo = new TestClock(new Date(Date.now() - 8 * 86_400_000));
    const plan = await approvedPlan(eightDaysAgo);
    const made = (JSON.parse(readFileSync(plan, 'utf8')) as { created_at: string }).created_at;
    await refusedByAll(plan, `it was made on ${made}, more than 7 days ago`);
    const checked = await run(['policy', 'check', plan]);
    expect(checked.stdout).toContain('  Make a new plan and have it approved again.\n');
    expect(checked.stdout).toMatch(/It cannot be sent\.\n$/);
  });

  it("a plan dated a day ahead (its maker's clock): plan send refuses it", async () => {
    const plan = await approvedPlan(new TestClock(new Date(Date.now() + 86_400_000)));
    await refusedByAll(plan, /it was made on \S+, in the future/);
  });

  it('a plan made for another service than the profile sends to: plan send refuses it', async () => {
    // Made with --base-url in the environment's key: plan create itself sends nothing.
    const elsewhere = planBatchFile(work.dir, freshWallet(ctx.sb, '100000.00', 'SLE'), ['1200.00']);
    const made = await run(['plan', 'create', elsewhere, '--base-url', 'https://api.example.com/v2'], { env: { PAYCTL_API_KEY: 'sk_live_elsewhere_0000000000' } });
    expect(made.code, made.stderr).toBe(0);
    expect((await run(['plan', 'approve', planPathOf(elsewhere), '--yes'], { dir: people.alice.dir })).code).toBe(0);
    await refusedByAll(planPathOf(elsewhere), /it was made for https:\/\/api\.example\.com\/v2, and this profile sends to http:\/\/127\.0\.0\.1:\d+/);
  });

  it('a plan one of whose payouts was paid by hand after it was made: policy check and plan show say plan send refuses it, naming both payouts', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const file = join(work.dir, `byhand-${randomUUID().slice(0, 8)}.csv`);
    const account = String(Math.floor(Math.random() * 1e8)).padStart(8, '0');
    const row = `${wallet},150.00,SLE,bank,Hawa Kargbo,ecobank,09${account},Salary 2026-11-30`;
    writeFileSync(file, `wallet_id,amount,currency,type,name,provider,account_number,note\n${row}\n`);
    const made = await run(['plan', 'create', file]);
    expect(made.code, made.stderr).toBe(0);
    const plan = planPathOf(file);
    // Needs no approval: it can be sent, as checked.
    const before = await run(['policy', 'check', plan]);
    expect(before.code, before.stdout).toBe(0);
    const byHand = await run(
      ['payout', 'create', '--wallet', wallet, '--amount', '150.00', '--currency', 'SLE', '--type', 'bank', '--name', 'Hawa Kargbo'].concat([
        '--provider',
        'ecobank',
        '--account',
        `09${account}`,
        '--note',
        'Salary 2026-11-30',
        '--yes',
      ]),
    );
    expect(byHand.code, byHand.stderr).toBe(0);
    await refusedByAll(plan, /1 payout of it pays what was paid after the plan was made \(\S+\), which its approvers did not see/);
    const checked = await run(['policy', 'check', plan]);
    expect(checked.stdout).toMatch(/\n {2}- payout \S+ \(row 2\) pays what payout \S+ paid as single payouts \(payout create\) on /);
    expect(checked.stdout).toContain('  If some of it is still to pay, make a new plan of that, and have it approved.\n');
  });
});

describe("a payout over the policy's max_per_payout", () => {
  const OVER = 'is over the per-payout maximum of 150,000.00 SLE (policy max_per_payout.SLE)';

  it('plan create and payout create --plan-out write no plan (exit 2, the rule named), as payout batch refuses the file', async () => {
    const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
    const file = planBatchFile(work.dir, wallet, ['1200.00', '160000.00']);
    const made = await run(['plan', 'create', file]);
    expect(made.code, made.stderr).toBe(2);
    expect(made.stderr).toContain(`Error: ${file} breaks the policy ${policyFile}. No plan was written.`);
    expect(made.stderr).toMatch(new RegExp(`- payout \\S+: 160,000\\.00 SLE ${OVER.replace(/[().]/g, '\\$&')}`));
    expect(made.stderr).toContain('No approval lifts');
    expect(made.stderr).not.toContain('for usage');
    expect(existsSync(planPathOf(file))).toBe(false);
    const batch = await run(['payout', 'batch', file, '--yes']);
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain(OVER);

    const single = join(work.dir, `single-${randomUUID().slice(0, 8)}.plan.json`);
    const planOut = await run(
      bankPayout(wallet, '160000.00')
        .filter((a) => a !== '--yes')
        .concat(['--plan-out', single]),
    );
    expect(planOut.code, planOut.stderr).toBe(2);
    expect(planOut.stderr).toContain(`Error: This payout breaks the policy ${policyFile}. No plan was written.`);
    expect(planOut.stderr).toContain(OVER);
    expect(existsSync(single)).toBe(false);
  });

  it('a plan made before the policy lowered it: plan show says so before anyone signs, plan approve signs nothing (exit 2)', async () => {
    const team = readFileSync(policyFile, 'utf8');
    const file = planBatchFile(work.dir, freshWallet(ctx.sb, '1000000.00', 'SLE'), ['160000.00']);
    // Made while the policy allowed 200,000 a payout; lowered to 150,000 since.
    writeFileSync(policyFile, team.replace('"max_per_payout":{"SLE":"150000"}', '"max_per_payout":{"SLE":"200000"}'));
    try {
      const made = await run(['plan', 'create', file]);
      expect(made.code, made.stderr).toBe(0);
    } finally {
      writeFileSync(policyFile, team);
    }
    const plan = planPathOf(file);
    const shown = await run(['plan', 'show', plan]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("It cannot be sent: it breaks the policy's limits.\n");
    expect(shown.stdout).toMatch(new RegExp(`\\n {2}- payout \\S+: 160,000\\.00 SLE ${OVER.replace(/[().]/g, '\\$&')}\\n`));
    const json = oneJson((await run(['plan', 'show', plan, '--json'])).stdout) as { policy: { limits: string[] } };
    expect(json.policy.limits).toHaveLength(1);
    expect(json.policy.limits[0]).toContain(OVER);

    const approved = await run(['plan', 'approve', plan, '--yes'], { dir: people.alice.dir });
    expect(approved.code, approved.stderr).toBe(2);
    expect(approved.stderr).toContain(
      `Cannot approve the plan ${plan}: it breaks the policy ${policyFile}, and plan send refuses it whatever approvals it carries. Nothing was signed.`,
    );
    expect(approved.stderr).toContain(OVER);
    expect((JSON.parse(readFileSync(plan, 'utf8')) as { approvals: unknown[] }).approvals).toEqual([]);
    const from = ctx.sb.requests().length;
    const sent = await run(['plan', 'send', plan, '--yes']);
    expect(sent.code).toBe(2);
    expect(sent.stderr).toContain(OVER);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});

describe('plan approve of a plan that carries an approval that does not count', () => {
  it('signs nothing (exit 2), naming it and what to do: plan send refuses such a plan whatever else it carries', async () => {
    // Mallory has a key the policy does not list; Carol approves without a policy in her profile.
    const [mallory, carol] = [tempConfigDir(), tempConfigDir()];
    try {
      for (const [who, c] of [
        ['Mallory', mallory],
        ['Carol', carol],
      ] as const) {
        expect((await run(['keys', 'create', '--name', who], { dir: c.dir })).code).toBe(0);
        await writeLoggedIn(ctx.sb, c.dir);
      }
      const key = (dir: string) => loadSigningKey(dir)!;
      const edit = (plan: string, change: (p: Plan) => void) => {
        const p = readPlanFile(plan);
        change(p);
        writeFileSync(plan, JSON.stringify(p, null, 2));
      };
      const cases: Array<[string, (plan: string) => void, string, boolean]> = [
        [
          "a fingerprint not its key's",
          (plan) => {
            addApproval(plan, key(people.alice.dir));
            edit(plan, (p) => (p.approvals[0]!.fingerprint = key(mallory.dir).fingerprint));
          },
          'its fingerprint is not that of its public key',
          true,
        ],
        [
          'a signature that does not hold',
          (plan) => {
            addApproval(plan, key(people.alice.dir));
            edit(plan, (p) => (p.approvals[0]!.signed_at = '2026-01-01T00:00:00.000Z'));
          },
          'the signature does not match this plan',
          true,
        ],
        ['a key the policy does not list', (plan) => addApproval(plan, key(mallory.dir)), 'the key is not an approver in the policy', false],
      ];
      for (const [what, spoil, why, underAnyPolicy] of cases) {
        const file = planBatchFile(work.dir, freshWallet(ctx.sb, '100000.00', 'SLE'), ['1200.00']);
        expect((await run(['plan', 'create', file, '--batch-id', `b-${randomUUID().slice(0, 8)}`])).code).toBe(0);
        const plan = planPathOf(file);
        spoil(plan);
        const before = readFileSync(plan, 'utf8');
        // Before: "✓ Approved … it now carries 2 approvals", exit 0, and plan send refused it for ever.
        const approvers = underAnyPolicy ? [people.bob.dir, carol.dir] : [people.bob.dir];
        for (const dir of approvers) {
          const r = await run(['plan', 'approve', plan, '--yes'], { dir });
          expect(r.code, `${what}: ${r.stderr}`).toBe(2);
          expect(r.stderr).toContain(
            `Error: Cannot approve the plan ${plan}: it carries 1 approval that does not count, and plan send refuses a plan that carries any, whatever else it carries. Nothing was signed.\n`,
          );
          expect(r.stderr).toMatch(new RegExp(`\\n {2}- approval 1 \\([^)]+\\): ${why}`));
          expect(r.stderr).toContain('Get a clean copy of the plan file from its maker (as plan create wrote it) and have it approved again');
          expect(readFileSync(plan, 'utf8')).toBe(before);
        }
        const sent = await run(['plan', 'send', plan, '--yes']);
        expect(sent.code).toBe(2);
        expect(sent.stderr).toContain('1 approval does not count');
        // What to do, not the usage; with the local journal no hash to send it by.
        expect(sent.stderr).toMatch(
          /\nGet a clean copy of the plan file from its maker \(as plan create wrote it\) and send that, approved again if plan send asks: no command takes an approval out of a plan\.\n$/,
        );
      }
    } finally {
      mallory.cleanup();
      carol.cleanup();
    }
  });
});
