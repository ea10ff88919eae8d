/**
 * The journal knows which key sent a payout, not only the profile's name: each entry keeps the id
 * of the key it was sent with (config/key-id.ts: a hash, never the key or any part of it), from
 * the profile or from PAYCTL_API_KEY. Two profiles, teama and teamb, log in to one base URL with
 * the keys of accounts A and B (test/helpers/two-accounts.ts).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet } from '../helpers/sandbox.js';
import { KEY_A, KEY_B, useTwoAccounts } from '../helpers/two-accounts.js';
import { Journal } from '../../src/payouts/journal.js';
import { keyIdOf } from '../../src/config/key-id.js';

const t = useTwoAccounts();
const { a, run } = t;
const HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';
const entry = (id: string) => new Journal(t.dir).get(t.base, id);

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
