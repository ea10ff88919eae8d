/**
 * Four-eyes messages that lead somewhere (probe P, findings 2, 3 and 4a): approvals signed on
 * copies of a plan combined by `plan merge` (printed by plan create and plan send when more than
 * one approval is needed, run as printed), a copy of another plan or an approval that does not
 * count refused with nothing written; `plan send` of a plan made for another service says how to
 * send it there.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKey } from '../../src/plans/keys.js';
import { payctl } from '../helpers/in-process.js';
import { shellSplit } from '../helpers/pty.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { addApproval, planBatchFile, planPathOf, readPlanFile, setUpOfficeTeam, useTeamFolders } from '../helpers/four-eyes.js';

const ctx = useSandbox();
const { work, people } = useTeamFolders();

// The maker works under a profile of their own, "office", with the team's policy (2 approvals over 100,000 SLE).
beforeAll(() => setUpOfficeTeam(ctx.sb, people, work.dir));

/** A plan of `amounts` made under "office": its path and what plan create printed. */
async function officePlan(amounts: string[]): Promise<{ path: string; stderr: string }> {
  const file = planBatchFile(work.dir, freshWallet(ctx.sb, '400000.00'), amounts);
  const made = await payctl(['plan', 'create', file, '--profile', 'office'], { dir: people.maker.dir });
  expect(made.code, made.stderr).toBe(0);
  return { path: planPathOf(file), stderr: made.stderr };
}

/** Copies of the plan signed by Alice and by Bob, each on their own copy: their paths. */
async function signedCopies(path: string): Promise<string[]> {
  return Promise.all(
    (['alice', 'bob'] as const).map(async (who) => {
      const copy = path.replace(/\.plan\.json$/, `.${who}.plan.json`);
      copyFileSync(path, copy);
      const signed = await payctl(['plan', 'approve', copy, '--yes'], { dir: people[who].dir });
      expect(signed.code, signed.stderr).toBe(0);
      return copy;
    }),
  );
}

/** The printed merge command with the copies put in for `<copy>...`, as words to run. */
function mergeArgs(printed: string, copies: string[]): string[] {
  const line = /(payctl plan merge .*)$/m.exec(printed)![1]!;
  return shellSplit(line.replace('<copy>...', copies.join(' '))).slice(1);
}

describe('plan merge', () => {
  it('approvals signed on two copies, merged by the command plan send prints, are sent', async () => {
    const { path, stderr } = await officePlan(['120000']);
    expect(stderr).toContain(`2 approvals are needed on one file: approvers sign the same file in turn (each passes it on after signing)`);
    expect(stderr).toContain(`payctl plan merge ${path} <copy>... --profile office\n`);
    const copies = await signedCopies(path);
    const refused = await payctl(['plan', 'send', copies[0]!, '--profile', 'office', '--yes'], { dir: people.maker.dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('it needs 2 approvals');
    expect(refused.stderr).toContain(`or each signs a copy and the copies are combined: payctl plan merge ${copies[0]} <copy>... --profile office\n`);

    const merged = await payctl(mergeArgs(stderr, copies), { dir: people.maker.dir });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain('Merged 2 approvals into');
    expect(merged.stderr).toContain('it now carries 2 approvals that count');
    expect(readPlanFile(path).approvals.map((a) => a.name)).toEqual(['Alice', 'Bob']);

    // Merged again: nothing added, nothing duplicated.
    const before = readFileSync(path, 'utf8');
    const again = await payctl(['plan', 'merge', path, ...copies, '--profile', 'office'], { dir: people.maker.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Nothing to merge');
    expect(readFileSync(path, 'utf8')).toBe(before);

    const sent = await payctl(['plan', 'send', path, '--profile', 'office', '--yes'], { dir: people.maker.dir });
    expect(sent.code, sent.stderr).toBe(0);
  });

  it('a copy of another plan, or an approval plan send would refuse, is refused with nothing written', async () => {
    const { path } = await officePlan(['120000']);
    const other = await officePlan(['110000']);
    const [aliceCopy] = await signedCopies(path);
    const [otherCopy] = await signedCopies(other.path);
    const before = readFileSync(path, 'utf8');
    const wrong = await payctl(['plan', 'merge', path, aliceCopy!, otherCopy!, '--profile', 'office'], { dir: people.maker.dir });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('1 file is a copy of another plan. Nothing was changed.');
    expect(wrong.stderr).toContain(`${otherCopy}: plan ${readPlanFile(other.path).hash}`);
    expect(readFileSync(path, 'utf8')).toBe(before);

    // The maker's own signature on a copy: plan send refuses a plan that carries it.
    const makerCopy = join(work.dir, 'maker-signed.plan.json');
    copyFileSync(path, makerCopy);
    addApproval(makerCopy, loadSigningKey(people.maker.dir)!);
    const bad = await payctl(['plan', 'merge', path, aliceCopy!, makerCopy, '--profile', 'office'], { dir: people.maker.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('it would carry 1 approval that does not count');
    expect(bad.stderr).toContain('the maker cannot approve their own plan');
    expect(readFileSync(path, 'utf8')).toBe(before);
  });
});

describe('plan send of a plan made for another service', () => {
  it('names the way there as commands that run as printed, never --help for usage', async () => {
    const { path } = await officePlan(['500']);
    const other = 'http://127.0.0.1:1/v2';
    const refused = await payctl(['plan', 'send', path, '--profile', 'office', '--base-url', other, '--yes'], {
      dir: people.maker.dir,
      env: { PAYCTL_API_KEY: ctx.sb.apiKey },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`it was made for ${ctx.sb.baseUrl}, and this profile sends to ${other}`);
    expect(refused.stderr).not.toContain('for usage');
    const policy = join(work.dir, 'policy.json');
    expect(refused.stderr).toContain(
      `Or log a profile in to that service, give it this profile's settings, and send from it:\n` +
        `  payctl login --profile 127.0.0.1 --base-url ${ctx.sb.baseUrl}\n` +
        `  payctl config set policy ${policy} --profile 127.0.0.1\n` +
        `  payctl plan send ${path} --profile 127.0.0.1\n`,
    );
    const printed = /^ {2}(payctl plan send .* --base-url .*)$/m.exec(refused.stderr)![1]!;
    expect(printed).toBe(`payctl plan send ${path} --profile office --base-url ${ctx.sb.baseUrl}`);
    const sent = await payctl([...shellSplit(printed).slice(1), '--yes'], { dir: people.maker.dir, env: { PAYCTL_API_KEY: ctx.sb.apiKey } });
    expect(sent.code, sent.stderr).toBe(0);
  });
});
