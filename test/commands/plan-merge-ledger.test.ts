/**
 * `plan merge` on a shared PostgreSQL ledger counts approvals as `plan send` does: the file's own
 * and those the ledger keeps for the plan's hash (an approver who followed plan create's printed
 * `plan approve sha256:…` signed there only). Before, merge counted the file alone and said "1
 * more approval is needed" of a plan plan send then sent. Now it says which approvals the ledger
 * keeps, "Then send it", and the printed plan send, run, sends it. In process against the sandbox
 * and a real PostgreSQL; config folders stand for machines on one database.
 */
import { copyFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { shellSplit } from '../helpers/pty.js';
import { writeLoggedIn } from '../helpers/e2e.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { planBatchFile, planPathOf, readPlanFile, setUpTeam, useTeamFolders } from '../helpers/four-eyes.js';

const ctx = useSandbox();
const { work, people } = useTeamFolders();

// The team's policy (2 approvals over 100,000 SLE) and one shared ledger for the three machines.
beforeAll(async () => {
  const url = await (await sharedPostgres()).freshDatabase('plan_merge');
  const policy = await setUpTeam(ctx.sb, people, work.dir);
  for (const who of ['alice', 'bob'] as const) await writeLoggedIn(ctx.sb, people[who].dir);
  for (const p of Object.values(people)) {
    for (const args of [
      ['config', 'set', 'policy', policy],
      ['config', 'set', 'ledger', '--stdin'],
    ]) {
      const set = await payctl(args, { dir: p.dir, input: `${url}\n` });
      expect(set.code, set.stderr).toBe(0);
    }
  }
});

describe('plan merge with a shared ledger', () => {
  it('counts the approvals the ledger keeps, says so, and the plan send it prints sends the plan', async () => {
    const wallet = freshWallet(ctx.sb, '400000.00');
    const batch = planBatchFile(work.dir, wallet, ['120000']);
    const path = planPathOf(batch);
    const made = await payctl(['plan', 'create', batch], { dir: people.maker.dir });
    expect(made.code, made.stderr).toBe(0);
    const hash = readPlanFile(path).hash;
    // Alice approves by hash: the ledger keeps her approval, the file does not carry it.
    const byHash = await payctl(['plan', 'approve', hash, '--yes'], { dir: people.alice.dir });
    expect(byHash.code, byHash.stderr).toBe(0);
    expect(readPlanFile(path).approvals).toEqual([]);
    // Bob signs a copy of the file (plan approve stores his approval in the ledger too).
    const copy = path.replace(/\.plan\.json$/, '.bob.plan.json');
    copyFileSync(path, copy);
    const signed = await payctl(['plan', 'approve', copy, '--yes'], { dir: people.bob.dir });
    expect(signed.code, signed.stderr).toBe(0);

    const merged = await payctl(['plan', 'merge', path, copy], { dir: people.maker.dir });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain("it now carries 2 approvals that count (2 required); 1 of them (Alice) is kept in the team's shared ledger, not in the file");
    expect(merged.stderr).not.toContain('more approval');
    const json = await payctl(['--json', 'plan', 'merge', path, copy], { dir: people.maker.dir });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ approvals: 2, required: 2, missing: 0, in_shared_ledger_only: [{ name: 'Alice' }] });

    // The plan send merge printed, run as printed (with --yes: no terminal to confirm at), sends the plan.
    const send = shellSplit(/Then send it: (payctl plan send .*)$/m.exec(merged.stderr)![1]!).slice(1);
    const sent = await payctl([...send, '--yes'], { dir: people.maker.dir });
    expect(sent.code, sent.stderr).toBe(0);
    expect(ctx.sb.payouts().filter((p) => p.wallet_id === wallet)).toHaveLength(1);
  });
});
