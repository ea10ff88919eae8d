/**
 * Probe K57 finding 1, in process against the sandbox over real HTTP: payout P made, its answer
 * lost; its later twin Q (same details, its own --payout-id) not made, its request dropped before
 * the sandbox made it; 25 hours later (TestClock) the service holds one record that could be
 * either. Reconcile advises Q first and offers Q `--made-by` that record; run as printed, it
 * records Q as made by it and P as not made (that record paid the person in its place), so P's
 * printed reconcile finds nothing to do, and no command printed is refused, nothing is resent:
 * one payout at the sandbox, both entries resolved. Before, P then "matched nothing" and was
 * offered `--resend` (pays twice once the key is forgotten), and its `--made-by` of the record
 * was refused as taken: P stayed unknown for good.
 */
import { describe, expect, it } from 'vitest';
import { payoutPosts } from '../helpers/batch.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import type { Run } from '../helpers/e2e.js';
import { printed } from '../helpers/printed.js';
import { createWithLostAnswer, heldFrom, useFreshLogin } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();
const setup = useFreshLogin(ctx);

const DAY_AND_AN_HOUR = 25 * 60 * 60 * 1000;
const run = (args: string[], clock?: TestClock): Promise<Run> => payctl(args, { dir: setup.dir, ...(clock ? { clock } : {}) });

/** A bank payout of 23.00 SLE from `wallet` to `account` under payout id `id`. */
function createArgs(wallet: string, account: string, id: string): string[] {
  const args = ['payout', 'create', '--wallet', wallet, '--amount', '23.00', '--currency', 'SLE', '--type', 'bank'];
  return [...args, '--name', 'Ibrahim', '--provider', 'ecobank', '--account', account, '--payout-id', id, '--yes'];
}

/** Sends it with its answer lost, after the sandbox made it or before (`kind`): exit 4, unknown (payout-fixtures.ts). */
const lost = (args: string[], kind: 'reset-after-commit' | 'reset-before-commit'): Promise<string> => createWithLostAnswer(ctx.sb, run, args, kind);

/** The line of `out` holding `payctl history reconcile` and `has`, as argv. */
function command(out: string, has: string): string[] {
  const line = out.split('\n').find((l) => l.includes('payctl history reconcile') && l.includes(has));
  expect(line, `no reconcile with "${has}" in:\n${out}`).toBeDefined();
  return printed(line!, 'history reconcile');
}

describe('an earlier payout made, its later twin not, one record that could be either', () => {
  it("the probe's sequence, each command run as printed: both resolved, none refused, one payout", async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const account = `00${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
    const tag = Math.random().toString(36).slice(2, 8);
    const p = `p-${tag}`;
    const q = `q-${tag}`;
    await lost(createArgs(wallet, account, p), 'reset-after-commit');
    await lost(createArgs(wallet, account, q), 'reset-before-commit');
    const made = heldFrom(ctx.sb, wallet).map((t) => t.transaction_id);
    expect(made).toHaveLength(1);
    const clock = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    const from = ctx.sb.requests().length;

    const all = await run(['history', 'reconcile'], clock);
    expect(all.code, all.stderr).toBe(4);
    // Q's block offers it the one record; P's says to settle Q first, then P again.
    const madeBy = command(all.stdout, `--payout-id ${q} --made-by`);
    expect(madeBy).toEqual(['history', 'reconcile', '--payout-id', q, '--made-by', made[0]!]);
    const pAgain = command(all.stdout, `--payout-id ${p}`);
    expect(pAgain).toEqual(['history', 'reconcile', '--payout-id', p]);

    const pair = await run(madeBy, clock);
    expect(pair.code, pair.stderr).toBe(0);
    expect(pair.stderr).toContain(`Payout ${p} is recorded as not made: transaction ${made[0]} paid the person in its place`);

    const after = await run(pAgain, clock);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout + after.stderr).not.toContain('--resend');
    expect(after.stderr).toContain(`Payout ${p} is not unknown`);

    const again = await run(['history', 'reconcile'], clock);
    expect(again.code, again.stderr).toBe(0);
    const unknown = await run(['history', '--status', 'unknown', '--json']);
    const ids = (JSON.parse(unknown.stdout) as { data: Array<{ payout_id: string }> }).data.map((l) => l.payout_id);
    expect(ids).not.toContain(p);
    expect(ids).not.toContain(q);
    // Nothing resent: the one payout the sandbox made is the only one.
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(heldFrom(ctx.sb, wallet).map((t) => t.transaction_id)).toEqual(made);
    // P's own command run again is refused as closed, naming Q: never sent.
    const rerun = await run(createArgs(wallet, account, p), clock);
    expect(rerun.code, rerun.stderr).toBe(2);
    expect(rerun.stderr).toContain(`it was sent as payout ${q} instead`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});
