/**
 * A batch run killed mid-send (SIGKILL) leaves its lock files (the batch's and, for a run not
 * named, its rows'); after a reboot their pid may belong to another program. Probe T, finding 9:
 * the next run waited 30 s for "another payctl (pid N …) that is sending its rows", N being a
 * `sleep`. The built binary, a real `sleep` in the crashed run's pid: the rerun takes the locks
 * over at once and finishes the batch, nothing paid twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { startCli, until, writeLoggedIn } from '../helpers/e2e.js';
import { batchRows, fundDemoWallets, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';
import { useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
let cfg: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;
let sleeper: ChildProcess | undefined;

beforeAll(async () => {
  cfg = tempConfigDir();
  work = tempWorkDir();
  await writeLoggedIn(ctx.sb, cfg.dir);
});
afterEach(() => {
  sleeper?.kill('SIGKILL');
  ctx.sb.faults.clear();
});
afterAll(() => {
  cfg?.cleanup();
  work?.cleanup();
});

it('a crashed run whose pid now runs another program: the rerun takes its lock files over at once and pays each row once', async () => {
  const sb = ctx.sb;
  fundDemoWallets(sb);
  const sle = sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
  const prefix = `stale-${Date.now()}`;
  // No payout ids given, so also the rows' lock (a run not named).
  const rows = batchRows(2, sle, prefix).map((r) => ({ ...r, payout_id: '' }));
  const file = writeFile(work.file('stale.csv'), toCsv(rows));

  sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 3_000, times: Infinity });
  const from = sb.requests().length;
  const crashed = startCli(['payout', 'batch', file, '--yes'], { dir: cfg.dir });
  // Both rows' requests at the service before the kill (under load the second may leave later):
  // the rerun then finds both made, whatever the machine's pace.
  await until(
    () =>
      sb
        .requests()
        .slice(from)
        .filter((q) => q.method === 'POST' && q.path === '/v2/payout').length >= 2,
  );
  crashed.child.kill('SIGKILL');
  await crashed.done;
  sb.faults.clear();

  // The crashed run's pid, after a reboot, is a program that is not payctl.
  sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => sleeper!.once('spawn', resolve).once('error', reject));
  const locks = join(cfg.dir, 'locks');
  const left = readdirSync(locks).filter((f) => /^batch-.*\.lock$/.test(f));
  expect(left).toHaveLength(2);
  for (const f of left) {
    const path = join(locks, f);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/"pid":\d+/, `"pid":${sleeper.pid}`));
  }

  const rerun = await startCli(['payout', 'batch', file, '--yes'], { dir: cfg.dir, timeoutMs: 40_000 }).done;
  expect(rerun.stderr).not.toMatch(/Waiting for|is locked by/);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.ms).toBeLessThan(15_000);
  expect(readdirSync(locks).filter((f) => f.startsWith('batch-'))).toEqual([]);
  // Both rows were made by the crashed run (the service answered after it died): the rerun sent
  // them again with their keys (retried while the service still held them in progress), and was told so.
  expect(rerun.stderr).toContain('0 accepted, 2 already submitted, 0 rejected, 0 unknown.');
  const posts = sb.requests().filter((q) => q.method === 'POST' && q.path === '/v2/payout');
  expect(new Set(posts.map((q) => q.headers['idempotency-key'])).size).toBe(2);
});
