/**
 * `policy check` of a plan named by its hash (probe R58a F5), in process against the sandbox and a
 * real PostgreSQL. Before, `policy check sha256:…` read the hash as a batch file's path: exit 2
 * "Cannot read sha256:…: no such file", under a profile with a shared ledger or without. Now it
 * reads the plan as `plan show` does (plan/source.ts loadPlan): under the profile with the shared
 * ledger it says what the policy asks of the stored plan (with its approvals kept there), and
 * under a profile whose ledger is the local journal it refuses as `plan show` does, naming the
 * profile and offering the command with the profile that has a shared ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, writeLoggedIn } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { tempWorkDir } from '../helpers/batch.js';
import { planBatchFile, planPathOf, readPlanFile, setUpTeam, type Person } from '../helpers/four-eyes.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const work = tempWorkDir();
const folders = ['maker', 'alice', 'bob'].map(() => tempConfigDir());
const people = { maker: { dir: folders[0]!.dir }, alice: { dir: folders[1]!.dir }, bob: { dir: folders[2]!.dir } } as Record<'maker' | 'alice' | 'bob', Person>;
const maker = people.maker.dir;

beforeAll(async () => {
  const url = await (await sharedPostgres()).freshDatabase('policycheck');
  const policy = await setUpTeam(ctx.sb, people, work.dir);
  await writeLoggedIn(ctx.sb, people.alice.dir);
  // The maker's machine: profile team on the shared ledger, profile solo on the local journal, both with the policy.
  for (const profile of ['team', 'solo']) {
    await writeLoggedIn(ctx.sb, maker, ctx.sb.apiKey, profile);
    expect((await payctl(['config', 'set', 'policy', policy, '--profile', profile], { dir: maker })).code).toBe(0);
  }
  expect((await payctl(['config', 'set', 'policy', policy], { dir: people.alice.dir })).code).toBe(0);
  for (const [dir, more] of [
    [maker, ['--profile', 'team']],
    [people.alice.dir, []],
  ] as const) {
    const set = await payctl(['config', 'set', 'ledger', '--stdin', ...more], { dir, input: `${url}\n` });
    expect(set.code, set.stderr).toBe(0);
  }
});
afterAll(() => {
  for (const f of folders) f.cleanup();
  work.cleanup();
});

describe('policy check of a plan by its hash', () => {
  it("checks the stored plan under the shared ledger's profile; under the local journal's, refuses as plan show does", async () => {
    const batch = planBatchFile(work.dir, freshWallet(ctx.sb, '100000.00', 'SLE'), ['1500.00']);
    const made = await payctl(['plan', 'create', batch, '--profile', 'team', '--batch-id', 'pl1'], { dir: maker });
    expect(made.code, made.stderr).toBe(0);
    const hash = readPlanFile(planPathOf(batch)).hash;

    const team = await payctl(['policy', 'check', hash, '--profile', 'team'], { dir: maker });
    expect(team.code, team.stdout + team.stderr).toBe(1);
    expect(team.stdout).toContain(`${hash}: a plan of 1 payout, under the policy`);
    expect(team.stdout).toContain('Approvals: 1 needed.');
    expect(team.stdout).toContain('It cannot be sent yet.');

    const solo = await payctl(['policy', 'check', hash, '--profile', 'solo', '--json'], { dir: maker });
    expect(solo.code, solo.stderr).toBe(2);
    const err = JSON.parse(solo.stderr.trim().split('\n').at(-1)!) as { error: { message: string; hint: string } };
    expect(err.error.message).toContain('plans by hash need a shared ledger (profile "solo", which this run used, has none');
    expect(err.error.hint).toContain(`payctl policy check ${hash} --profile team`);
    const shown = await payctl(['plan', 'show', hash, '--profile', 'solo', '--json'], { dir: maker });
    expect((JSON.parse(shown.stderr.trim().split('\n').at(-1)!) as typeof err).error.message).toBe(err.error.message.replace('policy check', 'plan show'));

    // Approved by hash on Alice's machine: the approval the shared ledger keeps counts, and the plan can be sent, by its hash.
    expect((await payctl(['plan', 'approve', hash, '--yes'], { dir: people.alice.dir })).code).toBe(0);
    const approved = await payctl(['policy', 'check', hash.slice(7, 19), '--profile', 'team', '--json'], { dir: maker });
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(oneJson(approved.stdout)).toMatchObject({
      file: hash,
      kind: 'plan',
      required_approvals: 1,
      counted: [expect.objectContaining({ name: 'Alice' })],
      sendable: true,
    });
    const text = await payctl(['policy', 'check', hash, '--profile', 'team'], { dir: maker });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`It can be sent: payctl plan send ${hash} --profile team\n`);
  });
});
