/**
 * The journal knows which key sent a payout, not only the profile's name: each entry keeps the id
 * of the key it was sent with (config/key-id.ts: a hash, never the key or any part of it), from
 * the profile or from PAYCTL_API_KEY. Two profiles, teama and teamb, log in to one base URL with
 * the keys of accounts A and B (test/helpers/two-accounts.ts). Before, a profile logged in again
 * with account B's key was taken for the sender of account A's payouts, and a batch sent with
 * PAYCTL_API_KEY was resumed with the profile's key: resent to another account, or paid twice.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { createWithLostAnswer, heldFor, payoutArgs } from '../helpers/payout-fixtures.js';
import { printed } from '../helpers/printed.js';
import { freshWallet } from '../helpers/sandbox.js';
import { KEY_A, KEY_B, useTwoAccounts } from '../helpers/two-accounts.js';
import { keyIdOf } from '../../src/config/key-id.js';

const t = useTwoAccounts();
const { a, b, seen, run } = t;
const HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';
const entry = t.entry;

const login = t.login;

/** Requests that went out with that account's key since `seen` was emptied. */
const requestsWith = (key: 'A' | 'B') => seen.filter((s) => s.key === key);

/** Every file under `dir`, as text. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => readFileSync(f, 'utf8'));
}

describe('the id of the key that sent a payout, journaled', () => {
  it("payout create keeps its profile's key's id; a batch with PAYCTL_API_KEY keeps that key's; no key is written", async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    const id = randomUUID();
    const r = await run([...payoutArgs(wallet, id), '--profile', 'teama']);
    expect(r.code, r.stderr).toBe(0);
    expect((await entry(id))?.keyId).toBe(keyIdOf(KEY_A));

    const file = join(t.dir, 'pay.csv');
    writeFileSync(file, `${HEADER}k-1,${wallet},31.50,SLE,bank,Ada One,ecobank,0011223300,,\n`);
    // Account B's key under teama: the front sends it to account B, whose wallet this is too.
    t.b.sb.setWallet({ wallet_id: wallet, wallet_name: 'B', currency: 'SLE', balance: '10000.00' });
    const env = await payctl(['payout', 'batch', file, '--profile', 'teama', '--batch-id', 'k1', '--yes'], {
      dir: t.dir,
      clock: new TestClock(),
      env: { PAYCTL_API_KEY: KEY_B },
    });
    expect(env.code, env.stderr).toBe(0);
    expect(await entry('k-1')).toMatchObject({ profile: 'teama', keyFrom: 'env', keyId: keyIdOf(KEY_B) });
    expect(keyIdOf(KEY_A)).not.toBe(keyIdOf(KEY_B));
    expect(keyIdOf(KEY_A)).toMatch(/^[0-9a-f]{16}$/);
    // Neither key, nor a part of it, is in the journal.
    for (const text of filesUnder(join(t.dir, 'journal'))) {
      expect(text).not.toContain('accountA');
      expect(text).not.toContain('accountB');
    }
  });
});

describe("a profile logged in again with another account's key", () => {
  it("never resends, searches or records teama's payout with account B's key; logged in with A's key again, it is resolved", async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    // Account B has a wallet of that id too: the resend would pass the wallet check there.
    b.sb.setWallet({ wallet_id: wallet, wallet_name: 'B', currency: 'SLE', balance: '10000.00' });
    const id = randomUUID();
    const created = [...payoutArgs(wallet, id), '--profile', 'teama'];
    await createWithLostAnswer(a.sb, run, created);
    await login('teama', KEY_B);
    seen.length = 0;
    const advice = 'the API key that sent it is no longer stored under profile teama';
    const relogin = `payctl login --profile teama --base-url ${t.base}`;

    // Before: resent with B's key (refused as B's, "no payout was made" read from B's list), recorded rejected.
    const bare = await run(['history', 'reconcile', '--profile', 'teama']);
    expect(bare.code, bare.stdout + bare.stderr).toBe(4);
    expect(bare.stdout).toContain(advice);
    expect(bare.stdout).toContain(relogin);
    for (const more of [[], ['--resend', '--yes'], ['--made-by', 'TXN-BOK-0123456789ABCDEF0123456789']]) {
      const named = await run(['history', 'reconcile', '--profile', 'teama', '--payout-id', id, ...more]);
      expect(named.code, named.stderr).toBe(2);
      expect(named.stderr).toContain("was sent with another API key than this run's (under profile teama, which no longer holds that key)");
      expect(named.stderr).toContain(relogin);
      // After the login, the command of the profile that sent it (its line holds both).
      const tail = printed(named.stderr, 'history reconcile');
      expect(tail.slice(tail.indexOf('history'))).toEqual(['history', 'reconcile', '--profile', 'teama', '--payout-id', id, ...more.filter((m) => m !== '--yes')]);
    }
    // Typed again, with its payout id: refused, nothing sent; without it, held back as its repeat.
    const again = await run(created);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(advice);
    const typed = payoutArgs(wallet, id);
    typed.splice(typed.indexOf('--payout-id'), 2);
    const retyped = await run([...typed, '--profile', 'teama']);
    expect(retyped.code, retyped.stderr).toBe(2);
    expect(requestsWith('B').filter((r) => r.method === 'POST' || r.path.startsWith('/v2/payouts'))).toEqual([]);
    expect((await entry(id))?.outcome?.kind).toBe('unknown');
    expect(heldFor(b.sb, id)).toHaveLength(0);

    // With the key that sent it again, as printed: resolved, one payout at account A.
    await login('teama', KEY_A);
    const done = await run(['history', 'reconcile', '--profile', 'teama']);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect((await entry(id))?.outcome?.kind).toBe('accepted');
    expect(heldFor(a.sb, id)).toHaveLength(1);
    expect(heldFor(b.sb, id)).toHaveLength(0);
  });
});

describe('the same key under another profile', () => {
  it("is the payout's sender: teamc, logged in with teama's key, reconciles teama's payout", async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    const id = await createWithLostAnswer(a.sb, run, [...payoutArgs(wallet, randomUUID()), '--profile', 'teama']);
    await login('teamc', KEY_A);
    // Before: "sent with profile teama, not with this run's profile (teamc)", left unknown (exit 4).
    const r = await run(['history', 'reconcile', '--profile', 'teamc']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await entry(id))?.outcome?.kind).toBe('accepted');
    expect(heldFor(a.sb, id)).toHaveLength(1);
    expect(requestsWith('B')).toEqual([]);
  });
});

describe('a batch sent with PAYCTL_API_KEY, resumed without it', () => {
  it("leaves the rows account B's key sent to that key: not resent with teama's; resumed with it, they are resolved", async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    b.sb.setWallet({ wallet_id: wallet, wallet_name: 'B', currency: 'SLE', balance: '10000.00' });
    const file = join(t.dir, 'env.csv');
    writeFileSync(file, `${HEADER}e-1,${wallet},11.50,SLE,bank,Ada One,ecobank,0011223300,,\ne-2,${wallet},12.00,SLE,bank,Ben Two,ecobank,0011223301,,\n`);
    const withB = (args: string[]) => payctl(args, { dir: t.dir, clock: new TestClock(), env: { PAYCTL_API_KEY: KEY_B } });
    const args = ['payout', 'batch', file, '--profile', 'teama', '--batch-id', 'env1', '--yes'];
    b.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const lost = await withB(args);
    b.sb.faults.clear();
    expect(lost.code, lost.stderr).toBe(4);
    expect(heldFor(b.sb, 'e-1')).toHaveLength(1);
    seen.length = 0;

    // Before: resent with teama's key (account A): a second payout of each.
    const resumed = await run(args);
    expect(resumed.code, resumed.stderr).toBe(4);
    expect(requestsWith('A').filter((r) => r.method === 'POST')).toEqual([]);
    expect(resumed.stderr).toContain("were sent before with another API key than this run's (under profile teama)");
    expect(resumed.stderr).toContain('it was sent with a key from PAYCTL_API_KEY that profile teama does not hold');
    expect((await entry('e-1'))?.outcome?.kind).toBe('unknown');
    expect(heldFor(a.sb, 'e-1')).toHaveLength(0);

    const done = await withB(args);
    expect(done.code, done.stderr).toBe(0);
    for (const id of ['e-1', 'e-2']) {
      expect((await entry(id))?.outcome?.kind).toBe('accepted');
      expect(heldFor(b.sb, id)).toHaveLength(1);
      expect(heldFor(a.sb, id)).toHaveLength(0);
    }
  });
});
