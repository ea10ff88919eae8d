/**
 * `payout create --dry-run` under a spending policy (README "Checking before sending: --dry-run":
 * it "validates everything a send would"; "Four eyes": a payout over a limit, or one that needs
 * approval, is refused, exit 2): the dry run is refused where the send is, for the same reason,
 * and passes where the send goes; either way it sends and journals nothing. In process against the
 * sandbox over real HTTP, the policy set with `payctl config set policy`.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { payctl } from '../helpers/in-process.js';
import { shellSplit } from '../helpers/pty.js';
import { payoutPosts } from '../helpers/batch.js';
import { bankPayout, planBatchFile } from '../helpers/four-eyes.js';
import { useFreshLogin } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
// A fresh config folder (and so a fresh journal) and work folder per test.
const setup = useFreshLogin(ctx);

/** `policy` (the file's JSON) set in the profile, checked. */
async function usePolicy(policy: unknown): Promise<string> {
  const file = join(setup.work.dir, `policy-${randomUUID().slice(0, 8)}.json`);
  writeFileSync(file, JSON.stringify(policy));
  const r = await payctl(['config', 'set', 'policy', file], { dir: setup.dir });
  expect(r.code, r.stderr).toBe(0);
  return file;
}

/** `payout create` of `amount` SLE from `wallet` as a dry run: without --yes, as a script checks a payout first. */
function dryRun(wallet: string, amount: string, id: string): Promise<Awaited<ReturnType<typeof payctl>>> {
  return payctl([...bankPayout(wallet, amount, id).filter((a) => a !== '--yes'), '--dry-run'], { dir: setup.dir });
}

/** Files under the journal folder (none when it was never made). */
function journalFiles(): string[] {
  const j = join(setup.dir, 'journal');
  return existsSync(j) ? readdirSync(j, { recursive: true }).map(String).sort() : [];
}

/** An approver's public key as `payctl keys show` prints it: `ed25519:<base64 of its 32 bytes>`. */
function approverKey(): string {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return `ed25519:${Buffer.from(jwk.x!, 'base64url').toString('base64')}`;
}

describe('payout create --dry-run under a spending policy', () => {
  it('daily_total 15 SLE with 10 sent today: a dry run of 6.00 is refused as the send is (exit 2, the rule named), one of 5.00 passes; nothing sent or journaled', async () => {
    const policy = await usePolicy({ approvers: {}, daily_total: { SLE: '15' } });
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    const sent = await payctl(bankPayout(wallet, '10.00'), { dir: setup.dir });
    expect(sent.code, sent.stderr).toBe(0);
    const journaled = journalFiles();
    const from = ctx.sb.requests().length;

    const over = await dryRun(wallet, '6.00', `dry-over-${randomUUID().slice(0, 8)}`);
    expect(over.stderr).toContain(`Error: This payout breaks the policy ${policy}. Nothing was sent.\n`);
    expect(over.stderr).toContain(`policy daily_total.SLE; 10.00 SLE already sent today from this config folder (${setup.dir})`);
    expect(over.stderr).not.toContain('Dry run: nothing was sent');
    expect(over.stdout).toBe('');
    expect(over.code, over.stderr).toBe(2);

    // The send it stands for is refused the same way.
    const send = await payctl(bankPayout(wallet, '6.00'), { dir: setup.dir });
    expect(send.code, send.stderr).toBe(2);
    expect(send.stderr).toContain(`Error: This payout breaks the policy ${policy}. Nothing was sent.\n`);

    const within = await dryRun(wallet, '5.00', `dry-within-${randomUUID().slice(0, 8)}`);
    expect(within.stderr).toContain('Dry run: nothing was sent. Run the same command without --dry-run to send it.\n');
    expect(within.code, within.stderr).toBe(0);

    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(journalFiles()).toEqual(journaled);
  });

  it('over an approvals tier: the dry run is refused as the send is (exit 2), with the command that makes it a plan; below it, it passes', async () => {
    const policy = await usePolicy({ approvers: { 'Ibrahim Sesay': approverKey() }, approvals: { SLE: [{ from: '1000', required: 1 }] } });
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const id = `dry-tier-${randomUUID().slice(0, 8)}`;
    const from = ctx.sb.requests().length;

    const r = await dryRun(wallet, '1500.00', id);
    expect(r.stderr).toContain(`Error: This payout needs approval under the policy ${policy}. Nothing was sent.\n`);
    expect(r.stderr).toContain('policy approvals.SLE');
    // A policy of approvers only lists no maker: no plan can be made under it (before, the hint gave a --plan-out command that refused).
    expect(r.stderr).toContain(`Write it as a plan for approval: the policy ${policy} lists no maker, so no plan can be made under it.`);
    expect(r.code, r.stderr).toBe(2);

    const below = await dryRun(wallet, '999.99', `dry-below-${randomUUID().slice(0, 8)}`);
    expect(below.code, below.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(journalFiles()).toEqual([]);
  });
});

describe('the command that makes a payout needing approval a plan', () => {
  it("is given to a maker to run, and works as printed; to an approver, or a machine without a key, as a maker's (before: refused when run)", async () => {
    // Keys: this machine's (Mariama) and another approver's.
    expect((await payctl(['keys', 'create', '--name', 'Mariama Kanu'], { dir: setup.dir })).code).toBe(0);
    const mine = JSON.parse((await payctl(['keys', 'show', '--json'], { dir: setup.dir })).stdout) as { public_key: string };
    const tier = { SLE: [{ from: '1000', required: 1 }] };
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const from = ctx.sb.requests().length;
    for (const role of ['maker', 'approver'] as const) {
      const policy = await usePolicy({
        members: {
          'Mariama Kanu': { keys: [mine.public_key], roles: [role] },
          'Ibrahim Sesay': { keys: [approverKey()], roles: ['maker', 'approver'] },
          'Aminata Kamara': { keys: [approverKey()], roles: ['approver'] },
        },
        approvals: tier,
      });
      const id = `tier-${role}-${randomUUID().slice(0, 8)}`;
      const r = await payctl(bankPayout(wallet, '1500.00', id), { dir: setup.dir });
      expect(r.code, r.stderr).toBe(2);
      const printed = new RegExp(`\\n  (payctl payout create .*--payout-id ${id} .*--plan-out payout-${id}\\.plan\\.json)`).exec(r.stderr);
      expect(printed, r.stderr).not.toBeNull();
      if (role === 'maker') {
        expect(r.stderr).toContain('Write it as a plan for approval:\n  payctl payout create');
        // As printed, but the plan written into this test's folder (in process, the worker's folder is the repository).
        const words = shellSplit(printed![1]!).slice(1);
        words[words.indexOf('--plan-out') + 1] = join(setup.work.dir, `payout-${id}.plan.json`);
        const made = await payctl(words, { dir: setup.dir });
        expect(made.code, made.stderr).toBe(0);
        expect(existsSync(join(setup.work.dir, `payout-${id}.plan.json`))).toBe(true);
      } else {
        expect(r.stderr).toContain(
          `Write it as a plan for approval, which only a maker in the policy ${policy} can make (Mariama Kanu is listed only as an approver). A maker runs:\n  payctl payout create`,
        );
        const file = planBatchFile(setup.work.dir, wallet, ['1500.00']);
        const b = await payctl(['payout', 'batch', file, '--yes'], { dir: setup.dir });
        expect(b.code, b.stderr).toBe(2);
        expect(b.stderr).toContain(
          `Make it a plan for approval, which only a maker in the policy ${policy} can make (Mariama Kanu is listed only as an approver). A maker runs:\n  payctl plan create ${file}`,
        );
      }
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});

describe('payout batch --dry-run under a spending policy', () => {
  it('a file over the per-payout maximum: the dry run is refused as the run is (exit 2, the rule named); within it, it passes; nothing sent', async () => {
    const policy = await usePolicy({ approvers: {}, max_per_payout: { SLE: '100' } });
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const from = ctx.sb.requests().length;
    const over = await payctl(['payout', 'batch', planBatchFile(setup.work.dir, wallet, ['50', '150']), '--dry-run'], { dir: setup.dir });
    expect(over.code, over.stderr).toBe(2);
    expect(over.stderr).toContain(policy);
    expect(over.stderr).toContain('over the per-payout maximum of 100.00 SLE');
    expect(over.stderr).not.toContain('Dry run');
    const within = await payctl(['payout', 'batch', planBatchFile(setup.work.dir, wallet, ['50', '99.99']), '--dry-run'], { dir: setup.dir });
    expect(within.code, within.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    expect(journalFiles()).toEqual([]);
  });
});
