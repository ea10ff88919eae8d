/**
 * `history reconcile` acts on a payout of unknown outcome only with the profile that sent it
 * (probe 54-H finding 1). Two profiles, teama and teamb, log in to one base URL with the keys of
 * two accounts: a node:http front routes each key to a sandbox of its own (two accounts of one
 * service), over real HTTP. Before: `history reconcile --profile teamb` resent teama's payout
 * under teamb's key, the other account refused it ("wallet id is invalid"), its empty payout
 * list was searched, and the payout was recorded "refused … no payout was made" (exit 0): the
 * retype then paid it twice. Now it is left unknown, with the command of the profile that sent
 * it, which resolves it as printed; named (--payout-id, --resend, --made-by) it is refused.
 * One journaled without its profile is left by a run over every payout, with its --payout-id
 * command; so is one sent with a key from PAYCTL_API_KEY, or by a run whose key is from it, and
 * named, its resend refused is left unknown (probe 55-R finding 1). Without a default profile, the hint prints one --profile per sending profile and base URL.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { printed } from '../helpers/printed.js';
import { bankPayoutRequest, heldFor, payoutArgs } from '../helpers/payout-fixtures.js';
import { freshWallet } from '../helpers/sandbox.js';
import { KEY_A, KEY_B, useTwoAccounts } from '../helpers/two-accounts.js';
import { Journal } from '../../src/payouts/journal.js';
import { payoutBody } from '../../src/payouts/request.js';

const t = useTwoAccounts();
const { a, b, seen, run } = t;

/** A payout sent with teama whose every attempt was dropped before account A made it: unknown. */
async function lostByTeamA(): Promise<string> {
  const id = randomUUID();
  a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
  const r = await run([...payoutArgs(freshWallet(a.sb, '10000.00'), id), '--profile', 'teama']);
  a.sb.faults.clear();
  expect(r.code, r.stderr).toBe(4);
  seen.length = 0;
  return id;
}

const outcome = async (id: string) => (await new Journal(t.dir).get(t.base, id))?.outcome;
const postsWith = t.postsWith;

describe("another profile's payout of unknown outcome", () => {
  it('reconcile --profile teamb leaves it unknown, sends nothing with its key; the printed --profile teama command resolves it once', async () => {
    const id = await lostByTeamA();
    const r = await run(['history', 'reconcile', '--profile', 'teamb']);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    // Before: resent with teamb's key, refused by account B, "refused … no payout was made", exit 0.
    expect(seen).toEqual([]);
    expect(r.stdout).not.toContain('no payout was made');
    expect(r.stdout).toContain(`unknown   ${id}  not resent: sent with profile teama`);
    expect((await outcome(id))?.kind).toBe('unknown');
    const again = printed(r.stdout, 'history reconcile');
    expect(again).toEqual(['history', 'reconcile', '--profile', 'teama', '--payout-id', id]);

    const done = await run(again);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain(`accepted  ${id}  resent with its journaled idempotency key`);
    expect(postsWith('B')).toBe(0);
    expect(heldFor(a.sb, id)).toHaveLength(1);
    expect(heldFor(b.sb, id)).toHaveLength(0);
    expect((await outcome(id))?.kind).toBe('accepted');
  });

  it('named under teamb (--payout-id, --resend, --made-by) it is refused, exit 2, nothing sent or recorded', async () => {
    const id = await lostByTeamA();
    for (const more of [[], ['--resend', '--yes'], ['--made-by', 'TXN-BOK-0123456789ABCDEF0123456789']]) {
      const r = await run(['history', 'reconcile', '--profile', 'teamb', '--payout-id', id, ...more]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`ayout ${id} was sent with profile teama, not with this run's profile (teamb)`);
      const cmd = printed(r.stderr, 'history reconcile');
      expect(cmd.slice(0, 6)).toEqual(['history', 'reconcile', '--profile', 'teama', '--payout-id', id]);
    }
    expect(seen).toEqual([]);
    expect((await outcome(id))?.kind).toBe('unknown');
  });

  it("payout get under teamb names teama's reconcile, which works as printed", async () => {
    const id = await lostByTeamA();
    const g = await run(['payout', 'get', id, '--profile', 'teamb']);
    expect(g.code, g.stderr).toBe(4);
    const cmd = printed(g.stderr, 'history reconcile');
    expect(cmd).toEqual(['history', 'reconcile', '--profile', 'teama', '--payout-id', id]);
    expect((await run(cmd)).code).toBe(0);
    expect(heldFor(a.sb, id)).toHaveLength(1);
  });
});

describe('a payout journaled without the profile that sent it (an older payctl)', () => {
  it('a run over every payout leaves it unknown with its --payout-id command; named, it is resolved with the run profile', async () => {
    const req = bankPayoutRequest(freshWallet(a.sb, '10000.00'), '0011223344');
    // Journaled as an older payctl did: no profile, no answer recorded.
    await new Journal(t.dir).begin({ baseUrl: t.base, payoutId: req.payoutId, body: payoutBody(req), now: new Date() });
    const r = await run(['history', 'reconcile', '--profile', 'teama']);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(seen).toEqual([]);
    expect(r.stdout).toContain(`unknown   ${req.payoutId}  not resent: whose key sent it is not known`);
    const named = printed(r.stdout, 'history reconcile');
    expect(named).toEqual(['history', 'reconcile', '--profile', 'teama', '--payout-id', req.payoutId]);
    const done = await run(named);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(heldFor(a.sb, req.payoutId)).toHaveLength(1);
  });
});

describe('no default profile: one --profile per sending profile and base URL as journaled', () => {
  it('fk at 127.0.0.1 and fk2 at localhost: two commands, each resolving only its own payout', async () => {
    const port = new URL(t.base).port;
    const local = `http://localhost:${port}/v2`;
    for (const [profile, url] of [
      ['fk', t.base],
      ['fk2', local],
    ] as const) {
      const r = await payctl(['login', '--api-key-stdin', '--base-url', url, '--profile', profile], { dir: t.dir, input: (profile === 'fk' ? KEY_A : KEY_B) + '\n' });
      expect(r.code, r.stderr).toBe(0);
    }
    for (const [profile, sb, id] of [
      ['fk', a.sb, 'lie-1'],
      ['fk2', b.sb, 'lie-2'],
    ] as const) {
      sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
      const lost = await run([...payoutArgs(freshWallet(sb, '10000.00'), id), '--profile', profile]);
      sb.faults.clear();
      expect(lost.code, lost.stderr).toBe(4);
    }
    seen.length = 0;
    const r = await run(['history', 'reconcile']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`1 payout (lie-1) for ${t.base} (sent with profile fk)`);
    expect(r.stderr).toContain(`1 payout (lie-2) for ${local} (sent with profile fk2)`);
    const cmds = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('Reconcile it with: '))
      .map((l) => l.slice(l.indexOf('payctl ')))
      .sort();
    // Before: one line, "2 payouts for http://localhost:…/v2 (sent with profile fk2, fk)", and only --profile fk2.
    expect(cmds).toEqual(['payctl history reconcile --profile fk', 'payctl history reconcile --profile fk2']);
    const fk2 = await run(['history', 'reconcile', '--profile', 'fk2']);
    expect(fk2.stdout).toContain('unknown   lie-1  not resent: sent with profile fk,');
    expect(fk2.code, fk2.stderr).toBe(4);
    expect(seen.filter((q) => q.method === 'POST')).toEqual([{ key: 'B', method: 'POST', path: '/v2/payout' }]);
    expect(heldFor(b.sb, 'lie-2')).toHaveLength(1);
    expect(heldFor(a.sb, 'lie-1')).toHaveLength(0);
    expect((await run(['history', 'reconcile', '--profile', 'fk'])).code).toBe(0);
    expect(heldFor(a.sb, 'lie-1')).toHaveLength(1);
  });
});

describe('a payout sent with --base-url and a key from PAYCTL_API_KEY (probe 55-R finding 1)', () => {
  const withKey = (key: string, args: string[]): Promise<Run> =>
    payctl([...args, '--base-url', t.base], { dir: t.dir, clock: new TestClock(), env: { PAYCTL_API_KEY: key } });

  it("another key's run leaves it unknown, and refuses it named (journaled with key A's id); the sending key resolves it", async () => {
    const id = randomUUID();
    a.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
    // An amount no other payout of either account has: account B's list then holds none that could be it.
    const args = payoutArgs(freshWallet(a.sb, '10000.00'), id).map((v) => (v === '1500.50' ? '1234.57' : v));
    const lost = await withKey(KEY_A, args);
    a.sb.faults.clear();
    expect(lost.code, lost.stderr).toBe(4);
    seen.length = 0;

    // Journaled as the run's profile ("default", none logged in): before, taken for this run's own and resent with key B.
    // Journaled with the id of key A, it is known not to be key B's: left unknown, with what to run it with.
    const bare = await withKey(KEY_B, ['history', 'reconcile']);
    expect(bare.code, bare.stdout + bare.stderr).toBe(4);
    expect(seen).toEqual([]);
    expect(bare.stdout).toContain(`unknown   ${id}  not resent: sent with another API key than this run's; it was sent with a key from PAYCTL_API_KEY`);
    const command = printed(bare.stdout, 'history reconcile');
    expect(command.slice(command.indexOf('history'))).toEqual(['history', 'reconcile', '--base-url', t.base, '--payout-id', id]);

    // Named: refused, nothing sent with key B (before the key id, it was resent and account B's refusal left it unknown).
    const named = await withKey(KEY_B, ['history', 'reconcile', '--payout-id', id]);
    expect(named.code, named.stdout + named.stderr).toBe(2);
    expect(named.stdout + named.stderr).not.toContain('no payout was made');
    expect(named.stderr).toContain("was sent with another API key than this run's");
    expect(postsWith('B')).toBe(0);
    expect((await outcome(id))?.kind).toBe('unknown');

    const done = await withKey(KEY_A, ['history', 'reconcile', '--payout-id', id]);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(heldFor(a.sb, id)).toHaveLength(1);
    expect((await outcome(id))?.kind).toBe('accepted');
  });
});
