/**
 * A full disk under the config folder (README "After sending": a plain message naming the cause,
 * `no space left on device`, exit 2; exit 4 when an outcome could not be recorded), in process
 * against the sandbox over real HTTP: `payout batch` full from the start (exit 2, the cause said
 * once, not per row) and filling up while it sends (exit 4, the cause said once), then
 * `history reconcile` whose answer cannot be recorded (free space, not "when the service can be
 * reached"). Each time, the command printed pays every payout exactly once when there is room.
 *
 * The disk: the config folder's files stand on a small file system of their own, simulated, so no
 * mount (and no root) is needed. Every write of data into that folder, through node:fs and
 * node:fs/promises as the journal writes, takes from `disk.free`; one that no longer fits fails
 * as a full file system fails it, ENOSPC. Everything else (folders, links, renames, fsyncs, reads)
 * is the real file system's. test/unit/journal-gaps.test.ts and test/e2e/hostile-service.test.ts
 * do the same on a real tmpfs, as root.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { until } from '../helpers/e2e.js';
import { TestClock } from '../helpers/clock.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { batchRows, expectExactlyOncePerId, payoutPosts, postedPayoutId, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';
import { heldFor } from '../helpers/payout-fixtures.js';
import { bankPayout } from '../helpers/four-eyes.js';

const disk = vi.hoisted(() => {
  const state = {
    /** The folder on the small disk ('' until a test says). */
    root: '',
    /** Bytes that still fit. */
    free: Infinity,
    /** Open descriptors and their files, for writes made through a descriptor. */
    files: new Map<number, string>(),
    /** `bytes` written to `file`: taken from what is free on the small disk, or ENOSPC when they do not fit. */
    spend(file: string | undefined, bytes: number): void {
      if (!state.root || file === undefined || !(file === state.root || file.startsWith(state.root + '/'))) return;
      if (bytes > state.free) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { errno: -28, code: 'ENOSPC', syscall: 'write' });
      state.free -= bytes;
    },
    /** How many bytes a write of `data` writes (`length` when a write says it). */
    sizeOf(data: unknown, length?: unknown): number {
      if (typeof length === 'number') return length;
      if (typeof data === 'string') return Buffer.byteLength(data);
      return (data as { byteLength?: number } | undefined)?.byteLength ?? 0;
    },
  };
  return state;
});

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const call = <R>(f: unknown, args: unknown[]) => (f as (...a: unknown[]) => R)(...args);
  return {
    ...fs,
    openSync: (...args: unknown[]) => {
      const fd = call<number>(fs.openSync, args);
      disk.files.set(fd, String(args[0]));
      return fd;
    },
    closeSync: (fd: number) => {
      disk.files.delete(fd);
      fs.closeSync(fd);
    },
    // writeSync(fd, buffer, offset, length) or writeSync(fd, string[, position, encoding]).
    writeSync: (...args: unknown[]) => {
      disk.spend(disk.files.get(args[0] as number), disk.sizeOf(args[1], typeof args[1] === 'string' ? undefined : args[3]));
      return call<number>(fs.writeSync, args);
    },
    writeFileSync: (...args: unknown[]) => {
      disk.spend(typeof args[0] === 'number' ? disk.files.get(args[0]) : String(args[0]), disk.sizeOf(args[1]));
      return call<void>(fs.writeFileSync, args);
    },
    appendFileSync: (...args: unknown[]) => {
      disk.spend(typeof args[0] === 'number' ? disk.files.get(args[0]) : String(args[0]), disk.sizeOf(args[1]));
      return call<void>(fs.appendFileSync, args);
    },
  };
});

vi.mock('node:fs/promises', async (importOriginal) => {
  const fsp = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...fsp,
    // A file handle: its descriptor known (the journal's log writes through it), its writes taken from the disk.
    open: async (...args: unknown[]) => {
      const fh = await (fsp.open as (...a: unknown[]) => Promise<import('node:fs/promises').FileHandle>)(...args);
      const file = String(args[0]);
      disk.files.set(fh.fd, file);
      const writeFile = fh.writeFile.bind(fh);
      fh.writeFile = (data, options) => {
        disk.spend(file, disk.sizeOf(data));
        return writeFile(data, options);
      };
      const close = fh.close.bind(fh);
      fh.close = () => {
        disk.files.delete(fh.fd);
        return close();
      };
      return fh;
    },
    writeFile: (...args: unknown[]) => {
      disk.spend(String(args[0]), disk.sizeOf(args[1]));
      return (fsp.writeFile as (...a: unknown[]) => Promise<void>)(...args);
    },
  };
});

// Test files share a module cache (isolate: false): payctl loaded afresh, over the small disk.
vi.resetModules();
const { payctl, startPayctl } = await import('../helpers/in-process.js');

const ctx = useSandbox();
let cfg: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;

beforeAll(async () => {
  cfg = tempConfigDir();
  work = tempWorkDir();
  disk.root = cfg.dir;
  const r = await payctl(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir: cfg.dir, input: ctx.sb.apiKey + '\n' });
  expect(r.code, r.stderr).toBe(0);
});

afterEach(() => {
  disk.free = Infinity;
  ctx.sb.faults.clear();
});

afterAll(() => {
  disk.root = '';
  cfg.cleanup();
  work.cleanup();
});

/** How many times `what` is said in `text`. */
function times(text: string, what: string): number {
  return text.split(what).length - 1;
}

/** The command printed on the last line of stderr (`  payctl ...`), as arguments (the paths here hold no spaces). */
function printedCommand(stderr: string): string[] {
  const line = stderr.trimEnd().split('\n').at(-1)!.trim();
  expect(line).toMatch(/^payctl /);
  return line.split(' ').slice(1);
}

/** A batch file of `n` rows from `wallet`, payout ids `<prefix>-001` ...: its path and ids. */
function batchFile(n: number, wallet: string, prefix: string): { file: string; ids: string[] } {
  const rows = batchRows(n, wallet, prefix);
  return { file: writeFile(work.file(`${prefix}.csv`), toCsv(rows)), ids: rows.map((r) => r.payout_id!) };
}

describe('payout batch on a full disk', () => {
  it('full from the start: exit 2, the cause ("no space left on device") said once with the fix, nothing sent; the printed command then pays each row once', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    // A config folder in use: its journal (key, folder, log) made by an earlier batch.
    const first = batchFile(1, wallet, `used-${randomUUID().slice(0, 8)}`);
    expect((await payctl(['payout', 'batch', first.file, '--yes'], { dir: cfg.dir })).code).toBe(0);

    const prefix = `full-${randomUUID().slice(0, 8)}`;
    const { file, ids } = batchFile(5, wallet, prefix);
    // Room for the batch's lock file (about 100 bytes), none for a journal entry.
    disk.free = 200;
    const r = await payctl(['payout', 'batch', file, '--yes'], { dir: cfg.dir });
    expect(r.stderr).toContain('0 accepted, 0 already submitted, 0 rejected, 0 unknown, 5 not sent.\n');
    expect(r.stderr).toContain(`Error: Cannot write the payout journal ${cfg.dir}${sep}journal: no space left on device (ENOSPC). 5 rows were not sent.\n`);
    expect(r.stderr).toContain(
      `Free some space on that disk, then run the same command again to send them (rows accepted are skipped, nothing is paid twice):\n  payctl payout batch ${file} --yes\n`,
    );
    expect(times(r.stderr, 'no space left on device')).toBe(1);
    expect(r.stderr).not.toContain('see the report');
    expect(r.code, r.stderr).toBe(2);
    expect(payoutPosts(ctx.sb).filter((p) => ids.includes(postedPayoutId(p)))).toEqual([]);

    disk.free = Infinity;
    const again = await payctl(printedCommand(r.stderr), { dir: cfg.dir });
    expect(again.stderr).toContain('5 accepted, 0 already submitted, 0 rejected, 0 unknown.\n');
    expect(again.code, again.stderr).toBe(0);
    expectExactlyOncePerId(ctx.sb, ids, prefix);
  });

  it("full to the last byte: the batch's lock file cannot be made: exit 2, the cause said once with the fix, nothing sent, no lock left behind; the same command then pays each row once", async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const prefix = `nolock-${randomUUID().slice(0, 8)}`;
    const { file, ids } = batchFile(3, wallet, prefix);
    disk.free = 0;
    const args = ['payout', 'batch', file, '--yes'];
    const r = await payctl(args, { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(2);
    const [said, hint, rest] = r.stderr.split('\n');
    expect(said!.startsWith(`Error: Cannot make the lock file ${join(cfg.dir, 'locks')}${sep}batch-`)).toBe(true);
    expect(said).toMatch(/batch-[0-9a-f]{64}\.lock: no space left on device \(ENOSPC\)\. Nothing was sent\.$/);
    expect(hint).toBe('Free some space on that disk and run the same command again.');
    expect(rest).toBe('');
    expect(payoutPosts(ctx.sb).filter((p) => ids.includes(postedPayoutId(p)))).toEqual([]);
    // No empty lock file left to make the next run wait.
    expect(readdirSync(join(cfg.dir, 'locks')).filter((f) => f.startsWith('batch-'))).toEqual([]);

    disk.free = Infinity;
    const again = await payctl(args, { dir: cfg.dir });
    expect(again.stderr).toContain('3 accepted, 0 already submitted, 0 rejected, 0 unknown.\n');
    expect(again.code, again.stderr).toBe(0);
    expect(again.ms).toBeLessThan(5_000);
    expectExactlyOncePerId(ctx.sb, ids, prefix);
  });

  it('filling up while it sends: exit 4 (some outcomes unknown), the cause said once before the command that finishes it; that command then pays each row once', async () => {
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const prefix = `filling-${randomUUID().slice(0, 8)}`;
    const { file, ids } = batchFile(150, wallet, prefix);
    // Slow enough answers that the disk fills with rows journaled, in flight and not yet taken.
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 20, times: Infinity });
    const from = ctx.sb.requests().length;
    const run = startPayctl(['payout', 'batch', file, '--yes'], { dir: cfg.dir });
    await until(() => payoutPosts(ctx.sb, from).length >= 12);
    disk.free = 0;
    const r = await run.done;
    ctx.sb.faults.clear();

    const counts = /^(\d+) accepted, 0 already submitted, 0 rejected, (\d+) unknown, (\d+) not sent\.$/m.exec(r.stderr);
    expect(counts, r.stderr).not.toBeNull();
    const [unknown, notSent] = [Number(counts![2]), Number(counts![3])];
    expect(unknown).toBeGreaterThan(0);
    expect(notSent).toBeGreaterThan(0);
    expect(r.stderr).toContain(
      `Warning: Cannot write the payout journal ${cfg.dir}${sep}journal: no space left on device (ENOSPC). ${unknown} payouts may or may not have been made and ${notSent} rows were not sent. ` +
        `Free some space on that disk, then run the same command again to finish them safely (same keys; rows accepted are skipped, nothing is paid twice):\n  payctl payout batch ${file} --yes\n`,
    );
    expect(times(r.stderr, 'no space left on device')).toBe(1);
    expect(r.code, r.stderr).toBe(4);

    disk.free = Infinity;
    const again = await payctl(printedCommand(r.stderr), { dir: cfg.dir });
    expect(again.code, again.stderr).toBe(0);
    expectExactlyOncePerId(ctx.sb, ids, prefix);
  });
});

/** A payout whose every attempt the service's connection reset (before or after it took it): exit 4, unknown in the journal; its id. */
async function unknownPayout(prefix: string, amount: string, kind: 'reset-before-commit' | 'reset-after-commit'): Promise<string> {
  const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  const id = `${prefix}-${randomUUID().slice(0, 8)}`;
  ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind, times: Infinity });
  const lost = await payctl(bankPayout(wallet, amount, id), { dir: cfg.dir, clock: new TestClock() });
  expect(lost.code, lost.stderr).toBe(4);
  ctx.sb.faults.clear();
  return id;
}

describe('history reconcile on a full disk', () => {
  it('an answer it cannot record: says to free space and run it again (not "when the service can be reached"); run again, it records the one payout', async () => {
    // Every attempt reset before the service took it: the outcome is unknown, and journaled so.
    const id = await unknownPayout('rec-full', '12.50', 'reset-before-commit');

    // No room even for the payout's resolution lock (resolve-lock.ts): nothing sent, the cause said, exit 2.
    disk.free = 0;
    const posts = ctx.sb.requests().length;
    const none = await payctl(['history', 'reconcile', '--payout-id', id], { dir: cfg.dir });
    expect(none.code, none.stderr).toBe(2);
    expect(none.stderr).toContain('no space left on device (ENOSPC). Nothing was sent.');
    expect(none.stderr).not.toContain('bug in payctl');
    expect(payoutPosts(ctx.sb, posts)).toEqual([]);

    // Room for the lock file, not for the answer.
    disk.free = 512;
    const r = await payctl(['history', 'reconcile', '--payout-id', id], { dir: cfg.dir });
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;
    expect(r.stdout).toBe(
      `unknown   ${id}  resent with its journaled idempotency key: its answer could not be recorded (the service accepted it (transaction ${txn}), but payctl could not record that in its journal: no space left on device (ENOSPC): the disk is full)\n`,
    );
    expect(r.stderr).toContain(
      `Warning: Cannot write the payout journal ${cfg.dir}${sep}journal: no space left on device (ENOSPC). Free some space on that disk, then run payctl history reconcile --payout-id ${id} again.\n`,
    );
    expect(r.stderr).not.toContain('when the service can be reached');
    expect(r.code, r.stderr).toBe(4);

    disk.free = Infinity;
    const again = await payctl(['history', 'reconcile', '--payout-id', id], { dir: cfg.dir });
    expect(again.stdout).toContain(`accepted  ${id}  resent with its journaled idempotency key: transaction ${txn}`);
    expect(again.code, again.stderr).toBe(0);
    expect(heldFor(ctx.sb, id)).toHaveLength(1);
  });

  it('--made-by on a full disk: exit 2 naming the cause ("no space left on device"), never "a bug in payctl"; the entry stays unknown', async () => {
    // Made at the service, the answer lost: unknown in the journal, one payout at the service.
    const id = await unknownPayout('made-full', '13.50', 'reset-after-commit');
    const txn = heldFor(ctx.sb, id)[0]!.transaction_id;

    // No room for its resolution lock: refused before anything is read or recorded.
    disk.free = 0;
    const none = await payctl(['history', 'reconcile', '--payout-id', id, '--made-by', txn], { dir: cfg.dir });
    expect(none.code, none.stderr).toBe(2);
    expect(none.stderr).toContain('no space left on device (ENOSPC).');
    expect(none.stderr).not.toContain('bug in payctl');
    // Room for the lock file, not for the outcome.
    disk.free = 512;
    const r = await payctl(['history', 'reconcile', '--payout-id', id, '--made-by', txn], { dir: cfg.dir });
    disk.free = Infinity;
    expect(r.stderr).toContain(`Cannot write the payout journal ${cfg.dir}${sep}journal: no space left on device (ENOSPC). Nothing was recorded`);
    expect(r.stderr).not.toContain('bug in payctl');
    expect(r.code, r.stderr).toBe(2);
    const h = await payctl(['history', '--json'], { dir: cfg.dir });
    expect((JSON.parse(h.stdout) as { data: Array<{ payout_id: string; outcome: string }> }).data.find((e) => e.payout_id === id)?.outcome).toBe('unknown');
  });
});
