/**
 * A journal rolled back with its index (probe Y F1), in process against the sandbox over real
 * HTTP: journal/ and journal.index restored together from an older backup while journal.key
 * stays. Before, payctl did not notice: the daily total dropped back (a payout over it was sent,
 * exit 0) and the repeat guard let a payout made since the backup be paid twice. The index's
 * high-water mark (journal.mark) now says it: refused as a journal lost whole, under a daily
 * total and by the repeat guard, nothing sent, until acknowledged. A fresh folder, a folder
 * without a mark, a long batch and two payouts made at once never refuse.
 */
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { payctl as payctlBin } from '../helpers/e2e.js';
import { payoutPosts } from '../helpers/batch.js';
import { PLAN_BATCH_HEADER } from '../helpers/four-eyes.js';
import { useFreshLogin } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { Journal } from '../../src/payouts/journal.js';

const ctx = useSandbox();
const setup = useFreshLogin(ctx);

/** A payout create of `amount` SLE from `wallet` to `account`, without --payout-id. */
function pay(wallet: string, amount: string, account: string, extra: string[] = []): string[] {
  return ['payout', 'create', '--wallet', wallet, '--amount', amount, '--currency', 'SLE', '--type', 'bank', '--name', 'Test Person'].concat([
    '--provider',
    'ecobank',
    '--account',
    account,
    '--yes',
    ...extra,
  ]);
}

/** journal/ and journal.index copied aside (a nightly backup); restore() puts them back over the live ones, journal.key kept. */
function backup(): { restore: () => void } {
  const bak = join(setup.work.dir, `bak-${randomUUID().slice(0, 8)}`);
  mkdirSync(bak);
  cpSync(join(setup.dir, 'journal'), join(bak, 'journal'), { recursive: true });
  cpSync(join(setup.dir, 'journal.index'), join(bak, 'journal.index'));
  return {
    restore: () => {
      rmSync(join(setup.dir, 'journal'), { recursive: true });
      rmSync(join(setup.dir, 'journal.index'));
      cpSync(join(bak, 'journal'), join(setup.dir, 'journal'), { recursive: true });
      cpSync(join(bak, 'journal.index'), join(setup.dir, 'journal.index'));
    },
  };
}

async function usePolicy(policy: unknown): Promise<void> {
  const file = join(setup.work.dir, `policy-${randomUUID().slice(0, 8)}.json`);
  writeFileSync(file, JSON.stringify(policy));
  const r = await payctl(['config', 'set', 'policy', file], { dir: setup.dir });
  expect(r.code, r.stderr).toBe(0);
}

const ROLLED_BACK =
  'was deleted whole or rolled back to an older backup, its index journal.index with it, while its key journal.key remains: entries of unknown number are missing';

/** Whether the folder's journal says nothing missing or damaged (its mark verifies and matches). */
async function clean(): Promise<boolean> {
  return (await new Journal(setup.dir).journalGaps()) === undefined;
}

describe('journal/ and journal.index restored together from an older backup (journal.key kept)', () => {
  it('under a daily total: the next payout is refused (exit 2, nothing sent), history warns; --acknowledge-missing goes on, once', async () => {
    await usePolicy({ daily_total: { SLE: '3000' } });
    const wallet = freshWallet(ctx.sb, '100000.00');
    expect((await payctl(pay(wallet, '1000', '11111111'), { dir: setup.dir })).code).toBe(0);
    const bak = backup();
    expect((await payctl(pay(wallet, '1500', '22222222'), { dir: setup.dir })).code).toBe(0);
    bak.restore();

    const from = ctx.sb.requests().length;
    const over = await payctl(pay(wallet, '1500', '33333333'), { dir: setup.dir });
    expect(over.code, over.stderr).toBe(2);
    expect(over.stderr).toContain(ROLLED_BACK);
    expect(over.stderr).toContain('Nothing was sent.');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    const history = await payctl(['history'], { dir: setup.dir });
    expect(history.stderr).toContain(`This config folder's journal ${ROLLED_BACK}`);

    // Acknowledged on purpose: sent (the total then goes without what the lost entries paid), and later payouts need neither flag.
    const acked = await payctl(pay(wallet, '500', '33333333', ['--acknowledge-missing', '--allow-repeat']), { dir: setup.dir });
    expect(acked.code, acked.stderr).toBe(0);
    expect((await payctl(pay(wallet, '500', '44444444'), { dir: setup.dir })).code).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
  });

  it('without a policy: the payout made since the backup, typed again, is refused as a possible repeat (exit 2, nothing sent); --allow-repeat sends', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00');
    expect((await payctl(pay(wallet, '1000', '11111111'), { dir: setup.dir })).code).toBe(0);
    const bak = backup();
    expect((await payctl(pay(wallet, '1500', '22222222'), { dir: setup.dir })).code).toBe(0);
    bak.restore();

    const from = ctx.sb.requests().length;
    const again = await payctl(pay(wallet, '1500', '22222222'), { dir: setup.dir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(ROLLED_BACK);
    expect(again.stderr).toContain('add --allow-repeat');
    // The entries lost are not known: history cannot name them (probe Q 3), and is not said to.
    expect(again.stderr).not.toContain('names the missing entries');
    expect(again.stderr).toContain('what this config folder still has (the entries lost are not known)');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    // Refused again: the refusal acknowledged nothing.
    expect((await payctl(pay(wallet, '700', '55555555'), { dir: setup.dir })).code).toBe(2);

    const allowed = await payctl(pay(wallet, '700', '55555555', ['--allow-repeat']), { dir: setup.dir });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect((await payctl(pay(wallet, '800', '66666666'), { dir: setup.dir })).code).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
  });

  it('never refuses by itself: a fresh folder, a folder without journal.mark, a batch of 300 rows, two payouts at once', async () => {
    await usePolicy({ daily_total: { SLE: '100000' } });
    const wallet = freshWallet(ctx.sb, '100000.00');
    expect((await payctl(pay(wallet, '10', '70000001'), { dir: setup.dir })).code).toBe(0);
    expect(await clean()).toBe(true);

    // A folder of a payctl before the mark (or the mark deleted): written again from the index as it is.
    rmSync(join(setup.dir, 'journal.mark'));
    expect(await clean()).toBe(true);
    expect((await payctl(pay(wallet, '10', '70000002'), { dir: setup.dir })).code).toBe(0);
    expect(readFileSync(join(setup.dir, 'journal.mark'), 'utf8')).toContain('"mac"');

    const file = join(setup.work.dir, 'long.csv');
    const rows = Array.from({ length: 300 }, (_, i) => `,${wallet},1.00,SLE,bank,Payee ${i},ecobank,8${String(i).padStart(6, '0')},,`);
    writeFileSync(file, PLAN_BATCH_HEADER + rows.join('\n') + '\n');
    const batch = await payctl(['payout', 'batch', file, '--batch-id', 'long', '--yes'], { dir: setup.dir });
    expect(batch.code, batch.stderr).toBe(0);
    expect(await clean()).toBe(true);

    // Two terminals at once (two processes of the built payctl): both sent, and the mark they leave verifies.
    const both = await Promise.all([payctlBin(pay(wallet, '10', '70000003'), { dir: setup.dir }), payctlBin(pay(wallet, '10', '70000004'), { dir: setup.dir })]);
    for (const r of both) expect(r.code, r.stderr).toBe(0);
    expect(await clean()).toBe(true);
    expect((await payctl(pay(wallet, '10', '70000005'), { dir: setup.dir })).code).toBe(0);
  });

  it('a mark changed outside payctl is said, as a damaged index is', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00');
    expect((await payctl(pay(wallet, '10', '70000011'), { dir: setup.dir })).code).toBe(0);
    const mark = JSON.parse(readFileSync(join(setup.dir, 'journal.mark'), 'utf8')) as { size: number };
    writeFileSync(join(setup.dir, 'journal.mark'), JSON.stringify({ ...mark, size: 1 }) + '\n');
    const history = await payctl(['history'], { dir: setup.dir });
    expect(history.stderr).toContain(`The payout journal's high-water mark ${join(setup.dir, 'journal.mark')} was changed outside payctl (it does not verify).`);
  });
});
