/**
 * `payctl payout create` never pays twice, in process (payctl's main with in-memory
 * streams) against the in-process sandbox with its faults: a dropped connection after the
 * commit, 5xx, 429 and 409 in progress, a real 409 from another sender, and requests that
 * hang until retries run out (then the printed retry command). Waits that are only the
 * client's back-off run on a TestClock, and the waits asked for are checked; hangs and
 * held requests use real time. SIGKILL mid-request needs a process: test/e2e/payout-create-faults.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import type { Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { payoutPosts } from '../helpers/batch.js';
import { balanceMinor, expectOneKeyOneBody, heldFor, loginInProcess, payoutArgs } from '../helpers/payout-fixtures.js';
import { api, eventually, freshWallet, useSandbox } from '../helpers/sandbox.js';
import { shellSplit } from '../helpers/pty.js';

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
  ctx.sb.clearRequests();
});

afterEach(() => {
  ctx.sb.faults.clear();
  cleanup();
});

const run = (args: string[], clock?: TestClock): Promise<Run> => payctl(args, { dir, clock });

describe('payout create under faults: never twice', () => {
  it('reset after commit on the first attempt: retried with the same key, replayed, exactly one payout', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '10000.00', 'SLE');
    const payoutId = `reset-${randomUUID()}`;
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit' });

    const clock = new TestClock();
    const r = await run(payoutArgs(walletId, payoutId), clock);
    expect(r.stderr).toMatch(/Already submitted: payout \S+ was accepted earlier; this is the original transaction\. Nothing new was paid\./);
    expect(r.code, r.stderr).toBe(0);

    const posts = payoutPosts(sb);
    expect(posts.map((p) => p.outcome)).toEqual(['reset', 201]);
    const key = expectOneKeyOneBody(posts);
    // One back-off wait between the two attempts, on the clock (not waited for real).
    expect(clock.waits).toHaveLength(1);

    const held = heldFor(sb, payoutId);
    expect(held).toHaveLength(1);
    expect(held[0]!.provider_response.idempotency_key).toBe(key);
    expect(balanceMinor(sb, walletId)).toBe(1000000n - 150050n - 1501n);
    // The card shows the original transaction.
    expect(r.stdout).toMatch(new RegExp(`^Transaction\\s+${held[0]!.transaction_id}$`, 'm'));
    expect(r.stdout).toMatch(/^Total debited\s+1,515\.51 SLE$/m);
  });

  it('two 503s, a 429 and a 409 in progress, then success: same key each time, Retry-After honoured, exactly one payout', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '10000.00', 'SLE');
    const payoutId = `flaky-${randomUUID()}`;
    sb.faults.add({ path: '/v2/payout', kind: 'status', status: 503, times: 2 });
    sb.faults.add({ path: '/v2/payout', kind: 'status', status: 429 });
    sb.faults.add({ path: '/v2/payout', kind: 'status', status: 409, code: 'IDEMPOTENCY_IN_PROGRESS' });

    const clock = new TestClock();
    const r = await run(payoutArgs(walletId, payoutId), clock);
    expect(r.stderr).toContain(`Payout ${payoutId} submitted.`);
    expect(r.stderr).toMatch(/Attempt 1 got no final answer \(HTTP 503\); retrying in 1\.0 s with the same idempotency key/);
    expect(r.stderr).toMatch(/Attempt 3 got no final answer \(rate limited \(429\)\)/);
    expect(r.stderr).toMatch(/Attempt 4 got no final answer \(the first request is still being processed \(409\)\)/);
    expect(r.code, r.stderr).toBe(0);

    const posts = payoutPosts(sb);
    expect(posts.map((p) => p.outcome)).toEqual([503, 503, 429, 409, 201]);
    const key = expectOneKeyOneBody(posts);
    // Each refusal carried Retry-After: 1, and the next attempt waited for it (and only for it).
    expect(clock.waits).toEqual([1000, 1000, 1000, 1000]);
    expect(r.stderr.match(/retrying in 1\.0 s with the same idempotency key/g)).toHaveLength(4);

    const held = heldFor(sb, payoutId);
    expect(held).toHaveLength(1);
    expect(held[0]!.provider_response.idempotency_key).toBe(key);
    expect(balanceMinor(sb, walletId)).toBe(1000000n - 150050n - 1501n);
    expect(r.stdout).toMatch(new RegExp(`^Transaction\\s+${held[0]!.transaction_id}$`, 'm'));
  });

  it('a real 409 IDEMPOTENCY_IN_PROGRESS (the same key in flight from another sender) is waited out and replayed: one payout', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '10000.00', 'SLE');
    const payoutId = `inflight-${randomUUID()}`;
    const key = randomUUID();
    // The body payctl sends, byte for byte (the sandbox compares parsed JSON anyway).
    const body = JSON.stringify({
      amount: 1500.5,
      currency: 'SLE',
      payoutId,
      walletId,
      recipient: {
        type: 'wallet',
        accountDetails: {
          name: 'Aminata Kamara',
          provider: 'orange_money',
          accountNumber: '076123456',
          phoneNumber: '+23276123456',
          note: "Aminata's October stipend",
        },
      },
      metadata: { batch: 'oct stipends' },
    });
    // payctl's first attempt gets a 503 (Retry-After: 1). In that second, another sender
    // posts the same key and body, which the sandbox holds for 2 s before committing:
    // payctl's next attempts meet a real 409 IDEMPOTENCY_IN_PROGRESS, then the replay.
    // (Timed by the sandbox and payctl's own waits, not by how fast the machine starts node.)
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'status', status: 503 });
    const cli = run(payoutArgs(walletId, payoutId, ['--idempotency-key', key]));
    // (Real time: the sandbox holds the other sender's request for 2 s.)
    await eventually(() => payoutPosts(sb).length === 1, 15_000);
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 2000 });
    const direct = await api(sb, 'POST', '/payout', { body, idempotencyKey: key });
    const r = await cli;
    expect(direct.status).toBe(201);
    expect(r.stderr).toContain('(the first request is still being processed (409)); retrying in 1.0 s');
    expect(r.stderr).toMatch(/Already submitted/);
    expect(r.code, r.stderr).toBe(0);

    const posts = payoutPosts(sb);
    const outcomes = posts.map((p) => p.outcome);
    // payctl: 503, then 409 (one or more), then the replayed 201; the other sender: 201.
    expect(outcomes[0]).toBe(503);
    expect(outcomes.filter((o) => o === 409).length).toBeGreaterThanOrEqual(1);
    expect(outcomes.filter((o) => o === 201)).toHaveLength(2);
    expect(outcomes.at(-1)).toBe(201);
    expect(posts[0]!.body).toBe(body);
    expect(expectOneKeyOneBody(posts)).toBe(key);
    const held = heldFor(sb, payoutId);
    expect(held).toHaveLength(1);
    expect(held[0]!.transaction_id).toBe(direct.body.data.transaction_id);
    expect(r.stdout).toMatch(new RegExp(`^Transaction\\s+${direct.body.data.transaction_id}$`, 'm'));
    expect(balanceMinor(sb, walletId)).toBe(1000000n - 150050n - 1501n);
  });

  it('hangs until retries run out: exit 4, outcome unknown, a printed retry command that then pays exactly once with the same key', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '10000.00', 'SLE');
    const payoutId = `hang-${randomUUID()}`;
    sb.faults.add({ path: '/v2/payout', kind: 'hang', times: Infinity });

    // Each attempt hangs for the real second; the back-off between them is on a TestClock.
    const clock = new TestClock();
    const r = await run(['--timeout', '0.5', ...payoutArgs(walletId, payoutId)], clock);
    expect(clock.waits).toHaveLength(4);
    expect(r.stderr).toContain(`The outcome of payout ${payoutId} is unknown: it may or may not have been made (5 attempts;`);
    expect(r.stderr).toContain(`Find out with:   payctl history reconcile --timeout 0.5 --payout-id ${payoutId}\n`);
    expect(r.stdout).toBe('');
    expect(r.code, r.stderr).toBe(4);

    const posts = payoutPosts(sb);
    expect(posts.map((p) => p.outcome)).toEqual(['hang', 'hang', 'hang', 'hang', 'hang']);
    const key = expectOneKeyOneBody(posts);
    expect(heldFor(sb, payoutId)).toEqual([]);

    // The printed command: same payout id, the key, --yes.
    const line = r.stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith('payctl payout create '));
    expect(line).toBeDefined();
    expect(line).toContain(`--payout-id ${payoutId} --idempotency-key ${key} --yes`);
    const argv = shellSplit(line!);
    expect(argv[0]).toBe('payctl');
    expect(argv).toContain("Aminata's October stipend");
    expect(argv).toContain('batch=oct stipends');

    sb.faults.clear();
    sb.clearRequests();
    const again = await run(argv.slice(1));
    expect(again.stderr).toContain(`Payout ${payoutId} was journaled before: resending it with the same idempotency key.`);
    expect(again.code, again.stderr).toBe(0);

    const retried = payoutPosts(sb);
    expect(retried).toHaveLength(1);
    expect(retried[0]!.outcome).toBe(201);
    expect(retried[0]!.headers['idempotency-key']).toBe(key);
    expect(retried[0]!.body).toBe(posts[0]!.body);
    const held = heldFor(sb, payoutId);
    expect(held).toHaveLength(1);
    expect(held[0]!.provider_response.idempotency_key).toBe(key);
    expect(balanceMinor(sb, walletId)).toBe(1000000n - 150050n - 1501n);
    expect(again.stdout).toMatch(new RegExp(`^Transaction\\s+${held[0]!.transaction_id}$`, 'm'));
  });

  it('answers lost after the payout was made: "Find out with", run as printed, records it (one payout, the same key)', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '10000.00', 'SLE');
    const payoutId = `lost-${randomUUID()}`;
    sb.faults.add({ path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const r = await run(payoutArgs(walletId, payoutId), new TestClock());
    expect(r.code, r.stderr).toBe(4);
    const key = expectOneKeyOneBody(payoutPosts(sb));
    expect(heldFor(sb, payoutId)).toHaveLength(1);

    const line = /^Find out with:\s+(payctl .*)$/m.exec(r.stderr)?.[1];
    expect(line, r.stderr).toBe(`payctl history reconcile --payout-id ${payoutId}`);
    sb.faults.clear();
    sb.clearRequests();
    const found = await run(shellSplit(line!).slice(1));
    expect(found.code, found.stderr).toBe(0);
    const resent = payoutPosts(sb);
    expect(resent).toHaveLength(1);
    expect(resent[0]!.headers['idempotency-key']).toBe(key);
    expect(heldFor(sb, payoutId)).toHaveLength(1);
    expect(found.stdout).toContain(`accepted  ${payoutId}`);
  });
});

describe('two runs claiming one payout id with other details at the same moment', () => {
  it('the one that loses the claim exits 2 ("already used ... with other details"), never "a bug in payctl"; one payout', async () => {
    const sb = ctx.sb;
    const walletId = freshWallet(sb, '10000.00', 'SLE');
    for (let trial = 0; trial < 2; trial++) {
      const payoutId = `race-${randomUUID()}`;
      const args = (amount: string) => payoutArgs(walletId, payoutId).map((a, i, all) => (all[i - 1] === '--amount' ? amount : a));
      // Both look the id up before either has claimed it (one event loop, the look-ups are file reads).
      const [a, b] = await Promise.all([run(args('10.00')), run(args('20.00'))]);
      const lost = [a, b].filter((r) => r.code !== 0);
      expect(lost, `${a.stderr}\n${b.stderr}`).toHaveLength(1);
      expect(lost[0]!.code, lost[0]!.stderr).toBe(2);
      expect(lost[0]!.stderr).toContain(`Payout id ${payoutId} was already used for a payout with other details. Nothing was sent.`);
      expect(lost[0]!.stderr).not.toContain('bug in payctl');
      expect(heldFor(sb, payoutId)).toHaveLength(1);
    }
  });
});
