/**
 * The failed rows of `payout batch` (rejected) and `payout batch status` (Failed) at a
 * terminal of 80 and 60 columns (fakeDeps with the width set, the sandbox over HTTP): named
 * by recipient and account, never by payout id, every line within the terminal's width.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { loginInProcess } from '../helpers/batch-fixtures.js';
import { batchRows, fundDemoWallets, readCsvReport, tempWorkDir, toCsv, writeFile, type BatchRow } from '../helpers/batch.js';
import { fakeDeps, type FakeDeps } from '../helpers/fake-deps.js';
import { run as batchRun } from '../../src/commands/payout/batch.js';
import { run as statusRun } from '../../src/commands/payout/batch-status.js';
import { displayWidth } from '../../src/output/table.js';

const ctx = useSandbox({ settleAfterMs: 50 });
const LONG_NAME = 'Oluwaseun Babatunde Adekunle-Williams of the Lagos Island Cooperative Society';

let cfg: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;
let open: FakeDeps[] = [];

beforeAll(async () => {
  cfg = tempConfigDir();
  await loginInProcess(ctx.sb, cfg.dir);
});
afterAll(() => cfg?.cleanup());
beforeEach(() => {
  work = tempWorkDir();
  fundDemoWallets(ctx.sb);
});
afterEach(async () => {
  for (const fd of open) await fd.close();
  open = [];
  work.cleanup();
});

function depsAt(columns: number): FakeDeps {
  const fd = fakeDeps({ dir: cfg.dir, tty: { stdout: true, stderr: true } });
  fd.deps.io = { ...fd.deps.io, stdoutColumns: columns, stderrColumns: columns };
  open.push(fd);
  return fd;
}

/** Every line within the width but a printed command (`  payctl ...`), which is pasted whole. */
const fits = (text: string, columns: number) => {
  for (const l of text.trimEnd().split('\n')) if (!l.startsWith('  payctl ')) expect(displayWidth(l), l).toBeLessThanOrEqual(columns);
};

describe.each([80, 60])('at %i columns', (columns) => {
  it('payout batch: the rejected rows by name and account, every line fits', async () => {
    const wallet = freshWallet(ctx.sb, '30.00', 'SLE');
    const rows = batchRows(4, wallet, `rej${columns}-${Date.now()}`).map((r, i): BatchRow => ({ ...r, name: i === 3 ? LONG_NAME : r.name! }));
    const file = writeFile(work.file('rej.csv'), toCsv(rows));
    const fd = depsAt(columns);
    expect(await batchRun({ file, yes: true, concurrency: 1 }, fd.deps)).toBe(1);
    const err = fd.stderr();
    const result = err.slice(err.indexOf('Rejected:'));
    fits(result, columns);
    const report = readCsvReport(work.file('rej.report.csv'));
    for (const l of report.filter((x) => x.outcome === 'rejected')) expect(result).not.toContain(l.payout_id);
    const flat = result.replace(/\n {2,4}/g, ' ');
    expect(flat).toContain(`row 4: ${rows[2]!.name} (orange_money ${rows[2]!.account_number}), 13.03 SLE INSUFFICIENT_FUNDS: Wallet ${wallet} has 6.74 SLE;`);
    expect(flat).toContain(`row 5: ${LONG_NAME} (orange_money ${rows[3]!.account_number}), 14.04 SLE INSUFFICIENT_FUNDS:`);
  });

  it('payout batch status: the Failed rows by name and account, every line fits', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    // An account ending in 0000 is failed by the sandbox.
    const rows = batchRows(3, wallet, `st${columns}-${Date.now()}`).map((r, i): BatchRow => (i === 1 ? { ...r, name: LONG_NAME, account_number: '0700020000' } : r));
    const file = writeFile(work.file('st.csv'), toCsv(rows));
    expect(await batchRun({ file, yes: true }, depsAt(columns).deps)).toBe(0);
    const ids = readCsvReport(work.file('st.report.csv')).map((l) => l.payout_id);
    // Settled by the sandbox after 50 ms of real time (fakeDeps' clock is a TestClock: no --wait).
    await new Promise((r) => setTimeout(r, 300));
    const fd = depsAt(columns);
    expect(await statusRun({ report: work.file('st.report.csv') }, fd.deps)).toBe(1);
    const out = fd.stdout();
    const failed = out.slice(out.indexOf('Failed:\n'));
    fits(failed, columns);
    expect(failed.replace(/\n {2,4}/g, ' ')).toContain(`row 3: ${LONG_NAME} (orange_money 0700020000), 12.02 SLE `);
    for (const id of ids) expect(failed).not.toContain(id);
  });
});
