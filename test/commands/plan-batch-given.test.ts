/**
 * A batch file given where a plan is asked (probe P, finding 4a): plan send, approve and show
 * refuse it as a batch file (never as JSON at fault) with the plan create that makes it a plan,
 * printed with the run's profile, which run as printed (a batch id put in) writes the plan.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { shellSplit } from '../helpers/pty.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { planBatchFile, planPathOf, readPlanFile, setUpOfficeTeam, useTeamFolders } from '../helpers/four-eyes.js';

const ctx = useSandbox();
const { work, people } = useTeamFolders();

beforeAll(() => setUpOfficeTeam(ctx.sb, people, work.dir));

describe('a batch file given as a plan', () => {
  it('plan send, approve and show say it is a batch file, with the plan create that makes it a plan', async () => {
    const file = planBatchFile(work.dir, freshWallet(ctx.sb, '1000.00'), ['500']);
    for (const [verb, dir] of [
      ['send', people.maker.dir],
      ['approve', people.alice.dir],
      ['show', people.maker.dir],
    ] as const) {
      const r = await payctl(['plan', verb, file, '--profile', 'office', ...(verb === 'show' ? [] : ['--yes'])], { dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${file} is a batch file (CSV), not a payctl plan.`);
      expect(r.stderr).not.toContain('not valid JSON');
      expect(r.stderr).toContain(`payctl plan create ${file} --profile office --batch-id NAME\n`);
    }
    const refused = await payctl(['plan', 'send', file, '--profile', 'office', '--yes'], { dir: people.maker.dir });
    const create = /^ {2}(payctl plan create .*)$/m.exec(refused.stderr)![1]!.replace('NAME', 'merge-batch');
    const made = await payctl(shellSplit(create).slice(1), { dir: people.maker.dir });
    expect(made.code, made.stderr).toBe(0);
    expect(readPlanFile(planPathOf(file)).batch_id).toBe('merge-batch');
  });
});
