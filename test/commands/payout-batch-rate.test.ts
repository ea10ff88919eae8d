/**
 * `payctl payout batch` against a rate-limited sandbox (20 requests a second), in
 * process and in virtual time: 429s slow the whole batch down instead of failing rows.
 * The 429 gate and the retries wait on the clock, and the sandbox's limiter counts
 * seconds of the same clock, so the test proves the rate without spending it. Its own
 * sandbox, started in virtual time, so the limit touches nothing else. (Node printing
 * no warnings while rate limited is also checked by a spawned run in
 * test/e2e/payout-batch-rate.test.ts.)
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { batchRows, expectEveryRowOnceThrough429s, expectNoNodeWarnings, fundDemoWallets, readCsvReport, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';
import { loginInProcess, VirtualClock, withoutWarnings } from '../helpers/batch-fixtures.js';

const RATE = 20;
const ROWS = 100;

let cfg: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;
let clock: VirtualClock | undefined;
let sandbox: Sandbox | undefined;

beforeAll(() => {
  cfg = tempConfigDir();
  work = tempWorkDir();
});

afterEach(async () => {
  await sandbox?.close();
  clock?.restore();
  sandbox = undefined;
  clock = undefined;
});

afterAll(() => {
  cfg?.cleanup();
  work?.cleanup();
});

it(`rate limited to ${RATE}/s: ${ROWS} rows at concurrency 8 are all accepted, exit 0, and the batch takes at least rows / rate seconds`, async () => {
  // Virtual time first: the sandbox's limiter reads the (faked) Date it is started with.
  clock = new VirtualClock();
  const sb = (sandbox = await startSandbox({ rateLimit: RATE, settleAfterMs: 60_000 }));
  await loginInProcess(sb, cfg.dir);
  fundDemoWallets(sb);
  const sle = sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
  const prefix = `rate-${Date.now()}`;
  const rows = batchRows(ROWS, sle, prefix);
  const file = writeFile(work.file('rate.csv'), toCsv(rows));
  // A fresh second for the limiter: the login's requests are out of the window.
  clock.advance(1100);
  sb.clearRequests();

  const r = await withoutWarnings(() => payctl(['payout', 'batch', file, '--concurrency', '8', '--yes'], { dir: cfg.dir, clock }));
  expect(r.stderr).toContain(`${ROWS} accepted, 0 already submitted, 0 rejected, 0 unknown.`);
  expectNoNodeWarnings(r.stderr);
  expect(r.stdout).toBe('');
  expect(r.code, r.stderr).toBe(0);

  // The sandbox refused some requests with 429, and still took every row exactly once, each 429'd row with its key.
  expectEveryRowOnceThrough429s(
    sb,
    rows.map((x) => x.payout_id!),
    prefix,
  );
  // Every wait payctl asked for was the Retry-After of one second (the gate's and the
  // retries', never a back-off of its own choosing).
  expect(clock.waits.length).toBeGreaterThan(0);
  expect(
    clock.waits.every((ms) => ms > 0 && ms <= 1000),
    clock.waits.join(','),
  ).toBe(true);
  expect(clock.waits).toContain(1000);

  // At most RATE accepted in any sliding second: request k + RATE comes at least a second
  // after request k, so 100 POSTs and the balances before them span at least 5 s.
  const accepted = sb.requests().filter((x) => x.outcome !== 429);
  expect(accepted.length).toBeGreaterThanOrEqual(ROWS + 1);
  const at = accepted.map((x) => Date.parse(x.receivedAt));
  // (receivedAt carries a sub-millisecond part of its own: 1 ms of slack.)
  for (let k = 0; k + RATE < at.length; k++) expect(at[k + RATE]! - at[k]!, `request ${k + RATE}`).toBeGreaterThanOrEqual(999);
  const span = at.at(-1)! - at[0]!;
  expect(span).toBeGreaterThanOrEqual((Math.ceil(accepted.length / RATE) - 1) * 1000 - 50);
  expect(r.ms).toBeGreaterThanOrEqual((ROWS / RATE) * 1000 - 100);

  const report = readCsvReport(work.file('rate.report.csv'));
  expect(report).toHaveLength(ROWS);
  expect(report.every((l) => l.outcome === 'accepted' && /^TXN-BOK-[0-9A-F]{26}$/.test(l.transaction_id))).toBe(true);
}, 45_000);
