/**
 * The repeat guard and a payout of unknown outcome over 24 hours old (probe 53-H, finding 1), in
 * process against the sandbox over real HTTP, the clock moved a day and an hour ahead (TestClock):
 * a payout typed again without --payout-id is refused while the earlier one's outcome is unknown,
 * however old (exit 2, nothing sent, --allow-repeat or not, at a terminal too), pointing at the
 * `history reconcile --payout-id` that settles it; once that is settled (--made-by), the guard
 * goes by its 24 hours again. A batch row, or a plan's, paying the same person written otherwise
 * under a batch id of its own is refused alike. Before, past 24 hours each was sent, and the
 * service held two payouts.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import type { Run } from '../helpers/e2e.js';
import { printed } from '../helpers/printed.js';
import { payoutPosts, toCsv, writeFile } from '../helpers/batch.js';
import { heldFrom, useFreshLogin, createWithLostAnswer } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();
const setup = useFreshLogin(ctx);

const DAY_AND_AN_HOUR = 25 * 60 * 60 * 1000;
const later = (): TestClock => new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
const run = (args: string[], clock?: TestClock, terminal = false): Promise<Run> =>
  payctl(args, { dir: setup.dir, ...(clock ? { clock } : {}), ...(terminal ? { prompts: [] } : {}) });

/** A bank payout of 18.11 SLE from `wallet` to `account`, without --payout-id. */
function createArgs(wallet: string, account: string, name = 'Ibrahim Bangura'): string[] {
  const args = ['payout', 'create', '--wallet', wallet, '--amount', '18.11', '--currency', 'SLE', '--type', 'bank'];
  return [...args, '--name', name, '--provider', 'rokel_commercial_bank', '--account', account, '--yes'];
}

/** A fresh account number, so that no other payout pays it. */
const account = (): string => `44${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;

/** Sends the payout with its answer lost (the sandbox commits it): exit 4, unknown; its payout id. */
const lostAnswer = (args: string[]): Promise<string> => createWithLostAnswer(ctx.sb, run, args);

describe('payout create typed again 25 hours after a payout of unknown outcome', () => {
  it('is refused (exit 2, nothing sent), --allow-repeat or not, at a terminal too, pointing at history reconcile', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const args = createArgs(wallet, account());
    const id = await lostAnswer(args);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
    const from = ctx.sb.requests().length;

    for (const [extra, terminal] of [
      [[], false],
      [['--allow-repeat'], false],
      [[], true],
    ] as const) {
      const r = await run([...args, ...extra], later(), terminal);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`payout id ${id}, sent, outcome unknown`);
      expect(r.stderr).toContain('Nothing was sent.');
      expect(r.stderr).toContain('its first attempt was more than 24 hours ago: reconcile lists the payouts the service made that could be it');
      expect(printed(r.stderr, 'history reconcile')).toEqual(['history', 'reconcile', '--payout-id', id]);
      expect(r.stderr).not.toContain('add --allow-repeat');
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });

  it('once history reconcile --made-by settles it, goes by the 24 hours again: sent as a new payout', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const args = createArgs(wallet, account());
    const id = await lostAnswer(args);
    const clock = later();
    const refused = await run(args, clock);
    expect(refused.code, refused.stderr).toBe(2);

    // The command the refusal printed lists the candidate and the --made-by that records it.
    const listed = await run(printed(refused.stderr, 'history reconcile'), clock);
    expect(listed.code, listed.stdout + listed.stderr).toBe(4);
    const txn = heldFrom(ctx.sb, wallet)[0]!.transaction_id;
    expect(printed(listed.stdout, 'history reconcile --payout-id')).toEqual(['history', 'reconcile', '--payout-id', id, '--made-by', txn]);
    const settled = await run(['history', 'reconcile', '--payout-id', id, '--made-by', txn], clock);
    expect(settled.code, settled.stderr).toBe(0);

    // Accepted, and journaled over 24 hours ago: no longer a repeat that holds this one back.
    const from = ctx.sb.requests().length;
    const again = await run(args, clock);
    expect(again.code, again.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);
    // Within the next 24 hours that new one is a repeat: refused without a terminal, as ever.
    const third = await run(args, clock);
    expect(third.code, third.stderr).toBe(2);
    expect(third.stderr).toContain('add --allow-repeat');
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);
  });
});

describe('a batch row paying the same person, written otherwise, 25 hours after a payout of unknown outcome', () => {
  it('under a batch id of its own, and as a plan: refused (exit 2), nothing sent, no plan written', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const acct = account();
    await lostAnswer(createArgs(wallet, acct));
    // The same wallet, account (with a leading zero), amount and currency; another name and note.
    const row = { wallet_id: wallet, amount: '18.11', currency: 'SLE', type: 'bank', name: 'I. Bangura', provider: 'rokel_commercial_bank' };
    const file = writeFile(setup.work.file('again.csv'), toCsv([{ ...row, account_number: `0${acct}`, note: 'Nov' }]));
    const from = ctx.sb.requests().length;

    const sent = await run(['payout', 'batch', file, '--batch-id', 'nov-again', '--yes'], later());
    expect(sent.code, sent.stderr).toBe(2);
    expect(sent.stderr).toContain('row 2: pays what payout');
    expect(sent.stderr).toContain('may have paid the same (its outcome is unknown) as a single payout');
    expect(sent.stderr).toContain('Nothing was sent.');

    expect((await run(['keys', 'create', '--name', 'Mariama Kanu'])).code).toBe(0);
    const out = setup.work.file('again.plan.json');
    const planned = await run(['plan', 'create', file, '--batch-id', 'nov-again', '-o', out], later());
    expect(planned.code, planned.stderr).toBe(2);
    expect(planned.stderr).toContain('what an earlier payout of unknown outcome may have paid');
    expect(existsSync(out)).toBe(false);

    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });
});

describe("a batch's rows of unknown outcome first sent 25 hours ago, its file sent again under a new batch id", () => {
  it('is refused with history reconcile of each row, not the resume that no longer resends them; the printed command lists and sends nothing', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const rows = [0, 1].map((i) => ({
      wallet_id: wallet,
      amount: `3${i}.50`,
      currency: 'SLE',
      type: 'bank',
      name: `Row ${i}`,
      provider: 'ecobank',
      account_number: account(),
    }));
    const file = writeFile(setup.work.file('nov1.csv'), toCsv(rows));
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const first = await run(['payout', 'batch', file, '--batch-id', 'nov1', '--concurrency', '1', '--yes'], new TestClock());
    ctx.sb.faults.clear();
    expect(first.code, first.stderr).toBe(4);
    const from = ctx.sb.requests().length;

    const clock = later();
    const again = await run(['payout', 'batch', file, '--batch-id', 'nov2', '--yes'], clock);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain('Settle the batch rows first sent over 24 hours ago one by one with history reconcile (a resume no longer resends them');
    expect(again.stderr).not.toContain('Resume its batch');
    // The printed command, run as printed a day later: it lists what could be the payout and sends nothing.
    const settle = await run(printed(again.stderr, 'history reconcile --payout-id'), clock);
    expect(settle.code, settle.stderr).toBe(4);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);
  });
});
