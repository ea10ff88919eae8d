/**
 * The policy members `keys show` prints (README "Four eyes"), pasted as they are: the maker's
 * snippet into a policy lets its person make a plan, the approver's lets theirs approve it. A
 * single snippet with "approver" was printed for everyone before, and a maker who pasted it was
 * refused by plan create. Each is pasted as text into the braces of "members", one line a
 * person: a whole object (`{"Name":{…}}`) was printed before, and two of them there were not JSON.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeLoggedIn } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { tempWorkDir } from '../helpers/batch.js';
import { planBatchFile, planPathOf } from '../helpers/four-eyes.js';

const ctx = useSandbox();
const work = tempWorkDir();
const maker = tempConfigDir();
const approver = tempConfigDir();
afterAll(() => {
  for (const d of [maker, approver, work]) d.cleanup();
});

/** The line `keys show` prints under the line that names `role`, as printed (without its indent). */
async function snippet(dir: string, role: 'a maker' | 'an approver'): Promise<string> {
  const shown = await payctl(['keys', 'show'], { dir });
  expect(shown.code, shown.stderr).toBe(0);
  const line = new RegExp(`as ${role} \\(.*\\):\\n {2}(.*)$`, 'm').exec(shown.stdout)?.[1];
  expect(line, shown.stdout).toBeDefined();
  return line!;
}

describe('keys show: a policy member for each role', () => {
  it("the maker's snippet pasted lets its person make plans, the approver's lets theirs approve them", async () => {
    for (const [dir, name] of [
      [maker.dir, 'Mariama Kanu'],
      [approver.dir, 'Ibrahim Sesay'],
    ] as const) {
      expect((await payctl(['keys', 'create', '--name', name], { dir })).code).toBe(0);
      await writeLoggedIn(ctx.sb, dir);
    }
    const policy = join(work.dir, `policy-${randomUUID().slice(0, 8)}.json`);
    // As a person pastes them: each line into the braces of "members", a comma after the first.
    const members = `${await snippet(maker.dir, 'a maker')},\n    ${await snippet(approver.dir, 'an approver')}`;
    writeFileSync(policy, `{\n  "members": {\n    ${members}\n  },\n  "approvals": { "SLE": [{ "from": "1000", "required": 1 }] }\n}\n`);
    for (const dir of [maker.dir, approver.dir]) {
      const set = await payctl(['config', 'set', 'policy', policy], { dir });
      expect(set.code, set.stderr).toBe(0);
    }

    const file = planBatchFile(work.dir, freshWallet(ctx.sb, '100000.00'), ['1500']);
    const made = await payctl(['plan', 'create', file], { dir: maker.dir });
    expect(made.code, made.stderr).toBe(0);
    const approved = await payctl(['plan', 'approve', planPathOf(file), '--yes'], { dir: approver.dir });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toContain('it now carries 1 approval');
  });
});
