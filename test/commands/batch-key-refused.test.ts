/**
 * A batch whose API key the service refuses (401, or 403 to POST /payout) before anything was
 * sent, in process against the sandbox over HTTP: the rows tried are journaled and reported as
 * refused, the rest as not sent, no more rows are started, exit 3 with the command that sends
 * them after login; run as printed, every row is paid exactly once, under the keys journaled
 * the first time. Refused after a row's outcome became unknown: exit 4, the refusal said with
 * it. And `plan send` never writes over another batch's report.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { payctl } from '../helpers/in-process.js';
import { loginInProcess } from '../helpers/batch-fixtures.js';
import { batchRows, payoutPosts, postedPayoutId, readCsvReport, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';
import { shellSplit } from '../helpers/pty.js';

const ctx = useSandbox();
let cfg: ReturnType<typeof tempConfigDir>;
const work = tempWorkDir();

beforeAll(async () => {
  cfg = tempConfigDir();
  await loginInProcess(ctx.sb, cfg.dir);
  // A second profile: printed commands must name it (a bare one would use the default profile).
  const team = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl, '--profile', 'team'], { dir: cfg.dir, input: ctx.sb.apiKey + '\n' });
  expect(team.code, team.stderr).toBe(0);
});
afterAll(() => {
  cfg?.cleanup();
  work.cleanup();
});
afterEach(() => ctx.sb.faults.clear());

/** The command printed on the line after `label` (indented by two spaces). */
function printedAfter(stderr: string, label: RegExp): string[] {
  const lines = stderr.split('\n');
  const at = lines.findIndex((l) => label.test(l));
  expect(at, stderr).toBeGreaterThanOrEqual(0);
  const line = lines[at + 1]!.trim();
  expect(line).toMatch(/^payctl /);
  return shellSplit(line).slice(1);
}

describe('payout batch with a refused API key', () => {
  it.each([401, 403])('%i: refused rows and rows not started are reported, exit 3; after login the printed command pays each row once, same keys', async (status) => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const tag = `kr${status}-${randomUUID().slice(0, 6)}`;
    const rows = batchRows(40, wallet, tag);
    const file = writeFile(work.file(`${tag}.csv`), toCsv(rows));
    const report = work.file(`${tag}.report.csv`);
    const from = payoutPosts(ctx.sb).length;
    ctx.sb.faults.add({ kind: 'status', status, method: 'POST', path: '/v2/payout', times: Infinity });

    const first = await payctl(['payout', 'batch', file, '--profile', 'team', '--report', report, '--concurrency', '4', '--yes'], { dir: cfg.dir });
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toContain(status === 401 ? 'The service refused the API key' : 'The service forbids this request with this API key');
    // The login it asks for is this profile's (as printed, without --profile, it would be the default one).
    expect(first.stderr).toContain('Run `payctl login --profile team` (or check the key of this profile)');
    expect(first.stderr).toMatch(/40 rows were not sent\./);
    // Only the first few rows were tried: the run stopped starting rows at the first refusal.
    const tried = payoutPosts(ctx.sb).slice(from);
    expect(tried.length).toBeGreaterThan(0);
    expect(tried.length).toBeLessThanOrEqual(8);
    const lines = readCsvReport(report);
    expect(lines).toHaveLength(40);
    const code = status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN';
    expect(lines.filter((l) => l.outcome === 'rejected').map((l) => l.code)).toEqual(tried.map(() => code));
    expect(lines.filter((l) => l.outcome === 'not sent')).toHaveLength(40 - tried.length);
    expect(lines.filter((l) => l.outcome === 'unknown' || l.outcome === 'accepted')).toEqual([]);
    expect(ctx.sb.payouts().filter((p) => p.payout_id.startsWith(tag))).toEqual([]);
    const keys = new Map(tried.map((r) => [postedPayoutId(r), r.headers['idempotency-key']]));

    // "After login": the key works again. The printed command, run as printed.
    ctx.sb.faults.clear();
    const argv = printedAfter(first.stderr, /then send the rest with the same command/);
    const again = await payctl(argv, { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    const held = ctx.sb.payouts().filter((p) => p.payout_id.startsWith(tag));
    expect(held).toHaveLength(40);
    expect(new Set(held.map((p) => p.payout_id)).size).toBe(40);
    // The rows tried the first time were sent under the keys journaled then.
    const accepted = payoutPosts(ctx.sb).slice(from + tried.length);
    for (const r of accepted) if (keys.has(postedPayoutId(r))) expect(r.headers['idempotency-key']).toBe(keys.get(postedPayoutId(r)));
    expect(readCsvReport(report).filter((l) => l.outcome === 'accepted')).toHaveLength(40);
  });
  it('a row whose first attempt was lost, then the key refused (403): exit 4, the unknown row and the refusal said, the printed command pays each row once', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const tag = `ku-${randomUUID().slice(0, 6)}`;
    const file = writeFile(work.file(`${tag}.csv`), toCsv(batchRows(2, wallet, tag)));
    const report = work.file(`${tag}.report.csv`);
    // Row 1's first attempt is made by the service, its answer lost; every later POST is refused (403).
    ctx.sb.faults.add({ kind: 'reset-after-commit', method: 'POST', path: '/v2/payout', times: 1 });
    ctx.sb.faults.add({ kind: 'status', status: 403, method: 'POST', path: '/v2/payout', times: Infinity });

    const first = await payctl(['payout', 'batch', file, '--profile', 'team', '--report', report, '--concurrency', '1', '--yes'], { dir: cfg.dir });
    expect(first.code, first.stderr).toBe(4);
    // Each row's code: a script reads the unknown one as payout create --json says it (OUTCOME_UNKNOWN).
    expect(readCsvReport(report).map((l) => [l.outcome, l.code])).toEqual([
      ['unknown', 'OUTCOME_UNKNOWN'],
      ['rejected', 'FORBIDDEN'],
    ]);
    expect(first.stderr).toContain('1 payout may or may not have been made');
    expect(first.stderr).toContain('The service forbids this request with this API key');
    expect(first.stderr).toContain('Run `payctl login --profile team` (or check the key of this profile)');
    expect(ctx.sb.payouts().filter((p) => p.payout_id.startsWith(tag))).toHaveLength(1);

    // After login (the key works again): the printed command, run as printed, finishes row 1 under its key and pays row 2.
    ctx.sb.faults.clear();
    const argv = printedAfter(first.stderr, /may or may not have been made/);
    const again = await payctl(argv, { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    const held = ctx.sb.payouts().filter((p) => p.payout_id.startsWith(tag));
    expect(held.map((p) => p.payout_id).sort()).toEqual([`${tag}-001`, `${tag}-002`]);
  });
});

describe('plan send and reports', () => {
  it("refuses a --report that holds another batch's report, nothing sent, and prints a free path that works as printed", async () => {
    expect((await payctl(['keys', 'create', '--name', 'Mariama Kanu'], { dir: cfg.dir })).code).toBe(0);
    // A policy under which these small payouts need no approval; Mariama makes plans.
    const mine = JSON.parse((await payctl(['keys', 'show', '--json'], { dir: cfg.dir })).stdout) as { public_key: string };
    const example = JSON.parse(readFileSync('docs/examples/policy.json', 'utf8')) as { members: Record<string, { keys: string[] }> };
    const policy = join(work.dir, 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify({
        members: {
          'Mariama Kanu': { keys: [mine.public_key], roles: ['maker'] },
          'Ibrahim Sesay': { keys: example.members['Ibrahim Sesay']!.keys, roles: ['approver'] },
        },
        approvals: { SLE: [{ from: '1000', required: 1 }] },
      }),
    );
    expect((await payctl(['config', 'set', 'policy', policy], { dir: cfg.dir })).code).toBe(0);
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const tag = `pr-${randomUUID().slice(0, 6)}`;
    const file = writeFile(work.file(`${tag}.csv`), toCsv(batchRows(3, wallet, tag)));
    const made = await payctl(['plan', 'create', file, '--batch-id', `b-${tag}`], { dir: cfg.dir });
    expect(made.code, made.stderr).toBe(0);
    const plan = file.replace(/\.csv$/, '.plan.json');
    // Another batch's report at the path.
    const other = work.file(`${tag}-other.csv`);
    writeFileSync(other, toCsv(batchRows(2, wallet, `${tag}-o`)));
    const otherReport = join(work.dir, `${tag}-payroll.csv`);
    const firstRun = await payctl(['payout', 'batch', other, '--batch-id', 'november', '--report', otherReport, '--yes'], { dir: cfg.dir });
    expect(firstRun.code, firstRun.stderr).toBe(0);
    const before = readFileSync(otherReport);
    const from = payoutPosts(ctx.sb).length;

    const refused = await payctl(['plan', 'send', plan, '--report', otherReport, '--yes'], { dir: cfg.dir });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`${otherReport} holds the report of batch "november"`);
    expect(refused.stderr).toContain('Nothing was sent.');
    expect(payoutPosts(ctx.sb).length).toBe(from);
    expect(readFileSync(otherReport).equals(before)).toBe(true);

    const argv = printedAfter(refused.stderr, /Choose another --report path/);
    const sent = await payctl([...argv, '--yes'], { dir: cfg.dir });
    expect(sent.code, sent.stderr).toBe(0);
    expect(payoutPosts(ctx.sb).length).toBe(from + 3);
    expect(readFileSync(otherReport).equals(before)).toBe(true);
    expect(readCsvReport(argv[argv.indexOf('--report') + 1]!).map((l) => l.outcome)).toEqual(['accepted', 'accepted', 'accepted']);
  });
});
