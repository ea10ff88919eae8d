/**
 * `payctl payout batch`: a file of payouts sent exactly once per row. In process
 * (payctl's main with in-memory streams, the sandbox over real HTTP): a 200-row CSV at concurrency 8, a JSON-lines file with
 * a .jsonl report, bad rows named by row and column with nothing sent, the plan with a
 * wallet that would go short, --dry-run, no terminal without --yes, and a rerun of an
 * accepted file that sends nothing new.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { payctl, type InProcessOptions } from '../helpers/in-process.js';
import type { Run } from '../helpers/e2e.js';
import { useBatchFolders, withoutWarnings } from '../helpers/batch-fixtures.js';
import {
  batchRows,
  expectExactlyOncePerId,
  expectNoNodeWarnings,
  heldCounts,
  payoutPosts,
  postedPayoutId,
  readCsvReport,
  readJsonlReport,
  toCsv,
  toJsonl,
  totalMinor,
  twoDigits,
  withOwnPayees,
  writeFile,
} from '../helpers/batch.js';

const ctx = useSandbox();
const TXN = /^TXN-BOK-[0-9A-F]{26}$/;

const setup = useBatchFolders(ctx);

afterEach(() => {
  ctx.sb.faults.clear();
});

const batch = (args: string[], opts: Partial<InProcessOptions> = {}): Promise<Run> => payctl(['payout', 'batch', ...args], { dir: setup.dir, ...opts });

function noPosts(sb: Sandbox): void {
  expect(payoutPosts(sb)).toEqual([]);
}

describe('payout batch: sending', () => {
  it('a 200-row CSV at --concurrency 8 sends exactly 200 payouts and writes a 200-line report', async () => {
    const sb = ctx.sb;
    const rows = batchRows(200, setup.sleWallet, `csv200-${Date.now()}`);
    // As a spreadsheet saves it: a byte-order mark, CRLF, quoted cells with commas and quotes.
    const file = writeFile(setup.work.file('stipends.csv'), '\uFEFF' + toCsv(rows));
    const before = sb.wallets().find((w) => w.wallet_id === setup.sleWallet)!.balance_minor;

    const r = await withoutWarnings(() => batch([file, '--concurrency', '8', '--yes']));
    expect(r.stderr).toContain(`200 payouts to send from ${file}:`);
    expect(r.stderr).toMatch(/^progress: 200\/200, 200 done, 0 failed, 0 in flight/m);
    expect(r.stderr).toContain('200 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expectNoNodeWarnings(r.stderr);
    const reportPath = setup.work.file('stipends.report.csv');
    expect(r.stderr).toContain(`Report: ${reportPath}`);
    expect(r.stdout).toBe('');
    expect(r.code, r.stderr).toBe(0);

    // The sandbox: 200 POSTs, one per row, and 200 payouts, one per payout id.
    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(200);
    expect(posts.every((p) => p.outcome === 201)).toBe(true);
    const ids = rows.map((x) => x.payout_id!);
    expect(posts.map(postedPayoutId).sort()).toEqual([...ids].sort());
    expect(new Set(posts.map((p) => p.headers['idempotency-key'])).size).toBe(200);
    expectExactlyOncePerId(sb, ids, rows[0]!.payout_id!.slice(0, -4));
    // Each payout is the row's amount, recipient and metadata.
    const held = new Map(sb.payouts().map((p) => [p.payout_id, p]));
    for (const row of rows) {
      const p = held.get(row.payout_id!)!;
      expect(p.amount_minor).toBe(BigInt(row.amount!.replace('.', '')));
      expect(p.recipient.accountDetails.name).toBe(row.name);
      expect(p.metadata).toEqual({ batch: row['metadata.batch'] });
    }
    const fees = [...held.values()].filter((p) => ids.includes(p.payout_id)).reduce((s, p) => s + p.fee_minor, 0n);
    expect(sb.wallets().find((w) => w.wallet_id === setup.sleWallet)!.balance_minor).toBe(before - totalMinor(rows) - fees);

    // The report: header + 200 lines, in file order, accepted with the sandbox's transaction id.
    const text = readFileSync(reportPath, 'utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.slice(0, -2).split('\r\n')).toHaveLength(201);
    const report = readCsvReport(reportPath);
    expect(report).toHaveLength(200);
    report.forEach((line, i) => {
      const p = held.get(rows[i]!.payout_id!)!;
      expect(line).toEqual({
        row: String(i + 2),
        payout_id: rows[i]!.payout_id,
        outcome: 'accepted',
        code: '',
        message: '',
        transaction_id: p.transaction_id,
        fee: twoDigits(p.fee_minor),
        earlier_run: '',
        batch_id: 'default',
      });
      expect(line.transaction_id).toMatch(TXN);
    });
  }, 40_000);

  it('--concurrency 8 keeps exactly up to 8 payouts in flight (default 4)', async () => {
    const sb = ctx.sb;
    // Every POST takes at least 400 ms in the sandbox. With at most N in flight, request i
    // can only start after one of requests i-N .. i-1 has finished, so it arrives at least
    // 400 ms after request i-N; with N really in flight, the first N arrive together.
    const arrivals = async (n: number, args: string[]) => {
      const from = sb.requests().length;
      sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 400, times: Infinity });
      const rows = batchRows(3 * n, setup.sleWallet, `conc${n}-${Date.now()}`);
      const file = writeFile(setup.work.file(`conc${n}.csv`), toCsv(rows));
      const r = await withoutWarnings(() => batch([file, ...args, '--yes']));
      sb.faults.clear();
      expect(r.code, r.stderr).toBe(0);
      expectNoNodeWarnings(r.stderr);
      const at = payoutPosts(sb, from).map((p) => Date.parse(p.receivedAt));
      expect(at).toHaveLength(3 * n);
      return at;
    };
    const at8 = await arrivals(8, ['--concurrency', '8']);
    expect(at8[7]! - at8[0]!).toBeLessThan(350);
    for (let i = 8; i < at8.length; i++) expect(at8[i]! - at8[i - 8]!, `request ${i}`).toBeGreaterThanOrEqual(398);
    const at4 = await arrivals(4, []);
    expect(at4[3]! - at4[0]!).toBeLessThan(350);
    for (let i = 4; i < at4.length; i++) expect(at4[i]! - at4[i - 4]!, `request ${i}`).toBeGreaterThanOrEqual(398);
  });

  it('a JSON-lines file (numbers as amounts, ids derived when missing) works and writes a .jsonl report', async () => {
    const sb = ctx.sb;
    const prefix = `jsonl-${Date.now()}`;
    const rows = withOwnPayees(batchRows(12, setup.sleWallet, prefix), prefix);
    // Rows 11 and 12 have no payout_id: they get a stable id from the file and the row.
    delete rows[10]!.payout_id;
    delete rows[11]!.payout_id;
    const text = toJsonl(rows).replace(/"amount":"(\d+\.\d+)"/g, (_m, a: string) => `"amount":${a}`);
    expect(text).toContain('"amount":11.01');
    const file = writeFile(setup.work.file('suppliers.jsonl'), text);
    const reportPath = setup.work.file('x.jsonl');

    const r = await batch([file, '--report', reportPath, '--yes']);
    expect(r.stderr).toContain('12 accepted, 0 already submitted, 0 rejected, 0 unknown.');
    expect(r.stderr).toContain(`Report: ${reportPath}`);
    expect(r.code, r.stderr).toBe(0);

    const report = readJsonlReport(reportPath);
    expect(report).toHaveLength(12);
    const held = new Map(sb.payouts().map((p) => [p.payout_id, p]));
    report.forEach((line, i) => {
      expect(Object.keys(line)).toEqual(['row', 'payout_id', 'outcome', 'code', 'message', 'transaction_id', 'fee', 'earlier_run', 'batch_id']);
      expect(line.row).toBe(i + 1);
      expect(line.outcome).toBe('accepted');
      expect(line.earlier_run).toBe(false);
      const p = held.get(line.payout_id as string);
      expect(p, `row ${i + 1} is held`).toBeDefined();
      expect(line.transaction_id).toBe(p!.transaction_id);
      expect(line.fee).toBe(twoDigits(p!.fee_minor));
      expect(p!.amount_minor).toBe(BigInt(rows[i]!.amount!.replace('.', '')));
    });
    expect(report.slice(0, 10).map((l) => l.payout_id)).toEqual(rows.slice(0, 10).map((x) => x.payout_id));
    const derived = report.slice(10).map((l) => l.payout_id as string);
    for (const id of derived) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(derived).size).toBe(2);

    const posts = payoutPosts(sb);
    expect(posts).toHaveLength(12);
    const ids = report.map((l) => l.payout_id as string);
    expect(posts.map(postedPayoutId).sort()).toEqual([...ids].sort());
    expect([...heldCounts(sb, ids).values()]).toEqual(Array(12).fill(1));

    // The same file again: the derived ids are the same, so nothing new is sent.
    const from = sb.requests().length;
    const again = await batch([file, '--report', reportPath, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(payoutPosts(sb, from)).toEqual([]);
    const report2 = readJsonlReport(reportPath);
    expect(report2.map((l) => l.payout_id)).toEqual(ids);
    expect(report2.every((l) => l.earlier_run === true && l.outcome === 'accepted')).toBe(true);
  });

  it('a rerun of a fully accepted file sends no new POSTs; its report marks every row as an earlier run', async () => {
    const sb = ctx.sb;
    const rows = batchRows(30, setup.sleWallet, `rerun-${Date.now()}`);
    const file = writeFile(setup.work.file('rerun.csv'), toCsv(rows));
    const first = await batch([file, '--concurrency', '8', '--yes']);
    expect(first.code, first.stderr).toBe(0);
    expect(payoutPosts(sb)).toHaveLength(30);
    const firstReport = readCsvReport(setup.work.file('rerun.report.csv'));

    const from = sb.requests().length;
    const r = await batch([file, '--concurrency', '8', '--yes']);
    expect(r.stderr).toContain(`Nothing to send: every row of ${file} was accepted earlier (batch "default").`);
    expect(r.stderr).not.toMatch(/^WALLET/m); // no empty plan table
    expect(r.stderr).toContain('30 accepted (30 in an earlier run), 0 already submitted, 0 rejected, 0 unknown.');
    expect(r.code, r.stderr).toBe(0);
    expect(payoutPosts(sb, from)).toEqual([]);
    expectExactlyOncePerId(
      sb,
      rows.map((x) => x.payout_id!),
      rows[0]!.payout_id!.slice(0, -4),
    );
    const report = readCsvReport(setup.work.file('rerun.report.csv'));
    expect(report).toEqual(firstReport.map((l) => ({ ...l, earlier_run: 'yes' })));
  });
});

describe('payout batch: every row checked first, nothing sent when any is bad', () => {
  it('one bad amount on row 37 of 50 is named by row and column; exit 2; nothing sent', async () => {
    const sb = ctx.sb;
    const rows = batchRows(50, setup.sleWallet, `bad1-${Date.now()}`);
    rows[35]!.amount = '12,50'; // spreadsheet row 37 (the header is row 1)
    const file = writeFile(setup.work.file('bad.csv'), toCsv(rows));

    const r = await batch([file, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Error: ${file}: 1 problem. Nothing was sent.`);
    const problems = r.stderr.split('\n').filter((l) => l.startsWith('  - '));
    expect(problems).toEqual(['  - row 37: amount: "12,50" uses \',\' as the decimal point; write 12.50']);
    noPosts(sb);
    expect(sb.requests()).toEqual([]); // not even the balances: the file is checked before any request
  });

  it('a missing wallet_id is named by row and column', async () => {
    const sb = ctx.sb;
    const rows = batchRows(50, setup.sleWallet, `bad2-${Date.now()}`);
    rows[9]!.wallet_id = '';
    const file = writeFile(setup.work.file('nowallet.csv'), toCsv(rows));
    const r = await batch([file, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('  - row 11: wallet_id is required (the source wallet id)');
    expect(r.stderr.split('\n').filter((l) => l.startsWith('  - '))).toHaveLength(1);
    noPosts(sb);
  });

  it('several bad rows are all listed, with duplicate payout ids; exit 2; nothing sent', async () => {
    const sb = ctx.sb;
    const rows = batchRows(50, setup.sleWallet, `bad3-${Date.now()}`);
    rows[0]!.currency = 'XYZ'; // row 2
    rows[4]!.wallet_id = ''; // row 6
    rows[4]!.phone_number = ''; // row 6, wallet recipients need a phone
    rows[19]!.type = 'card'; // row 21
    rows[29]!.payout_id = rows[2]!.payout_id!; // row 31 repeats row 4's id
    rows[48]!.amount = '0.001'; // row 50: SLE has two decimals
    const file = writeFile(setup.work.file('several.csv'), toCsv(rows));

    const r = await batch([file, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Error: ${file}: 6 problems. Nothing was sent.`);
    const problems = r.stderr.split('\n').filter((l) => l.startsWith('  - '));
    expect(problems).toHaveLength(6);
    expect(problems[0]).toMatch(/^ {2}- row 2: currency: "XYZ" is not an ISO 4217 currency code$/);
    expect(problems[1]).toBe('  - row 6: wallet_id is required (the source wallet id)');
    expect(problems[2]).toBe('  - row 6: phone_number is required for wallet recipients');
    expect(problems[3]).toBe('  - row 21: type must be bank or wallet (got "card")');
    expect(problems[4]).toBe(`  - row 31: payout_id "${rows[2]!.payout_id}" is also used on row 4`);
    expect(problems[5]).toMatch(/^ {2}- row 50: amount: /);
    expect(r.stderr).toContain('Fix the rows above and run the same command again.');
    noPosts(sb);
  });

  it('duplicate payout ids alone are an error (JSON lines: rows are lines)', async () => {
    const sb = ctx.sb;
    const rows = batchRows(5, setup.sleWallet, `dup-${Date.now()}`);
    rows[4]!.payout_id = rows[1]!.payout_id!;
    const file = writeFile(setup.work.file('dup.jsonl'), toJsonl(rows));
    const r = await batch([file, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('  - '))).toEqual([`  - row 5: payout_id "${rows[1]!.payout_id}" is also used on row 2`]);
    noPosts(sb);
  });
});

describe('payout batch: the plan, confirmation and --dry-run', () => {
  it('a wallet that would go short is named in the --dry-run plan; exit 0; nothing sent', async () => {
    const sb = ctx.sb;
    const rows = batchRows(20, setup.sleWallet, `short-${Date.now()}`);
    const w = sb.wallets().find((x) => x.wallet_id === setup.sleWallet)!;
    sb.setWallet({ wallet_id: setup.sleWallet, wallet_name: w.wallet_name, currency: 'SLE', balance: '100.00' });
    const file = writeFile(setup.work.file('short.csv'), toCsv(rows));

    const r = await batch([file, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    // total: 20 rows, 11.01 ... 30.20
    expect(totalMinor(rows)).toBe(41_210n);
    expect(r.stdout).toContain(`Batch "default": 20 payouts to send from ${file}:`);
    expect(r.stdout).toMatch(new RegExp(`^${setup.sleWallet}\\s+${w.wallet_name}\\s+SLE\\s+20\\s+412\\.10\\s+100\\.00\\s+-312\\.10\\s*$`, 'm'));
    expect(r.stdout).toContain(`Warning: wallet ${setup.sleWallet} would go short: it holds 100.00 SLE but the payouts total 412.10 SLE before fees.`);
    expect(r.stderr).toContain('Dry run: nothing was sent.');
    noPosts(sb);
  });

  it('without --dry-run the short wallet is flagged on stderr; the rows the service refuses are reported, exit 1', async () => {
    const sb = ctx.sb;
    const rows = batchRows(4, setup.sleWallet, `short2-${Date.now()}`); // 11.01 + 12.02 + 13.03 + 14.04 = 50.10
    const w = sb.wallets().find((x) => x.wallet_id === setup.sleWallet)!;
    sb.setWallet({ wallet_id: setup.sleWallet, wallet_name: w.wallet_name, currency: 'SLE', balance: '30.00' });
    const file = writeFile(setup.work.file('short2.csv'), toCsv(rows));

    const r = await batch([file, '--concurrency', '1', '--yes']);
    expect(r.stderr).toContain(`Warning: wallet ${setup.sleWallet} would go short: it holds 30.00 SLE but the payouts total 50.10 SLE before fees.`);
    expect(r.code, r.stderr).toBe(1);
    // One at a time: 11.01 + 0.11 fee, then 12.02 + 0.12 leave 6.74; 13.03 and 14.04 are refused.
    const report = readCsvReport(setup.work.file('short2.report.csv'));
    expect(report.map((l) => [l.row, l.outcome, l.code])).toEqual([
      ['2', 'accepted', ''],
      ['3', 'accepted', ''],
      ['4', 'rejected', 'INSUFFICIENT_FUNDS'],
      ['5', 'rejected', 'INSUFFICIENT_FUNDS'],
    ]);
    for (const l of report.slice(2)) {
      expect(l.transaction_id).toBe('');
      expect(l.message).not.toBe('');
      // Named by row, recipient and account; the reason on the line under it.
      expect(r.stderr).toContain(`  row ${l.row}: Recipient ${Number(l.row) - 1}, "Jr." (orange_money 07610000${Number(l.row) - 1}), `);
      expect(r.stderr).toContain(`    INSUFFICIENT_FUNDS: Wallet 6643665465 has 6.74 SLE`);
    }
    expect(r.stderr).toContain('2 accepted, 0 already submitted, 2 rejected, 0 unknown.');
    const held = sb.payouts().filter((p) => p.payout_id.startsWith(rows[0]!.payout_id!.slice(0, -4)));
    expect(held.map((p) => p.payout_id).sort()).toEqual([rows[0]!.payout_id, rows[1]!.payout_id]);
    expect(sb.wallets().find((x) => x.wallet_id === setup.sleWallet)!.balance).toBe('6.74');
  });

  it('--dry-run sends nothing and writes no report', async () => {
    const sb = ctx.sb;
    const rows = batchRows(10, setup.sleWallet, `dry-${Date.now()}`);
    const file = writeFile(setup.work.file('dry.csv'), toCsv(rows));
    const r = await batch([file, '--dry-run', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Batch "default": 10 payouts to send from ${file}:`);
    expect(r.stdout).not.toContain('Warning');
    noPosts(sb);
    expect(() => readFileSync(setup.work.file('dry.report.csv'))).toThrow();
  });

  it('without a terminal and without --yes: exit 2, nothing sent', async () => {
    const sb = ctx.sb;
    const rows = batchRows(10, setup.sleWallet, `noyes-${Date.now()}`);
    const file = writeFile(setup.work.file('noyes.csv'), toCsv(rows));
    const r = await batch([file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--yes is required without a terminal');
    expect(r.stderr).toContain('Nothing was sent.');
    noPosts(sb);
    expect(sb.payouts().filter((p) => p.payout_id.startsWith(rows[0]!.payout_id!.slice(0, -4)))).toEqual([]);
  });
});
