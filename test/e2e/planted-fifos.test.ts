/**
 * A named pipe (FIFO) planted where payctl keeps a file of its own: the journal key, the
 * journal's index, a batch's log, a lock file. Opened for reading, a FIFO blocks open() until
 * someone writes to it: payctl hung there for good, deaf to Ctrl-C. Each is refused (or passed
 * over, for the index, which decides nothing), naming the file and what it is, and the run ends
 * by itself. The built binary in a child process (a hang cannot be tested in process), with a
 * generous kill timer: the test asserts the run was not the one that ended it.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl as spawned, stackLines, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { batchRows, payoutPosts, tempWorkDir, toCsv, writeFile } from '../helpers/batch.js';
import { payoutArgs } from '../helpers/payout-fixtures.js';
import { walletLockPath } from '../../src/payouts/wallet-lock.js';

const ctx = useSandbox();
let base: ReturnType<typeof tempConfigDir>;
let work: ReturnType<typeof tempWorkDir>;
let wallet: string;
const copies: string[] = [];

/** A config folder with a journal of one payout and a batch run's log (so a key, an index and a log). */
beforeAll(async () => {
  base = tempConfigDir();
  work = tempWorkDir();
  wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
  await writeLoggedIn(ctx.sb, base.dir);
  const one = await payctl(payoutArgs(wallet, `fifo-${randomUUID()}`), { dir: base.dir });
  expect(one.code, one.stderr).toBe(0);
  const file = writeFile(work.file('pay.csv'), toCsv(batchRows(2, wallet, `fifo-${randomUUID().slice(0, 8)}`)));
  const batch = await payctl(['payout', 'batch', file, '--report', work.file('r.jsonl'), '--yes'], { dir: base.dir });
  expect(batch.code, batch.stderr).toBe(0);
}, 60_000);

afterAll(() => {
  base.cleanup();
  work.cleanup();
});

afterEach(() => {
  for (const d of copies.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of the base folder with a FIFO at `rel` (a file there is replaced). */
function withFifo(rel: (dir: string) => string): { dir: string; fifo: string } {
  const dir = tempConfigDir().dir;
  copies.push(dir);
  cpSync(base.dir, dir, { recursive: true });
  const fifo = rel(dir);
  rmSync(fifo, { force: true });
  mkdirSync(dirname(fifo), { recursive: true, mode: 0o700 });
  execFileSync('mkfifo', ['-m', '600', fifo]);
  return { dir, fifo };
}

/** Ran to its end by itself (not killed by the timer), no stack trace. */
function endedByItself(r: Run): void {
  expect(r.signal, `killed after ${r.ms} ms: it hung`).toBeNull();
  expect(r.stderr).not.toContain('This is a bug');
  expect(stackLines(r.stderr)).toEqual([]);
}

const run = (args: string[], dir: string): Promise<Run> => spawned(args, { dir, timeoutMs: 20_000 });

describe('a FIFO where payctl keeps a file: refused, never waited on', () => {
  it('journal.key: payout create refuses before sending (exit 2), history names it', async () => {
    const { dir, fifo } = withFifo((d) => join(d, 'journal.key'));
    const from = ctx.sb.requests().length;
    const create = await run(payoutArgs(wallet, `fifo-${randomUUID()}`), dir);
    endedByItself(create);
    expect(create.code).toBe(2);
    expect(create.stderr).toContain(`Refusing to use the journal key ${fifo}: it is a named pipe (FIFO), not a regular file. Nothing was sent.`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
    const history = await run(['history'], dir);
    endedByItself(history);
    expect(history.code).toBe(2);
    expect(history.stdout).toBe('');
    expect(history.stderr).toBe(create.stderr);
  });

  it('journal.index: history lists the journal and says the index was not read', async () => {
    const { dir, fifo } = withFifo((d) => join(d, 'journal.index'));
    const history = await run(['history'], dir);
    endedByItself(history);
    expect(history.code).toBe(0);
    expect(history.stderr).toContain('3 journaled payouts.');
    expect(history.stderr).toContain(`The payout journal's index ${fifo} is a named pipe (FIFO), not a regular file.`);
  });

  it("a batch's log: history names it instead of reading it", async () => {
    const { dir, fifo } = withFifo((d) => {
      const folder = join(d, 'journal', 'log');
      return join(
        folder,
        readdirSync(folder).find((n) => n.endsWith('.log'))!,
      );
    });
    const history = await run(['history'], dir);
    endedByItself(history);
    expect(history.stderr).toContain(`The payout journal log ${fifo} is a named pipe (FIFO), not a regular file.`);
  });

  it('the config lock: config set refuses (exit 2), naming it and how to remove it', async () => {
    const { dir, fifo } = withFifo((d) => join(d, 'locks', 'config.lock'));
    const set = await run(['config', 'set', 'base-url', 'http://127.0.0.1:1/v2'], dir);
    endedByItself(set);
    expect(set.code).toBe(2);
    expect(set.stderr).toContain(`Cannot read the lock file ${fifo}: it is a named pipe (FIFO), not a regular file. Nothing was changed.`);
    expect(set.stderr).toContain(`rm ${fifo}`);
  });

  it("sandbox.json (the background sandbox's record): status and stop end by themselves, taking it for no record", async () => {
    const { dir } = withFifo((d) => join(d, 'sandbox.json'));
    for (const cmd of ['status', 'stop']) {
      const r = await run(['sandbox', cmd], dir);
      endedByItself(r);
      expect(r.stderr + r.stdout).toContain('No sandbox is running');
    }
  });

  it("a wallet's lock (a policy's limits are checked under it): payout create refuses before sending (exit 2)", async () => {
    const { dir, fifo } = withFifo((d) => walletLockPath(d, wallet));
    const policy = writeFile(work.file(`policy-${randomUUID().slice(0, 8)}.json`), JSON.stringify({ daily_total: { SLE: '5000000' } }));
    expect((await payctl(['config', 'set', 'policy', policy], { dir })).code).toBe(0);
    const from = ctx.sb.requests().length;
    const create = await run(payoutArgs(wallet, `fifo-${randomUUID()}`), dir);
    endedByItself(create);
    expect(create.code).toBe(2);
    expect(create.stderr).toContain(`Cannot read the lock file ${fifo}: it is a named pipe (FIFO), not a regular file. Nothing was sent.`);
    expect(payoutPosts(ctx.sb, from)).toEqual([]);
  });
});

describe('a FIFO or a device named as a file the user gives (probe 49-F: hung, deaf to SIGTERM; /dev/zero took 3 GB)', () => {
  it("the policy: config set, then payout create with the profile's policy become a FIFO, and a symlink to /dev/zero (config set, policy check, plan show): exit 2, naming it", async () => {
    const dir = tempConfigDir().dir;
    copies.push(dir);
    cpSync(base.dir, dir, { recursive: true });
    const fifo = work.file(`policy-${randomUUID().slice(0, 8)}.json`);
    execFileSync('mkfifo', ['-m', '600', fifo]);
    const set = await run(['config', 'set', 'policy', fifo], dir);
    endedByItself(set);
    expect(set.code).toBe(2);
    expect(set.stderr).toContain(`cannot read ${fifo}: it is a named pipe (FIFO), not a regular file`);

    // The profile's policy, a file when set, a FIFO since: payout create refuses it, nothing sent.
    const file = writeFile(work.file(`policy-${randomUUID().slice(0, 8)}.json`), JSON.stringify({ daily_total: { SLE: '5000000' } }));
    expect((await payctl(['config', 'set', 'policy', file], { dir })).code).toBe(0);
    rmSync(file);
    execFileSync('mkfifo', ['-m', '600', file]);
    const from = ctx.sb.requests().length;
    const create = await run(payoutArgs(wallet, `fifo-${randomUUID()}`), dir);
    endedByItself(create);
    expect(create.code).toBe(2);
    expect(create.stderr).toContain('it is a named pipe (FIFO), not a regular file');
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    const zero = work.file(`zero-${randomUUID().slice(0, 8)}.json`);
    execFileSync('ln', ['-s', '/dev/zero', zero]);
    for (const args of [
      ['config', 'set', 'policy', zero],
      ['policy', 'check', zero],
      ['plan', 'show', zero],
    ]) {
      const r = await run(args, dir);
      endedByItself(r);
      expect(r.code, args.join(' ')).toBe(2);
      // policy check reads the profile's policy (the FIFO) first; either is named, never read.
      expect(r.stderr, args.join(' ')).toMatch(/it is a (character device|named pipe \(FIFO\)), not a regular file/);
    }
  });
});
