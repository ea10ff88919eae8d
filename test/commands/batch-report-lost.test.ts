/**
 * A batch whose report cannot be written at the end (its folder removed while the rows were
 * sent). Before: every row was accepted, then "Error: ENOENT ... This is a bug in payctl", exit
 * 1, and no summary. Now the summary comes first ("Report: not written (below)"), then why and
 * the command that writes the report again once the folder can be written; the exit code is
 * the rows' (4 for an unknown outcome, as always), else 1. In process, the sandbox over real HTTP.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import type { Clock } from '../../src/clock.js';
import { batchRows, payoutPosts, readCsvReport, toCsv } from '../helpers/batch.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const folders = useBatchFolders(ctx);
afterEach(() => ctx.sb.faults.clear());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A batch file of `n` rows and a report folder beside it; the run started, the folder removed once
 * the first row is at the service. The run's waits (a retry's back-off) are on a TestClock held
 * until the folder is gone: no real back-off, and no run that ends before the folder is removed.
 */
async function runLosingReportFolder(n: number, extra: string[] = []) {
  const sb = ctx.sb;
  const wallet = freshWallet(sb, '100000.00', 'SLE');
  const rows = batchRows(n, wallet, `lost-report-${Date.now()}`);
  const file = join(folders.work.dir, 'pay.csv');
  writeFileSync(file, toCsv(rows));
  const reports = join(folders.work.dir, 'reports');
  mkdirSync(reports);
  const report = join(reports, 'pay.report.csv');
  const from = sb.requests().length;
  let gone = (): void => {};
  const removed = new Promise<void>((r) => (gone = r));
  const fake = new TestClock();
  const clock: Clock = { now: () => fake.now(), sleep: async (ms, signal) => removed.then(() => fake.sleep(ms, signal)) };
  const run = startPayctl(['payout', 'batch', file, '--concurrency', '1', '--report', report, '--yes', ...extra], { dir: folders.dir, clock });
  while (payoutPosts(sb, from).length < 1) await sleep(5);
  rmSync(reports, { recursive: true, force: true });
  gone();
  return { rows, file, reports, report, from, result: await run.done };
}

describe('payout batch: the report cannot be written at the end', () => {
  it('the summary first, then why and the command that writes it again; exit 1; that command, once the folder is back, sends nothing and writes it', async () => {
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 50, times: Infinity });
    const { rows, reports, report, from, result } = await runLosingReportFolder(4);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toContain('This is a bug');
    expect(result.stderr).toContain('4 accepted, 0 already submitted, 0 rejected, 0 unknown.\nReport: not written (below).\n');
    const warning = result.stderr.slice(result.stderr.indexOf('Warning: '));
    expect(warning).toMatch(
      new RegExp(
        `^Warning: The report could not be written to ${report.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: its folder does not exist \\(ENOENT\\)\\. Every row's outcome is in the journal: once that folder can be written \\(or with another --report\\), the same command writes the report again \\(rows accepted are skipped, nothing is paid twice\\):\\n  payctl payout batch `,
      ),
    );
    expect(payoutPosts(ctx.sb, from)).toHaveLength(4);

    // The command as printed, once the folder is back: nothing sent, the report written.
    ctx.sb.faults.clear();
    mkdirSync(reports);
    const printed = warning.split('\n')[1]!.trim().split(' ');
    expect(printed.slice(0, 3)).toEqual(['payctl', 'payout', 'batch']);
    const again = await payctl(printed.slice(1), { dir: folders.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('4 accepted (4 in an earlier run), 0 already submitted, 0 rejected, 0 unknown.');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(4);
    const lines = readCsvReport(report);
    expect(lines.map((l) => [l.row, l.outcome, l.earlier_run])).toEqual(rows.map((_, i) => [String(i + 2), 'accepted', 'yes']));
    expect(lines.every((l) => l.transaction_id.startsWith('TXN-BOK-'))).toBe(true);
  });

  it('--json: the summary on stdout with "report": null and the reason', async () => {
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 50, times: Infinity });
    const { report, result } = await runLosingReportFolder(2, ['--json']);
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ accepted: 2, unknown: 0, report: null, report_error: `${report}: its folder does not exist (ENOENT)` });
    expect(existsSync(report)).toBe(false);
  });

  it('an outcome left unknown still exits 4', async () => {
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'reset-after-commit', times: Infinity });
    const { result } = await runLosingReportFolder(1, ['--timeout', '2']);
    expect(result.stderr).toContain('0 accepted, 0 already submitted, 0 rejected, 1 unknown.\nReport: not written (below).\n');
    expect(result.stderr).toContain('Warning: The report could not be written to ');
    expect(result.code, result.stderr).toBe(4);
  });

  it('payout batch status, the report folder removed while it asks: said in words (no "bug"), nothing sent, exit 1', async () => {
    const rows = batchRows(2, freshWallet(ctx.sb, '100000.00', 'SLE'), `status-${Date.now()}`);
    const file = join(folders.work.dir, 'pay.csv');
    writeFileSync(file, toCsv(rows));
    const reports = join(folders.work.dir, 'reports');
    mkdirSync(reports);
    const report = join(reports, 'pay.report.csv');
    const sent = await payctl(['payout', 'batch', file, '--report', report, '--yes'], { dir: folders.dir });
    expect(sent.code, sent.stderr).toBe(0);

    ctx.sb.faults.add({ method: 'GET', path: '/v2/payout', kind: 'delay', delayMs: 100, times: Infinity });
    const status = startPayctl(['payout', 'batch', 'status', report], { dir: folders.dir });
    const from = ctx.sb.requests().length;
    while (
      !ctx.sb
        .requests()
        .slice(from)
        .some((r) => r.method === 'GET')
    )
      await sleep(5);
    rmSync(reports, { recursive: true, force: true });
    const r = await status.done;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /^Error: Cannot open \S+\/reports\/\.pay\.report\.csv\.[0-9a-f-]+\.tmp: its folder does not exist \(ENOENT\)\.\nNothing was sent\. Fix that, and run the same command again\.\n$/,
    );
  });
});
