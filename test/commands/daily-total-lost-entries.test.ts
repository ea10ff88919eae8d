/**
 * A policy's daily total when the local journal has lost entries it recorded (README "Four eyes",
 * `daily_total`; probe W 1), in process against the sandbox over real HTTP: what a missing entry
 * paid is unknown, so is the day's total, as for an entry that cannot be read. `payout batch`,
 * `payout create` (with --allow-repeat too) and `plan send` are refused, exit 2, nothing sent,
 * naming the missing entries and what to do; --acknowledge-missing goes on on purpose and
 * acknowledges them (a signed line in journal.index), after which the total is counted without
 * them and still refuses what goes over it. Before: the batch sent 5,000 SLE under a 3,000 SLE
 * total with a warning, exit 0, and payout create did so once --allow-repeat was added.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { payoutPosts } from '../helpers/batch.js';
import { oneJson } from '../helpers/e2e.js';
import { PLAN_BATCH_HEADER } from '../helpers/four-eyes.js';
import { heldFrom, useFreshLogin } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
// A fresh config folder (and so a fresh journal) and work folder per test.
const setup = useFreshLogin(ctx);

/** `policy` (the file's JSON) set in the profile, checked; its path. */
async function usePolicy(policy: unknown): Promise<string> {
  const file = join(setup.work.dir, `policy-${randomUUID().slice(0, 8)}.json`);
  writeFileSync(file, JSON.stringify(policy));
  const r = await payctl(['config', 'set', 'policy', file], { dir: setup.dir });
  expect(r.code, r.stderr).toBe(0);
  return file;
}

/** A batch file paying 10.00 SLE from `wallet` to each of `n` recipients of its own; its path. */
function tens(wallet: string, n: number): string {
  const tag = randomUUID().slice(0, 8);
  const file = join(setup.work.dir, `pay-${tag}.csv`);
  const rows = Array.from(
    { length: n },
    (_, i) => `,${wallet},10.00,SLE,bank,Payee ${tag} ${i},ecobank,9${String(i).padStart(4, '0')}${tag.replace(/\D/g, '').slice(0, 3)},,`,
  );
  writeFileSync(file, PLAN_BATCH_HEADER + rows.join('\n') + '\n');
  return file;
}

/** A payout create of 10.00 SLE from `wallet` to account `account`, without --payout-id. */
function createTen(wallet: string, account: string, extra: string[] = []): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    wallet,
    '--amount',
    '10.00',
    '--currency',
    'SLE',
    '--type',
    'bank',
    '--name',
    'Awa',
    '--provider',
    'ecobank',
    '--account',
    account,
    '--yes',
    ...extra,
  ];
}

/** The journal folder deleted, as an operator "cleaning up" does; journal.index and journal.key stay. */
function deleteJournalFolder(): void {
  rmSync(join(setup.dir, 'journal'), { recursive: true });
}

/** The lines of journal.index acknowledging missing entries for the daily total. */
function uncountedLines(): unknown[] {
  return readFileSync(join(setup.dir, 'journal.index'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => 'uncounted' in l);
}

/** The payout ids the sandbox holds from `wallet`. */
const idsFrom = (wallet: string): string[] => heldFrom(ctx.sb, wallet).map((p) => p.payout_id);

describe('a daily total counted from a journal that lost entries', () => {
  it('payout batch: refused (exit 2, nothing sent, the entries named) until --acknowledge-missing; then counted without them, and over it is refused again', async () => {
    await usePolicy({ daily_total: { SLE: '30' } });
    const wallet = freshWallet(ctx.sb, '1000.00');
    const day1 = await payctl(['payout', 'batch', tens(wallet, 3), '--batch-id', 'day1', '--yes'], { dir: setup.dir });
    expect(day1.code, day1.stderr).toBe(0);
    const lost = idsFrom(wallet).sort();
    expect(lost).toHaveLength(3);
    const day2 = tens(wallet, 2);
    const over = await payctl(['payout', 'batch', day2, '--batch-id', 'day2', '--yes'], { dir: setup.dir });
    expect(over.code, over.stderr).toBe(2);
    deleteJournalFolder();

    const from = ctx.sb.requests().length;
    const refused = await payctl(['payout', 'batch', day2, '--batch-id', 'day2', '--yes'], { dir: setup.dir });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`Nothing was sent.`);
    expect(refused.stderr).toContain(
      `  - the daily total cannot be counted for wallet ${wallet} in SLE (policy daily_total.SLE): 3 entries of this config folder's journal (${setup.dir}) for ${ctx.sb.baseUrl} are missing: `,
    );
    for (const id of lost) expect(refused.stderr).toContain(id);
    expect(refused.stderr).toContain(`so what they paid today is unknown\n`);
    expect(refused.stderr).toContain(
      `Or, once you know what they paid (payctl payouts list --all lists what the service made), run the same command with --acknowledge-missing`,
    );
    expect(refused.stderr).not.toContain('Warning');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // A dry run says what a send would do, and acknowledges nothing.
    const dry = await payctl(['payout', 'batch', day2, '--batch-id', 'day2', '--dry-run', '--acknowledge-missing'], { dir: setup.dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('A send with --acknowledge-missing acknowledges them as gone (journal.index), and the daily total goes on without them');
    expect(uncountedLines()).toEqual([]);
    expect((await payctl(['payout', 'batch', day2, '--batch-id', 'day2', '--yes'], { dir: setup.dir })).code).toBe(2);

    // On purpose: sent, and the three acknowledged.
    const acknowledged = await payctl(['payout', 'batch', day2, '--batch-id', 'day2', '--yes', '--acknowledge-missing'], { dir: setup.dir });
    expect(acknowledged.code, acknowledged.stderr).toBe(0);
    expect(acknowledged.stderr).toContain('They are acknowledged as gone when the payouts are journaled (journal.index)');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
    expect(uncountedLines()).toHaveLength(3);

    // From then on the total is counted without them (20.00 known today): 20.00 more is over it, and refused, saying so.
    const day3 = await payctl(['payout', 'batch', tens(wallet, 2), '--batch-id', 'day3', '--yes'], { dir: setup.dir });
    expect(day3.code, day3.stderr).toBe(2);
    expect(day3.stderr).toContain(
      `20.00 SLE more today would make 40.00 SLE, over the daily total of 30.00 SLE (policy daily_total.SLE; 20.00 SLE already sent today from this config folder (${setup.dir}); the daily total is counted without 3 entries of this config folder's journal that are missing and were acknowledged`,
    );
    expect(idsFrom(wallet)).toHaveLength(5);
  });

  it('--acknowledge-missing refused over the total: says the entry would be acknowledged, writes nothing, and the next run without it is refused for it again', async () => {
    await usePolicy({ daily_total: { SLE: '30' } });
    const wallet = freshWallet(ctx.sb, '1000.00');
    expect((await payctl(createTen(wallet, '92001'), { dir: setup.dir })).code).toBe(0);
    const [lost] = idsFrom(wallet);
    deleteJournalFolder();
    const index = readFileSync(join(setup.dir, 'journal.index'), 'utf8');
    const from = ctx.sb.requests().length;

    // 40.00 is over the total on its own: refused, and the entry is not acknowledged.
    const over = await payctl(['payout', 'batch', tens(wallet, 4), '--batch-id', 'big', '--yes', '--acknowledge-missing'], { dir: setup.dir });
    expect(over.code, over.stderr).toBe(2);
    expect(over.stderr).toContain(
      `40.00 SLE more today would make 40.00 SLE, over the daily total of 30.00 SLE (policy daily_total.SLE; 0.00 SLE already sent today from this config folder (${setup.dir}); the daily total is counted without an entry of this config folder's journal that is missing and would be acknowledged by this run (${lost}): what it paid today is not counted; nothing was written to journal.index, as the run was refused, so a run without --acknowledge-missing is refused for it again)`,
    );
    expect(over.stderr).not.toContain('was acknowledged');
    expect(readFileSync(join(setup.dir, 'journal.index'), 'utf8')).toBe(index);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // As it said: without the flag, refused for the missing entry.
    const again = await payctl(['payout', 'batch', tens(wallet, 1), '--batch-id', 'small', '--yes'], { dir: setup.dir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`the daily total cannot be counted for wallet ${wallet} in SLE (policy daily_total.SLE): 1 entry of this config folder's journal`);
    expect(again.stderr).toContain(lost);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('payout create: --allow-repeat alone no longer sends past it (exit 2, nothing sent); with --acknowledge-missing it is sent, and later payouts are counted without them', async () => {
    await usePolicy({ daily_total: { SLE: '30' } });
    const wallet = freshWallet(ctx.sb, '1000.00');
    for (const account of ['91001', '91002', '91003']) expect((await payctl(createTen(wallet, account), { dir: setup.dir })).code).toBe(0);
    deleteJournalFolder();
    const from = ctx.sb.requests().length;

    // The repeat guard is blind: refused, its hint naming both flags under a daily total.
    const blind = await payctl(createTen(wallet, '91004'), { dir: setup.dir });
    expect(blind.code, blind.stderr).toBe(2);
    expect(blind.stderr).toContain(
      "add --allow-repeat (a deliberate choice: it also sends a payout that repeats one sent in the last 24 hours) and, under the policy's daily total, --acknowledge-missing (it acknowledges the missing entries: the daily total then no longer counts what they paid).",
    );

    // --allow-repeat, as that hint's first half: the daily total still cannot be counted.
    const repeat = await payctl(createTen(wallet, '91004', ['--allow-repeat']), { dir: setup.dir });
    expect(repeat.code, repeat.stderr).toBe(2);
    expect(repeat.stderr).toContain('acknowledged for the repeat guard');
    expect(repeat.stderr).toContain(`the daily total cannot be counted for wallet ${wallet} in SLE (policy daily_total.SLE): 3 entries of this config folder's journal`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    // The hint as printed: both flags.
    const sent = await payctl(createTen(wallet, '91004', ['--allow-repeat', '--acknowledge-missing']), { dir: setup.dir });
    expect(sent.code, sent.stderr).toBe(0);
    expect(uncountedLines()).toHaveLength(3);
    // Neither is needed now; 10.00 known today, 10.00 more fits; 20.00 then does not.
    expect((await payctl(createTen(wallet, '91005'), { dir: setup.dir })).code).toBe(0);
    const over = await payctl([...createTen(wallet, '91006'), '--amount', '20.00'], { dir: setup.dir });
    expect(over.code, over.stderr).toBe(2);
    expect(over.stderr).toContain(`20.00 SLE already sent today from this config folder (${setup.dir})`);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
  });

  it('the journal deleted whole with journal.index (journal.key kept): refused as entries of unknown number, also after a payout the total does not limit; --acknowledge-missing goes on', async () => {
    await usePolicy({ daily_total: { SLE: '30' } });
    const wallet = freshWallet(ctx.sb, '1000.00');
    expect((await payctl(['payout', 'batch', tens(wallet, 3), '--batch-id', 'day1', '--yes'], { dir: setup.dir })).code).toBe(0);
    rmSync(join(setup.dir, 'journal'), { recursive: true });
    rmSync(join(setup.dir, 'journal.index'));
    const day2 = tens(wallet, 2);
    const from = ctx.sb.requests().length;

    const unknown = `the daily total cannot be counted for wallet ${wallet} in SLE (policy daily_total.SLE): this config folder's journal (${setup.dir}) was deleted whole or rolled back to an older backup, its index journal.index with it, while its key journal.key remains: entries of unknown number are missing, so what they paid today is unknown`;
    const refused = await payctl(['payout', 'batch', day2, '--batch-id', 'day2', '--yes'], { dir: setup.dir });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(unknown);
    expect(refused.stderr).toContain('run the same command with --acknowledge-missing');
    const history = await payctl(['history'], { dir: setup.dir });
    expect(history.stderr).toContain(
      "This config folder's journal was deleted whole or rolled back to an older backup, its index journal.index with it, while its key journal.key remains",
    );

    // A payout no daily total limits (its repeat guard blind too: --allow-repeat) makes the index again: the loss is kept in it, not forgotten.
    const usd = freshWallet(ctx.sb, '1000.00', 'USD');
    const other = await payctl(
      [
        'payout',
        'create',
        '--wallet',
        usd,
        '--amount',
        '5.00',
        '--currency',
        'USD',
        '--type',
        'bank',
        '--name',
        'Awa',
        '--provider',
        'ecobank',
        '--account',
        '77001',
        '--yes',
        '--allow-repeat',
      ],
      { dir: setup.dir },
    );
    expect(other.code, other.stderr).toBe(0);
    const again = await payctl(['payout', 'batch', day2, '--batch-id', 'day2', '--yes'], { dir: setup.dir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(unknown);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);

    const acknowledged = await payctl(['payout', 'batch', day2, '--batch-id', 'day2', '--yes', '--acknowledge-missing'], { dir: setup.dir });
    expect(acknowledged.code, acknowledged.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(3);
    const later = await payctl(['payout', 'batch', tens(wallet, 1), '--batch-id', 'day3', '--yes'], { dir: setup.dir });
    expect(later.code, later.stderr).toBe(0);
    expect(later.stderr).toContain(
      "the daily total is counted without the entries lost when this config folder's journal was deleted whole or rolled back (acknowledged)",
    );
  });

  it('plan send: refused (exit 2, nothing sent) while entries are missing; --acknowledge-missing sends it', async () => {
    const key = await payctl(['keys', 'create', '--name', 'Mariama Kanu', '--json'], { dir: setup.dir });
    expect(key.code, key.stderr).toBe(0);
    const maker = (oneJson(key.stdout) as { public_key: string }).public_key;
    await usePolicy({ members: { 'Mariama Kanu': { keys: [maker], roles: ['maker'] } }, daily_total: { SLE: '30' } });
    const wallet = freshWallet(ctx.sb, '1000.00');
    expect((await payctl(['payout', 'batch', tens(wallet, 3), '--batch-id', 'morning', '--yes'], { dir: setup.dir })).code).toBe(0);
    const file = tens(wallet, 2);
    const made = await payctl(['plan', 'create', file, '--batch-id', 'afternoon'], { dir: setup.dir });
    expect(made.code, made.stderr).toBe(0);
    const plan = file.replace(/\.csv$/, '.plan.json');
    deleteJournalFolder();
    const from = ctx.sb.requests().length;

    const refused = await payctl(['plan', 'send', plan, '--yes'], { dir: setup.dir });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`Cannot send the plan ${plan}: it breaks the policy's limits. Nothing was sent.`);
    expect(refused.stderr).toContain(`the daily total cannot be counted for wallet ${wallet} in SLE (policy daily_total.SLE): 3 entries of this config folder's journal`);
    expect(refused.stderr).toContain('run the same command with --acknowledge-missing');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    // policy check and plan show say the same problem.
    for (const args of [
      ['policy', 'check', plan],
      ['plan', 'show', plan],
    ]) {
      const r = await payctl(args, { dir: setup.dir });
      expect(r.stdout + r.stderr, args.join(' ')).toContain(`the daily total cannot be counted for wallet ${wallet} in SLE (policy daily_total.SLE)`);
    }

    const sent = await payctl(['plan', 'send', plan, '--yes', '--acknowledge-missing'], { dir: setup.dir });
    expect(sent.code, sent.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
    expect(uncountedLines()).toHaveLength(3);
  });
});
