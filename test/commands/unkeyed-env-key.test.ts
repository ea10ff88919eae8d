/**
 * `payout create --payout-id` of a payout journaled by an older payctl (without the id of the key
 * that sent it) by profile teama, run again with another key in PAYCTL_API_KEY (probe K57 finding
 * 3). Before, the refusal printed teama's reconcile without "unset PAYCTL_API_KEY", and pasted as
 * printed in the same shell it was refused (the variable's key is sent in place of teama's). Now
 * the unset comes first, and the command after it resolves the payout.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { createWithLostAnswer, heldFor, payoutArgs } from '../helpers/payout-fixtures.js';
import { shellSplit } from '../helpers/pty.js';
import { freshWallet } from '../helpers/sandbox.js';
import { KEY_B, useTwoAccounts } from '../helpers/two-accounts.js';
import { Journal } from '../../src/payouts/journal.js';

const t = useTwoAccounts();
const { a, b, run } = t;
const entry = t.entry;

describe("payout create --payout-id of an older payctl's payout, another key in PAYCTL_API_KEY", () => {
  it('says to unset PAYCTL_API_KEY before the reconcile, which then works as printed', async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    const id = await createWithLostAnswer(a.sb, run, [...payoutArgs(wallet, randomUUID()), '--profile', 'teama']);
    const journal = new Journal(t.dir);
    const e = (await journal.get(t.base, id))!;
    delete e.keyId;
    await journal.put(e);

    const r = await payctl([...payoutArgs(wallet, id), '--base-url', t.base], { dir: t.dir, clock: new TestClock(), env: { PAYCTL_API_KEY: KEY_B } });
    expect(r.code, r.stderr).toBe(2);
    const hint = r.stderr.split('\n').find((l) => l.includes('payctl history reconcile'));
    expect(hint, r.stderr).toContain('unset PAYCTL_API_KEY');
    expect(hint).toContain(`payctl login --profile teama --base-url ${t.base}`);
    // The command after the unset (and the login, for a key no longer stored), pasted with the variable unset.
    const pasted = shellSplit(hint!.slice(hint!.lastIndexOf('payctl history reconcile')));
    expect(pasted).toContain('teama');
    const done = await run(pasted.slice(1));
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect((await entry(id))?.outcome?.kind).toBe('accepted');
    expect(heldFor(a.sb, id)).toHaveLength(1);
    expect(heldFor(b.sb, id)).toHaveLength(0);
  });
});
