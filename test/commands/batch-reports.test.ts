/**
 * `payout batch` reports, plan and result, in process (payctl's main, or run(opts, deps) with
 * fakeDeps where a terminal is needed; the sandbox over HTTP):
 * - a report is never written over another run's: a --report that holds another batch's report
 *   (or rows not in this run) is refused before anything is sent; the default report moves
 *   beside it; the "pay them again" command names a report of its own, and run as printed
 *   keeps the first report byte for byte;
 * - a rerun with nothing to send draws no progress bar, and its summary starts on a line of
 *   its own;
 * - the plan's grand total per currency and its fee line;
 * - rejected rows named by recipient and account, fitted to 80 and 60 columns.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl, type InProcessOptions } from '../helpers/in-process.js';
import type { Run } from '../helpers/e2e.js';
import { batchRows, payoutPosts, readCsvReport, toCsv, withOwnPayees, writeFile, type BatchRow } from '../helpers/batch.js';
import { fakeDeps, type FakeDeps } from '../helpers/fake-deps.js';
import { shellSplit } from '../helpers/pty.js';
import { run as batchRun } from '../../src/commands/payout/batch.js';
import { displayWidth } from '../../src/output/table.js';
import { renderBatchResult, renderFailedRows } from '../../src/output/batch.js';
import type { RowOutcome } from '../../src/payouts/batch.js';
import type { PayoutRequest } from '../../src/payouts/request.js';
import type { PayoutRecord } from '../../src/service/schemas.js';
import { failedRowOf, rowState } from '../../src/payouts/batch-status.js';
import { useBatchFolders } from '../helpers/batch-fixtures.js';

const ctx = useSandbox();
const LONG_NAME = 'Oluwaseun Babatunde Adekunle-Williams of the Lagos Island Cooperative Society';
const REQUEST: PayoutRequest = {
  payoutId: 'p',
  walletId: '4832172568',
  currency: 'NGN',
  amountMinor: 0n,
  digits: 2,
  amount: '0.00',
  type: 'bank',
  name: '',
  provider: 'uba',
  account: '',
  phone: undefined,
  note: undefined,
  metadata: undefined,
};

const setup = useBatchFolders(ctx);
let open: FakeDeps[] = [];

afterEach(async () => {
  for (const fd of open) await fd.close();
  open = [];
  ctx.sb.faults.clear();
});

const batch = (args: string[], opts: Partial<InProcessOptions> = {}): Promise<Run> => payctl(['payout', 'batch', ...args], { dir: setup.dir, ...opts });

/** Rows without payout_id: their ids come from what they pay and the batch id, so a new batch id pays them again. */
function plainRows(n: number, wallet: string, tag: string): BatchRow[] {
  return withOwnPayees(
    batchRows(n, wallet, tag).map(({ payout_id: _id, ...r }) => r),
    tag,
  );
}

/** The line of `text` right after the one that contains `intro`, or the rest of that line after it. */
function printed(text: string, intro: RegExp): string {
  const m = intro.exec(text);
  expect(m, `${intro} in:\n${text}`).not.toBeNull();
  return m![1]!.trim();
}

/** The argv of a printed `payctl ...` line, as a POSIX shell splits it, without `payctl`. */
function argvOf(line: string): string[] {
  const words = shellSplit(line.slice(line.indexOf('payctl ')));
  expect(words[0]).toBe('payctl');
  return words.slice(1);
}

/** Deps for run(opts, deps): stderr (and stdout) a terminal of `columns` columns, or pipes. */
function depsAt(columns: number | undefined): FakeDeps {
  const fd = fakeDeps({ dir: setup.dir, tty: { stdout: columns !== undefined, stderr: columns !== undefined } });
  fd.deps.io = { ...fd.deps.io, stdoutColumns: columns, stderrColumns: columns };
  open.push(fd);
  return fd;
}

describe('a report is never written over another run', () => {
  it('done when: the "pay them again" line of a rerun, run as printed, keeps the first report byte for byte and writes its own', async () => {
    const rows = plainRows(3, setup.sleWallet, `again-${Date.now()}`);
    const file = writeFile(setup.work.file('stipends.csv'), toCsv(rows));
    const report = setup.work.file('payroll-report.csv');
    const first = await batch([file, '--report', report, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const firstBytes = readFileSync(report);
    const firstLines = readCsvReport(report);
    expect(firstLines.map((l) => [l.outcome, l.batch_id])).toEqual([
      ['accepted', 'default'],
      ['accepted', 'default'],
      ['accepted', 'default'],
    ]);

    // The rerun resumes its own report (nothing to send) and prints how to pay again.
    const rerun = await batch([file, '--report', report, '--yes']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(payoutPosts(ctx.sb)).toHaveLength(3);
    const line = printed(rerun.stderr, /give the batch a new name: (payctl .*)$/m);
    const argv = argvOf(line);
    const newId = argv[argv.indexOf('--batch-id') + 1]!;
    const newReport = argv[argv.indexOf('--report') + 1]!;
    expect(newId).toMatch(/^stipends-\d{4}-\d\d-\d\d$/);
    expect(newReport).toBe(join(dirname(report), `payroll-report.${newId}.csv`));
    expect(existsSync(newReport)).toBe(false);
    expect(argv).not.toContain('--yes');
    // The rerun's own report holds the same rows and transaction ids, now as accepted earlier.
    expect(readCsvReport(report).map((l) => [l.payout_id, l.transaction_id, l.earlier_run])).toEqual(firstLines.map((l) => [l.payout_id, l.transaction_id, 'yes']));
    const resumedBytes = readFileSync(report);

    // Run exactly as printed, at a terminal that answers the confirmation.
    const again = await payctl(argv, { dir: setup.dir, prompts: [{ confirm: /^Send 3 payouts\?$/, answer: true }] });
    expect(again.stderr).toContain(`Batch "${newId}": 3 payouts to send from ${file}`);
    expect(again.code, again.stderr).toBe(0);
    expect(payoutPosts(ctx.sb)).toHaveLength(6);
    expect(readFileSync(report).equals(resumedBytes)).toBe(true);
    const own = readCsvReport(newReport);
    expect(own.map((l) => [l.outcome, l.batch_id, l.earlier_run])).toEqual([
      ['accepted', newId, ''],
      ['accepted', newId, ''],
      ['accepted', newId, ''],
    ]);
    for (const l of own) expect(firstLines.map((f) => f.payout_id)).not.toContain(l.payout_id);
    expect(again.stderr).toContain(`Report: ${newReport}`);
    // And the first run's bytes: only the earlier_run cells differ from what the rerun left.
    expect(firstBytes.toString().replace(/,,default\r\n/g, ',yes,default\r\n')).toBe(resumedBytes.toString());

    // Asked again the same day, the new name is not the one just used (under it nothing would be paid).
    const third = await batch([file, '--report', report, '--yes']);
    const next = argvOf(printed(third.stderr, /give the batch a new name: (payctl .*)$/m));
    const nextId = next[next.indexOf('--batch-id') + 1]!;
    expect(nextId).toBe(`${newId}-2`);
    const paid = await payctl(next, { dir: setup.dir, prompts: [{ confirm: /^Send 3 payouts\?$/, answer: true }] });
    expect(paid.code, paid.stderr).toBe(0);
    expect(payoutPosts(ctx.sb)).toHaveLength(9);
  });

  it("a --report that holds another batch's report is refused before anything is sent (also --dry-run), naming the batch; the printed command works", async () => {
    const file = writeFile(setup.work.file('nov.csv'), toCsv(plainRows(2, setup.sleWallet, `nov-${Date.now()}`)));
    const report = setup.work.file('shared-report.csv');
    const first = await batch([file, '--batch-id', 'nov', '--report', report, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const bytes = readFileSync(report);
    ctx.sb.clearRequests();

    for (const extra of [['--dry-run'], ['--yes']]) {
      const r = await batch([file, '--batch-id', 'dec', '--report', report, ...extra]);
      expect(r.stderr).toContain(
        `Error: Cannot write the report: ${report} holds the report of batch "nov". payctl never writes over another run's report. Nothing was sent.`,
      );
      expect(r.stderr).toContain('Choose another --report path, for example:');
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(payoutPosts(ctx.sb)).toEqual([]);
      expect(readFileSync(report).equals(bytes)).toBe(true);
    }

    const refused = await batch([file, '--batch-id', 'dec', '--report', report, '--yes']);
    const line = printed(refused.stderr, /for example:\n(.*)$/m);
    expect(line).toBe(`payctl payout batch ${file} --batch-id dec --report ${setup.work.file('shared-report.dec.csv')} --yes`);
    const ok = await payctl(argvOf(line), { dir: setup.dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(payoutPosts(ctx.sb)).toHaveLength(2);
    expect(readFileSync(report).equals(bytes)).toBe(true);
    expect(readCsvReport(setup.work.file('shared-report.dec.csv')).map((l) => l.batch_id)).toEqual(['dec', 'dec']);
  });

  it('a --report holding the same batch id but rows not in this run (another file) is refused; the same file resumes into it', async () => {
    const tag = `same-${Date.now()}`;
    const a = writeFile(setup.work.file('suppliers.csv'), toCsv(plainRows(2, setup.sleWallet, `${tag}-a`)));
    const b = writeFile(setup.work.file('staff.csv'), toCsv(plainRows(3, setup.sleWallet, `${tag}-b`).slice(1)));
    const report = setup.work.file('report.csv');
    expect((await batch([a, '--report', report, '--yes'])).code).toBe(0);
    const bytes = readFileSync(report);
    ctx.sb.clearRequests();

    const r = await batch([b, '--report', report, '--yes']);
    expect(r.stderr).toContain(
      `Error: Cannot write the report: ${report} holds the report of another run of batch "default": 2 of its 2 rows are not in this run. payctl never writes over another run's report. Nothing was sent.`,
    );
    expect(r.code).toBe(2);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(readFileSync(report).equals(bytes)).toBe(true);

    // The same rows, sorted the other way: the same run, resumed into its own report.
    const resorted = writeFile(setup.work.file('suppliers-sorted.csv'), toCsv(plainRows(2, setup.sleWallet, `${tag}-a`).reverse()));
    const resumed = await batch([resorted, '--report', report, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`Nothing to send: every row of ${resorted} was accepted earlier`);
    expect(readCsvReport(report).map((l) => l.earlier_run)).toEqual(['yes', 'yes']);
  });

  it('a --report path that holds a file that is no report is refused and left as it was', async () => {
    const file = writeFile(setup.work.file('pay.csv'), toCsv(plainRows(1, setup.sleWallet, `notes-${Date.now()}`)));
    const notes = writeFile(setup.work.file('notes.csv'), 'name,phone\nAminata,+23276000000\n');
    const r = await batch([file, '--report', notes, '--yes']);
    expect(r.stderr).toContain(`Error: Cannot write the report: ${notes} is not a report of this batch: it is not a payctl batch report.`);
    expect(r.code).toBe(2);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(readFileSync(notes, 'utf8')).toBe('name,phone\nAminata,+23276000000\n');
  });

  it('the default report of a new batch id moves beside the one another batch wrote, says so, and its printed commands carry it', async () => {
    const file = writeFile(setup.work.file('payroll.csv'), toCsv(plainRows(2, setup.sleWallet, `moved-${Date.now()}`)));
    const first = await batch([file, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const usual = setup.work.file('payroll.report.csv');
    const bytes = readFileSync(usual);

    const dry = await batch([file, '--batch-id', '2026-12', '--dry-run']);
    const moved = setup.work.file('payroll.2026-12.report.csv');
    expect(dry.stdout).toContain(`Note: ${usual} holds the report of batch "default"; it is kept, and this run's report is ${moved}.`);
    expect(dry.code).toBe(0);

    const next = await batch([file, '--batch-id', '2026-12', '--yes']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`Report: ${moved}`);
    expect(readFileSync(usual).equals(bytes)).toBe(true);
    expect(readCsvReport(moved).map((l) => l.batch_id)).toEqual(['2026-12', '2026-12']);

    // Its rerun finds its own report there; the "pay again" line names yet another.
    const rerun = await batch([file, '--batch-id', '2026-12', '--yes']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain(`Report: ${moved}`);
    const line = printed(rerun.stderr, /give the batch a new name: (payctl .*)$/m);
    const argv = argvOf(line);
    const report = argv[argv.indexOf('--report') + 1]!;
    expect(basename(report)).toMatch(/^payroll\.payroll-\d{4}-\d\d-\d\d\.report\.csv$/);
    expect(existsSync(report)).toBe(false);
    expect(readFileSync(usual).equals(bytes)).toBe(true);
  });
});

describe('progress and the summary', () => {
  it('a rerun with nothing to send at a terminal draws no bar; the summary starts on its own line (the exact stream)', async () => {
    const rows = batchRows(3, setup.sleWallet, `bar-${Date.now()}`);
    const file = writeFile(setup.work.file('bar.csv'), toCsv(rows));
    const first = depsAt(80);
    expect(await batchRun({ file, yes: true }, first.deps)).toBe(0);
    expect(first.stderr()).toContain('3 accepted, 0 already submitted, 0 rejected, 0 unknown.');

    const fd = depsAt(80);
    expect(await batchRun({ file, yes: true }, fd.deps)).toBe(0);
    const report = setup.work.file('bar.report.csv');
    expect(fd.stderr()).toMatch(
      new RegExp(
        '^Note: 3 rows were accepted earlier in batch "default" from ' +
          escape(file) +
          ' on [^;]+; they are not sent again\\.\\n' +
          '  To pay them again as new payouts, give the batch a new name: payctl payout batch ' +
          escape(file) +
          ' --batch-id bar-\\d{4}-\\d\\d-\\d\\d --report ' +
          escape(join(setup.work.dir, 'bar.bar-')) +
          '\\d{4}-\\d\\d-\\d\\d\\.report\\.csv\\n' +
          'Nothing to send: every row of ' +
          escape(file) +
          ' was accepted earlier \\(batch "default"\\)\\.\\n' +
          '3 accepted \\(3 in an earlier run\\), 0 already submitted, 0 rejected, 0 unknown\\.\\n' +
          'Report: ' +
          escape(report) +
          '\\n$',
      ),
    );
    expect(fd.stderr()).not.toContain('\r');
    expect(fd.stderr()).not.toContain('done ·');
  });

  it('a rerun that sends some rows at a terminal: the bar, then the summary on a line of its own', async () => {
    const rows = batchRows(4, setup.sleWallet, `part-${Date.now()}`);
    const file = writeFile(setup.work.file('part.csv'), toCsv(rows.slice(0, 2)));
    expect(await batchRun({ file, yes: true }, depsAt(80).deps)).toBe(0);
    writeFile(file, toCsv(rows));
    const fd = depsAt(80);
    expect(await batchRun({ file, yes: true }, fd.deps)).toBe(0);
    const err = fd.stderr();
    const at = err.indexOf('4 accepted (2 in an earlier run)');
    expect(at).toBeGreaterThan(0);
    expect(err[at - 1]).toBe('\n');
    const bar = err.slice(err.lastIndexOf('\r', at), at);
    expect(bar).toMatch(/^\r\u001b\[2Kbatch default \[█+\] 4\/4 · 4 done · 0 failed · 0 in flight/);
    // No bar drawn before the first row was sent: none shows the two rows of the earlier run alone.
    expect(err).not.toMatch(/\] 1\/4 · 1 done · 0 failed · 0 in flight/);
    expect(err).not.toMatch(/\] 2\/4 · 2 done · 0 failed · 0 in flight/);
  });
});

describe('the plan: grand total per currency and fees', () => {
  it('--dry-run shows the total per currency over every wallet, exact with separators, and an honest fee line', async () => {
    const tag = `tot-${Date.now()}`;
    const a = freshWallet(ctx.sb, '5000000.00', 'SLE');
    const b = freshWallet(ctx.sb, '10.00', 'SLE');
    const n = freshWallet(ctx.sb, '100000000.00', 'NGN');
    const rows = [
      ...plainRows(2, a, tag).map((r, i) => ({ ...r, amount: ['1234567.89', '0.11'][i]! })),
      ...plainRows(1, b, `${tag}-b`).map((r) => ({ ...r, amount: '1000000' })),
      ...plainRows(1, n, `${tag}-n`).map((r) => ({ ...r, currency: 'NGN', type: 'bank', provider: 'uba', amount: '99999999.5' })),
    ];
    const file = writeFile(setup.work.file('totals.csv'), toCsv(rows));
    const r = await batch([file, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Total SLE: 2,234,568.00 in 3 payouts from 2 wallets, before fees.\n');
    expect(r.stdout).toContain('Total NGN: 99,999,999.50 in 1 payout, before fees.\n');
    expect(r.stdout).toContain("Fees: charged by the service per payout, not known before sending; each accepted payout's fee is in the report.\n");
    expect(r.stdout.indexOf('Total SLE')).toBeLessThan(r.stdout.indexOf('Total NGN'));
    expect(payoutPosts(ctx.sb)).toEqual([]);

    const json = await payctl(['--json', 'payout', 'batch', file, '--dry-run'], { dir: setup.dir });
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout) as { totals: unknown; report: string };
    expect(doc.totals).toEqual([
      { currency: 'SLE', count: 3, total: '2234568.00' },
      { currency: 'NGN', count: 1, total: '99999999.50' },
    ]);
    expect(doc.report).toBe(setup.work.file('totals.report.csv'));
  });
});

describe('rejected rows named by recipient', () => {
  it('payout batch lists each rejected row by name, provider and account with its amount and reason, without its payout id', async () => {
    const wallet = freshWallet(ctx.sb, '30.00', 'SLE');
    const rows = plainRows(4, wallet, `rej-${Date.now()}`).map((r, i): BatchRow => ({ ...r, name: i === 3 ? LONG_NAME : r.name! }));
    const file = writeFile(setup.work.file('rej.csv'), toCsv(rows));
    const r = await batch([file, '--concurrency', '1', '--yes']);
    expect(r.code, r.stderr).toBe(1);
    const report = readCsvReport(setup.work.file('rej.report.csv'));
    expect(report.map((l) => l.outcome)).toEqual(['accepted', 'accepted', 'rejected', 'rejected']);
    const result = r.stderr.slice(r.stderr.indexOf('2 accepted, 0 already submitted, 2 rejected, 0 unknown.'));
    for (const l of report.filter((x) => x.outcome === 'rejected')) expect(result).not.toContain(l.payout_id);
    // Off a terminal nothing is wrapped: one line for whom, one for why.
    expect(result).toContain(
      `Rejected:\n  row 4: ${rows[2]!.name} (orange_money ${rows[2]!.account_number}), 13.03 SLE\n    INSUFFICIENT_FUNDS: Wallet ${wallet} has 6.74 SLE; the payout needs 13.16 (amount 13.03 + fee 0.13).\n`,
    );
    expect(result).toContain(`  row 5: ${LONG_NAME} (orange_money ${rows[3]!.account_number}), 14.04 SLE\n    INSUFFICIENT_FUNDS: Wallet ${wallet} has 6.74 SLE;`);
  });

  for (const columns of [80, 60]) {
    it(`at ${columns} columns the rejected rows of payout batch and the Failed rows of batch status fit, every word kept`, () => {
      const req = (name: string, account: string, amount: string) => ({ ...REQUEST, name, account, amount });
      const outcomes: RowOutcome[] = [
        { row: 2, payoutId: 'p-2', outcome: 'accepted', transactionId: 'TXN-BOK-0', request: req('Ama', '1', '1.00') },
        {
          row: 4,
          payoutId: '9a3c1e7d-4b2f-5e8a-8c6d-1f0e9b8a7c65',
          outcome: 'rejected',
          code: 'INSUFFICIENT_FUNDS',
          message: 'Wallet 4832172568 has 16397287.67 NGN; the payout needs 100999998.99 (amount 99999999 + fee 999999.99).',
          request: req(LONG_NAME, '0123456789', '99999999.00'),
        },
        { row: 7, payoutId: 'b-0123456789abcdef0123456789abcdef', outcome: 'rejected', code: 'INVALID_ACCOUNT', message: 'Account not found.' },
      ];
      const result = renderBatchResult({ accepted: 1, replayed: 0, rejected: 2, unknown: 0, not_sent: 0, already_accepted: 0, report: '/r.csv' }, outcomes, 0, columns);
      for (const l of result.trimEnd().split('\n')) expect(displayWidth(l), l).toBeLessThanOrEqual(columns);
      expect(result).not.toContain('9a3c1e7d');
      const flat = result.replace(/\n {2,4}/g, ' ');
      expect(flat).toContain(
        `Rejected: row 4: ${LONG_NAME} (uba 0123456789), 99,999,999.00 NGN INSUFFICIENT_FUNDS: Wallet 4832172568 has 16397287.67 NGN; the payout needs 100999998.99 (amount 99999999 + fee 999999.99).`,
      );
      // A row whose recipient is not known (an outcome without its request) keeps its payout id.
      expect(flat).toContain('row 7: payout b-0123456789abcdef0123456789abcdef INVALID_ACCOUNT: Account not found.');

      const failed = renderFailedRows(
        [
          {
            row: '4',
            payoutId: '3f1b2c9e-7a4d-5e61-8b20-94c7d1e0a5f3',
            name: 'Ibrahim Koroma',
            provider: 'ecobank',
            account: '0011223344',
            amount: '250.00',
            currency: 'SLE',
            reason: 'Recipient account rejected by the provider (account not found).',
          },
        ],
        columns,
      );
      for (const l of failed.trimEnd().split('\n')) expect(displayWidth(l), l).toBeLessThanOrEqual(columns);
      expect(failed.startsWith('  row 4: Ibrahim Koroma (ecobank 0011223344), 250.00 SLE\n    Recipient account rejected')).toBe(true);
      expect(failed).not.toContain('3f1b2c9e');
    });
  }

  it('batch status: a Failed row is named from the journaled request (what was sent), else from the service record', () => {
    const entry = { row: '4', payoutId: 'p-4', outcome: 'accepted', batchId: 'nov', transactionId: 'TXN-BOK-1', values: {} };
    const record = {
      transaction_id: 'TXN-BOK-1',
      amount: '1250.5',
      currency: 'SLE',
      status: 'failed',
      failure_reason: 'Account closed.',
      recipient: { type: 'bank', name: 'Fatmata Bangura', accountNumber: '0761234567', bank: 'ECOBANK' },
    } as unknown as PayoutRecord;
    const state = rowState(record, 'Failed');
    expect(failedRowOf(entry, state)).toEqual({
      row: '4',
      payoutId: 'p-4',
      name: 'Fatmata Bangura',
      provider: 'ecobank',
      account: '0761234567',
      amount: '1,250.50',
      currency: 'SLE',
      reason: 'Account closed.',
    });
    const body = JSON.stringify({
      amount: 1250.5,
      currency: 'SLE',
      payoutId: 'p-4',
      walletId: '6643665465',
      recipient: {
        type: 'wallet',
        accountDetails: { name: 'Fatmata Bangura-Conteh', provider: 'orange_money', accountNumber: '076000001', phoneNumber: '+23276000001' },
      },
    });
    expect(failedRowOf(entry, state, body)).toMatchObject({ name: 'Fatmata Bangura-Conteh', provider: 'orange_money', account: '076000001' });
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
