/**
 * `plan merge` says what is true (probe P 54, findings 2-6): added approvals named as the policy
 * counts their keys; "Then send it" only when plan send's approval check passes, else how many
 * more are needed (`required`, `missing` in --json); a copy that is the plan itself refused;
 * without a policy, the maker's own approval refused and nothing claimed to count; a plan file
 * that is a symlink refused by merge and approve, naming its target; a refused copy named, the
 * plan said unchanged, advice that fits; the outcome independent of the order of the copies.
 */
import { copyFileSync, linkSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKey } from '../../src/plans/keys.js';
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { addApproval, planBatchFile, planPathOf, readPlanFile, setUpOfficeTeam, useTeamFolders } from '../helpers/four-eyes.js';

const ctx = useSandbox();
const { work, people } = useTeamFolders();

beforeAll(() => setUpOfficeTeam(ctx.sb, people, work.dir));

/** A plan of `amounts` made under "office" (2 approvals over 100,000 SLE): its path. */
async function officePlan(amounts: string[]): Promise<string> {
  const file = planBatchFile(work.dir, freshWallet(ctx.sb, '400000.00'), amounts);
  const made = await payctl(['plan', 'create', file, '--profile', 'office'], { dir: people.maker.dir });
  expect(made.code, made.stderr).toBe(0);
  return planPathOf(file);
}

/** A copy of the plan at `path` signed by `who` with plan approve: its path. */
async function signedCopy(path: string, who: 'alice' | 'bob'): Promise<string> {
  const copy = path.replace(/\.plan\.json$/, `.${who}.plan.json`);
  copyFileSync(path, copy);
  const signed = await payctl(['plan', 'approve', copy, '--yes'], { dir: people[who].dir });
  expect(signed.code, signed.stderr).toBe(0);
  return copy;
}

const merge = (args: string[], dir = people.maker.dir) => payctl(['plan', 'merge', ...args], { dir });

describe('plan merge says what is true', () => {
  it('names an approval as the policy counts its key, and says how many more are needed', async () => {
    const path = await officePlan(['120000']);
    const copy = path.replace(/\.plan\.json$/, '.named.plan.json');
    copyFileSync(path, copy);
    addApproval(copy, { ...loadSigningKey(people.bob.dir)!, name: 'Alice' }); // Bob's key, calling itself Alice
    const one = await merge([path, copy, '--profile', 'office']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toContain(`(Bob, ${loadSigningKey(people.bob.dir)!.fingerprint}); it now carries 1 approval that counts (2 required).`);
    expect(one.stderr).toContain('names itself Alice; the policy');
    expect(one.stderr).toContain('counts this key as Bob.');
    expect(one.stderr).toContain('1 more approval is needed before plan send takes it, from Alice:');
    expect(one.stderr).not.toContain('Then send it');

    const alice = await signedCopy(path, 'alice');
    const json = await merge([path, alice, '--profile', 'office', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ approvals: 2, required: 2, missing: 0, added: [{ name: 'Alice', counted_as: 'Alice' }] });
    const again = await merge([path, alice, '--profile', 'office']);
    expect(again.stderr).toContain('(2 required).');
    expect(again.stderr).toContain(`Then send it: payctl plan send ${path} --profile office`);
  });

  it('refuses a copy that is the plan itself, by the same path or another', async () => {
    const path = await officePlan(['120000']);
    const before = readFileSync(path, 'utf8');
    const same = await merge([path, path, '--profile', 'office']);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain(`the copy ${path} is the plan itself (the same path). The plan was not changed.`);
    const hard = path.replace(/\.plan\.json$/, '.hard.plan.json');
    linkSync(path, hard);
    const other = await merge([path, hard, '--profile', 'office']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is the plan itself (the same file, by another path)');
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it("without a policy refuses the maker's own approval and claims no count nor Then send it", async () => {
    const path = await officePlan(['120000']);
    const alice = await signedCopy(path, 'alice');
    const makerCopy = join(work.dir, 'maker-own.plan.json');
    copyFileSync(path, makerCopy);
    addApproval(makerCopy, loadSigningKey(people.maker.dir)!);
    const before = readFileSync(path, 'utf8');
    // Alice's config folder: a profile that names no policy.
    const bad = await merge([path, alice, makerCopy], people.alice.dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`the copy ${makerCopy}: approval (Maker,`);
    expect(bad.stderr).toContain("made with the plan's maker key");
    expect(readFileSync(path, 'utf8')).toBe(before);
    const good = await merge([path, alice], people.alice.dir);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stderr).toContain('it now carries approvals by 1 person.');
    expect(good.stderr).toContain('This profile names no policy: whether these approvals count, and how many the plan needs, is not known here');
    expect(good.stderr).not.toMatch(/that count|Then send it/);
  });

  it('refuses a plan file that is a symlink (merge and approve), naming its target', async () => {
    const path = await officePlan(['120000']);
    const alice = await signedCopy(path, 'alice');
    const shared = join(work.dir, 'shared');
    mkdirSync(shared, { recursive: true });
    const real = join(shared, 'real.plan.json');
    copyFileSync(path, real);
    const link = join(work.dir, 'link.plan.json');
    symlinkSync(real, link);
    const merged = await merge([link, alice, '--profile', 'office']);
    expect(merged.code).toBe(2);
    expect(merged.stderr).toContain(`Cannot merge into the plan ${link}: it is a symbolic link to ${real}.`);
    expect(merged.stderr).toContain(`Give that file: payctl plan merge ${real} ${alice} --profile office`);
    const approved = await payctl(['plan', 'approve', link, '--yes'], { dir: people.bob.dir });
    expect(approved.code).toBe(2);
    expect(approved.stderr).toContain(`Cannot approve the plan ${link}: it is a symbolic link to ${real}.`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readPlanFile(real).approvals).toEqual([]);
  });

  it('names a refused copy, says the plan was not changed, and merges whatever the order of the copies', async () => {
    const path = await officePlan(['120000']);
    const alice = await signedCopy(path, 'alice');
    const damaged = join(work.dir, 'damaged.plan.json');
    const p = readPlanFile(alice);
    const sig = p.approvals[0]!.signature;
    p.approvals[0]!.signature = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    writeFileSync(damaged, JSON.stringify(p, null, 2));
    const before = readFileSync(path, 'utf8');

    const alone = await merge([path, damaged, '--profile', 'office']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('1 approval of the copies is damaged (the signature does not hold)');
    expect(alone.stderr).toContain('Get a fresh copy from that approver (Alice)');
    expect(alone.stderr).not.toContain('approvers the policy lists');
    expect(readFileSync(path, 'utf8')).toBe(before);

    const edited = join(work.dir, 'edited.plan.json');
    writeFileSync(edited, readFileSync(alice, 'utf8').replace(/"body": "(.*?)1/, '"body": "$12'));
    const changed = await merge([path, edited, '--profile', 'office']);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(`Cannot merge the copy ${edited} into the plan ${path}:`);
    expect(changed.stderr).toContain('The plan was not changed.');
    expect(changed.stderr).not.toContain('Nothing was sent');

    const csv = join(work.dir, 'batch-copy.csv');
    writeFileSync(csv, 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n,1,1200.00,SLE,bank,B One,ecobank,0013000001,,\n');
    const batch = await merge([path, csv, '--profile', 'office']);
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain('give that file, not a batch file');
    expect(batch.stderr).not.toContain('plan create');

    for (const order of [
      [damaged, alice],
      [alice, damaged],
    ]) {
      copyFileSync(path, `${path}.try`);
      const r = await merge([`${path}.try`, ...order, '--profile', 'office']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('Merged 1 approval into');
      expect(r.stderr).toContain(`Left out: the copy ${damaged}: approval (Alice,`);
    }
  });
});
