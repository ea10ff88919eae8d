/**
 * `payctl policy check FILE` for a batch its policy lets be sent directly (probe X, F11): the
 * `payout batch` it prints names the file by its absolute path, quoted, with the run's profile,
 * time limit and batch id, so pasted from another folder it sends the file; and before saying
 * it can be sent directly, it runs plan create's check of what the rows paid before
 * (create-rows.ts plannedRows): rows a named batch paid are said, with the choices (the rest of
 * that batch, or the rows again as new payouts), each a payout batch that runs as printed. The
 * file sits in a folder whose name a shell would expand; policy check runs from inside it, the
 * printed commands from another folder (the forks pool lets a test change its folder).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { oneJson, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { payoutPosts, tempWorkDir } from '../helpers/batch.js';
import { printed } from '../helpers/printed.js';
import { shellSplit } from '../helpers/pty.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const work = tempWorkDir();
const cfg = tempConfigDir();
const home = process.cwd();
let n = 0;

const run = (args: string[]): Promise<Run> => payctl(args, { dir: cfg.dir });

beforeAll(async () => {
  await writeLoggedIn(ctx.sb, cfg.dir, ctx.sb.apiKey, 'ops');
  const key = await run(['keys', 'create', '--name', 'Maker', '--json']);
  expect(key.code, key.stderr).toBe(0);
  const { public_key } = oneJson(key.stdout) as { public_key: string };
  const policy = join(work.dir, 'pol.json');
  writeFileSync(policy, JSON.stringify({ members: { Maker: { keys: [public_key], roles: ['maker'] } }, approvals: { SLE: [{ from: '0', required: 0 }] } }));
  const set = await run(['config', 'set', 'policy', policy, '--profile', 'ops']);
  expect(set.code, set.stderr).toBe(0);
});

afterEach(() => process.chdir(home));

afterAll(() => {
  cfg.cleanup();
  work.cleanup();
});

/** `nov (1).csv` of 3 rows from a fresh wallet, in a folder of its own whose name a shell would expand; its folder. */
function batchFolder(balance = '1000.00'): string {
  const folder = join(work.dir, `pay roll $x 'q' \`b\` ${++n}`);
  mkdirSync(folder);
  const wallet = freshWallet(ctx.sb, balance, 'SLE');
  const tag = String(Date.now()).slice(-6);
  const rows = [1, 2, 3].map((i) => `${wallet},${i}.00,SLE,bank,Person ${i},ecobank,00${tag}${n}${i},,n`);
  writeFileSync(join(folder, 'nov (1).csv'), `wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n${rows.join('\n')}\n`);
  return folder;
}

describe('policy check: a batch it says can be sent directly', () => {
  it('prints payout batch with the absolute path, quoted, the profile, time limit and batch id: pasted from another folder, it sends the file (before: the path as typed)', async () => {
    const folder = batchFolder();
    process.chdir(folder);
    const r = await run(['policy', 'check', 'nov (1).csv', '--profile', 'ops', '--timeout', '20', '--batch-id', 'nov-1']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^It can be sent directly: payctl payout batch '\//m);
    const send = printed(r.stdout, 'payout batch');
    expect(send).toEqual(['payout', 'batch', join(folder, 'nov (1).csv'), '--profile', 'ops', '--timeout', '20', '--batch-id', 'nov-1']);
    process.chdir(work.dir);
    const from = ctx.sb.requests().length;
    const sent = await run([...send, '--yes']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(3);
  });

  it('rows a named batch paid: said, not "can be sent directly", with the choices, each running as printed (before: a payout batch it refused)', async () => {
    const folder = batchFolder();
    process.chdir(folder);
    const first = await run(['payout', 'batch', 'nov (1).csv', '--profile', 'ops', '--batch-id', 'nov-1', '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const r = await run(['policy', 'check', 'nov (1).csv', '--profile', 'ops']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).not.toContain('It can be sent directly');
    expect(r.stdout).toContain(`It cannot be sent directly as it is:\n  ${join(folder, 'nov (1).csv')}: 3 rows match payouts already sent in batch "nov-1" from `);
    expect(r.stdout).toContain(': this batch would pay them again.\n');
    expect(r.stdout).toContain('  Batch "nov-1" accepted every row of the file: there is nothing left of it to send.\n');
    const again = printed(r.stdout, 'payout batch');
    expect(again.slice(0, 4)).toEqual(['payout', 'batch', join(folder, 'nov (1).csv'), '--profile']);
    const json = oneJson((await run(['policy', 'check', 'nov (1).csv', '--profile', 'ops', '--json'])).stdout) as Record<string, any>;
    expect(json.sendable).toBe(false);
    expect(json.batch_refused.message).toMatch(/this batch would pay them again\.$/);
    // What the printed command says, run from another folder: the rows paid again as new payouts, under a batch id of their own.
    process.chdir(work.dir);
    const from = ctx.sb.requests().length;
    const paid = await run([...again, '--yes']);
    expect(paid.code, paid.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(3);
  });

  it('part of a named batch paid: the rest of that batch offered, and it sends only the rest', async () => {
    // Funds for the first two rows only: the third is refused.
    const folder = batchFolder('4.00');
    const file = join(folder, 'nov (1).csv');
    process.chdir(folder);
    const first = await run(['payout', 'batch', 'nov (1).csv', '--profile', 'ops', '--batch-id', 'nov-1', '--concurrency', '1', '--yes']);
    expect(first.code, first.stderr).toBe(1);
    const r = await run(['policy', 'check', 'nov (1).csv', '--profile', 'ops']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const rest = /^ {2}To send the rest of that batch: +(payctl .*)$/m.exec(r.stdout)?.[1];
    expect(rest, r.stdout).toBeDefined();
    expect(shellSplit(rest!)).toEqual(['payctl', 'payout', 'batch', file, '--profile', 'ops', '--batch-id', 'nov-1']);
    // Run as printed, from another folder: that batch resumed (the file read), the two rows it accepted not sent again.
    process.chdir(work.dir);
    const from = ctx.sb.requests().length;
    const resumed = await run([...shellSplit(rest!).slice(1), '--yes']);
    expect(resumed.stderr).toContain('(2 already accepted earlier, not sent again)');
    // The third row, sent again under its key, is refused again (the wallet still short): exit 1, one request.
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
  });
});
