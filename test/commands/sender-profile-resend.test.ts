/**
 * A payout of unknown outcome is resent only with the profile that sent it, wherever it is resent
 * from (probe 55-R findings 2, 3 and 5). Two profiles, teama and teamb, log in to one base URL with
 * the keys of two accounts (a node:http front routes each key to a sandbox of its own, as in
 * reconcile-sender-profile.test.ts). Before: `payout batch … --profile teamb` resuming teama's
 * batch resent its unknown rows with teamb's key, account B refused them, and they were recorded
 * "rejected … none pays it" (a --failed-out command then paid them again). Now they are left
 * unknown, not sent, with the resume of teama. And a sending profile gone from the config is
 * never replaced by the run's own in a printed command: its login comes first, then its reconcile.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { printed } from '../helpers/printed.js';
import { heldFor, payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet } from '../helpers/sandbox.js';
import { KEY_A, useTwoAccounts } from '../helpers/two-accounts.js';
import { Journal } from '../../src/payouts/journal.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const t = useTwoAccounts();
const { a, b, seen, run } = t;

const outcome = async (id: string) => (await new Journal(t.dir).get(t.base, id))?.outcome;
const postsWith = t.postsWith;
const HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';

describe('payout batch resumed with another profile', () => {
  it("leaves teama's unknown rows unknown under teamb, sends none with its key; teama's printed resume finishes them", async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    // Account B has a wallet of that id too (as the probe's service answered it): the wallet check passes, the resend would not.
    b.sb.setWallet({ wallet_id: wallet, wallet_name: 'B', currency: 'SLE', balance: '10000.00' });
    const file = join(t.dir, 'pay.csv');
    writeFileSync(file, `${HEADER}p-1,${wallet},31.50,SLE,bank,Ada One,ecobank,0011223300,,\np-2,${wallet},32.00,SLE,bank,Ben Two,ecobank,0011223301,,\n`);
    a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
    const lost = await run(['payout', 'batch', file, '--profile', 'teama', '--batch-id', 'nov1', '--yes']);
    a.sb.faults.clear();
    expect(lost.code, lost.stderr).toBe(4);
    seen.length = 0;

    const r = await run(['payout', 'batch', file, '--profile', 'teamb', '--batch-id', 'nov1', '--yes']);
    expect(r.code, r.stderr).toBe(4);
    // Before: both sent with teamb's key, refused by account B, recorded "rejected … none pays it", exit 1.
    expect(postsWith('B')).toBe(0);
    expect(r.stderr).not.toContain('rejected:');
    expect(r.stderr).not.toContain('--failed-out');
    expect((await outcome('p-1'))?.kind).toBe('unknown');
    expect((await outcome('p-2'))?.kind).toBe('unknown');
    expect(r.stderr).toContain("2 payouts (rows 2, 3) were sent before with profile teama, not with this run's profile (teamb)");
    const resume = printed(r.stderr, 'payout batch');
    expect(resume).toEqual(['payout', 'batch', file, '--profile', 'teama', '--batch-id', 'nov1']);

    const done = await run([...resume, '--yes']);
    expect(done.code, done.stderr).toBe(0);
    expect(postsWith('B')).toBe(0);
    expect(heldFor(a.sb, 'p-1')).toHaveLength(1);
    expect(heldFor(a.sb, 'p-2')).toHaveLength(1);
    expect(heldFor(b.sb, 'p-1')).toHaveLength(0);
  });
});

describe('the profile that sent it is gone from the config', () => {
  it("no printed command names the run's profile: teama's login, then its reconcile; named under teamb, refused", async () => {
    const id = randomUUID();
    a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
    const lost = await run([...payoutArgs(freshWallet(a.sb, '10000.00'), id), '--profile', 'teama']);
    a.sb.faults.clear();
    expect(lost.code, lost.stderr).toBe(4);
    seen.length = 0;
    const path = join(t.dir, 'config.json');
    const cfg = JSON.parse(readFileSync(path, 'utf8')) as { profiles: Record<string, unknown> };
    delete cfg.profiles.teama;
    writeFileSync(path, JSON.stringify(cfg));

    const login = `payctl login --profile teama --base-url ${t.base}`;
    const bare = await run(['history', 'reconcile']);
    expect(bare.code, bare.stderr).toBe(4);
    // Before: "Reconcile it with: payctl history reconcile --profile teamb --payout-id …" (another account's key).
    expect(bare.stderr).not.toContain('--profile teamb');
    expect(bare.stderr).toContain(login);
    expect(printed(bare.stderr, 'history reconcile')).toEqual(['history', 'reconcile', '--profile', 'teama', '--payout-id', id]);
    // The login carries the run's time limit, as every printed command does.
    const timed = await run(['history', 'reconcile', '--timeout', '20']);
    expect(printed(timed.stderr, 'login')).toEqual(['login', '--profile', 'teama', '--base-url', t.base, '--timeout', '20']);

    const get = await run(['payout', 'get', id, '--profile', 'teamb']);
    expect(get.code, get.stderr).toBe(4);
    expect(get.stderr).not.toContain('reconcile --profile teamb');
    expect(get.stderr).toContain(login);

    const own = await run(['history', 'reconcile', '--profile', 'teamb']);
    expect(own.code, own.stdout + own.stderr).toBe(4);
    expect(own.stdout).not.toContain('--profile teamb');
    expect(own.stdout).toContain(login);

    // Before: resent with teamb's key, "no payout was made", recorded rejected.
    const named = await run(['history', 'reconcile', '--profile', 'teamb', '--payout-id', id]);
    expect(named.code, named.stderr).toBe(2);
    expect(named.stderr).toContain(login);
    expect(seen).toEqual([]);
    expect((await outcome(id))?.kind).toBe('unknown');
  });
});

describe('payout create --payout-id run again with another profile', () => {
  it("refuses teama's payout of unknown outcome under teamb (exit 2, nothing sent with its key); teama's printed reconcile settles it", async () => {
    const id = randomUUID();
    const wallet = freshWallet(a.sb, '10000.00');
    b.sb.setWallet({ wallet_id: wallet, wallet_name: 'B', currency: 'SLE', balance: '10000.00' });
    a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
    const lost = await run([...payoutArgs(wallet, id), '--profile', 'teama']);
    a.sb.faults.clear();
    expect(lost.code, lost.stderr).toBe(4);
    seen.length = 0;

    // Before: resent with teamb's key (account B), under the payout's journaled key.
    const again = await run([...payoutArgs(wallet, id), '--profile', 'teamb']);
    expect(again.code, again.stderr).toBe(2);
    expect(postsWith('B')).toBe(0);
    expect(again.stderr).toContain("was sent with profile teama, not with this run's profile (teamb)");
    expect((await outcome(id))?.kind).toBe('unknown');
    const settle = await run(printed(again.stderr, 'history reconcile'));
    expect(settle.code, settle.stderr).toBe(0);
    expect(postsWith('B')).toBe(0);
    expect(heldFor(a.sb, id)).toHaveLength(1);
  });
});

describe('payout batch sent with a key from PAYCTL_API_KEY', () => {
  it('journals each row as sent with such a key, so no profile is taken for its sender', async () => {
    const wallet = freshWallet(a.sb, '10000.00');
    const file = join(t.dir, 'env.csv');
    writeFileSync(file, `${HEADER}e-1,${wallet},11.50,SLE,bank,Ada One,ecobank,0011223300,,\n`);
    a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
    const lost = await payctl(['payout', 'batch', file, '--base-url', t.base, '--batch-id', 'env1', '--yes'], {
      dir: t.dir,
      clock: new TestClock(),
      env: { PAYCTL_API_KEY: KEY_A },
    });
    a.sb.faults.clear();
    expect(lost.code, lost.stderr).toBe(4);
    const entry = await new Journal(t.dir).get(t.base, 'e-1');
    // Before: no mark, and the row passed for the `default` profile's own.
    expect(entry?.keyFrom).toBe('env');
    seen.length = 0;
    const bare = await run(['history', 'reconcile', '--profile', 'teamb']);
    expect(bare.code, bare.stderr).toBe(4);
    expect(postsWith('B')).toBe(0);
  });
});
