/**
 * `payctl payout batch status <report>`: a batch report refreshed with what each accepted
 * payout became. In process, against two sandboxes: one that settles after 200 ms (failing
 * accounts ending in 0000), one that keeps every payout Pending for a minute.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { freshWallet, useSandbox, type Sandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { writeLoggedIn, writeProfile, type Run } from '../helpers/e2e.js';
import { sandboxProxy, useHostileCleanups } from '../helpers/hostile.js';
import { loginInProcess } from '../helpers/batch-fixtures.js';
import { shellSplit } from '../helpers/pty.js';
import { batchRows, fundDemoWallets, payoutPosts, postedPayoutId, tempWorkDir, toCsv, toJsonl, writeFile, type BatchRow } from '../helpers/batch.js';

const fast = useSandbox({ settleAfterMs: 200 });
const slow = useSandbox({ settleAfterMs: 60_000 });
useHostileCleanups();

let cfgFast: ReturnType<typeof tempConfigDir>;
let cfgSlow: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;

beforeAll(async () => {
  cfgFast = tempConfigDir();
  cfgSlow = tempConfigDir();
  await loginInProcess(fast.sb, cfgFast.dir);
  await loginInProcess(slow.sb, cfgSlow.dir);
});

afterAll(() => {
  cfgFast?.cleanup();
  cfgSlow?.cleanup();
});

beforeEach(() => {
  work = tempWorkDir();
  fundDemoWallets(fast.sb);
  fundDemoWallets(slow.sb);
});

afterEach(() => work.cleanup());

const sle = (sb: Sandbox) => sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;

type Cfg = { dir: string };
const run = (cfg: Cfg, args: string[]): Promise<Run> => payctl(args, { dir: cfg.dir });

/** Sends `rows` as a batch file (name decides the format) and returns the report's path. */
async function send(cfg: Cfg, name: string, rows: BatchRow[]): Promise<string> {
  const file = writeFile(work.file(name), name.endsWith('.csv') ? toCsv(rows) : toJsonl(rows));
  const r = await run(cfg, ['payout', 'batch', file, '--yes']);
  expect(r.stderr).not.toContain('error');
  expect(r.code).toBe(0);
  return work.file(name.replace(/\.(csv|jsonl)$/, '.report.$1'));
}

function readCsv(path: string): { header: string[]; rows: Array<Record<string, string>> } {
  const text = readFileSync(path, 'utf8');
  const header = text.split(/\r?\n/)[0]!.split(',');
  return { header, rows: parse<Record<string, string>>(text, { columns: true, skip_empty_lines: true }) };
}

/** The 6 hex digits of a report's path a retry batch id carries (two reports of one name in two folders: two ids). */
const pathTag = (report: string) => createHash('sha256').update(report).digest('hex').slice(0, 6);

/** `n` rows; those at `failing` (1-based) pay an account ending in 0000, which the sandbox fails. */
function rowsWithFailures(sb: Sandbox, n: number, failing: number[], prefix: string): BatchRow[] {
  return batchRows(n, sle(sb), prefix).map((r, i) => (failing.includes(i + 1) ? { ...r, account_number: `07${String(i + 1).padStart(3, '0')}0000` } : r));
}

describe('payout batch status: the done-when scenario', () => {
  it('30 rows, 5 failing: --wait gives 25 Successful and 5 Failed with reasons, exit 1; --failed-out sends the 5 as a new batch', async () => {
    const sb = fast.sb;
    const failing = [3, 9, 14, 22, 30];
    // Failing rows whose name and note start like a formula: the batch file written for them is
    // payctl's input and keeps them as they were sent (a report's cells are neutralized instead).
    const rows = rowsWithFailures(sb, 30, failing, `done-${Date.now()}`).map(({ payout_id: _, ...r }, i) =>
      failing.includes(i + 1) ? { ...r, name: `@Kadiatu Ltd ${i + 1}`, note: '-Nov advance' } : r,
    );
    const report = await send(cfgFast, 'stipends.csv', rows);
    const before = readCsv(report);
    const failedOut = work.file('failed.csv');

    const r = await run(cfgFast, ['payout', 'batch', 'status', report, '--wait', '--wait-timeout', '30', '--failed-out', failedOut]);
    expect(r.code).toBe(1);

    const after = readCsv(report);
    expect(after.header).toEqual([...before.header, 'status', 'failure_reason', 'settled_at']);
    expect(after.rows).toHaveLength(30);
    // Same rows, same order, existing columns unchanged.
    after.rows.forEach((row, i) => {
      for (const c of before.header) expect(row[c]).toBe(before.rows[i]![c]);
    });
    const failedRows = after.rows.filter((x) => x.status === 'Failed');
    expect(after.rows.filter((x) => x.status === 'Successful')).toHaveLength(25);
    expect(failedRows.map((x) => Number(x.row))).toEqual(failing.map((k) => k + 1));
    for (const f of failedRows) expect(f.failure_reason).not.toBe('');
    for (const x of after.rows) expect(x.settled_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    for (const x of after.rows.filter((x) => x.status === 'Successful')) expect(x.failure_reason).toBe('');

    expect(r.stdout).toMatch(/SLE\s+Successful\s+25\s/);
    expect(r.stdout).toMatch(/SLE\s+Failed\s+5\s/);
    expect(r.stdout).toContain('Failed:');
    // Each failed row by its row, recipient and account, not by a hash; the reason under it.
    for (const f of failedRows) {
      expect(r.stdout).toMatch(new RegExp(`^  row ${f.row}: .+ \\(orange_money 0\\d+\\), \\d+\\.\\d\\d SLE$`, 'm'));
      expect(r.stdout).toContain(`    ${f.failure_reason}`);
      expect(r.stdout).not.toContain(f.payout_id);
    }

    // What each row became is noted in the journal: history shows 25 Successful and 5 Failed.
    const h = await run(cfgFast, ['history', '--json']);
    const mine = (JSON.parse(h.stdout) as { data: Array<{ payout_id: string; payout_status: string | null }> }).data.filter((l) =>
      after.rows.some((x) => x.payout_id === l.payout_id),
    );
    expect(mine.filter((l) => l.payout_status === 'Successful')).toHaveLength(25);
    expect(
      mine
        .filter((l) => l.payout_status === 'Failed')
        .map((l) => l.payout_id)
        .sort(),
    ).toEqual(failedRows.map((f) => f.payout_id).sort());

    // The failed rows as a batch file: exactly those 5, without payout ids.
    const out = readCsv(failedOut);
    expect(out.header).not.toContain('payout_id');
    expect(out.header.slice(0, 9)).toEqual(['wallet_id', 'amount', 'currency', 'type', 'name', 'provider', 'account_number', 'phone_number', 'note']);
    expect(out.rows.map((x) => x.account_number)).toEqual(failing.map((k) => rows[k - 1]!.account_number));
    expect(out.rows.map((x) => x.amount)).toEqual(failing.map((k) => rows[k - 1]!.amount));
    expect(out.rows.map((x) => x.name)).toEqual(failing.map((k) => rows[k - 1]!.name));
    expect(out.rows.map((x) => x.note)).toEqual(failing.map(() => '-Nov advance'));

    // The printed command: a new batch id, no --yes; with --yes added it sends 5 new payouts.
    const date = new Date().toISOString().slice(0, 10);
    const line = r.stderr.split('\n').find((l) => l.includes('payctl payout batch '))!;
    expect(line.trim()).toBe(`payctl payout batch ${failedOut} --batch-id stipends-retry-${pathTag(report)}-${date}`);
    const sent = new Set(after.rows.map((x) => x.payout_id));
    const from = sb.requests().length;
    const again = await run(cfgFast, [...line.trim().split(' ').slice(1), '--yes']);
    expect(again.code).toBe(0);
    const posts = payoutPosts(sb, from);
    expect(posts).toHaveLength(5);
    for (const p of posts) expect(sent.has(postedPayoutId(p))).toBe(false);
    // Paid to the names as the first batch had them, not to "'@Kadiatu Ltd …".
    const names = posts.map((p) => (JSON.parse(p.body) as { recipient: { accountDetails: { name: string } } }).recipient.accountDetails.name).sort();
    expect(names).toEqual(failing.map((k) => `@Kadiatu Ltd ${k}`).sort());
  });
});

describe('payout batch status: the printed command for the Failed rows', () => {
  it('--failed-out named with a leading dash, relative to the folder it runs in: the command printed names it whole and runs as printed', async () => {
    const sb = fast.sb;
    // Amounts of their own: an unnamed run is compared with every batch of the day (changed-rows.ts).
    const rows = rowsWithFailures(sb, 3, [2], `dash-${Date.now()}`).map(({ payout_id: _, ...r }, i) => ({ ...r, amount: `${i + 1}.07` }));
    const report = await send(cfgFast, 'feb.csv', rows);
    const cwd = process.cwd();
    process.chdir(work.dir);
    try {
      const r = await run(cfgFast, ['payout', 'batch', 'status', report, '--wait', '--wait-timeout', '30', '--failed-out', '-f2.csv']);
      expect(r.code).toBe(1);
      expect(existsSync(work.file('-f2.csv'))).toBe(true);
      // Printed as `-f2.csv`, it was read back as an unknown option (exit 2, nothing sent).
      const line = r.stderr
        .split('\n')
        .find((l) => l.includes('payctl payout batch '))!
        .trim();
      expect(line).toBe(`payctl payout batch ${work.file('-f2.csv')} --batch-id feb-retry-${pathTag(report)}-${new Date().toISOString().slice(0, 10)}`);
      const from = sb.requests().length;
      const again = await run(cfgFast, [...shellSplit(line).slice(1), '--yes']);
      expect(again.stderr).not.toContain('unknown option');
      expect(again.code).toBe(0);
      expect(payoutPosts(sb, from)).toHaveLength(1);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('payout batch status: rejected rows, to send as new payouts once the cause is fixed', () => {
  it('a row refused for want of funds is refused again under its key after a top-up; the printed commands send it, and only it, as a new payout', async () => {
    const sb = fast.sb;
    const poor = freshWallet(sb, '100.00', 'SLE');
    const rows = batchRows(2, poor, `poor-${Date.now()}`).map(({ payout_id: _, ...r }, i): BatchRow => ({ ...r, amount: i === 0 ? '50.00' : '80.00' }));
    const file = writeFile(work.file('ins.csv'), toCsv(rows));
    const first = await run(cfgFast, ['payout', 'batch', file, '--yes']);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain('INSUFFICIENT_FUNDS');
    const advice = first.stderr.split('\n');
    const status = advice[advice.findIndex((l) => l.startsWith('Sent again, the rejected row is refused again under its key')) + 1]!.trim();
    expect(status).toBe(`payctl payout batch status ${work.file('ins.report.csv')} --failed-out ${work.file('ins.rejected.csv')}`);

    // Topped up, the same command: the service answers the row's key as it first did.
    sb.setWallet({ wallet_id: poor, wallet_name: 'Topped up', currency: 'SLE', balance: '1000.00' });
    const again = await run(cfgFast, ['payout', 'batch', file, '--yes']);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain('INSUFFICIENT_FUNDS');

    // With --json, what was written (another file: --failed-out never overwrites).
    const doc = JSON.parse((await run(cfgFast, [...shellSplit(status).slice(1, -1), work.file('ins.json-check.csv'), '--json'])).stdout) as { failed_out_rows: unknown };
    expect(doc.failed_out_rows).toEqual({ failed: 0, rejected: 1 });
    // The printed command, as printed: the rejected row in a file of its own, and the command that sends it.
    const st = await run(cfgFast, shellSplit(status).slice(1));
    // 0, or 5 while the accepted row is still Pending (the sandbox settles it 200 ms after it was made).
    expect([0, 5], st.stderr).toContain(st.code);
    expect(st.stderr).toContain(`1 rejected row written to ${work.file('ins.rejected.csv')}. Review and send it as a new batch with:`);
    const out = readCsv(work.file('ins.rejected.csv'));
    expect(out.rows.map((r) => [r.amount, r.account_number])).toEqual([['80.00', rows[1]!.account_number]]);
    const send = st.stderr
      .split('\n')
      .find((l) => l.trim().startsWith('payctl payout batch '))!
      .trim();
    const from = sb.requests().length;
    const paid = await run(cfgFast, [...shellSplit(send).slice(1), '--yes']);
    expect(paid.code, paid.stderr).toBe(0);
    const posts = payoutPosts(sb, from);
    expect(posts.map((p) => (JSON.parse(p.body) as { amount: number }).amount)).toEqual([80]);

    // A day on, the status again with another file: the row was paid by the retry, so it is not
    // written again (before: written, and its printed command paid it a second time). A day on, the retry settled.
    expect((await run(cfgFast, ['payout', 'batch', 'status', work.file('ins.rejected.report.csv'), '--wait', '--wait-timeout', '30'])).code).toBe(0);
    const next = await run(cfgFast, ['payout', 'batch', 'status', work.file('ins.report.csv'), '--failed-out', work.file('day2.csv')]);
    expect(next.stderr).toContain('Row 3 was rejected, but what it pays was paid since (payout ');
    expect(next.stderr).toContain('No Failed or rejected rows to send again:');
    expect(existsSync(work.file('day2.csv'))).toBe(false);
  });
});

describe('payout batch status: a retry that failed too', () => {
  it('a Failed row whose retry settled Failed as well is written again by the next --failed-out, not said to be paid', async () => {
    const sb = fast.sb;
    const rows = rowsWithFailures(sb, 2, [2], `twice-failed-${Date.now()}`).map(({ payout_id: _, ...r }, i): BatchRow => ({ ...r, amount: `${i + 3}.09` }));
    const report = await send(cfgFast, 'tf.csv', rows);
    const first = await run(cfgFast, ['payout', 'batch', 'status', report, '--wait', '--wait-timeout', '30', '--failed-out', work.file('tf-1.csv')]);
    expect(first.code, first.stderr).toBe(1);
    const retry = first.stderr
      .split('\n')
      .find((l) => l.trim().startsWith('payctl payout batch '))!
      .trim();
    expect((await run(cfgFast, [...shellSplit(retry).slice(1), '--yes'])).code).toBe(0);
    // The retry's report read until it settles: Failed again (the account still fails), and noted so.
    const retryReport = work.file('tf-1.report.csv');
    expect((await run(cfgFast, ['payout', 'batch', 'status', retryReport, '--wait', '--wait-timeout', '30'])).code).toBe(1);
    const second = await run(cfgFast, ['payout', 'batch', 'status', report, '--failed-out', work.file('tf-2.csv')]);
    // Before: "what it pays was paid since (payout ...)", and not written: that retry paid nobody.
    expect(second.stderr).not.toContain('was paid since');
    expect(readCsv(work.file('tf-2.csv')).rows.map((r) => r.account_number)).toEqual([rows[1]!.account_number]);
  });
});

describe('payout batch status: before settlement, totals, formats', () => {
  it('without --wait before settlement: exit 5 with Pending counts and exact totals (0.10 x 3 = 0.30)', async () => {
    const sb = slow.sb;
    const rows = batchRows(3, sle(sb), `pend-${Date.now()}`).map((r): BatchRow => ({ ...r, amount: '0.10' }));
    const report = await send(cfgSlow, 'dimes.csv', rows);
    const r = await run(cfgSlow, ['payout', 'batch', 'status', report]);
    expect(r.code).toBe(5);
    expect(r.stdout).toMatch(/SLE\s+Pending\s+3\s+0\.30/);
    expect(r.stderr).toContain(`still Pending`);
    expect(r.stderr).toContain(`payctl payout batch status ${report} --wait`);
    expect(readCsv(report).rows.map((x) => [x.status, x.failure_reason, x.settled_at])).toEqual(Array(3).fill(['Pending', '', '']));

    const j = await run(cfgSlow, ['payout', 'batch', 'status', report, '--json']);
    expect(j.code).toBe(5);
    const doc = JSON.parse(j.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      rows: 3,
      accepted: 3,
      successful: 0,
      failed: 0,
      pending: 3,
      failed_rows: [],
      failed_out: null,
      retry_command: null,
      failed_out_rows: null,
    });
    expect(doc.totals).toEqual([{ currency: 'SLE', status: 'Pending', count: 3, amount: '0.30' }]);
  });

  it('a status word payctl does not know ("done"): never counted as Pending or settled, its own total, exit 4 naming the row and the word', async () => {
    const sb = slow.sb;
    const proxy = await sandboxProxy(sb);
    const cfg = tempConfigDir();
    try {
      writeProfile(cfg.dir, { ...(await writeLoggedIn(sb, cfg.dir)), baseUrl: proxy.baseUrl });
      const rows = batchRows(3, sle(sb), `word-${Date.now()}`).map((r): BatchRow => ({ ...r, amount: '0.10' }));
      const report = await send(cfg, 'words.csv', rows);
      const odd = readCsv(report).rows[1]!.transaction_id!;
      proxy.rewriteLookups((raw) => (raw.includes(odd) ? raw.replace(/"status":"pending"/, '"status":"done"') : raw));
      const r = await run(cfg, ['payout', 'batch', 'status', report, '--wait', '--wait-timeout', '1']);
      expect(r.code, r.stderr).toBe(4);
      expect(r.stdout).toMatch(/SLE\s+Pending\s+2\s+0\.20/);
      expect(r.stdout).toMatch(/SLE\s+Unknown\s+1\s+0\.10/);
      expect(r.stderr).toContain(`Row 3 (payout ${rows[1]!.payout_id}) has the status "done", a word payctl does not know: whether it was paid cannot be told from it.`);
      expect(readCsv(report).rows.map((x) => [x.status, x.settled_at])).toEqual([
        ['Pending', ''],
        ['done', ''],
        ['Pending', ''],
      ]);

      const j = await run(cfg, ['payout', 'batch', 'status', report, '--json']);
      expect(j.code).toBe(4);
      const doc = JSON.parse(j.stdout) as Record<string, unknown>;
      expect(doc).toMatchObject({ accepted: 3, successful: 0, failed: 0, pending: 2, unknown_status: 1 });
      expect(doc.totals).toEqual([
        { currency: 'SLE', status: 'Pending', count: 2, amount: '0.20' },
        { currency: 'SLE', status: 'Unknown', count: 1, amount: '0.10' },
      ]);
    } finally {
      cfg.cleanup();
    }
  });

  it('--json after settlement: counts, totals per currency and status, the failed rows with reasons', async () => {
    const sb = fast.sb;
    const rows = rowsWithFailures(sb, 4, [2], `json-${Date.now()}`).map((r): BatchRow => ({ ...r, amount: '0.10' }));
    const report = await send(cfgFast, 'small.csv', rows);
    const r = await run(cfgFast, ['payout', 'batch', 'status', report, '--wait', '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { totals: unknown; failed_rows: Array<Record<string, unknown>>; successful: number; failed: number };
    expect(doc.successful).toBe(3);
    expect(doc.failed).toBe(1);
    expect(doc.totals).toEqual([
      { currency: 'SLE', status: 'Successful', count: 3, amount: '0.30' },
      { currency: 'SLE', status: 'Failed', count: 1, amount: '0.10' },
    ]);
    expect(doc.failed_rows).toEqual([
      {
        // A number, as batch validation's errors[].row (probe C53, 5: it was the string '3').
        row: 3,
        payout_id: rows[1]!.payout_id,
        transaction_id: expect.stringMatching(/^TXN-BOK-[0-9A-F]{26}$/) as unknown,
        amount: '0.10',
        currency: 'SLE',
        failure_reason: expect.stringMatching(/.+/) as unknown,
      },
    ]);
  });

  it('a JSON-lines report is rewritten as JSON lines, with status keys', async () => {
    const sb = fast.sb;
    const rows = rowsWithFailures(sb, 3, [1], `jsonl-${Date.now()}`);
    const report = await send(cfgFast, 'rows.jsonl', rows);
    const before = readFileSync(report, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const failedOut = work.file('failed.jsonl');
    const r = await run(cfgFast, ['payout', 'batch', 'status', report, '--wait', '--failed-out', failedOut]);
    expect(r.code).toBe(1);
    const after = readFileSync(report, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(after.map((o) => o.status)).toEqual(['Failed', 'Successful', 'Successful']);
    after.forEach((o, i) => expect(o).toMatchObject(before[i]!));
    expect(Object.keys(after[0]!)).toEqual([...Object.keys(before[0]!), 'status', 'failure_reason', 'settled_at']);
    const out = readFileSync(failedOut, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out).toHaveLength(1);
    expect(out[0]).not.toHaveProperty('payout_id');
    expect(out[0]).toMatchObject({ account_number: rows[0]!.account_number, amount: rows[0]!.amount, currency: 'SLE' });
  });

  it('rows not accepted keep the status columns empty; the rewrite is atomic and a second run reads it again', async () => {
    const sb = fast.sb;
    const report = await send(cfgFast, 'mixed.csv', batchRows(2, sle(sb), `mixed-${Date.now()}`));
    // A row that was rejected: nothing to look up.
    writeFileSync(report, readFileSync(report, 'utf8') + '9,x-never-sent,rejected,validation_error,bad account,,,,default\r\n');
    const inode = lstatSync(report).ino;
    const first = await run(cfgFast, ['payout', 'batch', 'status', report, '--wait']);
    expect(first.code).toBe(0);
    expect(lstatSync(report).ino).not.toBe(inode); // a new file renamed into place
    expect(readdirSync(work.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const once = readFileSync(report, 'utf8');
    const { header, rows } = readCsv(report);
    expect(rows.map((x) => x.status)).toEqual(['Successful', 'Successful', '']);
    expect(rows[2]).toMatchObject({ outcome: 'rejected', status: '', failure_reason: '', settled_at: '' });
    expect(header.filter((c) => c === 'status')).toHaveLength(1);

    const second = await run(cfgFast, ['payout', 'batch', 'status', report]);
    expect(second.code).toBe(0);
    expect(readFileSync(report, 'utf8')).toBe(once);
    expect(second.stdout).toMatch(/SLE\s+Successful\s+2\s/);
  });
});

describe('payout batch status: a report re-saved by an editor or a spreadsheet', () => {
  it('with a byte order mark and rows saved with LF after CRLF ones: read, every row looked up, rewritten', async () => {
    const sb = fast.sb;
    const report = await send(cfgFast, 'resaved.csv', batchRows(3, sle(sb), `resaved-${Date.now()}`));
    const lines = readFileSync(report, 'utf8').split('\r\n');
    expect(lines).toHaveLength(5);
    writeFileSync(report, `\ufeff${lines.slice(0, 2).join('\r\n')}\r\n${lines.slice(2).join('\n')}`);
    const r = await run(cfgFast, ['payout', 'batch', 'status', report, '--wait']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/SLE\s+Successful\s+3\s/);
    expect(readCsv(report).rows.map((x) => x.status)).toEqual(['Successful', 'Successful', 'Successful']);
  });
});

describe('payout batch status: bad input, before anything is fetched', () => {
  const refused = async (args: string[], message: RegExp) => {
    const sb = fast.sb;
    const from = sb.requests().length;
    const r = await run(cfgFast, ['payout', 'batch', 'status', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(sb.requests().slice(from)).toEqual([]);
  };

  it('a missing report, a symlink, a file that is no payctl report', async () => {
    await refused([work.file('nope.report.csv')], /does not exist/);
    const batchFile = writeFile(work.file('rows.csv'), toCsv(batchRows(1, sle(fast.sb), 'x')));
    await refused([batchFile], /not a payctl batch report/);
    await refused([writeFile(work.file('r.jsonl'), '{"a":1}\n')], /not a payctl batch report/);
    const real = writeFile(work.file('real.report.csv'), 'row,payout_id,outcome,code,message,transaction_id,fee,earlier_run\r\n2,p1,accepted,,,TRX1,,\r\n');
    symlinkSync(real, work.file('link.report.csv'));
    await refused([work.file('link.report.csv')], /symbolic link/);
  });

  it('a report with no row yet (its run killed before any row finished): said so, pointing to history reconcile, never "not a payctl batch report"', async () => {
    // Before: "… is not a payctl batch report: it has no rows", of the header payctl itself wrote.
    const header = writeFile(work.file('k.report.csv'), 'row,payout_id,outcome,code,message,transaction_id,fee,earlier_run,batch_id\r\n');
    const empty = writeFile(work.file('k.report.jsonl'), '');
    for (const report of [header, empty]) {
      const from = fast.sb.requests().length;
      const r = await run(cfgFast, ['payout', 'batch', 'status', report]);
      expect(r.code, r.stderr).toBe(2);
      const flat = r.stderr.replace(/\s+/g, ' ');
      expect(flat).toContain(
        `Error: The report ${report} has no row yet: the batch run writing it stopped before any row finished (killed, or stopped), or is still sending. Nothing was fetched.`,
      );
      expect(flat).toContain('prints the command that resumes the batch: payctl history reconcile');
      expect(flat).not.toContain('not a payctl batch report');
      expect(fast.sb.requests().slice(from)).toEqual([]);
    }
  });

  it("a report with a broken quote is said in words, never in csv-parse's own", async () => {
    const broken = writeFile(
      work.file('q.report.csv'),
      'row,payout_id,outcome,code,message,transaction_id,fee,earlier_run,batch_id\r\n2,"p1,accepted,,,TRX1,,,default\r\n',
    );
    await refused([broken], /not a payctl batch report: not valid CSV: on line 2 a quote opens a cell but never closes/);
  });

  it('--failed-out onto an existing file is refused, and the file is left as it was', async () => {
    const report = writeFile(work.file('r.report.csv'), 'row,payout_id,outcome,code,message,transaction_id,fee,earlier_run\r\n2,p1,accepted,,,TRX1,,\r\n');
    const existing = writeFile(work.file('failed.csv'), 'keep me\n');
    await refused([report, '--failed-out', existing], /already exists/);
    expect(readFileSync(existing, 'utf8')).toBe('keep me\n');
    expect(existsSync(work.file('r.report.csv'))).toBe(true);
  });
});
