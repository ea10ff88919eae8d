/**
 * Limits that hold under races (issue 27): a policy's `daily_total` of 5,000 SLE and payouts of
 * 999.99 SLE, so five fit in a day and the sixth does not. Started all at once from one config
 * folder (one machine), 20 `payout create` processes and 8 one-row `payout batch` runs must send
 * exactly five: the others are refused (exit 2, the rule named) and never reach the service.
 * Before the wallet lock, 20 creates sent 13 to 16 and 8 batches sent 8. The same-day sum of
 * the approval tiers likewise: of 6 parallel payouts of 999.99 to one account under "1 approval
 * from 1,000", only the first may go without approval. The built binary in child processes
 * against the in-process sandbox.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { startCli, writeLoggedIn, type Run } from '../helpers/e2e.js';
// The steps before and after a race (a policy set, a key made, the run after the day is full) need no process.
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { loadSigningKey } from '../../src/plans/keys.js';

const ctx = useSandbox();
const work = tempWorkDir();
let cfg: ReturnType<typeof tempConfigDir>;

afterAll(() => work.cleanup());

/** A config folder logged in to the sandbox with the daily-total policy set (as a person would: config set policy). */
beforeEach(async () => {
  cfg?.cleanup();
  cfg = tempConfigDir();
  await writeLoggedIn(ctx.sb, cfg.dir);
  const policy = join(work.dir, `policy-${randomUUID().slice(0, 8)}.json`);
  writeFileSync(policy, JSON.stringify({ daily_total: { SLE: '5000' } }));
  const set = await payctl(['config', 'set', 'policy', policy], { dir: cfg.dir });
  expect(set.code, set.stderr).toBe(0);
});

afterAll(() => cfg?.cleanup());

/** Payouts the sandbox holds from this wallet. */
function heldFrom(wallet: string): number {
  return ctx.sb.payouts().filter((p) => p.wallet_id === wallet).length;
}

/** Every run started at once; their results when all have exited. */
async function allAtOnce(runs: string[][]): Promise<Run[]> {
  return Promise.all(runs.map((args) => startCli(args, { dir: cfg.dir, timeoutMs: 60_000 }).done));
}

function expectFiveSent(results: Run[], wallet: string, from: number): void {
  const sent = results.filter((r) => r.code === 0);
  const refused = results.filter((r) => r.code === 2);
  const other = results.filter((r) => r.code !== 0 && r.code !== 2).map((r) => `exit ${r.code}: ${r.stderr}`);
  expect(other, 'runs that neither sent nor were refused').toEqual([]);
  expect(sent).toHaveLength(5);
  expect(refused).toHaveLength(results.length - 5);
  for (const r of refused) {
    expect(r.stderr).toContain('policy daily_total.SLE');
    expect(r.stderr).toContain('Nothing was sent.');
  }
  // Exactly five reached the service, each once: 4,999.95 SLE, under the limit.
  expect(heldFrom(wallet)).toBe(5);
  expect(payoutPosts(ctx.sb, from)).toHaveLength(5);
}

describe('the daily total under races', () => {
  it('20 parallel payout create: exactly 5 sent (exit 0), 15 refused (exit 2, the limit named)', { timeout: 120_000 }, async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const from = ctx.sb.requests().length;
    const runs = Array.from({ length: 20 }, (_, i) => [
      'payout',
      'create',
      '--wallet',
      wallet,
      '--amount',
      '999.99',
      '--currency',
      'SLE',
      '--type',
      'bank',
      '--name',
      `Ibrahim Sesay ${i + 1}`,
      '--provider',
      'uba',
      '--account',
      `01234567${String(i).padStart(2, '0')}`,
      '--payout-id',
      `race-${randomUUID()}`,
      '--yes',
    ]);
    expectFiveSent(await allAtOnce(runs), wallet, from);

    // One at a time now: the day is full, so the next one is refused too, counting all five.
    const next = await payctl([...runs[0]!.slice(0, -3), '--payout-id', `race-${randomUUID()}`, '--yes'], { dir: cfg.dir });
    expect(next.code, next.stderr).toBe(2);
    expect(next.stderr).toContain(`4,999.95 SLE already sent today from this config folder (${cfg.dir})`);
  });

  it('8 parallel one-row payout batch runs: exactly 5 rows sent', { timeout: 120_000 }, async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const from = ctx.sb.requests().length;
    const runs = Array.from({ length: 8 }, (_, i) => {
      const file = join(work.dir, `one-row-${randomUUID().slice(0, 8)}.csv`);
      writeFileSync(
        file,
        'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n' +
          `row-${randomUUID()},${wallet},999.99,SLE,wallet,Fatmata Sesay ${i + 1},orange_money,0765500${String(i).padStart(2, '0')},+23276550${String(i).padStart(3, '0')},stipend\n`,
      );
      return ['payout', 'batch', file, '--yes'];
    });
    expectFiveSent(await allAtOnce(runs), wallet, from);
  });
});

describe('approval tiers under races', () => {
  it('6 parallel payout create of 999.99 to one account under "1 approval from 1,000": the first goes, the other 5 need approval', { timeout: 120_000 }, async () => {
    const approver = tempConfigDir();
    try {
      const made = await payctl(['keys', 'create', '--name', 'Alice'], { dir: approver.dir });
      expect(made.code, made.stderr).toBe(0);
      const policy = join(work.dir, `tiers-${randomUUID().slice(0, 8)}.json`);
      writeFileSync(policy, JSON.stringify({ approvers: { Alice: loadSigningKey(approver.dir)!.publicKey }, approvals: { SLE: [{ from: '1000', required: 1 }] } }));
      expect((await payctl(['config', 'set', 'policy', policy], { dir: cfg.dir })).code).toBe(0);
    } finally {
      approver.cleanup();
    }
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const from = ctx.sb.requests().length;
    const runs = Array.from({ length: 6 }, () => [
      ...['payout', 'create', '--wallet', wallet, '--amount', '999.99', '--currency', 'SLE', '--type', 'bank', '--name', 'Ibrahim Sesay'],
      ...['--provider', 'uba', '--account', '0123456789', '--payout-id', `split-${randomUUID()}`, '--yes'],
    ]);
    const results = await allAtOnce(runs);
    expect(results.map((r) => r.code).sort()).toEqual([0, 2, 2, 2, 2, 2]);
    for (const r of results.filter((x) => x.code === 2)) expect(r.stderr).toContain('needs approval');
    expect(heldFrom(wallet)).toBe(1);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
  });
});
