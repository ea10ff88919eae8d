/**
 * What a batch's plan refuses before anything is sent (probe A53, findings 2 and 9), in process
 * against the sandbox over real HTTP: a row whose earlier payout's outcome is unknown (a killed
 * run's row, in fact paid) sent in a file of its own under a batch id of its own, or planned so
 * (unsettled-repeats.ts: refused as payout create refuses it, --allow-repeat or not); the note of
 * a resume that sends such a row again under its own key; and the advice of the refusal of rows
 * changed since, for rows that are new payouts (a file of their own under a batch id of its own).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import type { Run } from '../helpers/e2e.js';
import { payoutPosts, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';
import { journalInFlight, useBatchFolders } from '../helpers/batch-fixtures.js';
import { heldFrom } from '../helpers/payout-fixtures.js';
import { Journal } from '../../src/payouts/journal.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

/** `payout batch <args>`; given a clock (a TestClock: back-off against a failing sandbox without real waits), on it. */
const batch = (args: string[], clock?: TestClock): Promise<Run> => payctl(['payout', 'batch', ...args], { dir: setup.dir, ...(clock ? { clock } : {}) });

/** A row to a fresh account of `zeros` leading zeros. */
function row(wallet: string, name: string, zeros = 2, amount = '100.00'): BatchRow {
  const account = `${'0'.repeat(zeros)}${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
  return { wallet_id: wallet, amount, currency: 'SLE', type: 'bank', name, provider: 'ecobank', account_number: account, note: 'Nov' };
}

describe('a row of unknown outcome (its run killed, in fact paid) sent in a file of its own under a batch id of its own', () => {
  it('is refused (exit 2, nothing sent), naming the payout and the resume; the resume as printed pays each row once', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const rows = [row(wallet, 'K One', 2, '10.00'), row(wallet, 'K Two', 2, '20.00')];
    const file = writeFile(setup.work.file('k.csv'), toCsv(rows));
    // The service commits each payout and its answer is lost: both of unknown outcome, both paid.
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const sent = await batch([file, '--yes'], new TestClock());
    ctx.sb.faults.clear();
    expect(sent.code, sent.stderr).toBe(4);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);
    // K One as a SIGKILL leaves it: journaled, no answer recorded.
    const journal = new Journal(setup.dir);
    for await (const it of journal.scan())
      if ('entry' in it && it.entry.batch?.file === file && it.entry.batch.row === 2) await journal.put({ ...it.entry, outcome: undefined });
    const from = ctx.sb.requests().length;

    for (const [name, own] of [
      ['own.csv', rows.slice(0, 1)],
      ['own2.csv', rows],
    ] as const) {
      const r = await batch([writeFile(setup.work.file(name), toCsv([...own])), '--batch-id', 'own1', '--yes']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/what (an earlier payout|earlier payouts) of unknown outcome may have paid/);
      expect(r.stderr).toContain('Nothing was sent.');
      expect(r.stderr).toMatch(
        new RegExp(`row 2: pays what payout \\S+ was journaled for the same, its outcome unknown \\(it may have been paid\\) in batch "default" \\(its row 2 of ${file}`),
      );
      if (own.length === 2) expect(r.stderr).toMatch(/row 3: pays what payout \S+ may have paid the same \(its outcome is unknown\) in batch "default" \(its row 3 of /);
      expect(r.stderr).toContain(`  payctl payout batch ${file} --batch-id default\n`);
      expect(r.stderr).toContain('payctl history reconcile\n');
      expect(r.stderr).not.toContain('pays it again as new payouts');
    }
    // A dry run says the same refusal, and so does plan create: no plan written.
    expect((await batch([setup.work.file('own.csv'), '--batch-id', 'own1', '--dry-run'])).code).toBe(2);
    if ((await payctl(['keys', 'show'], { dir: setup.dir })).code !== 0)
      expect((await payctl(['keys', 'create', '--name', 'Mariama Kanu'], { dir: setup.dir })).code).toBe(0);
    const out = setup.work.file('own1.plan.json');
    const planned = await payctl(['plan', 'create', setup.work.file('own.csv'), '--batch-id', 'own1', '-o', out], { dir: setup.dir });
    expect(planned.code, planned.stderr).toBe(2);
    expect(planned.stderr).toContain('what an earlier payout of unknown outcome may have paid');
    expect(planned.stderr).toContain('No plan was written.');
    expect(existsSync(out)).toBe(false);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // The resume as printed: each row sent again under its own key, paid once.
    const resumed = await batch([file, '--batch-id', 'default', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);
  });

  it('a resume whose row another batch paid since: the plan says the row is sent again under its journaled key, not paid again as a new payout', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const rows = [row(wallet, 'R One', 2, '10.00'), row(wallet, 'R Two', 2, '20.00')];
    expect((await batch([writeFile(setup.work.file('own.csv'), toCsv(rows.slice(0, 1))), '--batch-id', `own-${Date.now()}`, '--yes'])).code).toBe(0);
    const file = writeFile(setup.work.file('k.csv'), toCsv(rows));
    await journalInFlight(setup.dir, ctx.sb.baseUrl, file, [2]);
    const r = await batch([file, '--batch-id', 'default', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /Note: 1 row pays the same as payouts sent in batch "own-\d+" from \S+ on [^;]+; batch "default" sends it again under the key it was journaled with in this batch \(outcome unknown\): a payout already made is answered, not paid again\./,
    );
    expect(r.stdout).not.toContain('pays it again as new payouts');
  });
});

describe('the zeros refusal of rows that are new payouts', () => {
  it('offers a file of their own under a batch id of its own, as a command that works once the file and name are put in', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const paid = row(wallet, 'Zed Bare');
    const bare = { ...paid, account_number: paid.account_number!.replace(/^0+/, '') };
    expect((await batch([writeFile(setup.work.file('bare.csv'), toCsv([bare])), '--yes'])).code).toBe(0);
    const zeros = writeFile(setup.work.file('zeros.csv'), toCsv([paid]));
    const r = await batch([zeros, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    const advice = 'put them in a file of their own and send it under a batch id of its own (without one it is compared with the same batches, and refused again): ';
    expect(r.stderr).toContain(`${advice}payctl payout batch <file of those rows> --batch-id NAME`);
    // A run without --batch-id: the row that paid kept beside them is compared all the same (refused again): not offered (probe D54, F5).
    expect(r.stderr).not.toContain('keep the row that paid in the file beside them');
    // As the probe did: the file of their own without a batch id is refused again; with one, as printed, it is sent.
    const own = writeFile(setup.work.file('own.csv'), toCsv([paid]));
    expect((await batch([own, '--yes'])).code).toBe(2);
    const sent = await batch([own, '--batch-id', `own-${Date.now()}`, '--yes']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);
  });
});

describe('a row paying the same person as a payout of unknown outcome, written otherwise (probe D54, F2)', () => {
  it('another name, note and leading zeros, under a batch id of its own, and as a plan: refused, nothing sent', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const first = row(wallet, 'Abu Kamara', 0, '13.00');
    const file = writeFile(setup.work.file('abu.csv'), toCsv([first]));
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const sent = await batch([file, '--batch-id', 'first-abu', '--yes'], new TestClock());
    ctx.sb.faults.clear();
    expect(sent.code, sent.stderr).toBe(4);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
    // The same person, wallet, amount and currency: the account with two zeros, another name and note.
    const other = { ...first, name: 'Someone Else', note: 'different note', account_number: `00${first.account_number}` };
    const again = writeFile(setup.work.file('abu-again.csv'), toCsv([other]));
    const from = ctx.sb.requests().length;
    for (const args of [
      [again, '--batch-id', 'x1', '--yes'],
      [again, '--batch-id', 'x1', '--dry-run'],
    ]) {
      const r = await batch(args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('of unknown outcome may have paid');
      expect(r.stderr).toContain('batch "first-abu"');
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });
});
