/**
 * Issue 27 against the built binary: a batch file of a million columns is refused in under
 * a second of CPU (its header check was quadratic and ran for 18 minutes and more), and
 * SIGTERM or SIGINT stops a long dry run's check within a second (the check held the event
 * loop, so the process ignored both). Exit 2 and 130, "Nothing was sent.", and no request
 * reaches the sandbox. The child's CPU time comes from the shell's `times` (what it used
 * itself, whatever else runs on the machine). The big files are written a slice at a time
 * (the same bytes as one string joined from a million parts, in a quarter of the time).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliEnv, tempConfigDir } from '../helpers/cli.js';
import { BIN, startCli, writeLoggedIn } from '../helpers/e2e.js';
import { useSandbox } from '../helpers/sandbox.js';
import { writeInSlices } from '../helpers/slices.js';

const ctx = useSandbox();
let cfg: ReturnType<typeof tempConfigDir>;
let work: string;

beforeAll(async () => {
  cfg = tempConfigDir();
  await writeLoggedIn(ctx.sb, cfg.dir);
});
afterAll(() => cfg?.cleanup());
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'payctl-bounds-e2e-'));
  ctx.sb.clearRequests();
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const HEADER = 'wallet_id,amount,currency,type,name,provider,account_number';

/** Requests that reached the sandbox's API (none may: nothing is sent, nothing even looked up). */
const requests = () => ctx.sb.requests().length;

/** CPU milliseconds (user + system) a finished child used, from the second line of `times`. */
function childCpuMs(times: string): number {
  const line = times.trim().split('\n')[1]!;
  return line
    .trim()
    .split(/\s+/)
    .map((t) => {
      const m = /^(\d+)m([\d.]+)s$/.exec(t)!;
      return (Number(m[1]) * 60 + Number(m[2])) * 1000;
    })
    .reduce((a, b) => a + b, 0);
}

/** CPU milliseconds a running process has used so far (/proc/<pid>/stat: utime and stime, in clock ticks of 10 ms). */
function runningCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

describe('a file of a million columns', () => {
  it('is refused in under a second of CPU: exit 2, the bound named, "Nothing was sent.", no request', async () => {
    // The payout's 7 columns, then metadata.k7 ... metadata.k999999: a million in all.
    const file = join(work, 'wide.csv');
    writeInSlices(file, HEADER, HEADER.split(',').length, 1_000_000, (i) => `,metadata.k${i}`, '\nwal_1,1,SLE,bank,A,uba,1\n');
    // Run by a shell that reports its children's CPU time; killed after 60 s (it ran 18 minutes and more).
    const script = `timeout -s KILL 60 "$0" "$1" payout batch "$2" --dry-run >"$3/out" 2>"$3/err"; echo $? >"$3/code"; times`;
    const { stdout: times } = await promisify(execFile)('bash', ['-c', script, process.execPath, BIN, file, work], { env: cliEnv(cfg.dir) });
    const stderr = readFileSync(join(work, 'err'), 'utf8');
    expect(readFileSync(join(work, 'code'), 'utf8').trim(), stderr).toBe('2');
    expect(stderr).toContain(
      `${file}: the header row has more than 1,000 columns; payctl reads at most 1,000 (the payout's columns and metadata.<key> columns). Nothing was sent.`,
    );
    expect(readFileSync(join(work, 'out'), 'utf8')).toBe('');
    expect(childCpuMs(times)).toBeLessThan(1000);
    expect(requests()).toBe(0);
  });
});

describe('a signal during a long dry run', () => {
  let file: string;
  beforeAll(() => {
    // 600,000 rows: a check of 15 s or more.
    const dir = mkdtempSync(join(tmpdir(), 'payctl-bounds-big-'));
    file = join(dir, 'big.csv');
    writeInSlices(file, `${HEADER}\n`, 0, 600_000, (i) => `wal_1,${(i % 900) + 1}.50,SLE,bank,Person ${i},uba,${100_000 + i}\n`);
    return () => rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['SIGTERM', 'SIGTERM'],
    ['SIGINT', 'SIGINT'],
  ] as const)('%s stops the check within a second: exit 130, "Nothing was sent.", no request', async (_name, signal) => {
    const { child, done } = startCli(['payout', 'batch', file, '--dry-run'], { dir: cfg.dir, timeoutMs: 120_000 });
    // Into the check: the binary loaded (about 0.1 s of CPU), the file read and its bounds
    // checked (0.1 s), rows being checked. (1.5 s of CPU until the bounds check stopped being
    // quadratic: a signal during it waited up to 1.6 s.)
    const deadline = Date.now() + 60_000;
    while (runningCpuMs(child.pid!) < 600) {
      expect(Date.now(), 'the child to use 0.6 s of CPU').toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 20));
    }
    const sentAt = Date.now();
    child.kill(signal);
    const r = await done;
    const stopMs = Date.now() - sentAt;
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain(`Interrupted while checking ${file}. Nothing was sent.`);
    expect(r.stdout).toBe('');
    // The issue's own bound: the check lets signals in every 50 ms or so of work.
    expect(stopMs).toBeLessThan(1000);
    expect(requests()).toBe(0);
  });
});
