/**
 * Printed commands run as printed (docs/architecture.md, "Printed commands"). Under a profile other than the
 * default (here the only profile is `tty`), the resume line of an interrupted batch,
 * the "check it with" and "retry safely" lines of a payout whose outcome is unknown, and
 * the lines that name a new batch or a free report path carry `--profile tty` (and the run
 * options in force), and pasted into a shell, through a `payctl` on PATH, they work:
 * nothing is paid twice. The runs that print them need no process of their own and run in
 * process (but the batch stopped by a real SIGINT); the login hint of a refused key is a
 * case of the exit-code table (test/helpers/exit-code-cases.ts).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { payctlShim, runAsPrinted, tempConfigDir } from '../helpers/cli.js';
import { readProfiles, writeLoggedIn } from '../helpers/e2e.js';
import { payctl as payctlInProcess } from '../helpers/in-process.js';
import { TestClock } from '../helpers/clock.js';
import { shellSplit } from '../helpers/pty.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import {
  batchRows,
  expectExactlyOncePerId,
  fundDemoWallets,
  heldCounts,
  payoutPosts,
  postedPayoutId,
  startPayctl,
  tempWorkDir,
  toCsv,
  withOwnPayees,
  writeFile,
} from '../helpers/batch.js';

const ctx = useSandbox();

let cfg: ReturnType<typeof tempConfigDir>;
let shim: string;
let work: ReturnType<typeof tempWorkDir>;
let sle: string;

beforeAll(async () => {
  // The only profile is `tty`: a printed command without --profile tty would not work.
  cfg = tempConfigDir();
  await writeLoggedIn(ctx.sb, cfg.dir, ctx.sb.apiKey, 'tty');
  expect(Object.keys(readProfiles(cfg.dir))).toEqual(['tty']);
  // `payctl` on PATH, as a person who installed it has it.
  shim = payctlShim().dir;
});

afterAll(() => {
  cfg?.cleanup();
  if (shim) rmSync(shim, { recursive: true, force: true });
});

beforeEach(() => {
  work = tempWorkDir();
  fundDemoWallets(ctx.sb);
  sle = ctx.sb.wallets().find((w) => w.currency === 'SLE')!.wallet_id;
  ctx.sb.clearRequests();
});

afterEach(() => {
  ctx.sb.faults.clear();
  work.cleanup();
});

/** The line right after the line that starts with `intro` (trimmed of nothing: as printed). */
function lineAfter(text: string, intro: string): string {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.startsWith(intro));
  expect(i, `a line starting with ${JSON.stringify(intro)} in:\n${text}`).toBeGreaterThanOrEqual(0);
  return lines[i + 1] ?? '';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('printed commands run as printed (profile tty, no default profile)', () => {
  it('a batch stopped by SIGINT about half way exits 130; its resume line, run as printed, sends the rest: one payout per row', async () => {
    const sb = ctx.sb;
    const prefix = `sigint-${Date.now()}`;
    const rows = batchRows(20, sle, prefix);
    const ids = rows.map((r) => r.payout_id!);
    // A folder and file name a shell must have quoted.
    const folder = join(work.dir, "Oct payouts (Jo's)");
    mkdirSync(folder);
    const file = writeFile(join(folder, 'pay run.csv'), toCsv(rows));
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 150, times: Infinity });

    const { child, done } = startPayctl(['payout', 'batch', file, '--profile', 'tty', '--concurrency', '2', '--yes'], { dir: cfg.dir, timeoutMs: 20_000 });
    let exited = false;
    void done.finally(() => (exited = true));
    const deadline = Date.now() + 15_000;
    while (!exited && Date.now() < deadline && payoutPosts(sb).filter((p) => p.outcome === 201).length < 8) await sleep(5);
    expect(exited, 'the batch was still running').toBe(false);
    child.kill('SIGINT');
    const stopped = await done;
    expect(stopped.stderr).toContain('Resume with (rows already accepted are skipped, nothing is paid twice):');
    expect(stopped.code, stopped.stderr).toBe(130);

    const sentFirst = payoutPosts(sb).map(postedPayoutId);
    expect(sentFirst.length).toBeGreaterThanOrEqual(8);
    expect(sentFirst.length).toBeLessThan(20);
    const heldFirst = [...heldCounts(sb, ids)].filter(([, n]) => n > 0).length;
    expect(heldFirst).toBe(sentFirst.length); // rows in flight finished
    expect(heldFirst).toBeLessThan(20);

    const line = lineAfter(stopped.stderr, 'Resume with (rows already accepted are skipped, nothing is paid twice):');
    expect(line.startsWith('  payctl payout batch ')).toBe(true);
    expect(line).toContain(' --profile tty ');
    expect(line).toContain(' --concurrency 2 ');
    expect(line.endsWith(' --yes')).toBe(true);

    sb.faults.clear();
    const from = sb.requests().length;
    const resumed = await runAsPrinted(line, { shim, configDir: cfg.dir });
    expect(resumed.stderr).toContain(`${20 - heldFirst} payouts to send from ${file}`);
    expect(resumed.code, resumed.stderr).toBe(0);
    // Only the rows not yet accepted were sent; in all, one payout per row.
    const sentThen = payoutPosts(sb, from).map(postedPayoutId);
    expect(sentThen).toHaveLength(20 - heldFirst);
    for (const id of sentThen) expect(sentFirst).not.toContain(id);
    expectExactlyOncePerId(sb, ids, prefix);
  });

  it('a batch stopped with Ctrl-C twice (an exit at once): reconcile sends none of its rows and prints the resume, which run as printed pays each row once', async () => {
    const sb = ctx.sb;
    const prefix = `twice-${Date.now()}`;
    const rows = batchRows(40, sle, prefix);
    const ids = rows.map((r) => r.payout_id!);
    const file = writeFile(join(work.dir, 'twice.csv'), toCsv(rows));
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 300, times: Infinity });
    const { child, done } = startPayctl(['payout', 'batch', file, '--profile', 'tty', '--concurrency', '2', '--yes'], { dir: cfg.dir, timeoutMs: 20_000 });
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && payoutPosts(sb).length < 2) await sleep(5);
    child.kill('SIGINT');
    await sleep(50);
    child.kill('SIGINT');
    const stopped = await done;
    expect(stopped.code, stopped.stderr).toBe(130);
    // It said nothing at all before: now that payouts in flight may or may not be made, and how to find out.
    expect(stopped.stderr).toContain('Stopped at once (a second interrupt): a payout in flight may or may not have been made.');
    const find = lineAfter(stopped.stderr, 'Stopped at once (a second interrupt)');
    expect(find).toBe('To find out, and to finish without paying anything twice: payctl history reconcile --profile tty');
    sb.faults.clear();
    const sentFirst = new Set(payoutPosts(sb).map(postedPayoutId));
    expect(sentFirst.size).toBeLessThan(10);

    const from = sb.requests().length;
    const reconcile = await payctlInProcess(shellSplit(find.slice(find.indexOf('payctl '))).slice(1), { dir: cfg.dir });
    // Only rows that had left may be resent; rows journaled ahead and never sent are left to the batch.
    for (const id of payoutPosts(sb, from).map(postedPayoutId)) expect(sentFirst.has(id), id).toBe(true);
    expect(reconcile.stdout).toMatch(
      /not resent: row \d+ of batch "default", no outcome recorded \(its run ended before one was: it may or may not have been sent\); its batch.s resume sends it under the same key/,
    );
    const resume = lineAfter(reconcile.stderr, 'Warning: Rows of a batch with no outcome recorded');
    expect(resume).toBe(`  payctl payout batch ${file} --profile tty --batch-id default --concurrency 2`);

    const resumed = await runAsPrinted(`${resume.trim()} --yes`, { shim, configDir: cfg.dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expectExactlyOncePerId(sb, ids, prefix);
  });

  it('payout create whose request hangs (exit 4): "find out with" and "retry safely", run as printed, pay exactly once', async () => {
    const sb = ctx.sb;
    const wal = freshWallet(sb, '10000.00', 'SLE');
    const name = `Jo's payee ${Date.now()}`;
    sb.faults.add({ path: '/v2/payout', kind: 'hang', times: Infinity });

    // Every attempt waits out the whole --timeout against the hung request: half a second
    // (not 1 s) keeps 5 attempts short, and still leaves the printed commands, which carry
    // the same --timeout, ample time against the sandbox once it answers again.
    // In process, the back-off between attempts on a TestClock (each attempt still waits out the real --timeout).
    const r = await payctlInProcess(
      [
        'payout',
        'create',
        '--profile',
        'tty',
        '--timeout',
        '0.5',
        '--wallet',
        wal,
        '--amount',
        '250.75',
        '--currency',
        'SLE',
        '--type',
        'wallet',
        '--name',
        name,
        '--provider',
        'orange_money',
        '--account',
        '076444555',
        '--phone',
        '+23276444555',
        '--note',
        "it's $HOME & more",
        '--metadata',
        'run=printed commands',
        '--yes',
      ],
      { dir: cfg.dir, clock: new TestClock() },
    );
    expect(r.stdout).toBe('');
    expect(r.code, r.stderr).toBe(4);
    const posts = payoutPosts(sb);
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((p) => p.outcome === 'hang')).toBe(true);
    const payoutId = postedPayoutId(posts[0]!);
    const key = posts[0]!.headers['idempotency-key']!;
    expect(sb.payouts().filter((p) => p.payout_id === payoutId)).toHaveLength(0);

    const check = r.stderr.split('\n').find((l) => l.startsWith('Find out with:'));
    expect(check, r.stderr).toBeDefined();
    const findLine = check!.replace(/^Find out with:\s+/, '');
    expect(findLine.startsWith('payctl history reconcile --profile tty '), findLine).toBe(true);
    expect(findLine).toContain(`--payout-id ${payoutId}`);
    const retryLine = lineAfter(r.stderr, 'Retry safely');
    expect(retryLine.startsWith('  payctl payout create --profile tty ')).toBe(true);
    expect(retryLine).toContain(`--payout-id ${payoutId}`);
    expect(retryLine).toContain(`--idempotency-key ${key}`);
    expect(retryLine.endsWith(' --yes')).toBe(true);

    sb.faults.clear();
    // "Find out with", as printed: the same request under the same key, answered and recorded.
    const beforeFind = sb.requests().length;
    const found = await runAsPrinted(findLine, { shim, configDir: cfg.dir });
    expect(found.code, found.stderr).toBe(0);
    const asked = payoutPosts(sb, beforeFind);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.headers['idempotency-key']).toBe(key);
    expect(sb.payouts().filter((p) => p.payout_id === payoutId)).toHaveLength(1);
    expect(found.stdout).toContain(`accepted  ${payoutId}`);

    // "Retry safely", as printed: the same key again, so still one payout.
    const from = sb.requests().length;
    const retried = await runAsPrinted(retryLine, { shim, configDir: cfg.dir });
    expect(retried.stderr).toContain(`Payout ${payoutId} was journaled before: resending it with the same idempotency key.`);
    expect(retried.code, retried.stderr).toBe(0);
    const again = payoutPosts(sb, from);
    expect(again).toHaveLength(1);
    expect(again[0]!.headers['idempotency-key']).toBe(key);
    expect(again[0]!.body).toBe(posts[0]!.body);
    const held = sb.payouts().filter((p) => p.payout_id === payoutId);
    expect(held).toHaveLength(1);
    expect(held[0]!.amount_minor).toBe(25075n);
    expect(held[0]!.recipient.accountDetails.name).toBe(name);
    expect(held[0]!.recipient.accountDetails.note).toBe("it's $HOME & more");
    expect(held[0]!.metadata).toEqual({ run: 'printed commands' });
    expect(sb.payouts().filter((p) => p.payout_id === payoutId)).toHaveLength(1);
  });

  it('"pay them again" after a rerun names a new batch (file name and date) and a report of its own, without --yes: as printed it pays nothing without a terminal, with --yes added it pays again once and keeps the first report', async () => {
    const tag = `again-${Date.now()}`;
    const rows = withOwnPayees(
      batchRows(3, sle, tag).map(({ payout_id: _id, ...r }) => r),
      tag,
    );
    const file = writeFile(work.file('stipends.csv'), toCsv(rows));
    const first = await payctlInProcess(['payout', 'batch', file, '--profile', 'tty', '--yes'], { dir: cfg.dir });
    expect(first.code, first.stderr).toBe(0);
    const rerun = await payctlInProcess(['payout', 'batch', file, '--profile', 'tty', '--yes'], { dir: cfg.dir });
    expect(rerun.code, rerun.stderr).toBe(0);
    const report = work.file('stipends.report.csv');
    const kept = readFileSync(report);
    const today = new Date().toISOString().slice(0, 10);
    const m = /give the batch a new name: (payctl .*)$/m.exec(rerun.stderr);
    expect(m, rerun.stderr).not.toBeNull();
    const line = m![1]!;
    const ownReport = work.file(`stipends.stipends-${today}.report.csv`);
    expect(line).toBe(`payctl payout batch ${file} --profile tty --batch-id stipends-${today} --report ${ownReport}`);
    expect(existsSync(ownReport)).toBe(false);
    const before = payoutPosts(ctx.sb).length;
    const asPrinted = await runAsPrinted(line, { shim, configDir: cfg.dir });
    expect(asPrinted.stderr).toContain('--yes is required without a terminal');
    expect(asPrinted.code).toBe(2);
    expect(payoutPosts(ctx.sb).length).toBe(before);
    const again = await runAsPrinted(`${line} --yes`, { shim, configDir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`Batch "stipends-${today}": 3 payouts to send`);
    expect(again.stderr).toContain(`Report: ${ownReport}`);
    expect(payoutPosts(ctx.sb).length).toBe(before + 3);
    // The first batch's report is as it was, byte for byte; the new batch has its own.
    expect(readFileSync(report).equals(kept)).toBe(true);
    const own = readFileSync(ownReport, 'utf8').trimEnd().split('\r\n');
    expect(own).toHaveLength(4);
    for (const l of own.slice(1)) expect(l).toMatch(new RegExp(`^\\d+,[0-9a-f-]{36},accepted,,,TXN-BOK-[0-9A-F]{26},[0-9.]+,,stipends-${today}$`));
  });

  it("a --report that holds another batch's report is refused (exit 2, nothing sent); the command it prints, run as printed, writes a report of its own", async () => {
    const rows = batchRows(2, sle, `held-${Date.now()}`).map(({ payout_id: _id, ...r }) => r);
    const file = writeFile(work.file('payroll.csv'), toCsv(rows));
    const report = work.file('payroll-report.csv');
    const first = await payctlInProcess(['payout', 'batch', file, '--profile', 'tty', '--batch-id', 'nov', '--report', report, '--yes'], { dir: cfg.dir });
    expect(first.code, first.stderr).toBe(0);
    const kept = readFileSync(report);
    const before = payoutPosts(ctx.sb).length;
    const refused = await payctlInProcess(['payout', 'batch', file, '--profile', 'tty', '--batch-id', 'dec', '--report', report, '--yes'], { dir: cfg.dir });
    expect(refused.stderr).toContain(`${report} holds the report of batch "nov"`);
    expect(refused.code, refused.stderr).toBe(2);
    expect(payoutPosts(ctx.sb).length).toBe(before);
    const line = lineAfter(refused.stderr, 'Choose another --report path, for example:');
    expect(line).toBe(`  payctl payout batch ${file} --profile tty --batch-id dec --report ${work.file('payroll-report.dec.csv')} --yes`);
    const ran = await runAsPrinted(line, { shim, configDir: cfg.dir });
    expect(ran.code, ran.stderr).toBe(0);
    expect(payoutPosts(ctx.sb).length).toBe(before + 2);
    expect(readFileSync(report).equals(kept)).toBe(true);
    expect(readFileSync(work.file('payroll-report.dec.csv'), 'utf8')).toContain(',dec\r\n');
  });
});
