/**
 * The repeat guard of `payout create` (without --payout-id) when journal entries are lost, in
 * process against the sandbox over HTTP: an entry moved aside (as an operator does after payctl's
 * own "damaged: inspect it before removing it") is still found through its look-up markers, and
 * the payout typed again is refused as a repeat; an entry lost with its markers leaves the guard
 * blind, and every payout typed without --payout-id is refused (exit 2, nothing sent), naming the
 * missing entry, until it is put back or --allow-repeat says to send all the same. Before, both
 * were paid a second time, exit 0. Only payouts to the service of the lost entries are refused,
 * and a payout sent with --allow-repeat acknowledges them, so later ones are not (before: every
 * payout of every service refused, for good).
 */
import { mkdirSync, readdirSync, renameSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { payoutPosts } from '../helpers/batch.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { heldFrom, useFreshLogin } from '../helpers/payout-fixtures.js';

const ctx = useSandbox();
/** Another service: a second sandbox, another base URL. */
const otherCtx = useSandbox();
const setup = useFreshLogin(ctx);

/** A bank payout from `wallet` of `amount` SLE, without --payout-id, with --yes. */
function createArgs(wallet: string, amount: string, extra: string[] = []): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    wallet,
    '--amount',
    amount,
    '--currency',
    'SLE',
    '--type',
    'bank',
    '--name',
    'Fatmata',
    '--provider',
    'ecobank',
    '--account',
    '0011223344',
    ...extra,
    '--yes',
  ];
}

/** The entry files of the journal, moved to a folder aside; the folder. */
function moveEntriesAside(): string {
  const journal = join(setup.dir, 'journal');
  const aside = setup.work.file('aside');
  mkdirSync(aside, { recursive: true });
  for (const n of readdirSync(journal).filter((n) => n.endsWith('.json'))) renameSync(join(journal, n), join(aside, n));
  return aside;
}

/** The one payout id the sandbox holds from `wallet`. */
function onlyPayoutFrom(wallet: string): string {
  const held = heldFrom(ctx.sb, wallet);
  expect(held).toHaveLength(1);
  return held[0]!.payout_id;
}

describe('payout create without --payout-id, after an entry was lost', () => {
  it('entry moved aside: the same payout typed again is refused as a repeat (its markers still hold it), exit 2, nothing sent', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00');
    expect((await payctl(createArgs(wallet, '150.00'), { dir: setup.dir })).code).toBe(0);
    const first = onlyPayoutFrom(wallet);
    moveEntriesAside();

    const from = ctx.sb.requests().length;
    const r = await payctl(createArgs(wallet, '150.00'), { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`This payout repeats one journaled from this config folder`);
    expect(r.stderr).toContain(`payout id ${first}`);
    expect(r.stderr).toContain('its journal entry is missing');
    expect(r.stderr).toContain('payctl payouts list --all');
    expect(r.stderr).toContain('Nothing was sent.');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });

  it('a damaged entry refused, then moved aside as advised: the payout typed again is still refused, nothing sent', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00');
    expect((await payctl(createArgs(wallet, '150.00'), { dir: setup.dir })).code).toBe(0);
    const journal = join(setup.dir, 'journal');
    const [entry] = readdirSync(journal).filter((n) => n.endsWith('.json'));
    truncateSync(join(journal, entry!), 300);

    const damaged = await payctl(createArgs(wallet, '150.00'), { dir: setup.dir });
    expect(damaged.code, damaged.stderr).toBe(2);
    expect(damaged.stderr).toContain('is damaged');
    moveEntriesAside();

    const from = ctx.sb.requests().length;
    const r = await payctl(createArgs(wallet, '150.00'), { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('This payout repeats one journaled from this config folder');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(1);
  });

  it('entry lost with its markers: any payout typed without --payout-id is refused naming the missing entry; put back, or --allow-repeat, it is sent', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00');
    expect((await payctl(createArgs(wallet, '150.00'), { dir: setup.dir })).code).toBe(0);
    const first = onlyPayoutFrom(wallet);
    const aside = moveEntriesAside();
    // The look-up markers gone too (a journal folder restored from an older backup).
    rmSync(join(setup.dir, 'journal', 'index'), { recursive: true });

    let from = ctx.sb.requests().length;
    const r = await payctl(createArgs(wallet, '150.00'), { dir: setup.dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`1 entry of this config folder's journal for ${ctx.sb.baseUrl} is missing: ${first}`);
    expect(r.stderr).toContain('So payctl cannot tell whether this payout repeats that one');
    expect(r.stderr).toContain('Nothing was sent.');
    expect(r.stderr).toContain('Put the missing entries back');
    expect(r.stderr).toContain('add --allow-repeat');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);

    // Another payout too (the guard cannot tell what the lost one paid), and a dry run alike.
    const other = await payctl(createArgs(wallet, '7.00'), { dir: setup.dir });
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toContain(`is missing: ${first}`);
    const dry = await payctl(createArgs(wallet, '7.00', ['--dry-run']), { dir: setup.dir });
    expect(dry.code, dry.stderr).toBe(2);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);

    // Put back: the repeat is seen again, refused as such.
    for (const n of readdirSync(aside)) renameSync(join(aside, n), join(setup.dir, 'journal', n));
    from = ctx.sb.requests().length;
    const back = await payctl(createArgs(wallet, '150.00'), { dir: setup.dir });
    expect(back.code, back.stderr).toBe(2);
    expect(back.stderr).toContain('This payout repeats one sent from this config folder');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);

    // A payout id of one's own is not a repeat: sent, entry missing or not.
    moveEntriesAside();
    rmSync(join(setup.dir, 'journal', 'index'), { recursive: true });
    expect((await payctl(createArgs(wallet, '7.00', ['--payout-id', `own-${first}`]), { dir: setup.dir })).code).toBe(0);

    // Sent as a deliberate choice.
    const allowed = await payctl(createArgs(wallet, '150.00', ['--allow-repeat']), { dir: setup.dir });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(heldFrom(ctx.sb, wallet).filter((p) => p.amount_minor === 15000n)).toHaveLength(2);
  });

  it('entries lost with their markers refuse payouts of their own service only, and one payout sent with --allow-repeat acknowledges them', async () => {
    const wallet = freshWallet(ctx.sb, '1000.00');
    expect((await payctl(createArgs(wallet, '40.00'), { dir: setup.dir })).code).toBe(0);
    const first = onlyPayoutFrom(wallet);
    moveEntriesAside();
    rmSync(join(setup.dir, 'journal', 'index'), { recursive: true });

    // Another service (a second sandbox): its payouts are not refused.
    const otherWallet = freshWallet(otherCtx.sb, '1000.00');
    const elsewhere = await payctl(createArgs(otherWallet, '41.00', ['--base-url', otherCtx.sb.baseUrl]), {
      dir: setup.dir,
      env: { PAYCTL_API_KEY: otherCtx.sb.apiKey },
    });
    expect(elsewhere.code, elsewhere.stderr).toBe(0);

    // This service: refused, the check command printed with the run's base URL.
    const refused = await payctl(createArgs(wallet, '42.00', ['--base-url', ctx.sb.baseUrl]), { dir: setup.dir });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`is missing: ${first}`);
    expect(refused.stderr).toContain(`payctl payouts list --base-url ${ctx.sb.baseUrl} --all`);

    // Sent with --allow-repeat: said, and the missing entry acknowledged.
    const allowed = await payctl(createArgs(wallet, '43.00', ['--allow-repeat']), { dir: setup.dir });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain('these missing entries are acknowledged');

    // Later payouts are not refused for it; history still names it.
    const later = await payctl(createArgs(wallet, '44.00'), { dir: setup.dir });
    expect(later.code, later.stderr).toBe(0);
    const history = await payctl(['history'], { dir: setup.dir });
    expect(history.stderr).toContain(`missing: ${first}`);
    // A repeat is caught again: the 24-hour guard works once more.
    const repeat = await payctl(createArgs(wallet, '44.00'), { dir: setup.dir });
    expect(repeat.code, repeat.stderr).toBe(2);
    expect(repeat.stderr).toContain('This payout repeats one sent from this config folder');
    expect(
      heldFrom(ctx.sb, wallet)
        .map((p) => p.amount_minor)
        .sort(),
    ).toEqual([4000n, 4300n, 4400n]);
  });
});
