/**
 * The command an approver is told to sign a plan with (plan create's report, plan send's
 * refusal), run as printed on the approver's own machine: it carries none of the maker's
 * options (profile, base URL, time limit), which the approver's config folder does not have;
 * and `plan approve` given a profile that does not exist says to run it without one, never to
 * log in (approving needs no API key). README "Four eyes".
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { shellSplit } from '../helpers/pty.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { planBatchFile, planPathOf, setUpOfficeTeam, useTeamFolders } from '../helpers/four-eyes.js';

const ctx = useSandbox();
const { work, people } = useTeamFolders();

// The maker works under a profile of their own, "office", with the team's policy.
beforeAll(() => setUpOfficeTeam(ctx.sb, people, work.dir));

/** The maker's plan, made under their profile "office" with --timeout given: its path and what plan create printed. */
async function officePlan(): Promise<{ path: string; stderr: string }> {
  const file = planBatchFile(work.dir, freshWallet(ctx.sb, '100000.00'), ['1500']);
  const made = await payctl(['plan', 'create', file, '--profile', 'office', '--timeout', '20'], { dir: people.maker.dir });
  expect(made.code, made.stderr).toBe(0);
  return { path: planPathOf(file), stderr: made.stderr };
}

describe("the approver's command", () => {
  it("plan create prints it without the maker's profile or timeout, theirs to run; pasted on their machine it signs", async () => {
    const { path, stderr } = await officePlan();
    expect(stderr).toContain(`Review it:          payctl plan show ${path} --profile office --timeout 20\n`);
    expect(stderr).toContain(
      `An approver signs:  payctl plan approve ${path}\n                    (on their own machine, with their own key and profile, on their copy of the plan file)\n`,
    );
    const approve = /^An approver signs:\s+(payctl .*)$/m.exec(stderr)![1]!;
    // Alice's config folder has her key and no profile at all, as on her own machine.
    const signed = await payctl([...shellSplit(approve).slice(1), '--yes'], { dir: people.alice.dir });
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stderr).toContain('it now carries 1 approval');
  });

  it("plan send's refusal names it the same way; plan approve of a profile that does not exist does not send the approver to log in", async () => {
    const { path } = await officePlan();
    const refused = await payctl(['plan', 'send', path, '--profile', 'office', '--yes'], { dir: people.maker.dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `An approver signs it, on their own machine, with their own key and profile, on their copy of the plan file: payctl plan approve ${path}\n`,
    );

    const typed = await payctl(['plan', 'approve', path, '--profile', 'office', '--yes'], { dir: people.bob.dir });
    expect(typed.code).toBe(2);
    expect(typed.stderr).toContain('No profile "office": there are no profiles yet.');
    expect(typed.stderr).toContain('Run it again without --profile. Approving needs no login');
    expect(typed.stderr).not.toContain('payctl login');
    const fromEnv = await payctl(['plan', 'approve', path, '--yes'], { dir: people.bob.dir, env: { PAYCTL_PROFILE: 'office' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('PAYCTL_PROFILE is "office" in this environment: unset it. Approving needs no login');
    expect(fromEnv.stderr).not.toContain('payctl login');
    const plain = await payctl(['plan', 'approve', path, '--yes'], { dir: people.bob.dir });
    expect(plain.code, plain.stderr).toBe(0);
  });
});
