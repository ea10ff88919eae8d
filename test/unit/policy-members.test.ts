/**
 * Four eyes bound to people (issue 27, README "Four eyes"), below the commands: the policy's
 * members by name and role (and the `makers`/`approvers` shorthands), the example policy of
 * docs/examples/policy.json loaded exactly as written, tiers no plan could meet refused with
 * the fix, approvals counted one per person and never the maker's (whatever keys they hold),
 * and splitting counted: approvalsNeeded against a real journal in a temp folder.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSigningKey, signText, type SigningKey } from '../../src/plans/keys.js';
import { approvalMessage, makePlan, type Plan } from '../../src/plans/plan.js';
import { approvalsNeeded, checkApprovals, examinePolicy, loadPolicy, type Policy } from '../../src/plans/policy.js';
import { Journal } from '../../src/payouts/journal.js';
import { canonicalPolicy } from '../../src/plans/team-policy.js';
import { payoutBody, validatePayout, type PayoutRequest } from '../../src/payouts/request.js';

const NOW = new Date('2026-11-25T10:00:00.000Z');
const BASE = 'http://127.0.0.1:4010/v2';
const dir = () => mkdtempSync(join(tmpdir(), 'payctl-members-'));

function key(name: string): SigningKey {
  const d = dir();
  return createSigningKey(d, name, { PAYCTL_CONFIG_DIR: d }, NOW);
}

function policyFile(content: unknown): string {
  const file = join(dir(), 'policy.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

function problemsOf(content: unknown): string[] {
  return examinePolicy(policyFile(content)).problems;
}

let n = 0;
function request(over: Record<string, string> = {}): PayoutRequest {
  const r = validatePayout({
    payoutId: `po-${++n}`,
    walletId: 'wal_1',
    amount: '300',
    currency: 'SLE',
    type: 'wallet',
    name: 'Fatmata Sesay',
    provider: 'orange_money',
    account: '076123456',
    phone: '+23276123456',
    ...over,
  });
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.request;
}

function planBy(maker: SigningKey, amount: string): Plan {
  return makePlan({
    baseUrl: BASE,
    batchId: null,
    source: 'payout create',
    now: NOW,
    maker,
    payouts: [{ request: request({ amount }), idempotencyKey: '3f0c6a2e-8d1b-4c55-9a77-0e5b2f1d9c40' }],
  });
}

function approve(p: Plan, k: SigningKey): Plan {
  const a = { name: k.name, public_key: k.publicKey, fingerprint: k.fingerprint, signed_at: NOW.toISOString() };
  return { ...p, approvals: [...p.approvals, { ...a, signature: signText(k, approvalMessage(p.hash, a)) }] };
}

const SLE_TIERS = {
  SLE: [
    { from: '1000', required: 1 },
    { over: '100000', required: 2 },
  ],
};

describe('the example policy', () => {
  it('docs/examples/policy.json loads exactly as written: a maker and two approvers, tiers in SLE', () => {
    const file = resolve(__dirname, '../../docs/examples/policy.json');
    const policy = loadPolicy(file);
    expect([...policy.members.values()].map((m) => [m.name, [...m.roles]])).toEqual([
      ['Mariama Kanu', ['maker']],
      ['Ibrahim Sesay', ['approver']],
      ['Aminata Kamara', ['approver']],
    ]);
    expect(policy.approvers.size).toBe(2);
    expect(policy.approvals.get('SLE')!.map((t) => [t.label, t.required])).toEqual([
      ['from 1000', 1],
      ['over 100000', 2],
    ]);
    expect(policy.maxPerPayout.get('SLE')).toBe(25_000_000n);
    expect(policy.dailyTotal.get('SLE')).toBe(100_000_000n);
  });

  it("the README's old example (one approver, a 2-approval tier) is refused naming the tier, who is listed and the fix", () => {
    const ibrahim = key('Ibrahim Sesay');
    const problems = problemsOf({ approvers: { 'Ibrahim Sesay': ibrahim.publicKey }, approvals: SLE_TIERS });
    expect(problems).toEqual([
      'approvals.SLE[1] (over 100000) asks 2 approvals, but only 1 approver is listed: Ibrahim Sesay. List 1 more approver in "members" (roles ["approver"]) or "approvers", or lower its "required" to 1',
    ]);
  });
});

describe('members by name and role', () => {
  const mariama = key('Mariama Kanu');
  const aminataLaptop = key('Aminata Kamara');
  const aminataOffice = key('Aminata Kamara');
  const ibrahim = key('Ibrahim Sesay');

  it('members, makers and approvers are merged by name: one person, several keys, both roles', () => {
    const policy = loadPolicy(
      policyFile({
        members: { 'Aminata Kamara': { keys: [aminataLaptop.publicKey], roles: ['maker'] } },
        makers: { 'Mariama Kanu': mariama.publicKey },
        approvers: { 'Aminata Kamara': [aminataOffice.publicKey], 'Ibrahim Sesay': ibrahim.publicKey },
      }),
    );
    const aminata = policy.members.get('Aminata Kamara')!;
    expect([...aminata.roles].sort()).toEqual(['approver', 'maker']);
    expect(aminata.fingerprints).toEqual([aminataLaptop.fingerprint, aminataOffice.fingerprint]);
    expect(policy.byKey.get(aminataLaptop.fingerprint)).toBe(aminata);
    expect(policy.byKey.get(aminataOffice.fingerprint)).toBe(aminata);
    expect(policy.members.get('Mariama Kanu')!.roles).toEqual(new Set(['maker']));
  });

  it('a name written two ways, a key given to two people, a bad role: refused, every problem at once', () => {
    const problems = problemsOf({
      members: { 'Aminata Kamara': { keys: [aminataLaptop.publicKey], roles: ['maker', 'boss'] } },
      makers: { 'aminata  kamara': aminataOffice.publicKey, 'Mariama Kanu': ibrahim.publicKey },
      approvers: { 'Ibrahim Sesay': ibrahim.publicKey },
    });
    expect(problems).toEqual([
      'members.Aminata Kamara.roles must list "maker", "approver" or both',
      "approvers.Ibrahim Sesay: the same key as Mariama Kanu's; a key belongs to one person",
    ]);
    expect(
      problemsOf({
        makers: { 'Aminata Kamara': aminataLaptop.publicKey },
        approvers: { 'aminata  kamara': aminataOffice.publicKey, 'Ibrahim Sesay': ibrahim.publicKey },
      }),
    ).toEqual(['approvers.aminata  kamara: "aminata  kamara" is written "Aminata Kamara" elsewhere; write one person\'s name the same way everywhere']);
  });

  it('a tier of N approvals needs N approvers other than any maker: a maker who also approves does not count for their own plans', () => {
    const problems = problemsOf({
      members: {
        'Aminata Kamara': { keys: [aminataLaptop.publicKey], roles: ['maker', 'approver'] },
        'Ibrahim Sesay': { keys: [ibrahim.publicKey], roles: ['approver'] },
      },
      approvals: SLE_TIERS,
    });
    expect(problems).toEqual([
      'approvals.SLE[1] (over 100000) asks 2 approvals, but a plan Aminata Kamara makes can get only 1 (the approvers are 2: Aminata Kamara, Ibrahim Sesay, and the maker cannot approve their own plan). List 1 more approver in "members" (roles ["approver"]) or "approvers", or lower its "required" to 1',
    ]);
  });
});

describe('approvals counted by person', () => {
  const maker = key('Mariama Kanu');
  const throwaway = key('Mariama Kanu');
  const aminataLaptop = key('Aminata Kamara');
  const aminataOffice = key('Aminata Kamara');
  const ibrahim = key('Ibrahim Sesay');
  const fatmata = key('Fatmata Conteh');
  const policy: Policy = loadPolicy(
    policyFile({
      members: {
        'Mariama Kanu': { keys: [maker.publicKey], roles: ['maker'] },
        'Aminata Kamara': { keys: [aminataLaptop.publicKey, aminataOffice.publicKey], roles: ['maker', 'approver'] },
        'Ibrahim Sesay': { keys: [ibrahim.publicKey], roles: ['approver'] },
        'Fatmata Conteh': { keys: [fatmata.publicKey], roles: ['approver'] },
      },
      approvals: SLE_TIERS,
    }),
  );

  it('a plan made with a key the policy does not list has no maker, and says so, whatever name the key gives itself', () => {
    const c = checkApprovals(approve(planBy(throwaway, '50000'), aminataLaptop), policy);
    expect(c.maker).toBeUndefined();
    expect(c.makerProblem).toMatch(/made with the key SHA256:\S+ \(calling itself "Mariama Kanu"\), which the policy .* does not list/);
    const listed = checkApprovals(planBy(maker, '50000'), policy);
    expect(listed.maker?.name).toBe('Mariama Kanu');
    expect(listed.makerProblem).toBeUndefined();
    const notMaker = checkApprovals(planBy(ibrahim, '50000'), policy);
    expect(notMaker.makerProblem).toMatch(/made by Ibrahim Sesay .*who is not a maker/);
  });

  it('an approver cannot pass a plan they made with another of their keys; one person counts once whatever keys they sign with', () => {
    const own = checkApprovals(approve(planBy(aminataLaptop, '50000'), aminataOffice), policy);
    expect(own.maker?.name).toBe('Aminata Kamara');
    expect(own.valid).toEqual([]);
    expect(own.refused).toEqual([expect.stringContaining('Aminata Kamara made this plan (with another of their keys); the maker cannot approve their own plan')]);

    // Her second key's approval repeats her: left out, never a refusal of the plan (she did approve it, once).
    const twice = checkApprovals(approve(approve(planBy(maker, '150000'), aminataLaptop), aminataOffice), policy);
    expect(twice.valid.map((v) => v.name)).toEqual(['Aminata Kamara']);
    expect(twice.refused).toEqual([]);
    expect(twice.ignored).toEqual([
      `approval 2 (Aminata Kamara, ${aminataOffice.fingerprint}): Aminata Kamara approved already, with another of their keys (${aminataLaptop.fingerprint}); each person counts once, whatever keys they hold (left out: it does not stop the plan)`,
    ]);
    // One key's second approval (no command writes one) still refuses it, also after her other key's.
    const again = checkApprovals(approve(approve(approve(planBy(maker, '150000'), aminataLaptop), aminataOffice), aminataOffice), policy);
    expect(again.valid.map((v) => v.name)).toEqual(['Aminata Kamara']);
    expect(again.ignored).toHaveLength(1);
    expect(again.refused).toEqual([
      expect.stringMatching(/^approval 3 \(Aminata Kamara, SHA256:[^)]+\): Aminata Kamara approved already; each person counts once, whatever keys they hold$/),
    ]);
  });

  it('a 2-approval tier needs two listed people other than the maker', async () => {
    const plan = planBy(aminataLaptop, '150000');
    const journal = new Journal(dir());
    expect((await approvalsNeeded(policy, [request({ amount: '150000' })], journal, BASE, NOW)).required).toBe(2);
    const one = checkApprovals(approve(approve(plan, aminataOffice), ibrahim), policy);
    expect(one.valid.map((v) => v.name)).toEqual(['Ibrahim Sesay']);
    const two = checkApprovals(approve(approve(plan, ibrahim), fatmata), policy);
    expect(two.valid.map((v) => v.name)).toEqual(['Ibrahim Sesay', 'Fatmata Conteh']);
    expect(two.refused).toEqual([]);
  });
});

describe('splitting counted (approvalsNeeded)', () => {
  const policy = loadPolicy(
    policyFile({ approvers: { 'Ibrahim Sesay': key('Ibrahim Sesay').publicKey, 'Fatmata Conteh': key('Fatmata Conteh').publicKey }, approvals: SLE_TIERS }),
  );

  /** A payout journaled as sent at `at`, with the outcome `kind`. */
  async function sent(journal: Journal, r: PayoutRequest, at: Date, kind: 'accepted' | 'rejected' | 'unknown' = 'accepted'): Promise<void> {
    const entry = await journal.begin({ baseUrl: BASE, payoutId: r.payoutId, body: payoutBody(r), now: at });
    const when = at.toISOString();
    await journal.record(
      entry,
      kind === 'accepted'
        ? { kind, status: 201, transactionId: `tx-${r.payoutId}`, fee: undefined, replayed: false, at: when }
        : kind === 'rejected'
          ? { kind, status: 422, code: 'INVALID', message: 'no', at: when }
          : { kind, reason: 'time-out', at: when },
    );
  }

  it('five payouts of 300 to one account on one day: the fourth crosses 1,000 and needs approval, and so does the fifth', async () => {
    const folder = dir();
    const journal = new Journal(folder);
    const needs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = request();
      const need = await approvalsNeeded(policy, [r], journal, BASE, NOW);
      needs.push(need.required);
      if (i === 3)
        expect(need.reasons).toEqual([
          `1 approval: from wallet wal_1 to account 076123456 (wallet, orange_money) today: 1,200.00 SLE with this payout (900.00 SLE sent earlier today from this config folder (${folder})), which is from 1000 (policy approvals.SLE; payouts to one account in one UTC day are counted together)`,
        ]);
      await sent(journal, r, new Date(NOW.getTime() + i * 60_000));
    }
    expect(needs).toEqual([0, 0, 0, 1, 1]);
  });

  it('an unknown outcome counts (it may have been paid); rejected ones, other days, other accounts, wallets and services do not', async () => {
    const journal = new Journal(dir());
    await sent(journal, request({ amount: '999.99' }), new Date('2026-11-24T23:59:59.000Z'));
    await sent(journal, request({ amount: '999.99' }), NOW, 'rejected');
    await sent(journal, request({ amount: '999.99', account: '076999999' }), NOW);
    await sent(journal, request({ amount: '999.99', walletId: 'wal_2' }), NOW);
    await sent(journal, request({ amount: '999.99', provider: 'afrimoney' }), NOW);
    const elsewhere = request({ amount: '999.99' });
    const e = await journal.begin({ baseUrl: 'https://api.example.com/v2', payoutId: elsewhere.payoutId, body: payoutBody(elsewhere), now: NOW });
    await journal.record(e, { kind: 'accepted', status: 201, transactionId: 'tx', fee: undefined, replayed: false, at: NOW.toISOString() });
    expect((await approvalsNeeded(policy, [request({ amount: '999.99' })], journal, BASE, NOW)).required).toBe(0);
    await sent(journal, request({ amount: '0.01' }), NOW, 'unknown');
    const need = await approvalsNeeded(policy, [request({ amount: '999.99' })], journal, BASE, NOW);
    expect(need.required).toBe(1);
    expect(need.reasons[0]).toContain('1,000.00 SLE with this payout (0.01 SLE sent earlier today');
  });

  it('the account written with spaces or dashes is the same account; a plan of several payouts counts them together with the day', async () => {
    const folder = dir();
    const journal = new Journal(folder);
    await sent(journal, request({ amount: '400' }), NOW);
    const need = await approvalsNeeded(
      policy,
      [request({ amount: '300', account: '076 123-456' }), request({ amount: '300', account: '076123456' })],
      journal,
      BASE,
      NOW,
    );
    expect(need.required).toBe(1);
    expect(need.reasons).toEqual([
      expect.stringContaining(`today: 1,000.00 SLE with its 2 payouts here (400.00 SLE sent earlier today from this config folder (${folder}))`),
    ]);
    // The payouts at hand are never counted twice, even when journaled already (a plan sent again).
    const again = request({ amount: '600' });
    await sent(journal, again, NOW);
    expect((await approvalsNeeded(policy, [again], journal, BASE, NOW)).reasons).toEqual([expect.stringContaining('today: 1,000.00 SLE with this payout (400.00 SLE')]);
  });
});

describe('a policy file with a key given twice in one object', () => {
  it('is refused, naming the key: a reader sees the first value, JSON keeps the last (a limit read as 250,000 enforced as 99,999,999)', () => {
    const file = join(dir(), 'policy.json');
    const example = readFileSync(resolve(__dirname, '../../docs/examples/policy.json'), 'utf8').trimEnd();
    writeFileSync(file, `${example.slice(0, -1)}, "max_per_payout": {"SLE": "99999999"}}`);
    expect(examinePolicy(file).problems).toEqual([
      'the key "max_per_payout" is given twice in one object: a reader sees the first value, and JSON keeps the last; give it once',
    ]);
    writeFileSync(file, '{"max_per_payout": {"SLE": "250000", "SLE": "99999999"}}');
    expect(examinePolicy(file).problems[0]).toContain('the key "SLE" is given twice');
    expect(canonicalPolicy('{"members":{},"members":{}}')).toEqual({ problem: expect.stringContaining('the key "members" is given twice') });
  });
});
