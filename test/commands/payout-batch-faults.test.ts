/**
 * `payctl payout batch` never pays a row twice, in process: connections reset after the
 * sandbox committed (one POST in ten), and one 429 that must pause every sender. The
 * sandbox answers at once, so the waits are pure client back-off: they go through a
 * TestClock (no real waiting) and the test checks the waits asked for. (Killed with
 * SIGKILL halfway and run again: test/e2e/payout-batch-faults.test.ts, a real process.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import type { RecordedRequest } from '../../src/sandbox/server.js';
import { TestClock } from '../helpers/clock.js';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { until } from '../helpers/e2e.js';
import { batchRows, expectExactlyOncePerId, expectNoNodeWarnings, payoutPosts, postedPayoutId, readCsvReport, toCsv, writeFile } from '../helpers/batch.js';
import { expectOneKeyPerPayoutId, useBatchFolders, VirtualClock, withoutWarnings } from '../helpers/batch-fixtures.js';

const ctx = useSandbox();

const setup = useBatchFolders(ctx);
let virtual: VirtualClock | undefined;

afterEach(() => {
  virtual?.restore();
  virtual = undefined;
  ctx.sb.faults.clear();
});

const batchArgs = (file: string) => ['payout', 'batch', file, '--concurrency', '8', '--yes'];

describe('payout batch under faults: exactly one payout per row', () => {
  it('connections reset after the commit on about 10% of POSTs: still one payout per row, all accepted, some replayed', async () => {
    const sb = ctx.sb;
    const prefix = `reset-${Date.now()}`;
    const rows = batchRows(200, setup.sleWallet, prefix);
    const file = writeFile(setup.work.file('reset.csv'), toCsv(rows));

    // Every tenth POST (from the sixth on) is reset after the sandbox committed it: 20 in
    // all, spread over the whole run. (A delay of 0 passes a request through unchanged.)
    for (let k = 0; k < 20; k++) {
      sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 0, times: k === 0 ? 5 : 9 });
      sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit' });
    }
    const clock = new TestClock();
    const r = await withoutWarnings(() => payctl(batchArgs(file), { dir: setup.dir, clock }));

    const posts = payoutPosts(sb);
    const resets = posts.filter((p) => p.outcome === 'reset');
    expect(resets.length).toBeGreaterThanOrEqual(12); // about 10% of about 200
    expect(resets.length).toBeLessThanOrEqual(20);
    // Spread out: not all in one burst at the start.
    expect(posts.indexOf(resets.at(-1)!)).toBeGreaterThan(100);
    const resetIds = new Set(resets.map(postedPayoutId));
    // Each reset was followed by a wait on the clock before the same request went again.
    expect(clock.waits.length).toBeGreaterThanOrEqual(resets.length);

    expectNoNodeWarnings(r.stderr);
    expect(r.stderr).toContain(`${200 - resetIds.size} accepted, ${resetIds.size} already submitted, 0 rejected, 0 unknown.`);
    expect(r.stdout).toBe('');
    expect(r.code, r.stderr).toBe(0);

    // The sandbox: exactly one payout per row, though some were sent two or more times.
    const ids = rows.map((x) => x.payout_id!);
    expectExactlyOncePerId(sb, ids, prefix);
    expect(posts.length).toBe(200 + resets.length);
    const keys = expectOneKeyPerPayoutId(posts);
    expect(keys.size).toBe(200);
    for (const p of sb.payouts().filter((x) => x.payout_id.startsWith(`${prefix}-`))) {
      expect(p.provider_response.idempotency_key).toBe(keys.get(p.payout_id));
    }
    // Every reset was followed by a retry with the same key that got the stored answer.
    for (const id of resetIds) expect(posts.filter((p) => postedPayoutId(p) === id).at(-1)!.outcome).toBe(201);

    // The report: every row accepted; exactly the rows whose connection was reset are "replayed".
    const report = readCsvReport(setup.work.file('reset.report.csv'));
    expect(report).toHaveLength(200);
    const held = new Map(sb.payouts().map((p) => [p.payout_id, p]));
    report.forEach((l, i) => {
      expect(l.payout_id).toBe(ids[i]);
      expect(l.outcome).toBe(resetIds.has(l.payout_id) ? 'replayed' : 'accepted');
      expect(l.transaction_id).toBe(held.get(l.payout_id)!.transaction_id);
    });
  });

  it('one 429 (Retry-After: 1) pauses every sender, not just its own row; the row is then accepted with its key', async () => {
    const sb = ctx.sb;
    const prefix = `pause-${Date.now()}`;
    const rows = batchRows(60, setup.sleWallet, prefix);
    const file = writeFile(setup.work.file('pause.csv'), toCsv(rows));
    // The 21st POST is refused with 429 and Retry-After: 1; every other one is accepted.
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 0, times: 20 });
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 429 });

    // Virtual time, held: no wait ends until the test lets time pass, so it can see who waits.
    const clock = (virtual = new VirtualClock());
    clock.hold();
    const warnings = withoutWarnings(async () => {
      const run = startPayctl(batchArgs(file), { dir: setup.dir, clock });
      let exited = false;
      void run.done.finally(() => (exited = true));
      // The 429 came, and then all 8 senders wait on the clock: the limited one before its
      // retry, the other seven at the shared gate once their requests in flight finished.
      await until(() => exited || clock.sleeping === 8);
      expect(exited, 'the batch ended while it should have been paused').toBe(false);
      const paused = payoutPosts(sb);
      const at429 = paused.findIndex((p) => p.outcome === 429);
      expect(at429).toBe(20);
      // Nothing more is sent while the pause lasts: only requests already on their way when
      // the 429 came (at most one per other sender) arrived after it.
      expect(paused.length - (at429 + 1)).toBeLessThanOrEqual(7);
      await new Promise((r) => setTimeout(r, 100));
      expect(payoutPosts(sb)).toHaveLength(paused.length);
      expect(clock.sleeping).toBe(8);
      clock.release();
      return run.done;
    });
    const r = await warnings;
    expect(r.stderr).toContain('60 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expectNoNodeWarnings(r.stderr);
    expect(r.stdout).toBe('');
    expect(r.code, r.stderr).toBe(0);
    // The waits asked for: each of the 8 senders waited the Retry-After of one second (the
    // limited row's own retry and the gate), and nothing else.
    expect(clock.waits).toEqual(Array(8).fill(1000));

    const posts = payoutPosts(sb);
    expect(posts.map((p) => p.outcome).filter((o) => o !== 201)).toEqual([429]);
    const limited = posts[20]!;
    expect(limited.outcome).toBe(429);
    // In virtual time: only requests already on their way when the 429 came arrive in the
    // second after it; the other seven senders wait too, then all go on.
    const t = (p: RecordedRequest) => Date.parse(p.receivedAt);
    const during = posts.filter((p) => t(p) > t(limited) + 300 && t(p) < t(limited) + 950);
    expect(during).toEqual([]);
    expect(posts.filter((p) => t(p) >= t(limited) + 950).length).toBeGreaterThan(30);
    const id = postedPayoutId(limited);
    const retried = posts.filter((p) => postedPayoutId(p) === id);
    expect(retried.map((p) => p.outcome)).toEqual([429, 201]);
    expect(retried[1]!.headers['idempotency-key']).toBe(limited.headers['idempotency-key']);
    expect(t(retried[1]!) - t(limited)).toBeGreaterThanOrEqual(950);
    expectExactlyOncePerId(
      sb,
      rows.map((x) => x.payout_id!),
      prefix,
    );
    expect(readCsvReport(setup.work.file('pause.report.csv')).every((l) => l.outcome === 'accepted')).toBe(true);
  });
});
