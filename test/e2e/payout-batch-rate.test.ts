/**
 * `payctl payout batch` against a rate-limited sandbox (20 requests a second), as a
 * process: Node prints no warnings (MaxListenersExceededWarning, ...) on the process's
 * stderr while 429s pause every sender, and the batch still exits 0 with every row
 * accepted. The rate-limit behaviour itself (100 rows, the pauses, the sliding second)
 * is proven in process, in virtual time: test/commands/payout-batch-rate.test.ts. Its
 * own sandbox, so the limit touches nothing else.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { writeLoggedIn } from '../helpers/e2e.js';
import {
  batchRows,
  expectEveryRowOnceThrough429s,
  expectNoNodeWarnings,
  payctl,
  fundDemoWallets,
  readCsvReport,
  tempWorkDir,
  toCsv,
  writeFile,
} from '../helpers/batch.js';

const RATE = 20;
// Enough rows for two seconds of 429s at concurrency 8 (the full 100 rows run in process).
const ROWS = 40;
const ctx = useSandbox({ rateLimit: RATE });

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

// A process: only a real Node process prints its own warnings on stderr.
it(`rate limited to ${RATE}/s, as a process: ${ROWS} rows at concurrency 8 are all accepted, exit 0, Node prints no warnings, and the batch takes at least rows / rate seconds`, async () => {
  const sb = ctx.sb;
  fundDemoWallets(sb);
  const sle = sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
  const prefix = `rate-${Date.now()}`;
  const rows = batchRows(ROWS, sle, prefix);
  const file = writeFile(work.file('rate.csv'), toCsv(rows));
  // (No fresh second needed: requests left in the limiter's window only slow the batch down.)
  sb.clearRequests();

  const r = await payctl(['payout', 'batch', file, '--concurrency', '8', '--yes'], { dir: cfg.dir, timeoutMs: 40_000 });
  expect(r.stderr).toContain(`${ROWS} accepted, 0 already submitted, 0 rejected, 0 unknown.`);
  expectNoNodeWarnings(r.stderr);
  expect(r.code).toBe(0);

  // The sandbox refused some requests with 429, and still took every row exactly once, each 429'd row with its key.
  expectEveryRowOnceThrough429s(
    sb,
    rows.map((x) => x.payout_id!),
    prefix,
  );

  // At most RATE accepted in any sliding second: request k + RATE comes at least a second
  // after request k, so 100 POSTs and the balances before them span at least 5 s.
  const accepted = sb.requests().filter((x) => x.outcome !== 429);
  expect(accepted.length).toBeGreaterThanOrEqual(ROWS + 1);
  const span = Date.parse(accepted.at(-1)!.receivedAt) - Date.parse(accepted[0]!.receivedAt);
  expect(span).toBeGreaterThanOrEqual((Math.ceil(accepted.length / RATE) - 1) * 1000 - 50);
  expect(r.ms).toBeGreaterThanOrEqual((ROWS / RATE) * 1000 - 100);

  const report = readCsvReport(work.file('rate.report.csv'));
  expect(report).toHaveLength(ROWS);
  expect(report.every((l) => l.outcome === 'accepted' && /^TXN-BOK-[0-9A-F]{26}$/.test(l.transaction_id))).toBe(true);
}, 45_000);
