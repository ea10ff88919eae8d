/**
 * A batch stopped with Ctrl-C has rows journaled ahead of its senders that never left: they are
 * recorded as not made, so `history` does not show them as unknown and `history reconcile`
 * (which resends unknown payouts under their keys) never pays what the person stopped. The
 * resume still sends them, once each, under the keys journaled then.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startPayctl, payctl } from '../helpers/in-process.js';
import { batchRows, heldCounts, payoutPosts, postedPayoutId, toCsv } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const folders = useBatchFolders(ctx);
afterEach(() => ctx.sb.faults.clear());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function history(): Promise<Array<{ payout_id: string; outcome: string }>> {
  const r = await payctl(['history', '--json'], { dir: folders.dir });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { data: Array<{ payout_id: string; outcome: string }> }).data;
}

describe('a batch stopped with rows journaled but not sent', () => {
  it('those rows are "not made": history reconcile sends nothing for them; the resume sends each once under its key', async () => {
    const sb = ctx.sb;
    const wallet = freshWallet(sb, '100000.00', 'SLE');
    const prefix = `stop-${Date.now()}`;
    const rows = batchRows(40, wallet, prefix);
    const ids = rows.map((r) => r.payout_id!);
    const file = join(folders.work.dir, 'pay.csv');
    writeFileSync(file, toCsv(rows));
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 100, times: Infinity });

    const run = startPayctl(['payout', 'batch', file, '--concurrency', '1', '--yes'], { dir: folders.dir });
    while (payoutPosts(sb).length < 3) await sleep(5);
    run.interrupt();
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    const sent = payoutPosts(sb).map(postedPayoutId);
    expect(sent.length).toBeLessThan(10);

    // Journaled ahead (at least 32 rows a group), never sent: not made, not unknown.
    const h = await history();
    const byId = new Map(h.map((e) => [e.payout_id, e.outcome]));
    const unsent = ids.filter((id) => !sent.includes(id));
    expect(unsent.filter((id) => byId.has(id)).length).toBeGreaterThan(20);
    for (const id of unsent) if (byId.has(id)) expect(byId.get(id), id).toBe('not made');
    for (const id of sent) expect(byId.get(id), id).toBe('accepted');

    sb.faults.clear();
    const posted = payoutPosts(sb).length;
    const before = sb.requests().length;
    const reconcile = await payctl(['history', 'reconcile'], { dir: folders.dir });
    expect(reconcile.code, reconcile.stderr).toBe(0);
    expect(payoutPosts(sb).length).toBe(posted);

    const resumed = await payctl(['payout', 'batch', file, '--yes'], { dir: folders.dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = payoutPosts(sb, before).map(postedPayoutId);
    expect(again.sort()).toEqual([...unsent].sort());
    for (const [id, n] of heldCounts(sb, ids)) expect(n, id).toBe(1);
  });
});
