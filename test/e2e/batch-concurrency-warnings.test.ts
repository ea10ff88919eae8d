/**
 * `payctl payout batch` at a high --concurrency, as a process: Node prints no warning
 * (MaxListenersExceededWarning, "Possible EventTarget memory leak detected. 11 abort listeners
 * added to [AbortSignal]") on stderr. Every request in flight listens on the run's stop signal
 * until it ends; more than Node's default of ten at once is by design, and the listeners go when
 * their requests end (test/unit/batch-stop-listeners.test.ts). Only a real process prints its own
 * warnings.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { writeLoggedIn } from '../helpers/e2e.js';
import { batchRows, expectExactlyOncePerId, expectNoNodeWarnings, fundDemoWallets, payctl, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';

const ctx = useSandbox();
let cfg: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;

beforeAll(async () => {
  cfg = tempConfigDir();
  work = tempWorkDir();
  await writeLoggedIn(ctx.sb, cfg.dir);
});

afterAll(() => {
  cfg?.cleanup();
  work?.cleanup();
});

it.each([11, 16])('a batch of 48 rows at --concurrency %i: every row accepted once, exit 0, Node prints no warning', async (concurrency) => {
  const sb = ctx.sb;
  fundDemoWallets(sb);
  const sle = sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
  const prefix = `conc${concurrency}-${Date.now()}`;
  const rows = batchRows(48, sle, prefix);
  const file = writeFile(work.file(`c${concurrency}.csv`), toCsv(rows));
  // Each answer held back a little, so that every sender has its request in flight at once.
  sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 50, times: Infinity });
  try {
    const r = await payctl(['payout', 'batch', file, '--concurrency', String(concurrency), '--yes'], { dir: cfg.dir, timeoutMs: 40_000 });
    expect(r.stderr).toContain('48 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expectNoNodeWarnings(r.stderr);
    expect(r.code).toBe(0);
    expectExactlyOncePerId(
      sb,
      rows.map((x) => x.payout_id!),
      prefix,
    );
  } finally {
    sb.faults.clear();
  }
});
