/**
 * `payctl payout batch` never pays a row twice: connections reset after the sandbox
 * committed (about one POST in ten), and the process killed with SIGKILL halfway and
 * the same command run again. The built binary against the in-process sandbox.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import type { RecordedRequest } from '../../src/sandbox/server.js';
import {
  batchRows,
  expectExactlyOncePerId,
  expectNoNodeWarnings,
  fundDemoWallets,
  loginCli,
  payctl,
  payoutPosts,
  postedPayoutId,
  readCsvReport,
  startPayctl,
  tempWorkDir,
  toCsv,
  writeFile,
  type Run,
} from '../helpers/batch.js';

const ctx = useSandbox();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let cfg: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;
let sle: string;

beforeAll(async () => {
  cfg = tempConfigDir();
  await loginCli(ctx.sb, cfg.dir);
});

afterAll(() => cfg?.cleanup());

beforeEach(() => {
  work = tempWorkDir();
  fundDemoWallets(ctx.sb);
  sle = ctx.sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
  ctx.sb.clearRequests();
});

afterEach(() => {
  ctx.sb.faults.clear();
  work.cleanup();
});

const batchArgs = (file: string) => ['payout', 'batch', file, '--concurrency', '8', '--yes'];

/** Every payout id was always sent with one key (a UUID) and one body, byte for byte; returns id -> key. */
function expectOneKeyPerPayoutId(posts: RecordedRequest[]): Map<string, string> {
  const keys = new Map<string, string>();
  const bodies = new Map<string, string>();
  for (const p of posts) {
    const id = postedPayoutId(p);
    const key = p.headers['idempotency-key']!;
    expect(key).toMatch(UUID);
    expect(keys.get(id) ?? key, `one key for ${id}`).toBe(key);
    expect(bodies.get(id) ?? p.body, `one body for ${id}`).toBe(p.body);
    keys.set(id, key);
    bodies.set(id, p.body);
  }
  expect(new Set(keys.values()).size).toBe(keys.size);
  return keys;
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

describe('payout batch under faults: exactly one payout per row', () => {
  it('connections reset after the commit on about 10% of POSTs: still one payout per row, all accepted, some replayed', async () => {
    const sb = ctx.sb;
    const prefix = `reset-${Date.now()}`;
    const rows = batchRows(200, sle, prefix);
    const file = writeFile(work.file('reset.csv'), toCsv(rows));

    // The sandbox has no "every tenth request" fault: while the batch runs, whenever the
    // previous one was used up and ten more POSTs arrived, arm one more reset-after-commit
    // (20 in all), so they spread over the whole run.
    const { done } = startPayctl(batchArgs(file), { dir: cfg.dir, timeoutMs: 40_000 });
    let finished = false;
    const ran = done.finally(() => (finished = true));
    let armed = 0;
    let nextAt = 5;
    while (!finished) {
      const n = payoutPosts(sb).length;
      if (armed < 20 && n >= nextAt && sb.faults.list().length === 0) {
        sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit' });
        armed++;
        nextAt = n + 10;
      }
      await sleep(2);
    }
    const r: Run = await ran;

    const posts = payoutPosts(sb);
    const resets = posts.filter((p) => p.outcome === 'reset');
    expect(resets.length).toBeGreaterThanOrEqual(12); // about 10% of about 200 (some may be left unused at the end)
    expect(resets.length).toBeLessThanOrEqual(20);
    // Spread out: not all in one burst at the start.
    expect(posts.indexOf(resets.at(-1)!)).toBeGreaterThan(100);
    const resetIds = new Set(resets.map(postedPayoutId));

    expectNoNodeWarnings(r.stderr);
    expect(r.stderr).toContain(`${200 - resetIds.size} accepted, ${resetIds.size} already submitted, 0 rejected, 0 unknown.`);
    expect(r.code).toBe(0);

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
    const report = readCsvReport(work.file('reset.report.csv'));
    expect(report).toHaveLength(200);
    const held = new Map(sb.payouts().map((p) => [p.payout_id, p]));
    report.forEach((l, i) => {
      expect(l.payout_id).toBe(ids[i]);
      expect(l.outcome).toBe(resetIds.has(l.payout_id) ? 'replayed' : 'accepted');
      expect(l.transaction_id).toBe(held.get(l.payout_id)!.transaction_id);
    });
  }, 45_000);

  it('one 429 (Retry-After: 1) pauses every sender, not just its own row; the row is then accepted with its key', async () => {
    const sb = ctx.sb;
    const prefix = `pause-${Date.now()}`;
    const rows = batchRows(60, sle, prefix);
    const file = writeFile(work.file('pause.csv'), toCsv(rows));
    // The 21st POST is refused with 429 and Retry-After: 1; every other one is accepted.
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 0, times: 20 });
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 429 });

    const r = await payctl(batchArgs(file), { dir: cfg.dir, timeoutMs: 30_000 });
    expect(r.stderr).toContain('60 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expectNoNodeWarnings(r.stderr);
    expect(r.code).toBe(0);

    const posts = payoutPosts(sb);
    expect(posts.map((p) => p.outcome).filter((o) => o !== 201)).toEqual([429]);
    const limited = posts[20]!;
    expect(limited.outcome).toBe(429);
    // Only requests already on their way when the 429 came arrive in the second after it:
    // the other seven senders wait too, then all go on.
    const t = (p: RecordedRequest) => Date.parse(p.receivedAt);
    const during = posts.filter((p) => t(p) > t(limited) + 300 && t(p) < t(limited) + 950);
    expect(during).toEqual([]);
    expect(posts.filter((p) => t(p) >= t(limited) + 950).length).toBeGreaterThan(30);
    const id = postedPayoutId(limited);
    const retried = posts.filter((p) => postedPayoutId(p) === id);
    expect(retried.map((p) => p.outcome)).toEqual([429, 201]);
    expect(retried[1]!.headers['idempotency-key']).toBe(limited.headers['idempotency-key']);
    expect(t(retried[1]!) - t(limited)).toBeGreaterThanOrEqual(950);
    expectExactlyOncePerId(sb, rows.map((x) => x.payout_id!), prefix);
    expect(readCsvReport(work.file('pause.report.csv')).every((l) => l.outcome === 'accepted')).toBe(true);
  });

  it('killed with SIGKILL halfway, then the same command again: one payout per row in total; earlier rows skipped, unknown ones resent with their keys', async () => {
    const sb = ctx.sb;
    const prefix = `kill-${Date.now()}`;
    const rows = batchRows(200, sle, prefix);
    const ids = rows.map((x) => x.payout_id!);
    const file = writeFile(work.file('kill.csv'), toCsv(rows));
    const reportPath = work.file('kill.report.csv');

    // The first 100 POSTs are answered at once; from then on the sandbox holds each one
    // for 1.5 s before committing it. When 8 are held, all 8 senders wait on them (their
    // payouts are committed but the client has no answer yet): kill it then.
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 0, times: 100 });
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 1500, times: Infinity });
    const { child, done } = startPayctl(batchArgs(file), { dir: cfg.dir, timeoutMs: 30_000 });
    let exited = false;
    void done.finally(() => (exited = true));
    while (payoutPosts(sb).length < 108 && !exited) await sleep(2);
    expect(exited, 'the batch was still running').toBe(false);
    child.kill('SIGKILL');
    const killed = await done;
    expect(killed.signal).toBe('SIGKILL');
    sb.faults.clear();

    const firstPosts = payoutPosts(sb);
    expect(firstPosts).toHaveLength(108);
    const answered = firstPosts.slice(0, 100).map(postedPayoutId);
    const inFlight = firstPosts.slice(100).map(postedPayoutId);
    // The report written as rows finished: exactly the 100 answered rows, nothing in flight.
    const partial = readCsvReport(reportPath);
    expect(partial.map((l) => l.payout_id).sort()).toEqual([...answered].sort());
    expect(partial.every((l) => l.outcome === 'accepted' && l.batch_id === 'default')).toBe(true);

    // The same command again.
    const from = sb.requests().length;
    const r = await payctl(batchArgs(file), { dir: cfg.dir, timeoutMs: 30_000 });
    expect(r.stderr).toContain(`Batch "default": 100 payouts to send from ${file} (100 already accepted earlier, not sent again):`);
    expect(r.stderr).toContain('192 accepted (100 in an earlier run), 8 already submitted, 0 rejected, 0 unknown.');
    expectNoNodeWarnings(r.stderr);
    expect(r.code).toBe(0);

    // The rerun sent nothing for the 100 accepted rows, and sent the other 100.
    const rerunPosts = payoutPosts(sb, from);
    const rerunIds = new Set(rerunPosts.map(postedPayoutId));
    for (const id of answered) expect(rerunIds.has(id), id).toBe(false);
    expect(rerunIds.size).toBe(100);
    for (const id of inFlight) expect(rerunIds.has(id), id).toBe(true);

    // In total: exactly one payout per row, and one key per payout id across both runs
    // (the 8 whose outcome was unknown were resent with the key journaled by the first run).
    expectExactlyOncePerId(sb, ids, prefix);
    const keys = expectOneKeyPerPayoutId(payoutPosts(sb));
    expect(keys.size).toBe(200);
    for (const p of sb.payouts().filter((x) => x.payout_id.startsWith(`${prefix}-`))) {
      expect(p.provider_response.idempotency_key).toBe(keys.get(p.payout_id));
    }

    // The rerun's report: the first run's rows marked, the in-flight ones replayed.
    const report = readCsvReport(reportPath);
    expect(report).toHaveLength(200);
    const held = new Map(sb.payouts().map((p) => [p.payout_id, p]));
    const answeredSet = new Set(answered);
    const inFlightSet = new Set(inFlight);
    report.forEach((l, i) => {
      expect(l.payout_id).toBe(ids[i]);
      expect(l.transaction_id).toBe(held.get(l.payout_id)!.transaction_id);
      if (answeredSet.has(l.payout_id)) expect([l.outcome, l.earlier_run], l.payout_id).toEqual(['accepted', 'yes']);
      else if (inFlightSet.has(l.payout_id)) expect([l.outcome, l.earlier_run], l.payout_id).toEqual(['replayed', '']);
      else expect([l.outcome, l.earlier_run], l.payout_id).toEqual(['accepted', '']);
    });
  }, 45_000);
});
