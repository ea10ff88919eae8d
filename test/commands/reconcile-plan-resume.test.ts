/**
 * `history reconcile` for the rows of an interrupted `plan send` that have no attempt recorded
 * (the run killed, or stopped with Ctrl-C twice), in process against the sandbox over real HTTP:
 * the resume it prints is `payctl plan send <plan>`, which finishes the plan with nothing paid
 * twice; and `payout batch` given a plan file says to send it with plan send. Before (probe
 * 70-T, finding 6): reconcile printed `payctl payout batch <plan.json> --batch-id …`, which is
 * refused ("this is a payctl plan, not a batch file"), and that refusal said "Fix the file".
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeLoggedIn } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { shellSplit } from '../helpers/pty.js';
import { loadSigningKey } from '../../src/plans/keys.js';
import { Journal, type JournalEntry } from '../../src/payouts/journal.js';

const ctx = useSandbox();
const work = tempWorkDir();
const cfg = tempConfigDir();
const dir = cfg.dir;
afterAll(() => {
  cfg.cleanup();
  work.cleanup();
});

beforeAll(async () => {
  await writeLoggedIn(ctx.sb, dir);
  expect((await payctl(['keys', 'create', '--name', 'Maker'], { dir })).code).toBe(0);
  // A policy of makers only: its plans need no approval.
  const policy = join(work.dir, 'makers-only.json');
  writeFileSync(policy, JSON.stringify({ makers: { Maker: loadSigningKey(dir)!.publicKey }, max_per_payout: { SLE: '150000' } }));
  expect((await payctl(['config', 'set', 'policy', policy], { dir })).code).toBe(0);
});

describe('an interrupted plan send, reconciled', () => {
  it('prints plan send as the resume of its rows with no attempt recorded; run as printed it pays each row once (before: payout batch <plan>, refused)', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const tag = randomUUID().slice(0, 8);
    const file = join(work.dir, `pl-${tag}.csv`);
    const acct = (i: number) => `0011${tag.replace(/\D/g, '7').padEnd(6, '1').slice(0, 6)}${i}`;
    writeFileSync(
      file,
      'wallet_id,amount,currency,type,name,provider,account_number,note\n' +
        [1, 2].map((i) => `${wallet},1.0${i},SLE,bank,Plan ${i},ecobank,${acct(i)},${tag}`).join('\n') +
        '\n',
    );
    const plan = join(work.dir, `pl-${tag}.plan.json`);
    const made = await payctl(['plan', 'create', file, '--batch-id', tag, '-o', plan], { dir });
    expect(made.code, made.stderr).toBe(0);
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const sent = await payctl(['plan', 'send', plan, '--concurrency', '3', '--yes'], { dir, clock: new TestClock() });
    ctx.sb.faults.clear();
    expect(sent.code, sent.stderr).toBe(4);
    // What a killed run leaves: a row journaled with no outcome.
    const journal = new Journal(dir);
    let entry: JournalEntry | undefined;
    for await (const it of journal.scan()) if ('entry' in it && it.entry.batch?.id === tag) entry ??= it.entry;
    expect(entry).toBeDefined();
    await journal.put({ ...entry!, outcome: undefined });

    const r = await payctl(['history', 'reconcile'], { dir });
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stderr).not.toContain('payctl payout batch');
    const line = r.stderr.split('\n').find((l) => l.trim().startsWith('payctl plan send'));
    expect(line, r.stderr).toBeDefined();
    const argv = shellSplit(line!.trim());
    expect(argv).toEqual(['payctl', 'plan', 'send', plan, '--concurrency', '3']);

    const from = ctx.sb.requests().length;
    const resumed = await payctl([...argv.slice(1), '--yes'], { dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
    expect(ctx.sb.payouts().filter((p) => p.payout_id === entry!.payoutId)).toHaveLength(1);
    expect(ctx.sb.payouts().filter((p) => p.wallet_id === wallet)).toHaveLength(2);
  });

  it('payout batch given a plan file: refused, saying to send it with plan send (before: "Fix the file")', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const tag = randomUUID().slice(0, 8);
    const file = join(work.dir, `pb-${tag}.csv`);
    writeFileSync(
      file,
      `wallet_id,amount,currency,type,name,provider,account_number,note\n${wallet},1.05,SLE,bank,Plan Five,ecobank,00225${tag.replace(/\D/g, '3').slice(0, 5)},${tag}\n`,
    );
    const plan = join(work.dir, `pb-${tag}.plan.json`);
    expect((await payctl(['plan', 'create', file, '-o', plan], { dir })).code).toBe(0);
    const from = ctx.sb.requests().length;
    const r = await payctl(['payout', 'batch', plan, '--yes'], { dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toContain('Fix the file');
    expect(r.stderr).toContain(`payctl plan send ${plan}`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});
