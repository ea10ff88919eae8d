/**
 * Four eyes, below the commands: the canonical form that plan hashes are made over (key
 * order, number literals, Unicode), Ed25519 keys and signatures, plans read back whole or
 * refused, approvals counted under a policy, and the policy's tiers and limits. Signing key
 * files others could read are refused, like ssh (src/plans/keys.ts).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, CanonicalError } from '../../src/plans/canonical.js';
import { createSigningKey, fingerprintOf, loadSigningKey, publicKeyBytes, signText, verifyText, type SigningKey } from '../../src/plans/keys.js';
import { approvalMessage, makePlan, makerMessage, planHash, planText, readPlan, type Plan } from '../../src/plans/plan.js';
import { brokenApprovals, checkApprovals, currencyTotals, loadPolicy, requiredApprovals, type Policy } from '../../src/plans/policy.js';
import { validatePayout, type PayoutRequest } from '../../src/payouts/request.js';
import type { CliError } from '../../src/errors.js';

const NOW = new Date('2026-11-25T10:00:00.000Z');
const dir = () => mkdtempSync(join(tmpdir(), 'payctl-plans-'));

function key(name: string): SigningKey {
  return createSigningKey(dir(), name, { PAYCTL_CONFIG_DIR: 'x' }, NOW);
}

function request(over: Record<string, string> = {}): PayoutRequest {
  const r = validatePayout({
    payoutId: 'po-1',
    walletId: 'wal_1',
    amount: '1500.50',
    currency: 'SLE',
    type: 'wallet',
    name: 'Aminata Kamara',
    provider: 'orange_money',
    account: '076123456',
    phone: '+23276123456',
    ...over,
  });
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.request;
}

function planFile(p: Plan): string {
  const file = join(dir(), 'plan.json');
  writeFileSync(file, planText(p));
  return file;
}

function approve(p: Plan, k: SigningKey, signedAt = NOW.toISOString()): Plan {
  const a = { name: k.name, public_key: k.publicKey, fingerprint: k.fingerprint, signed_at: signedAt };
  return { ...p, approvals: [...p.approvals, { ...a, signature: signText(k, approvalMessage(p.hash, a)) }] };
}

describe('canonical JSON', () => {
  it('sorts keys by UTF-16 code units at every depth, whatever order they were written in', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    // Upper case before lower case; é (U+00E9) after z; an astral character (a surrogate pair, D83D…) before U+FB01.
    expect(canonicalJson({ z: 1, é: 2, Z: 3, '\u{1F600}': 4, '\uFB01': 5 })).toBe('{"Z":3,"z":1,"é":2,"\u{1F600}":4,"\uFB01":5}');
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
  });

  it('writes whole numbers in their shortest form and refuses any other number', () => {
    expect(canonicalJson([0, -0, 7, -12, 9007199254740991])).toBe('[0,0,7,-12,9007199254740991]');
    for (const n of [1.5, 1e21, 9007199254740992, NaN, Infinity]) expect(() => canonicalJson({ n }), String(n)).toThrow(CanonicalError);
  });

  it('keeps strings byte for byte: no Unicode normalization, control characters escaped, lone surrogates escaped', () => {
    const nfc = canonicalJson({ name: 'Ren\u00e9' });
    const nfd = canonicalJson({ name: 'Rene\u0301' });
    expect(nfc).not.toBe(nfd);
    expect(canonicalJson('a\u0001b"\\\n')).toBe('"a\\u0001b\\"\\\\\\n"');
    expect(canonicalJson('\ud800')).toBe('"\\ud800"');
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(() => canonicalJson({ f: () => 1 })).toThrow(CanonicalError);
  });
});

describe('signing keys', () => {
  it('a key made once, kept 0600, read back with the same public key; never replaced', () => {
    const d = dir();
    const k = createSigningKey(d, 'Aminata Kamara', { PAYCTL_CONFIG_DIR: d }, NOW);
    expect(k.publicKey).toMatch(/^ed25519:[A-Za-z0-9+/]{43}=$/);
    expect(k.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(publicKeyBytes(k.publicKey)).toHaveLength(32);
    expect(statSync(join(d, 'signing-key.json')).mode & 0o777).toBe(0o600);
    expect(loadSigningKey(d)!.publicKey).toBe(k.publicKey);
    expect(() => createSigningKey(d, 'Someone Else', { PAYCTL_CONFIG_DIR: d }, NOW)).toThrow(/already exists/);
    expect(loadSigningKey(d)!.name).toBe('Aminata Kamara');
  });

  it('the chmod printed for a key in a folder whose name has spaces, quotes and $ is quoted: it runs as printed', () => {
    const d = join(dir(), `h6 'q' $x`);
    createSigningKey(d, 'Aminata Kamara', { PAYCTL_CONFIG_DIR: d }, NOW);
    const file = join(d, 'signing-key.json');
    chmodSync(file, 0o644);
    let hint = '';
    try {
      loadSigningKey(d);
    } catch (err) {
      hint = (err as CliError).hint ?? '';
    }
    const line = /chmod 600 (.+)$/m.exec(hint)?.[1];
    expect(line, hint).toBeDefined();
    execFileSync('sh', ['-c', `chmod 600 ${line}`]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it.each([0o644, 0o640, 0o604, 0o620])('a key file others could read or change (mode %o) is refused, like ssh, with the chmod that fixes it', (mode) => {
    const d = dir();
    createSigningKey(d, 'Aminata Kamara', { PAYCTL_CONFIG_DIR: d }, NOW);
    const file = join(d, 'signing-key.json');
    chmodSync(file, mode);
    expect(() => loadSigningKey(d)).toThrow(new RegExp(`Refusing to use the signing key .*: its permissions 0${mode.toString(8)} let others read or change it`));
    try {
      loadSigningKey(d);
    } catch (err) {
      expect((err as CliError).hint).toContain(`chmod 600 ${file}`);
    }
    chmodSync(file, 0o600);
    expect(loadSigningKey(d)!.name).toBe('Aminata Kamara');
  });

  it('a key file that is a symlink is refused', () => {
    const d = dir();
    const real = dir();
    createSigningKey(real, 'Aminata Kamara', { PAYCTL_CONFIG_DIR: real }, NOW);
    symlinkSync(join(real, 'signing-key.json'), join(d, 'signing-key.json'));
    expect(() => loadSigningKey(d)).toThrow(/it is a symlink/);
  });

  it('a signature verifies only for its message and its key', () => {
    const a = key('A');
    const b = key('B');
    const sig = signText(a, 'sha256:abc');
    expect(verifyText(a.publicKey, 'sha256:abc', sig)).toBe(true);
    expect(verifyText(a.publicKey, 'sha256:abd', sig)).toBe(false);
    expect(verifyText(b.publicKey, 'sha256:abc', sig)).toBe(false);
    const flipped = Buffer.from(sig, 'base64');
    flipped[10]! ^= 1;
    expect(verifyText(a.publicKey, 'sha256:abc', flipped.toString('base64'))).toBe(false);
    expect(verifyText(a.publicKey, 'sha256:abc', 'not a signature')).toBe(false);
    expect(verifyText('ed25519:short', 'sha256:abc', sig)).toBe(false);
    expect(fingerprintOf('rsa:AAAA')).toBeUndefined();
  });
});

describe('plans', () => {
  const maker = key('Maker');
  const plan = makePlan({
    baseUrl: 'http://127.0.0.1:4010/v2',
    batchId: 'oct',
    source: 'oct.csv',
    now: NOW,
    maker,
    payouts: [
      { row: 1, request: request(), idempotencyKey: '3f0c6a2e-8d1b-4c55-9a77-0e5b2f1d9c40' },
      { row: 2, request: request({ payoutId: 'po-2', amount: '10' }), idempotencyKey: '4f0c6a2e-8d1b-4c55-9a77-0e5b2f1d9c41' },
    ],
  });

  it('reads back whole: hash, maker signature, bodies in payctl form, totals exact', () => {
    const { plan: read, payouts } = readPlan(planFile(plan));
    expect(read.hash).toBe(plan.hash);
    expect(plan.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(payouts.map((p) => p.body)).toEqual([
      '{"amount":1500.5,"currency":"SLE","payoutId":"po-1","walletId":"wal_1","recipient":{"type":"wallet","accountDetails":{"name":"Aminata Kamara","provider":"orange_money","accountNumber":"076123456","phoneNumber":"+23276123456"}}}',
      '{"amount":10,"currency":"SLE","payoutId":"po-2","walletId":"wal_1","recipient":{"type":"wallet","accountDetails":{"name":"Aminata Kamara","provider":"orange_money","accountNumber":"076123456","phoneNumber":"+23276123456"}}}',
    ]);
    expect(read.totals).toEqual([{ wallet_id: 'wal_1', currency: 'SLE', count: 2, total: '1510.50' }]);
  });

  it.each([
    ['an amount', (t: string) => t.replace('\\"amount\\":1500.5', '\\"amount\\":1500.6')],
    ['a recipient', (t: string) => t.replace(/076123456/g, '076123457')],
    ['an idempotency key', (t: string) => t.replace('3f0c6a2e', '3f0c6a2f')],
    ['the base URL', (t: string) => t.replace('127.0.0.1:4010', '127.0.0.1:4011')],
    ['the creation time', (t: string) => t.replace('2026-11-25T10:00', '2026-11-26T10:00')],
  ])('one byte of %s changed after it was made: refused (the hash no longer matches)', (_what, change) => {
    const text = planText(plan);
    const changed = change(text);
    expect(changed).not.toBe(text);
    const file = join(dir(), 'plan.json');
    writeFileSync(file, changed);
    expect(() => readPlan(file)).toThrow(/does not match its hash/);
  });

  it('a plan changed and given a new hash fails on the maker signature; totals that lie are refused', () => {
    const file = join(dir(), 'plan.json');
    const text = JSON.parse(planText(plan)) as Plan;
    text.payouts[0]!.body = plan.payouts[0]!.body.replace('1500.5', '1500.6');
    text.totals = [{ wallet_id: 'wal_1', currency: 'SLE', count: 2, total: '1510.60' }];
    // The hash recomputed as a forger would: the maker's signature no longer matches.
    text.hash = planHash(text);
    writeFileSync(file, JSON.stringify(text));
    expect(() => readPlan(file)).toThrow(/maker's signature does not match/);
    // Totals that do not add up, under a valid hash and signature.
    const m = key('M3');
    const lying = JSON.parse(planText(plan)) as Plan;
    lying.maker = { name: m.name, public_key: m.publicKey, fingerprint: m.fingerprint };
    lying.totals = [{ wallet_id: 'wal_1', currency: 'SLE', count: 2, total: '1.00' }];
    lying.hash = planHash(lying);
    lying.maker_signature = signText(m, makerMessage(lying.hash));
    writeFileSync(file, JSON.stringify(lying));
    expect(() => readPlan(file)).toThrow(/totals do not match its payouts/);
  });

  it('a body not in the form payctl writes is refused even with a valid hash and signature', () => {
    const m = key('M2');
    const p = makePlan({
      baseUrl: 'http://127.0.0.1:1/v2',
      batchId: null,
      source: 'payout create',
      now: NOW,
      maker: m,
      payouts: [{ request: request(), idempotencyKey: '3f0c6a2e-8d1b-4c55-9a77-0e5b2f1d9c40' }],
    });
    const text = JSON.parse(planText(p)) as Plan;
    text.payouts[0]!.body = text.payouts[0]!.body.replace('"amount":1500.5', '"amount":1500.50');
    text.hash = planHash(text);
    text.maker_signature = signText(m, makerMessage(text.hash));
    const file = join(dir(), 'plan.json');
    writeFileSync(file, JSON.stringify(text));
    expect(() => readPlan(file)).toThrow(/not in the form payctl writes/);
  });
});

describe('approvals under a policy', () => {
  const maker = key('Maker');
  const alice = key('Alice');
  const bob = key('Bob');
  const mallory = key('Mallory');
  const policyFile = join(dir(), 'policy.json');
  writeFileSync(
    policyFile,
    JSON.stringify({
      members: { Maker: { keys: [maker.publicKey], roles: ['maker'] } },
      approvers: { Alice: alice.publicKey, Bob: bob.publicKey },
      approvals: {
        SLE: [
          { from: '1000', required: 1 },
          { over: '100000', required: 2 },
        ],
        '*': [{ from: '0.01', required: 1 }],
      },
      max_per_payout: { SLE: '250000' },
      daily_total: { SLE: '500000' },
    }),
  );
  const policy: Policy = loadPolicy(policyFile);
  const plan = makePlan({
    baseUrl: 'http://127.0.0.1:4010/v2',
    batchId: null,
    source: 'payout create',
    now: NOW,
    maker,
    payouts: [{ request: request(), idempotencyKey: '3f0c6a2e-8d1b-4c55-9a77-0e5b2f1d9c40' }],
  });

  it('counts distinct listed approvers who are not the maker, and says why the others do not count', () => {
    const signed = approve(approve(approve(approve(approve(plan, alice), alice), maker), mallory), bob);
    const c = checkApprovals(signed, policy);
    expect(c.valid.map((v) => v.name)).toEqual(['Alice', 'Bob']);
    expect(c.refused).toHaveLength(3);
    expect(c.refused[0]).toMatch(/Alice approved already; each person counts once/);
    expect(c.refused[1]).toMatch(/maker cannot approve their own plan/);
    expect(c.refused[2]).toMatch(/not an approver in the policy/);
  });

  it("approvals past the file's own (kept in the shared ledger) that do not count are left out, never refused; the file's own still are", () => {
    const signed = approve(approve(approve(approve(plan, mallory), alice), alice), bob);
    // The first is the file's: Mallory's refuses the plan; the rest are the ledger's: Alice's second is left out.
    const c = checkApprovals(signed, policy, 1);
    expect(c.valid.map((v) => v.name)).toEqual(['Alice', 'Bob']);
    expect(c.refused).toEqual([expect.stringMatching(/^approval 1 \(Mallory, SHA256:[^,)]+\): the key is not an approver in the policy /)]);
    expect(c.ignored).toEqual([
      expect.stringMatching(/^approval 3 \(Alice, SHA256:[^,]+, kept in the team's shared ledger\): Alice approved already; .* \(left out: it does not stop the plan\)$/),
    ]);
    // All of them the ledger's (a plan by hash): nothing refused, a broken one left out too.
    const broken = approve(plan, alice);
    broken.approvals[0] = { ...broken.approvals[0]!, signed_at: '2026-11-20T00:00:00.000Z' };
    const byHash = checkApprovals({ ...signed, approvals: [...broken.approvals, ...signed.approvals] }, policy, 0);
    expect(byHash.refused).toEqual([]);
    expect(byHash.ignored).toHaveLength(3);
    expect(byHash.ignored[0]).toMatch(/^approval 1 .*: the signature does not match this plan \(left out/);
    expect(brokenApprovals(broken, 0)).toEqual([]);
    expect(brokenApprovals(broken)).toHaveLength(1);
  });

  it('an approval of another plan (or with a changed name or time) does not count', () => {
    const other = makePlan({
      baseUrl: 'http://127.0.0.1:4010/v2',
      batchId: null,
      source: 'x',
      now: NOW,
      maker,
      payouts: [{ request: request({ amount: '1500.51' }), idempotencyKey: '3f0c6a2e-8d1b-4c55-9a77-0e5b2f1d9c40' }],
    });
    const moved = { ...plan, approvals: approve(other, alice).approvals };
    expect(checkApprovals(moved, policy).refused[0]).toMatch(/signature does not match this plan/);
    const renamed = approve(plan, alice);
    renamed.approvals[0] = { ...renamed.approvals[0]!, signed_at: '2026-11-20T00:00:00.000Z' };
    expect(checkApprovals(renamed, policy).valid).toEqual([]);
  });

  it('tiers: from is inclusive, over is not; the most demanding tier applies; "*" covers other currencies', () => {
    const need = (c: string, minor: bigint) => requiredApprovals(policy, new Map([[c, minor]])).required;
    expect(need('SLE', 99_999n)).toBe(0);
    expect(need('SLE', 100_000n)).toBe(1);
    expect(need('SLE', 10_000_000n)).toBe(1);
    expect(need('SLE', 10_000_001n)).toBe(2);
    expect(need('NGN', 1n)).toBe(1);
    expect(requiredApprovals(policy, currencyTotals([request({ amount: '100000.01' })])).reasons[0]).toMatch(/2 approvals: the SLE total 100,000.01 SLE is over 100000/);
  });

  it('a policy that cannot be met or read is refused with every problem', () => {
    const bad = join(dir(), 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({ approvers: { A: 'ed25519:nope' }, approvals: { XXX: [], SLE: [{ from: '1', required: 3 }] }, max_per_payout: { SLE: '1.001' }, extra: 1 }),
    );
    let message = '';
    try {
      loadPolicy(bad);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('unknown field "extra"');
    expect(message).toContain('approvers.A: not a public key');
    expect(message).toContain('"XXX" is not a currency code');
    expect(message).toContain('max_per_payout.SLE: "1.001" is not an amount in SLE');
    expect(message).toContain(
      'approvals.SLE[0] (from 1) asks 3 approvals, but only 0 approvers are listed. List 3 more approvers in "members" (roles ["approver"]) or "approvers", or lower its "required" to 0',
    );
    expect(readFileSync(bad, 'utf8')).toContain('extra');
  });
});
