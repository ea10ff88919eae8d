/**
 * Four eyes bound to people (issue 27, README "Four eyes"), in process against the sandbox
 * over real HTTP, each person with their own config folder (their own machine) and key:
 * a plan made with a throwaway key is refused by plan approve and plan send; an approver
 * cannot pass a plan they made with any of their keys; a 2-approval tier needs two listed
 * people other than the maker; plan show and policy check say who made and who approved;
 * payouts split across one day to one account are counted together by policy check and plan
 * create; `config set policy` on a bad file says the policy was not set and keeps the old one.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { readProfile, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { loadSigningKey, signText, type SigningKey } from '../../src/plans/keys.js';
import { approvalMessage, type Plan } from '../../src/plans/plan.js';

const ctx = useSandbox();
const work = tempWorkDir();
type Who = 'mariama' | 'aminataLaptop' | 'aminataOffice' | 'ibrahim' | 'fatmata' | 'throwaway';
const NAMES: Record<Who, string> = {
  mariama: 'Mariama Kanu',
  aminataLaptop: 'Aminata Kamara',
  aminataOffice: 'Aminata Kamara',
  ibrahim: 'Ibrahim Sesay',
  fatmata: 'Fatmata Conteh',
  // The throwaway key calls itself by the maker's name: the policy, not the key, says who is who.
  throwaway: 'Mariama Kanu',
};
const people = Object.fromEntries(Object.keys(NAMES).map((w) => [w, { ...tempConfigDir(), key: undefined as SigningKey | undefined }])) as Record<
  Who,
  { dir: string; cleanup(): void; key: SigningKey | undefined }
>;
let policyFile: string;

const HEADER = 'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n';

/** A batch file paying `amounts` from `wallet` to `account` (one account for all rows unless `account` is undefined). */
function batchFile(wallet: string, amounts: string[], account?: string): string {
  const tag = randomUUID().slice(0, 8);
  const file = join(work.dir, `pay-${tag}.csv`);
  const rows = amounts.map(
    (a, i) => `${tag}-${i + 1},${wallet},${a},SLE,wallet,Fatmata Sesay,orange_money,${account ?? `07655${String(i).padStart(4, '0')}`},+23276550000,stipend`,
  );
  writeFileSync(file, HEADER + rows.join('\n') + '\n');
  return file;
}

const run = (who: Who, ...args: string[]): Promise<Run> => payctl(args, { dir: people[who].dir });

/** An approval added by hand (as an attacker would: the CLI refuses these), signed with `who`'s key. */
function addApproval(path: string, who: Who): void {
  const key = people[who].key!;
  const plan = JSON.parse(readFileSync(path, 'utf8')) as Plan;
  const a = { name: key.name, public_key: key.publicKey, fingerprint: key.fingerprint, signed_at: new Date().toISOString() };
  plan.approvals.push({ ...a, signature: signText(key, approvalMessage(plan.hash, a)) });
  writeFileSync(path, JSON.stringify(plan, null, 2));
}

/** A plan of `amounts` made by `who` (logged in to the sandbox): its path. */
async function madePlan(who: Who, amounts: string[]): Promise<string> {
  const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
  const file = batchFile(wallet, amounts);
  const r = await run(who, 'plan', 'create', file, '--batch-id', `b-${randomUUID().slice(0, 8)}`);
  expect(r.code, r.stderr).toBe(0);
  return file.replace(/\.csv$/, '.plan.json');
}

beforeAll(async () => {
  for (const [who, p] of Object.entries(people) as Array<[Who, (typeof people)[Who]]>) {
    const r = await run(who, 'keys', 'create', '--name', NAMES[who]);
    expect(r.code, r.stderr).toBe(0);
    p.key = loadSigningKey(p.dir)!;
    await writeLoggedIn(ctx.sb, p.dir);
  }
  policyFile = join(work.dir, 'policy.json');
  writeFileSync(
    policyFile,
    JSON.stringify({
      members: {
        'Mariama Kanu': { keys: [people.mariama.key!.publicKey], roles: ['maker'] },
        'Aminata Kamara': { keys: [people.aminataLaptop.key!.publicKey, people.aminataOffice.key!.publicKey], roles: ['maker', 'approver'] },
        'Ibrahim Sesay': { keys: [people.ibrahim.key!.publicKey], roles: ['approver'] },
        'Fatmata Conteh': { keys: [people.fatmata.key!.publicKey], roles: ['approver'] },
      },
      approvals: {
        SLE: [
          { from: '1000', required: 1 },
          { over: '100000', required: 2 },
        ],
      },
    }),
  );
  // Everyone but the throwaway folder (the attack: a key made where no policy is set) has the policy.
  for (const who of Object.keys(NAMES) as Who[]) {
    if (who === 'throwaway') continue;
    const set = await run(who, 'config', 'set', 'policy', policyFile);
    expect(set.code, set.stderr).toBe(0);
  }
});

afterAll(() => {
  for (const p of Object.values(people)) p.cleanup();
  work.cleanup();
});

describe('the maker is a person the policy lists', () => {
  it('a plan made with a throwaway key and approved with a real approver key: plan approve and plan send refuse it (exit 2), nothing sent', async () => {
    const path = await madePlan('throwaway', ['50000']);
    const approve = await run('aminataLaptop', 'plan', 'approve', path, '--yes');
    expect(approve.code, approve.stderr).toBe(2);
    expect(approve.stderr).toContain('does not list; only a maker listed in the policy can make a plan. Nothing was changed.');
    addApproval(path, 'aminataLaptop');
    const from = ctx.sb.requests().length;
    const send = await run('mariama', 'plan', 'send', path, '--yes');
    expect(send.code, send.stderr).toBe(2);
    expect(send.stderr).toMatch(/it was made with the key SHA256:\S+ \(calling itself "Mariama Kanu"\), which the policy .* does not list/);
    expect(send.stderr).toContain('Nothing was sent');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    const shown = await run('mariama', 'plan', 'show', path);
    expect(shown.stdout).toMatch(/Made by\s+key SHA256:\S+ calling itself "Mariama Kanu" at .*\(not listed in the policy: it cannot be sent\)/);
  });

  it('plan create with a key the policy lists only as an approver writes no plan', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const file = batchFile(wallet, ['1500']);
    const r = await run('ibrahim', 'plan', 'create', file);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("is not a maker's: Ibrahim Sesay is listed only as an approver in the policy");
    expect(r.stderr).toContain('No plan was written');
  });
});

describe('one person, one vote, never on their own plan', () => {
  it('an approver who made the plan with one key cannot approve it with another: refused by approve and by send', async () => {
    const path = await madePlan('aminataLaptop', ['5000']);
    const approve = await run('aminataOffice', 'plan', 'approve', path, '--yes');
    expect(approve.code, approve.stderr).toBe(2);
    expect(approve.stderr).toContain('You (Aminata Kamara) made this plan, with another of your keys');
    addApproval(path, 'aminataOffice');
    const from = ctx.sb.requests().length;
    const send = await run('mariama', 'plan', 'send', path, '--yes');
    expect(send.code, send.stderr).toBe(2);
    expect(send.stderr).toContain('Aminata Kamara made this plan (with another of their keys); the maker cannot approve their own plan, whatever key they sign with');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });

  it('a 2-approval tier needs two listed people other than the maker; plan show and policy check name them', async () => {
    const path = await madePlan('aminataLaptop', ['90000', '60000']);
    expect((await run('ibrahim', 'plan', 'approve', path, '--yes')).code).toBe(0);
    // The maker's other key, added by hand: not a second person.
    addApproval(path, 'aminataOffice');
    let from = ctx.sb.requests().length;
    let send = await run('mariama', 'plan', 'send', path, '--yes');
    expect(send.code, send.stderr).toBe(2);
    expect(send.stderr).toContain('1 approval does not count');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    const shown = await run('mariama', 'plan', 'show', path);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/Made by\s+Aminata Kamara, a maker in the policy \(key SHA256:/);
    expect(shown.stdout).toContain('Counts: Ibrahim Sesay');
    expect(shown.stdout).toContain('Not counted: approval 2 (Aminata Kamara');
    expect(shown.stdout).toContain('2 approvals needed from people other than the maker; 1 count (Ibrahim Sesay)');
    const checked = await run('mariama', 'policy', 'check', path);
    expect(checked.code, checked.stdout).toBe(1);
    expect(checked.stdout).toContain('Made by: Aminata Kamara');
    expect(checked.stdout).toContain('Approved by: 1 that count: Ibrahim Sesay.');
    expect(checked.stdout).toContain('Not counted: approval 2 (Aminata Kamara');

    // Without the maker's own approval: one person is still one short.
    const plan = JSON.parse(readFileSync(path, 'utf8')) as Plan;
    plan.approvals.pop();
    writeFileSync(path, JSON.stringify(plan));
    from = ctx.sb.requests().length;
    send = await run('mariama', 'plan', 'send', path, '--yes');
    expect(send.code, send.stderr).toBe(2);
    expect(send.stderr).toContain('it needs 2 approvals (people other than its maker, Aminata Kamara) and carries 1 (Ibrahim Sesay)');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    expect((await run('fatmata', 'plan', 'approve', path, '--yes')).code).toBe(0);
    send = await run('mariama', 'plan', 'send', path, '--yes');
    expect(send.code, send.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(2);
  });
});

describe('splitting counted', () => {
  it('payouts to one account on one day count together: the one that crosses 1,000 (and every later one) needs approval', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const account = '076123456';
    // Three direct payouts of 300 to one account: 900 today, under the first tier.
    for (let i = 0; i < 3; i++) {
      const r = await run('mariama', 'payout', 'batch', batchFile(wallet, ['300'], account), '--batch-id', `split-${randomUUID().slice(0, 8)}`, '--yes');
      expect(r.code, r.stderr).toBe(0);
    }
    // The fourth: 1,200 today to that account.
    const fourth = batchFile(wallet, ['300'], account);
    const checked = await run('mariama', 'policy', 'check', fourth);
    expect(checked.code, checked.stdout).toBe(1);
    expect(checked.stdout).toContain('Approvals: 1 needed.');
    expect(checked.stdout).toContain(
      `from wallet ${wallet} to account ${account} (wallet, orange_money) today: 1,200.00 SLE with this payout (900.00 SLE sent earlier today from this config folder (${people.mariama.dir})), which is from 1000`,
    );
    // The same amount to another account needs none.
    const other = await run('mariama', 'policy', 'check', batchFile(wallet, ['300'], '076000111'));
    expect(other.code, other.stdout).toBe(0);
    expect(other.stdout).toContain('Approvals: none needed.');

    // A batch of its own, as the three before (with no name it would be refused as a resume of theirs).
    const made = await run('mariama', 'plan', 'create', fourth, '--batch-id', `split-${randomUUID().slice(0, 8)}`);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain('Approvals: 1 needed, from people other than you:');
    expect(made.stderr).toContain('1,200.00 SLE with this payout (900.00 SLE sent earlier today');
    const path = fourth.replace(/\.csv$/, '.plan.json');
    const from = ctx.sb.requests().length;
    const refused = await run('mariama', 'plan', 'send', path, '--yes');
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('it needs 1 approval (people other than its maker, Mariama Kanu) and carries 0');
    expect(refused.stderr).toContain('1,200.00 SLE with this payout');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect((await run('ibrahim', 'plan', 'approve', path, '--yes')).code).toBe(0);
    const sent = await run('mariama', 'plan', 'send', path, '--yes');
    expect(sent.code, sent.stderr).toBe(0);

    // The fifth, after it: 1,500 today.
    const fifth = await run('mariama', 'policy', 'check', batchFile(wallet, ['300'], account));
    expect(fifth.code, fifth.stdout).toBe(1);
    expect(fifth.stdout).toContain('today: 1,500.00 SLE with this payout (1,200.00 SLE sent earlier today');
  });
});

describe('config set policy', () => {
  it('a bad file is not set: the message says so and why, and the profile keeps its policy', async () => {
    const cfg = tempConfigDir();
    try {
      await writeLoggedIn(ctx.sb, cfg.dir);
      expect((await payctl(['config', 'set', 'policy', policyFile], { dir: cfg.dir })).code).toBe(0);
      const bad = join(work.dir, `bad-${randomUUID().slice(0, 6)}.json`);
      writeFileSync(bad, JSON.stringify({ approvers: { 'Ibrahim Sesay': people.ibrahim.key!.publicKey }, approvals: { SLE: [{ over: '100000', required: 2 }] } }));
      const r = await payctl(['config', 'set', 'policy', bad], { dir: cfg.dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`The policy was not set in profile "default" (it keeps its policy ${policyFile}): ${bad} is not a valid policy:`);
      expect(r.stderr).toContain('approvals.SLE[0] (over 100000) asks 2 approvals, but only 1 approver is listed: Ibrahim Sesay');
      expect(r.stderr).not.toContain('Nothing was sent');
      expect(readProfile(cfg.dir)?.policy).toBe(policyFile);

      const missing = await payctl(['config', 'set', 'policy', join(work.dir, 'nope.json')], { dir: cfg.dir });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('The policy was not set in profile "default" (it keeps its policy');
      expect(missing.stderr).toContain('no such file');
      expect(readProfile(cfg.dir)?.policy).toBe(policyFile);
    } finally {
      cfg.cleanup();
    }
  });
});

describe('signing key permissions', () => {
  it('a key file readable by others is refused by the commands that sign, naming the fix', async () => {
    const cfg = tempConfigDir();
    try {
      expect((await payctl(['keys', 'create', '--name', 'Aminata Kamara'], { dir: cfg.dir })).code).toBe(0);
      chmodSync(join(cfg.dir, 'signing-key.json'), 0o644);
      const r = await payctl(['keys', 'show'], { dir: cfg.dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('its permissions 0644 let others read or change it');
      expect(r.stderr).toContain(`chmod 600 ${join(cfg.dir, 'signing-key.json')}`);
    } finally {
      cfg.cleanup();
    }
  });
});
