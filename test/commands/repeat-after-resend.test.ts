/**
 * The repeat guard after `history reconcile --resend` of a payout of unknown outcome over 24 hours
 * old (probe 54-H, finding 2), in process against the sandbox over real HTTP, the clock moved a
 * day and an hour ahead (TestClock): the resend is a request that may have paid just now (a
 * service that forgot the key makes a new payout), so the 24-hour repeat window runs from it, not
 * from the first attempt. The payout typed again right after is refused as a repeat without a
 * terminal (exit 2, nothing sent) and asked about at one, as within 24 hours; --allow-repeat sends
 * it. The refusal before the resend says so, not "this one is sent as a new payout". Before, the
 * retype was sent at once, exit 0: two payouts. A rerun of `payout create --payout-id` after the
 * resend (read back, "Already submitted") keeps the resend's time (probe 55-R finding 4): before,
 * the window went back to the first attempt and the retype was paid.
 */
import { describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import type { Run } from '../helpers/e2e.js';
import { printed } from '../helpers/printed.js';
import { payoutPosts } from '../helpers/batch.js';
import { useFreshLogin, createWithLostAnswer } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();
const setup = useFreshLogin(ctx);

const DAY_AND_AN_HOUR = 25 * 60 * 60 * 1000;
const run = (args: string[], clock?: TestClock, terminal = false): Promise<Run> =>
  payctl(args, { dir: setup.dir, ...(clock ? { clock } : {}), ...(terminal ? { prompts: [] } : {}) });

/** A bank payout of 18.12 SLE from `wallet` to a fresh account, without --payout-id. */
function createArgs(wallet: string): string[] {
  const account = `44${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
  const args = ['payout', 'create', '--wallet', wallet, '--amount', '18.12', '--currency', 'SLE', '--type', 'bank'];
  return [...args, '--name', 'Ibrahim Bangura', '--provider', 'rokel_commercial_bank', '--account', account, '--yes'];
}

/** Sends the payout with its answer lost (the sandbox commits it): exit 4, unknown; its payout id. */
const lostAnswer = (args: string[]): Promise<string> => createWithLostAnswer(ctx.sb, run, args);

describe('payout create typed again just after history reconcile --resend of a payout 25 hours old', () => {
  it('is refused as a repeat of the resend (exit 2, nothing sent); --allow-repeat sends it', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const args = createArgs(wallet);
    const id = await lostAnswer(args);
    const clock = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));

    const refused = await run(args, clock);
    expect(refused.code, refused.stderr).toBe(2);
    expect(printed(refused.stderr, 'history reconcile')).toEqual(['history', 'reconcile', '--payout-id', id]);
    // The advice does not promise a new payout once it is settled by a resend.
    expect(refused.stderr).toContain('Settled with --resend, that payout is sent again now, so for 24 hours this one is refused as its repeat');
    expect(refused.stderr).not.toContain('once that payout is settled, made or not, this one is sent as a new payout');

    const resent = await run(['history', 'reconcile', '--payout-id', id, '--resend', '--yes'], clock);
    expect(resent.code, resent.stdout + resent.stderr).toBe(0);

    const from = ctx.sb.requests().length;
    const again = await run(args, clock);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`payout id ${id}, accepted`);
    expect(again.stderr).toContain('and sent again less than a minute ago');
    expect(again.stderr).toContain('add --allow-repeat');
    expect(again.stderr).toContain('Nothing was sent.');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // At a terminal it is asked about (answered no: nothing sent).
    const asked = await payctl(
      args.filter((a) => a !== '--yes'),
      { dir: setup.dir, clock, prompts: [{ confirm: /./, answer: false }] },
    );
    expect(asked.stderr).toContain('This payout repeats one sent');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // A day after the resend it no longer holds this one back.
    clock.advance(DAY_AND_AN_HOUR);
    const later = await run(args, clock);
    expect(later.code, later.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
  });

  it('still refuses the retype after the payout id is rerun and read back ("Already submitted")', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const args = createArgs(wallet);
    const id = await lostAnswer(args);
    const clock = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    const resent = await run(['history', 'reconcile', '--payout-id', id, '--resend', '--yes'], clock);
    expect(resent.code, resent.stdout + resent.stderr).toBe(0);

    // The rerun reads it back (nothing sent): its record keeps the time of the resend (probe 55-R finding 4).
    const rerun = await run([...args, '--payout-id', id], clock);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr + rerun.stdout).toContain('Already submitted');

    const from = ctx.sb.requests().length;
    const again = await run(args, clock);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`payout id ${id}, accepted`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});
