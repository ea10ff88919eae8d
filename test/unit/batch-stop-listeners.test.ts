/**
 * runBatch's abort listeners, against the in-process sandbox over real HTTP: at --concurrency 16
 * every sender's request in flight listens on the run's stop signal (client.ts send, until it has
 * left), so more than Node's default of ten at once is by design. Node emits no warning for it
 * (MaxListenersExceededWarning reached the operator at --concurrency 11), the listeners at any
 * moment are never more than the senders, and none is left when the run ends, whatever the
 * number of rows (a listener per row would leak across a 3,000-row run).
 */
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { systemClock } from '../../src/clock.js';
import { runBatch, type BatchItem } from '../../src/payouts/batch.js';
import { Journal } from '../../src/payouts/journal.js';
import { payoutBody, validatePayout } from '../../src/payouts/request.js';
import { withoutWarnings } from '../helpers/batch-fixtures.js';
import { fundDemoWallets } from '../helpers/batch.js';
import { useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-stop-listeners-'));
});
afterEach(() => {
  ctx.sb.faults.clear();
  rmSync(dir, { recursive: true, force: true });
});

const CONCURRENCY = 16;

function items(n: number, wallet: string, tag: string): BatchItem[] {
  return Array.from({ length: n }, (_, i) => {
    const r = validatePayout({
      payoutId: `${tag}-${i}`,
      walletId: wallet,
      amount: `1.${String(i % 100).padStart(2, '0')}`,
      currency: 'SLE',
      type: 'bank',
      name: `Person ${i}`,
      provider: 'uba',
      account: `77${tag.length}${i}`,
    });
    if (!r.ok) throw new Error(r.problems.join('; '));
    return { row: i + 2, request: r.request, body: payoutBody(r.request) };
  });
}

/** Runs n rows at CONCURRENCY; the most abort listeners the stop signal had at once, and how many it has after. */
async function run(n: number, tag: string): Promise<{ accepted: number; most: number; after: number }> {
  const sb = ctx.sb;
  const stop = AbortSignal.any([new AbortController().signal]);
  const api = new ApiClient({
    baseUrl: sb.baseUrl,
    routes: {},
    timeoutMs: 10_000,
    env: {},
    signal: new AbortController().signal,
    clock: systemClock,
    verbose: undefined,
    credentials: { apiKey: sb.apiKey },
  });
  let most = 0;
  const look = () => void (most = Math.max(most, getEventListeners(stop, 'abort').length));
  const wallet = sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
  const { outcomes } = await runBatch(items(n, wallet, tag), {
    api,
    journal: new Journal(join(dir, tag)),
    concurrency: CONCURRENCY,
    clock: systemClock,
    stop,
    onProgress: look,
  });
  return { accepted: outcomes.filter((o) => o.outcome === 'accepted').length, most, after: getEventListeners(stop, 'abort').length };
}

it(`at concurrency ${CONCURRENCY}: no Node warning, at most one stop listener per sender, none left after 32 rows or 160`, async () => {
  fundDemoWallets(ctx.sb);
  // Each answer held back a little, so that every sender has its request in flight at once.
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 30, times: Infinity });
  const tag = `sl${Date.now()}`;
  const small = await withoutWarnings(() => run(32, `${tag}a`));
  const large = await withoutWarnings(() => run(160, `${tag}b`));
  expect(small.accepted).toBe(32);
  expect(large.accepted).toBe(160);
  // Every sender was in flight at once (more than Node's default of ten), never more.
  expect(small.most).toBeGreaterThan(10);
  expect(large.most).toBeLessThanOrEqual(CONCURRENCY);
  expect(small.after).toBe(0);
  expect(large.after).toBe(0);
});
