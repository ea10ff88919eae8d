/**
 * Four eyes (issue 16), what needs processes: the command a refused direct send prints to
 * make a plan, run as printed in a real shell (through a `payctl` on PATH, from the built
 * binary), and one plan sent by two processes of the built binary at once, then again: each
 * row paid once. The people (each with their own config folder and key), the plans and the
 * runs that only lead up to those are made in process; everything else of four eyes runs in
 * process in test/commands/four-eyes.test.ts and four-eyes-people.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { payctlShim, runAsPrinted, tempConfigDir } from '../helpers/cli.js';
import { startCli, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { heldCounts, payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { bankPayout, planBatchFile, planPathOf, readPlanFile, setUpTeam } from '../helpers/four-eyes.js';
import type { SigningKey } from '../../src/plans/keys.js';

const ctx = useSandbox();
const work = tempWorkDir();
const people: Record<'maker' | 'alice' | 'bob', { dir: string; cleanup(): void; key?: SigningKey }> = {
  maker: tempConfigDir(),
  alice: tempConfigDir(),
  bob: tempConfigDir(),
};
const maker = () => people.maker.dir;

/** A run in process: the steps that lead up to what needs a process. */
const run = (args: string[], dir = maker()): Promise<Run> => payctl(args, { dir });

function expectNothingSent(from: number): void {
  expect(payoutPosts(ctx.sb, from)).toEqual([]);
}

beforeAll(async () => {
  await setUpTeam(ctx.sb, people, work.dir);
});

afterAll(() => {
  for (const p of Object.values(people)) p.cleanup();
  work.cleanup();
});

beforeEach(() => ctx.sb.faults.clear());

describe('the policy on direct sends', () => {
  it('one under the no-approval threshold is sent directly; one needing approval is refused with the command that makes a plan, which works as printed', async () => {
    const wallet = freshWallet(ctx.sb, '500000.00', 'SLE');
    const small = await run(bankPayout(wallet, '999.99'));
    expect(small.code, small.stderr).toBe(0);

    const id = randomUUID();
    const from = ctx.sb.requests().length;
    const big = await run(bankPayout(wallet, '5000', id));
    expect(big.code, big.stderr).toBe(2);
    expect(big.stderr).toContain('1 approval: the SLE total 5,000.00 SLE is from 1000');
    expectNothingSent(from);
    const printed = /^\s*(payctl payout create .* --plan-out \S+)$/m.exec(big.stderr)?.[1];
    expect(printed, big.stderr).toBeDefined();
    // The printed command in a real shell, through the built binary on PATH.
    const shim = payctlShim();
    const made = await runAsPrinted(`cd ${work.dir} && ${printed!}`, { shim: shim.dir, configDir: maker() });
    shim.cleanup();
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain('Plan written to');
    expectNothingSent(from);
  });
});

describe('a plan sent twice', () => {
  it('one after the other, and two at once: exactly one payout per row', async () => {
    const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
    const file = planBatchFile(work.dir, wallet, ['1100', '1200', '1300', '1400']);
    const path = planPathOf(file);
    const made = await run(['plan', 'create', file, '--batch-id', `b-${randomUUID().slice(0, 8)}`]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`Plan written to ${path}`);
    expect((await run(['plan', 'approve', path, '--yes'], people.alice.dir)).code).toBe(0);
    const ids = readPlanFile(path).payouts.map((p) => p.payout_id);

    // Two processes of the built binary at once, racing for the same rows.
    const both = await Promise.all(
      ['a', 'b'].map((n) => startCli(['plan', 'send', path, '--yes', '--report', join(work.dir, `twice-${n}-${randomUUID()}.report.csv`)], { dir: maker() }).done),
    );
    expect(
      both.map((r) => r.code),
      both.map((r) => r.stderr).join('\n'),
    ).toEqual([0, 0]);
    const again = await run(['plan', 'send', path, '--yes', '--report', join(work.dir, `again-${randomUUID()}.report.csv`)]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Nothing to send');
    expect([...heldCounts(ctx.sb, ids).values()]).toEqual([1, 1, 1, 1]);
  });
});
