/**
 * What payctl prints about a payout of unknown outcome sent with another profile's key, and the
 * runs with PAYCTL_API_KEY around it (probe 56-K): each printed command, pasted back as printed,
 * is not refused. Two profiles, teama and teamb, log in to one base URL with the keys of accounts
 * A and B (test/helpers/two-accounts.ts); account B holds a wallet of the same id as A's, so that
 * payctl's own key checks are what is tested, not the service's wallet check.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { createWithLostAnswer, heldFor, payoutArgs } from '../helpers/payout-fixtures.js';
import { printed } from '../helpers/printed.js';
import { freshWallet } from '../helpers/sandbox.js';
import { KEY_A, KEY_B, useTwoAccounts } from '../helpers/two-accounts.js';
import { readProfiles, writeProfiles } from '../helpers/e2e.js';

const t = useTwoAccounts();
const { a, b, run } = t;
const entry = t.entry;

/** payctl in this test's folder with PAYCTL_API_KEY set to `key`. */
const withKey = (key: string, args: string[]) => payctl(args, { dir: t.dir, clock: new TestClock(), env: { PAYCTL_API_KEY: key } });

/** A wallet of account A, which account B holds an id of too; teama's payout from it, its answer lost (exit 4): its args without --payout-id, and its id. */
async function lostByTeama(): Promise<{ typed: string[]; id: string }> {
  const wallet = freshWallet(a.sb, '10000.00');
  b.sb.setWallet({ wallet_id: wallet, wallet_name: 'B', currency: 'SLE', balance: '10000.00' });
  const id = await createWithLostAnswer(a.sb, run, [...payoutArgs(wallet, randomUUID()), '--profile', 'teama']);
  const typed = payoutArgs(wallet, id);
  typed.splice(typed.indexOf('--payout-id'), 2);
  return { typed, id };
}

/** teama's key moved, as the config file says, to an OS keyring, which cannot be reached here (no D-Bus): its key cannot be read. */
function teamaInUnreachableKeyring(): void {
  const profiles = readProfiles(t.dir);
  const { apiKey: _key, ...teama } = profiles.teama!;
  writeProfiles(t.dir, { ...profiles, teama: { ...teama, secrets: 'keyring' } });
}

/** The reconcile the repeat guard printed (exit 2, nothing sent), run back as printed (without PAYCTL_API_KEY): teama's payout resolved, paid once at account A. */
async function settlesAsPrinted(refusal: { code: number | null; stderr: string }, id: string): Promise<void> {
  expect(refusal.code, refusal.stderr).toBe(2);
  expect(refusal.stderr).toContain('Settle that one first');
  const pasted = printed(refusal.stderr, 'history reconcile');
  expect(pasted).toContain('teama');
  const r = await run(pasted);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect((await entry(id))?.outcome?.kind).toBe('accepted');
  expect(heldFor(a.sb, id)).toHaveLength(1);
  expect(heldFor(b.sb, id)).toHaveLength(0);
}

describe("payout create's repeat guard, over teama's payout of unknown outcome (probe 56-K finding 2)", () => {
  it("typed again under teamb: prints teama's reconcile (before, teamb's, refused when pasted)", async () => {
    const { typed, id } = await lostByTeama();
    await settlesAsPrinted(await run([...typed, '--profile', 'teamb']), id);
  });

  it("typed again with account A's key in PAYCTL_API_KEY and --base-url: teama's reconcile, which works with the variable unset", async () => {
    const { typed, id } = await lostByTeama();
    await settlesAsPrinted(await withKey(KEY_A, [...typed, '--base-url', t.base]), id);
  });

  it("typed again with account B's key in PAYCTL_API_KEY and --base-url: unset it, then teama's reconcile", async () => {
    const { typed, id } = await lostByTeama();
    const r = await withKey(KEY_B, [...typed, '--base-url', t.base]);
    expect(r.stderr).toContain('unset PAYCTL_API_KEY; then: payctl history reconcile --profile teama');
    await settlesAsPrinted(r, id);
  });
});

describe("teama's payout, its key in an OS keyring that cannot be reached, reconciled under teamb (probe 56-K finding 3)", () => {
  it('says that key cannot be read, with the keyring fix, never that teama was logged in again with another key', async () => {
    const { id } = await lostByTeama();
    teamaInUnreachableKeyring();
    const fix = "unlock or start the OS keyring, or keep this profile's key in the config file (mode 0600) instead: payctl login --profile teama --insecure-storage";

    const all = await run(['history', 'reconcile', '--profile', 'teamb']);
    expect(all.code, all.stdout + all.stderr).toBe(4);
    expect(all.stdout).toContain('the API key of profile teama cannot be read (in the OS keyring, which cannot be reached (');
    expect(all.stdout).toContain(fix);
    const named = await run(['history', 'reconcile', '--profile', 'teamb', '--payout-id', id]);
    expect(named.code, named.stderr).toBe(2);
    expect(named.stderr).toContain('(under profile teama, whose own key cannot be read)');
    expect(named.stderr).toContain(fix);
    for (const out of [all.stdout, named.stderr]) {
      expect(out).not.toContain('logged in again');
      expect(out).not.toContain('no longer');
    }
    expect(t.postsWith('B')).toBe(0);
    expect((await entry(id))?.outcome?.kind).toBe('unknown');

    // The fix as printed (the key typed again, kept in the file), then the command: resolved, paid once.
    const login = await payctl(['login', '--profile', 'teama', '--insecure-storage', '--api-key-stdin'], { dir: t.dir, input: KEY_A + '\n' });
    expect(login.code, login.stderr).toBe(0);
    // The command after the login on its line (`…; then: payctl history reconcile …`).
    const tail = printed(named.stderr, 'history reconcile');
    const r = await run(tail.slice(tail.indexOf('history')));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(heldFor(a.sb, id)).toHaveLength(1);
  });
});

describe("PAYCTL_API_KEY with --profile teama, teama's key in an OS keyring that cannot be reached (probe 56-K finding 4)", () => {
  it("holding the key that sent it: teama's stored key is not read, and the payout is resolved; every other check stays", async () => {
    const { id } = await lostByTeama();
    teamaInUnreachableKeyring();
    const named = ['history', 'reconcile', '--profile', 'teama', '--payout-id', id];
    // Without the variable, teama's key is needed, and cannot be read: refused as before, nothing sent.
    const bare = await run(named);
    expect(bare.code, bare.stderr).toBe(2);
    expect(bare.stderr).toContain('The API key of profile "teama" is in the OS keyring, which cannot be reached');
    // Account B's key in it: not the key that sent it, refused (exit 2), nothing sent with it.
    const other = await withKey(KEY_B, named);
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toContain("was sent with another API key than this run's");
    expect(t.postsWith('B')).toBe(0);
    expect((await entry(id))?.outcome?.kind).toBe('unknown');

    // Before: refused with the keyring error (exit 2), though the stored key would not be sent.
    const r = await withKey(KEY_A, named);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await entry(id))?.outcome?.kind).toBe('accepted');
    expect(heldFor(a.sb, id)).toHaveLength(1);
    expect(heldFor(b.sb, id)).toHaveLength(0);
  });

  it('a key refused by the service: names the stored key by where it is, without reading it', async () => {
    teamaInUnreachableKeyring();
    const r = await withKey('sk_test_nobody_0123456789abcdef', ['balances', '--profile', 'teama']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`PAYCTL_API_KEY was refused: set a valid key, or unset it to use profile "teama"'s stored key (in the OS keyring).`);
  });
});
