/**
 * Probe R58a finding 3, in process against the sandbox over real HTTP: two identical rows of one
 * batch, confirmed with --allow-duplicates (two payments intended); row 1 made with its answer
 * lost, row 2 not made (its request dropped before the sandbox made it). 25 hours later (TestClock)
 * the rows are not twins: row 1 is offered `--made-by` of its record (not blocked by row 2), and
 * once it is recorded, row 2 is offered `--resend`; each run as printed, two payouts at the sandbox,
 * nothing left unknown, and the batch resume sends nothing. And a row an earlier build recorded as
 * "not made: paid in its place" by the other row's record is never sent by a resume (before, it
 * was sent again as any refused row is, and a service that had forgotten its key paid it twice).
 */
import { describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { toCsv, writeFile, type BatchRow, payoutPosts } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { heldFrom } from '../helpers/payout-fixtures.js';
import { printed } from '../helpers/printed.js';
import { Journal } from '../../src/payouts/journal.js';
import { recordSentInstead } from '../../src/commands/payout/create-replaces.js';
import type { Deps } from '../../src/deps.js';

const ctx = useSandbox();
const setup = useBatchFolders(ctx);

/** What recordSentInstead reads of a run's Deps: its clock, and a log said to no one. */
const quiet = { clock: { now: () => new Date() }, log: { info: () => {}, warn: () => {} } } as unknown as Deps;

const DAY_AND_AN_HOUR = 25 * 60 * 60 * 1000;
const run = (args: string[], clock?: TestClock) => payctl(args, { dir: setup.dir, ...(clock ? { clock } : {}) });

/** The line of `out` holding `payctl history reconcile` and `has`, as argv. */
function command(out: string, has: string): string[] {
  const line = out.split('\n').find((l) => l.includes('payctl history reconcile') && l.includes(has));
  expect(line, `no reconcile with "${has}" in:\n${out}`).toBeDefined();
  return printed(line!, 'history reconcile');
}

/** Two identical rows sent as one batch (nov1): row 1 made, its answer lost; row 2 not made. The file, the resume, the ids, the wallet. */
async function duplicateRows() {
  const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
  const account = `00${10_000_000 + Math.floor(Math.random() * 80_000_000)}`;
  const tag = Math.random().toString(36).slice(2, 8);
  const row = (id: string): BatchRow => ({
    payout_id: id,
    wallet_id: wallet,
    amount: '72.00',
    currency: 'SLE',
    type: 'bank',
    name: 'Ibrahim',
    provider: 'ecobank',
    account_number: account,
    note: 'stipend',
  });
  const ids = [`bt-${tag}-1`, `bt-${tag}-2`] as const;
  const file = writeFile(setup.work.file('pay.csv'), toCsv([row(ids[0]), row(ids[1])]));
  const resume = ['payout', 'batch', file, '--batch-id', 'nov1', '--concurrency', '1', '--allow-duplicates', '--yes'];
  // Each row gets its five attempts: row 1's answers lost after the sandbox made it, row 2's requests dropped before.
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: 5 });
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-before-commit', times: Infinity });
  const first = await run(resume, new TestClock());
  ctx.sb.faults.clear();
  expect(first.code, first.stderr).toBe(4);
  const made = heldFrom(ctx.sb, wallet).map((t) => t.transaction_id);
  expect(made).toHaveLength(1);
  return { wallet, ids, resume, made: made[0]! };
}

describe('two identical rows of one batch confirmed with --allow-duplicates, row 1 made, row 2 not', () => {
  it('are not twins: each printed command run as printed, two payouts, none unknown, the resume sends nothing', async () => {
    const { wallet, ids, resume, made } = await duplicateRows();
    const clock = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    const all = await run(['history', 'reconcile'], clock);
    expect(all.code, all.stderr).toBe(4);
    // Row 1 is not blocked by row 2 as "sent in its place": it is offered its own record.
    expect(all.stdout).not.toContain('sent in its place');
    const own = await run(command(all.stdout, `--payout-id ${ids[0]} --made-by ${made}`), clock);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).not.toContain(`Payout ${ids[1]} is recorded as not made`);

    const next = await run(['history', 'reconcile'], clock);
    expect(next.code, next.stderr).toBe(4);
    const resend = command(next.stdout, `--payout-id ${ids[1]} --resend`);
    const sent = await run([...resend, '--yes'], clock);
    expect(sent.code, sent.stderr).toBe(0);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);

    const from = ctx.sb.requests().length;
    const again = await run(resume, clock);
    expect(again.code, again.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    const done = await run(['history', 'reconcile'], clock);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(heldFrom(ctx.sb, wallet)).toHaveLength(2);
  });

  it('a row an earlier build recorded "not made: paid in its place" by the other row is not sent by a resume 25 hours later', async () => {
    const { wallet, ids, resume, made } = await duplicateRows();
    const clock = new TestClock(new Date(Date.now() + DAY_AND_AN_HOUR));
    // As the build of an hour ago left it: row 2 recorded as made by row 1's record, row 1 as paid by it.
    const mb = await run(['history', 'reconcile', '--payout-id', ids[1], '--made-by', made], clock);
    expect(mb.code, mb.stderr).toBe(0);
    const journal = new Journal(setup.dir);
    const row1 = (await journal.get(ctx.sb.baseUrl, ids[0]))!;
    await recordSentInstead(journal, row1, ids[1], quiet, {
      why: `not made: transaction ${made}, recorded as payout ${ids[1]} (sent after it with the same details), paid the person in its place`,
      code: 'PAID_BY_TWIN',
      said: 'paid in its place',
    });

    const from = ctx.sb.requests().length;
    const again = await run(resume, clock);
    expect(payoutPosts(ctx.sb, from), again.stdout + again.stderr).toEqual([]);
    expect(again.stdout + again.stderr).toContain(`it is not sent again (payout ${ids[1]} paid it)`);
    expect(heldFrom(ctx.sb, wallet).map((t) => t.transaction_id)).toEqual([made]);
    const unknown = await run(['history', '--status', 'unknown', '--json']);
    const left = (JSON.parse(unknown.stdout) as { data: Array<{ payout_id: string }> }).data.map((l) => l.payout_id);
    expect(left).not.toContain(ids[0]);
  });
});
