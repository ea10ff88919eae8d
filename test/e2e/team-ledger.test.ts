/**
 * A team's shared ledger (issue #30), end to end: config folders stand for machines, each logged
 * in to one sandbox and pointed at one PostgreSQL database (`config set ledger --stdin`, as the
 * README's set-up says), and the built binary runs in child processes. A fresh database per test
 * on the suite's throw-away cluster; the tests that stop the database get a cluster of their own.
 * What must hold across machines: a payout typed on two machines is a repeat; a limit holds for
 * 20 makers at once on two machines; a batch killed on one machine and rerun on another pays each
 * row once under the keys the first journaled; a payout sent by one is found by the other; and a
 * database that is down means nothing is sent, never a fall-back to the local journal.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeLoggedIn } from '../helpers/e2e.js';
import { expectOneKeyPerPayoutId } from '../helpers/batch-fixtures.js';
import { batchRows, expectExactlyOncePerId, payctl, payoutPosts, postedPayoutId, startPayctl, tempWorkDir, toCsv, writeFile, type Run } from '../helpers/batch.js';
import { privatePostgres, sharedPostgres, type PostgresCluster } from '../helpers/postgres.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';

const ctx = useSandbox();
const work = tempWorkDir();
const folders: Array<{ cleanup(): void }> = [];

afterAll(() => work.cleanup());
afterEach(() => {
  ctx.sb.faults.clear();
  for (const f of folders.splice(0)) f.cleanup();
});

/** A machine: its own config folder, logged in to the sandbox, its profile's ledger the database at `url`. */
async function machine(url: string): Promise<string> {
  const cfg = tempConfigDir();
  folders.push(cfg);
  await writeLoggedIn(ctx.sb, cfg.dir);
  const set = await payctl(['config', 'set', 'ledger', '--stdin'], { dir: cfg.dir, input: `${url}\n` });
  expect(set.code, set.stderr).toBe(0);
  return cfg.dir;
}

/** Two or three machines on one fresh database of the shared cluster. */
async function team(n: number): Promise<{ url: string; dirs: string[] }> {
  const url = await (await sharedPostgres()).freshDatabase('team');
  const dirs: string[] = [];
  for (let i = 0; i < n; i++) dirs.push(await machine(url));
  return { url, dirs };
}

/** This config folder journaled nothing locally: everything went to the shared ledger. */
function noLocalJournal(dir: string): void {
  const journal = join(dir, 'journal');
  const names = existsSync(journal) ? readdirSync(journal).filter((n) => n.endsWith('.json')) : [];
  expect(names, `${journal} holds entries`).toEqual([]);
}

const heldFrom = (wallet: string) => ctx.sb.payouts().filter((p) => p.wallet_id === wallet);

function createArgs(wallet: string, name: string, account: string, extra: string[] = []): string[] {
  return [
    ...['payout', 'create', '--wallet', wallet, '--amount', '999.99', '--currency', 'SLE', '--type', 'bank'],
    ...['--name', name, '--provider', 'uba', '--account', account, ...extra, '--yes'],
  ];
}

describe('two machines on one shared ledger', () => {
  it('the same payout typed on both: the second machine refuses it as a repeat (exit 2, nothing sent); --allow-repeat sends it', async () => {
    const { dirs } = await team(2);
    const [a, b] = dirs as [string, string];
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const args = createArgs(wallet, 'Ibrahim Sesay', '0123456701');

    const first = await payctl(args, { dir: a });
    expect(first.code, first.stderr).toBe(0);
    let from = ctx.sb.requests().length;
    const second = await payctl(args, { dir: b });
    expect(second.stderr).toContain("This payout repeats one sent through the team's shared ledger");
    expect(second.stderr).toContain('add --allow-repeat');
    expect(second.code, second.stderr).toBe(2);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    expect(heldFrom(wallet)).toHaveLength(1);

    from = ctx.sb.requests().length;
    const third = await payctl([...args, '--allow-repeat'], { dir: b });
    expect(third.code, third.stderr).toBe(0);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
    expect(heldFrom(wallet)).toHaveLength(2);
    noLocalJournal(a);
    noLocalJournal(b);
  });

  it('20 payout create at once, 10 on each machine, under a daily total that fits 10: exactly 10 sent, 10 refused naming the rule', { timeout: 120_000 }, async () => {
    const { dirs } = await team(2);
    const policy = join(work.dir, `policy-${randomUUID().slice(0, 8)}.json`);
    writeFileSync(policy, JSON.stringify({ daily_total: { SLE: '10000' } }));
    for (const dir of dirs) {
      const set = await payctl(['config', 'set', 'policy', policy], { dir });
      expect(set.code, set.stderr).toBe(0);
    }
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const from = ctx.sb.requests().length;
    const runs = Array.from({ length: 20 }, (_, i) =>
      startPayctl(createArgs(wallet, `Maker ${i + 1}`, `01234567${String(i).padStart(2, '0')}`, ['--payout-id', `race-${randomUUID()}`]), {
        dir: dirs[i % 2]!,
        timeoutMs: 90_000,
      }),
    );
    const results: Run[] = await Promise.all(runs.map((r) => r.done));
    const other = results.filter((r) => r.code !== 0 && r.code !== 2).map((r) => `exit ${r.code}: ${r.stderr}`);
    expect(other, 'runs that neither sent nor were refused').toEqual([]);
    expect(results.filter((r) => r.code === 0)).toHaveLength(10);
    const refused = results.filter((r) => r.code === 2);
    expect(refused).toHaveLength(10);
    for (const r of refused) {
      expect(r.stderr).toContain('policy daily_total.SLE');
      expect(r.stderr).toContain("already sent today through the team's shared ledger");
      expect(r.stderr).toContain('Nothing was sent.');
    }
    expect(heldFrom(wallet)).toHaveLength(10);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(10);
  });

  it(
    'a 200-row batch killed with SIGKILL halfway on machine A and rerun on machine B: each row paid once, the keys A journaled reused',
    { timeout: 90_000 },
    async () => {
      const { dirs } = await team(2);
      const [a, b] = dirs as [string, string];
      const sb = ctx.sb;
      const wallet = freshWallet(sb, '10000000.00', 'SLE');
      const prefix = `team-${Date.now()}`;
      const rows = batchRows(200, wallet, prefix);
      const ids = rows.map((x) => x.payout_id!);
      // The same file on each machine, in a folder of its own.
      const fileA = writeFile(join(work.dir, `a-${prefix}.csv`), toCsv(rows));
      const fileB = join(work.dir, `b-${prefix}.csv`);
      copyFileSync(fileA, fileB);

      sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 0, times: 100 });
      sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 1500, times: Infinity });
      const from = sb.requests().length;
      const { child, done } = startPayctl(['payout', 'batch', fileA, '--concurrency', '8', '--yes'], { dir: a, timeoutMs: 60_000 });
      let exited = false;
      void done.finally(() => (exited = true));
      while (payoutPosts(sb, from).length < 108 && !exited) await new Promise((r) => setTimeout(r, 2));
      expect(exited, 'the batch was still running').toBe(false);
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
      sb.faults.clear();
      const firstPosts = payoutPosts(sb, from);
      expect(firstPosts).toHaveLength(108);
      const answered = new Set(firstPosts.slice(0, 100).map(postedPayoutId));

      const rerunFrom = sb.requests().length;
      const r = await payctl(['payout', 'batch', fileB, '--concurrency', '8', '--yes'], { dir: b, timeoutMs: 60_000 });
      expect(r.stderr).toContain('100 already accepted earlier, not sent again');
      expect(r.code, r.stderr).toBe(0);
      const rerunIds = new Set(payoutPosts(sb, rerunFrom).map(postedPayoutId));
      for (const id of answered) expect(rerunIds.has(id), id).toBe(false);
      expect(rerunIds.size).toBe(100);

      expectExactlyOncePerId(sb, ids, prefix);
      const keys = expectOneKeyPerPayoutId(payoutPosts(sb, from));
      expect(keys.size).toBe(200);
      noLocalJournal(a);
      noLocalJournal(b);
    },
  );

  it('payout get <payout id> and history on machine B show a payout machine A sent', async () => {
    const { dirs } = await team(2);
    const [a, b] = dirs as [string, string];
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const payoutId = randomUUID();
    const sent = await payctl([...createArgs(wallet, 'Aminata Kamara', '0123456799', ['--payout-id', payoutId]), '--json'], { dir: a });
    expect(sent.code, sent.stderr).toBe(0);
    const transactionId = ctx.sb.payouts().find((p) => p.payout_id === payoutId)!.transaction_id;

    const got = await payctl(['payout', 'get', payoutId, '--json'], { dir: b });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain(transactionId);
    const history = await payctl(['history', '--json'], { dir: b });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain(payoutId);
    expect(history.stdout).toContain(transactionId);
  });
});

describe('the shared ledger down', () => {
  let cluster: PostgresCluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('payout create with the database stopped: nothing sent, exit 2, the ledger named with its password masked', async () => {
    cluster = await privatePostgres();
    const url = await cluster.freshDatabase('down');
    const a = await machine(url);
    await cluster.stopServer();
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const from = ctx.sb.requests().length;
    const r = await payctl(createArgs(wallet, 'Fatmata Sesay', '0123456788', ['--payout-id', randomUUID()]), { dir: a });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('Nothing was sent');
    expect(r.stderr).toContain(`127.0.0.1:${cluster.port}`);
    expect(r.stderr).not.toContain(cluster.password);
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    noLocalJournal(a);
    // balances needs no ledger.
    const balances = await payctl(['balances', '--json'], { dir: a });
    expect(balances.code, balances.stderr).toBe(0);
  });

  it('the database stopped mid-batch and started again: the batch rerun pays every row exactly once', { timeout: 90_000 }, async () => {
    cluster = await privatePostgres();
    const url = await cluster.freshDatabase('midbatch');
    const a = await machine(url);
    const sb = ctx.sb;
    const wallet = freshWallet(sb, '10000000.00', 'SLE');
    const prefix = `down-${Date.now()}`;
    const rows = batchRows(200, wallet, prefix);
    const ids = rows.map((x) => x.payout_id!);
    const file = writeFile(join(work.dir, `${prefix}.csv`), toCsv(rows));

    // Slow answers, so that the database can be stopped with rows claimed, sent and unanswered.
    sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs: 50, times: Infinity });
    const from = sb.requests().length;
    const run = startPayctl(['payout', 'batch', file, '--concurrency', '8', '--yes'], { dir: a, timeoutMs: 60_000 });
    while (payoutPosts(sb, from).length < 60) await new Promise((r) => setTimeout(r, 2));
    await cluster.stopServer();
    const first = await run.done;
    expect(first.code, first.stderr).not.toBe(0);
    expect(first.stderr).not.toContain(cluster.password);
    sb.faults.clear();
    await cluster.startServer();

    const second = await payctl(['payout', 'batch', file, '--concurrency', '8', '--yes'], { dir: a, timeoutMs: 60_000 });
    expect(second.code, second.stderr).toBe(0);
    expectExactlyOncePerId(sb, ids, prefix);
    expectOneKeyPerPayoutId(payoutPosts(sb, from));
  });
});
