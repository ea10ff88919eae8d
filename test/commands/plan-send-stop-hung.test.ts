/**
 * `plan send` stopped (Ctrl-C, SIGTERM) while the service hangs on its requests: the same sender
 * as `payout batch` (send-rows.ts). The stop is said at once, no new attempt of a row in flight
 * starts after it, and the unknown outcomes are said with the command that finishes them (exit 4).
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payoutPosts, postedPayoutId } from '../helpers/batch.js';
import { setUpTeam, useTeamFolders } from '../helpers/four-eyes.js';

const ctx = useSandbox();
const { work, people } = useTeamFolders();
afterEach(() => ctx.sb.faults.clear());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('plan send stopped while the service hangs', () => {
  beforeAll(async () => {
    await setUpTeam(ctx.sb, people, work.dir);
  });

  it('says at once what it waits for, starts no new attempt, and exits 4 with the unknown outcomes said', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const tag = randomUUID().slice(0, 6);
    const rows = Array.from({ length: 6 }, (_, i) => `${wallet},${10 + i}.00,SLE,bank,Hawa Kargbo ${i + 1},ecobank,0077${tag.replace(/\D/g, '7')}${i},Salary`);
    const file = join(work.dir, 'hung.csv');
    writeFileSync(file, 'wallet_id,amount,currency,type,name,provider,account_number,note\n' + rows.join('\n') + '\n');
    const plan = join(work.dir, 'hung.plan.json');
    const made = await payctl(['plan', 'create', file, '--batch-id', `hung-${tag}`, '-o', plan], { dir: people.maker.dir });
    expect(made.code, made.stderr).toBe(0);

    const from = ctx.sb.requests().length;
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'hang', times: Infinity });
    const run = startPayctl(['plan', 'send', plan, '--concurrency', '4', '--timeout', '1', '--yes'], { dir: people.maker.dir });
    const deadline = Date.now() + 10_000;
    while (payoutPosts(ctx.sb, from).length < 4) {
      if (Date.now() > deadline) throw new Error('4 requests did not arrive within 10 s');
      await sleep(5);
    }
    run.interrupt();
    expect(run.stderr()).toContain('Stopping: waiting for 4 requests in flight');
    const r = await run.done;
    const posted = payoutPosts(ctx.sb, from).map(postedPayoutId);
    expect(posted.length, r.stderr).toBe(4);
    expect(new Set(posted).size).toBe(4);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('rows in flight finished');
    expect(r.stderr).toMatch(/Stopped: 2 rows were not sent/);
    expect(r.stderr).toContain('4 payouts may or may not have been made. Run the same command again to finish them safely (same keys)');
    expect(r.stderr).toContain(`payctl plan send ${plan}`);
  });
});
