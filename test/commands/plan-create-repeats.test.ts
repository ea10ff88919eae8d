/**
 * `payctl plan create` of a file whose rows were paid before (src/commands/plan/create-repeats.ts),
 * in process against the sandbox over real HTTP. Approvers see only a plan's payouts: before, a
 * payroll sent as batch "dec-2026" and planned again with no --batch-id, or as "dec_2026", made a
 * plan that paid every row again, and nothing said so. Now such a plan is refused as payout batch
 * refuses the run (exit 2, no plan written), with the two commands to choose from, each working as
 * printed; a plan under a new name says that it pays those rows again, and a plan of the same batch
 * says which of its payouts were accepted earlier. Where the file's plan is already written (its
 * default path taken), each command carries an -o of a free name: printed without one, both were
 * refused as run ("a file of that name exists"). When the batch accepted every row, "the rest of
 * that batch" is not offered (it was a plan of nothing): that is said instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { batchRows, payoutPosts, toCsv, withOwnPayees, writeFile } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { shellSplit } from '../helpers/pty.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

const run = (args: string[]) => payctl(args, { dir: setup.dir });

/** The command of the hint line that starts with `label`, as argv without `payctl`. */
function printed(stderr: string, label: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith(label));
  expect(line, stderr).toBeDefined();
  const argv = shellSplit(line!.slice(line!.indexOf('payctl ')));
  return argv.slice(1);
}

describe('plan create of rows a named batch sent', () => {
  it('with no --batch-id, or the name with other separators: refused, no plan written; both printed commands work, each saying what its plan does', async () => {
    expect((await run(['keys', 'create', '--name', 'Mariama Kanu'])).code).toBe(0);
    const rows = withOwnPayees(batchRows(3, setup.sleWallet, `plan-again-${Date.now()}`), `december-${Date.now()}`);
    for (const row of rows) delete row.payout_id;
    const file = writeFile(setup.work.file('december.csv'), toCsv(rows.slice(0, 2)));
    expect((await run(['payout', 'batch', file, '--batch-id', 'dec-2026', '--yes'])).code).toBe(0);
    // A row added since: the rest of that batch.
    writeFile(file, toCsv(rows));
    // A plan of the file written before, at the default path: each printed command writes beside it.
    const earlier = writeFile(setup.work.file('december.plan.json'), '{"an earlier plan": true}\n');
    const from = ctx.sb.requests().length;

    for (const given of [[], ['--batch-id', 'dec_2026'], ['--batch-id', 'DEC2026']]) {
      const r = await run(['plan', 'create', file, ...given, '-o', setup.work.file('x.plan.json')]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`^Error: .*december\\.csv: 2 rows match payouts already sent in batch "dec-2026" .*: this plan would pay them again\\. No plan was written\\.\\n`),
      );
      expect(existsSync(setup.work.file('x.plan.json'))).toBe(false);
    }
    const refused = await run(['plan', 'create', file]);
    expect(refused.stderr).toContain(`2 rows match payouts already sent in batch "dec-2026"`);
    const restArgs = printed(refused.stderr, 'To plan the rest of that batch:');
    expect(restArgs.slice(-2)).toEqual(['-o', setup.work.file('december.dec-2026.plan.json')]);
    const rest = await run(restArgs);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toMatch(/^Note: 2 payouts of this plan were accepted earlier in batch "dec-2026" .*; plan send does not send them again\.$/m);
    const again = printed(refused.stderr, 'To plan paying these rows again as new payouts:');
    expect(again.includes('dec-2026')).toBe(false);
    expect(again.at(-1)).toBe(setup.work.file(`december.${again[again.indexOf('--batch-id') + 1]}.plan.json`));
    const fresh = await run(again);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(/^Warning: 2 payouts of this plan pay the same as payouts sent in batch "dec-2026" .*; plan send pays them again as new payouts\.$/m);
    expect(readFileSync(earlier, 'utf8')).toBe('{"an earlier plan": true}\n');
    writeFile(setup.work.file('again.plan.json'), readFileSync(again.at(-1)!, 'utf8'));

    // What the approver reviews says it too, from the ledger the review runs with.
    const shown = await run(['plan', 'show', setup.work.file('again.plan.json')]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Sent before (journaled from this config folder)');
    expect(shown.stdout).toMatch(/^ {2}row 2: pays what payout \S+ paid in batch "dec-2026" .*: plan send pays it again as a new payout$/m);
    const json = JSON.parse((await run(['plan', 'show', setup.work.file('again.plan.json'), '--json'])).stdout) as {
      sent_before: Array<{ kind: string; earlier_batch_id: string }>;
    };
    expect(json.sent_before.map((x) => [x.kind, x.earlier_batch_id])).toEqual([
      ['repeat', 'dec-2026'],
      ['repeat', 'dec-2026'],
    ]);
    const restShown = await run(['plan', 'show', rest.stderr.match(/Plan written to (\S+):/)![1]!]);
    expect(restShown.stdout).toMatch(/^ {2}row 3: accepted earlier in batch "dec-2026" .* \(transaction TXN-BOK-\w+\): plan send does not send it again$/m);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('every row accepted by that batch: no "rest of that batch" (a plan of nothing) but that said; the other command, printed with a free -o, works as printed', async () => {
    await run(['keys', 'create', '--name', 'Mariama Kanu']);
    const rows = withOwnPayees(batchRows(2, setup.sleWallet, `plan-all-${Date.now()}`), `november-${Date.now()}`);
    for (const row of rows) delete row.payout_id;
    const file = writeFile(setup.work.file('november.csv'), toCsv(rows));
    expect((await run(['payout', 'batch', file, '--batch-id', 'nov-2026', '--yes'])).code).toBe(0);
    writeFile(setup.work.file('november.plan.json'), '{}\n');
    const from = ctx.sb.requests().length;

    const refused = await run(['plan', 'create', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`2 rows match payouts already sent in batch "nov-2026"`);
    expect(refused.stderr).not.toContain('To plan the rest of that batch');
    expect(refused.stderr).toContain('Batch "nov-2026" accepted every row of the file: there is nothing left of it to plan.\n');
    const again = printed(refused.stderr, 'To plan paying these rows again as new payouts:');
    const out = setup.work.file(`november.${again[again.indexOf('--batch-id') + 1]}.plan.json`);
    expect(again.slice(-2)).toEqual(['-o', out]);
    const made = await run(again);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`Plan written to ${out}: 2 payouts`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('plan show of a plan whose payouts were never sent: no such section', async () => {
    await run(['keys', 'create', '--name', 'Mariama Kanu']);
    const rows = batchRows(1, setup.sleWallet, `plan-new-${Date.now()}`);
    for (const row of rows) delete row.payout_id;
    const file = writeFile(setup.work.file('new.csv'), toCsv(rows));
    const made = await run(['plan', 'create', file, '--batch-id', `new-${Date.now()}`]);
    expect(made.code, made.stderr).toBe(0);
    const shown = await run(['plan', 'show', file.replace(/\.csv$/, '.plan.json')]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain('Sent before');
  });
});
