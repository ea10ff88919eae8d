/**
 * A payout journaled without the id of the key that sent it (by a payctl before it kept one),
 * its answer lost, after its profile is logged in again with another account's key (probe 56-K
 * findings 1 and 5). Before, reconcile resent it with account B's key, read B's refusal
 * (WALLET_NOT_FOUND) and B's payout list as "no payout was made", and the payout retyped paid
 * twice; a batch resumed so was refused row by row as "not one of your wallets … Fix the rows
 * above". Now the run's account must hold the entry's wallet: else nothing is resent, searched
 * or recorded, the payout stays unknown, with the login of the key that sent it.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWithLostAnswer, heldFor, heldFrom, payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet } from '../helpers/sandbox.js';
import { KEY_A, KEY_B, useTwoAccounts } from '../helpers/two-accounts.js';
import { Journal } from '../../src/payouts/journal.js';

const t = useTwoAccounts();
const { a, b, seen, run } = t;
const HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';
const entry = t.entry;

const login = t.login;

/** Each of `ids` journaled as a payctl before key ids did: its keyId taken out, written through the ledger (which signs it). */
async function asOlderPayctl(ids: string[]): Promise<void> {
  const journal = new Journal(t.dir);
  for (const id of ids) {
    const e = await journal.get(t.base, id);
    expect(e?.keyId).toBeDefined();
    delete e!.keyId;
    await journal.put(e!);
    expect((await journal.get(t.base, id))?.keyId).toBeUndefined();
  }
}

/** Requests with account B's key that send or search payouts. */
const sentOrSearchedWithB = () => seen.filter((s) => s.key === 'B' && (s.method === 'POST' || s.path.includes('/payout')));

describe("a payout journaled without its key's id, reconciled with another account's key", () => {
  it('is never resent, searched or recorded with it; with the key that sent it, it is paid once', async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    const created = [...payoutArgs(wallet, randomUUID()), '--profile', 'teama'];
    const id = await createWithLostAnswer(a.sb, run, created);
    await asOlderPayctl([id]);
    const unknown = (await entry(id))?.outcome;
    expect(unknown?.kind).toBe('unknown');
    await login('teama', KEY_B);
    seen.length = 0;
    const why = `API key does not hold wallet ${wallet}, which payout ${id} was sent from`;
    const relogin = `log a profile in with the API key that sent it: payctl login --profile teama --base-url ${t.base}; then, with it: payctl history reconcile --profile teama --payout-id ${id}`;

    // Before: resent with B's key, refused (WALLET_NOT_FOUND), B's list searched, recorded "no payout was made".
    const bare = await run(['history', 'reconcile', '--profile', 'teama']);
    expect(bare.code, bare.stdout + bare.stderr).toBe(4);
    expect(bare.stdout).toContain(why);
    expect(bare.stdout).toContain(relogin);
    for (const more of [[], ['--resend', '--yes'], ['--made-by', 'TXN-BOK-0123456789ABCDEF0123456789']]) {
      const named = await run(['history', 'reconcile', '--profile', 'teama', '--payout-id', id, ...more]);
      expect(named.code, named.stderr).toBe(2);
      expect(named.stderr).toContain(why);
      expect(named.stderr).toContain(`payctl login --profile teama --base-url ${t.base}`);
    }
    // Run again with its payout id: refused for the key, not for the wallet's row.
    const again = await run(created);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(why);
    expect(sentOrSearchedWithB()).toEqual([]);
    expect((await entry(id))?.outcome).toEqual(unknown);

    // With the key that sent it: resent with its idempotency key, the first attempt's payout; one at account A.
    await login('teama', KEY_A);
    const done = await run(['history', 'reconcile', '--profile', 'teama']);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain('resent with its journaled idempotency key');
    expect((await entry(id))?.outcome?.kind).toBe('accepted');
    expect(heldFrom(a.sb, wallet)).toHaveLength(1);
    expect(heldFor(b.sb, id)).toHaveLength(0);
  });

  it('a resend refused as not its wallet is left unknown, never "no payout was made", whatever key sent it', async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    // Its answer lost before the sandbox made it: the payout list has none.
    a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
    const id = randomUUID();
    const first = await run([...payoutArgs(wallet, id), '--profile', 'teama']);
    a.sb.faults.clear();
    expect(first.code, first.stderr).toBe(4);
    // The wallet refused (another account's sign), by a service or gateway that says so.
    a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 422, code: 'WALLET_NOT_FOUND', message: `Wallet "${wallet}" does not exist.` });
    const r = await run(['history', 'reconcile', '--profile', 'teama']);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stdout).toContain("that wallet is not this API key's account's");
    expect(r.stdout).not.toContain('no payout was made');
    expect((await entry(id))?.outcome?.kind).toBe('unknown');
  });
});

describe("a batch journaled without its key's id, resumed with another account's key", () => {
  it('leaves its unknown rows to the key that sent them: exit 4, the resume named, nothing sent', async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    const file = join(t.dir, 'pay.csv');
    writeFileSync(file, HEADER + [1, 2, 3].map((i) => `u-${i},${wallet},3${i}.00,SLE,bank,Ibrahim,ecobank,0011223344,,row${i}`).join('\n') + '\n');
    a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const first = await run(['payout', 'batch', file, '--profile', 'teama', '--batch-id', 'nov1', '--yes', '--concurrency', '1']);
    a.sb.faults.clear();
    expect(first.code, first.stderr).toBe(4);
    await asOlderPayctl(['u-1', 'u-2', 'u-3']);
    await login('teama', KEY_B);
    seen.length = 0;

    // Before: "row 2: wallet_id … is not one of your wallets … Fix the rows above", exit 2.
    const resumed = await run(['payout', 'batch', file, '--profile', 'teama', '--batch-id', 'nov1', '--yes', '--concurrency', '1']);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(4);
    expect(resumed.stderr).not.toContain('Fix the rows above');
    expect(resumed.stderr).toContain(`does not hold wallet ${wallet}`);
    expect(resumed.stderr).toContain(`payctl payout batch ${file} --profile teama --batch-id nov1`);
    expect(sentOrSearchedWithB()).toEqual([]);
    for (const id of ['u-1', 'u-2', 'u-3']) expect((await entry(id))?.outcome?.kind).toBe('unknown');
    expect(heldFrom(a.sb, wallet)).toHaveLength(3);
  });
});
