/**
 * A team's shared ledger (issue #30), end to end: config folders stand for machines, each logged
 * in to one sandbox and pointed at one PostgreSQL database (`config set ledger --stdin`, as the
 * README's set-up says), and the built binary runs in child processes. What only sets a machine
 * up (`config set`, `config unset`, `keys create`) runs in process (test/helpers/in-process.ts):
 * payctl's own main on the same config folder leaves the same config file and key, and a process
 * of its own would only add its start-up. A fresh database per test on the suite's throw-away
 * cluster; the tests that stop the database get a cluster of their own.
 * What must hold across machines: a payout typed on two machines is a repeat; a limit holds for
 * 20 makers at once on two machines; a batch killed on one machine and rerun on another pays each
 * row once under the keys the first journaled; a payout sent by one is found by the other; a row
 * edited in the database is reported by `ledger verify` and never acted on; a database that
 * is down means nothing is sent, never a fall-back to the local journal; and the team's policy
 * adopted in the ledger holds whatever a machine's profile, clock or policy setting says, and is
 * changed only with the approvals it asks.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { BIN, cliEnv, payctlShim, runAsPrinted } from '../helpers/cli.js';
import { payctl as payctlIn, writeLoggedIn } from '../helpers/e2e.js';
import { payctl as inProcess } from '../helpers/in-process.js';
import { expectOneKeyPerPayoutId } from '../helpers/batch-fixtures.js';
import { batchRows, expectExactlyOncePerId, payctl, payoutPosts, postedPayoutId, startPayctl, tempWorkDir, toCsv, writeFile, type Run } from '../helpers/batch.js';
import { privatePostgres, sharedPostgres, sql, type PostgresCluster } from '../helpers/postgres.js';
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
  const set = await inProcess(['config', 'set', 'ledger', '--stdin'], { dir: cfg.dir, input: `${url}\n` });
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

/** `keys create` on a machine: its public key. */
async function keyOf(dir: string, name: string): Promise<string> {
  const r = await inProcess(['keys', 'create', '--name', name, '--json'], { dir });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { public_key: string }).public_key;
}

/** Waits (up to 10 s) until the ledger at `url` holds `n` accepted outcomes. */
async function acceptedInLedger(url: string, n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = await sql<{ n: string }>(url, "SELECT count(*) AS n FROM payctl_ledger_entries WHERE outcome = 'accepted'");
    if (Number(row!.n) >= n) return;
    expect(Date.now(), `${n} accepted outcomes in the ledger (${row!.n} so far)`).toBeLessThan(deadline);
    await new Promise((r) => setTimeout(r, 10));
  }
}

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
      const set = await inProcess(['config', 'set', 'policy', policy], { dir });
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
      const { url, dirs } = await team(2);
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
      // Polled every 10 ms: rows 101 to 108 wait 1.5 s for their answers, and no 109th row can start before one comes.
      while (payoutPosts(sb, from).length < 108 && !exited) await new Promise((r) => setTimeout(r, 10));
      // The first 100 answers recorded in the ledger: a row's slot frees when its answer comes, and
      // its outcome is written with the moment's others, so on a loaded machine the 108th post can
      // come before the last outcomes are written (A would then have left those rows unknown, and B
      // would resend them under A's keys: once each still, but not the case this test is about).
      await acceptedInLedger(url, 100);
      expect(exited, 'the batch was still running').toBe(false);
      expect(payoutPosts(sb, from)).toHaveLength(108);
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

  it('a row edited directly in the database is reported by ledger verify and never acted on', { timeout: 60_000 }, async () => {
    const { url, dirs } = await team(2);
    const [a, b] = dirs as [string, string];
    const sb = ctx.sb;
    const wallet = freshWallet(sb, '100000.00', 'SLE');
    const prefix = `edited-${Date.now()}`;
    const rows = batchRows(4, wallet, prefix);
    const ids = rows.map((x) => x.payout_id!);
    const file = writeFile(join(work.dir, `${prefix}.csv`), toCsv(rows));
    const sent = await payctl(['payout', 'batch', file, '--yes'], { dir: a });
    expect(sent.code, sent.stderr).toBe(0);
    const original = heldFrom(wallet).map((p) => [p.payout_id, p.amount]);
    expect(original).toHaveLength(4);

    // Someone with the database's password raises one row's amount, in SQL.
    const edited = ids[2]!;
    const [found] = await sql<{ entry: string }>(url, 'SELECT entry FROM payctl_ledger_entries WHERE payout_id = $1', [edited]);
    const entry = JSON.parse(found!.entry) as { body: string };
    entry.body = entry.body.replace(/"amount":[0-9.]+/, '"amount":9999.99');
    await sql(url, 'UPDATE payctl_ledger_entries SET entry = $1 WHERE payout_id = $2', [JSON.stringify(entry), edited]);

    const verify = await payctl(['ledger', 'verify'], { dir: b });
    expect(verify.code, verify.stderr).toBe(1);
    expect(verify.stdout).toContain('Rows    4: 3 verified, 1 does not');
    expect(verify.stdout).toContain(`  ${edited} (`);
    expect(verify.stdout).toContain('its signature does not match its contents');

    const from = sb.requests().length;
    const rerun = await payctl(['payout', 'batch', file, '--yes'], { dir: b });
    expect(rerun.code).not.toBe(0);
    expect(rerun.stderr).toContain(`payout ${edited}`);
    expect(rerun.stderr).toContain('the shared ledger row was changed outside payctl');
    expect(payoutPosts(sb, from)).toHaveLength(0);
    expect(heldFrom(wallet).map((p) => [p.payout_id, p.amount])).toEqual(original);
    expectExactlyOncePerId(sb, ids, prefix);
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
    // Polled every 10 ms: with 8 rows in flight at 50 ms each, the database stops with rows sent and unanswered.
    while (payoutPosts(sb, from).length < 60) await new Promise((r) => setTimeout(r, 10));
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

describe('plans and the day in the shared ledger', () => {
  const shim = payctlShim();
  afterAll(() => shim.cleanup());

  /** The same policy file set on every machine. */
  async function samePolicy(dirs: string[], policy: object): Promise<void> {
    const file = join(work.dir, `policy-${randomUUID().slice(0, 8)}.json`);
    writeFileSync(file, JSON.stringify(policy));
    for (const dir of dirs) {
      const set = await inProcess(['config', 'set', 'policy', file], { dir });
      expect(set.code, set.stderr).toBe(0);
    }
  }

  it('a plan created on A, approved on B (not the maker), sent on C, sent again from A: nobody paid twice', { timeout: 60_000 }, async () => {
    const { dirs } = await team(3);
    const [a, b, c] = dirs as [string, string, string];
    const maker = await keyOf(a, 'Mariama Kanu');
    const approver = await keyOf(b, 'Ibrahim Sesay');
    await samePolicy(dirs, {
      members: { 'Mariama Kanu': { keys: [maker], roles: ['maker'] }, 'Ibrahim Sesay': { keys: [approver], roles: ['approver'] } },
      approvals: { SLE: [{ from: '1000', required: 1 }] },
    });
    const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
    const tag = randomUUID().slice(0, 8);
    const rows = [1, 2, 3].map((i) => `${tag}-${i},${wallet},${i}500.00,SLE,wallet,Fatmata Sesay ${i},orange_money,07655000${i},+2327655000${i},stipend`);
    const file = writeFile(join(work.dir, `${tag}.csv`), `payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n${rows.join('\n')}\n`);

    const made = await payctl(['plan', 'create', file], { dir: a });
    expect(made.code, made.stderr).toBe(0);
    const hash = /^Hash (sha256:[0-9a-f]{64}) \(stored in the team's shared ledger/m.exec(made.stderr)?.[1];
    expect(hash, made.stderr).toBeDefined();
    const printed = (label: string) => new RegExp(`^${label}\\s+(payctl .*)$`, 'm').exec(made.stderr)![1]!;
    const [show, approve, send] = [printed('Review it:'), printed('An approver signs:'), printed('Then send it:')];
    expect([show, approve, send]).toEqual([`payctl plan show ${hash}`, `payctl plan approve ${hash}`, `payctl plan send ${hash}`]);

    // Each command as printed, on another machine (--yes: no terminal here); the reports in a folder of their own.
    const from = ctx.sb.requests().length;
    const shown = await runAsPrinted(show, { shim: shim.dir, configDir: b });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Mariama Kanu, a maker in the policy');
    const own = await runAsPrinted(`${approve} --yes`, { shim: shim.dir, configDir: a });
    expect(own.code, own.stderr).toBe(2);
    expect(own.stderr).toContain('its maker cannot approve it');
    const approved = await runAsPrinted(`${approve} --yes`, { shim: shim.dir, configDir: b });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toContain('it now carries 1 approval');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);

    const sent = await runAsPrinted(`cd '${work.dir}' && ${send} --yes`, { shim: shim.dir, configDir: c });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toContain('3 accepted');
    expect(existsSync(join(work.dir, `plan-${hash!.slice(7, 19)}.report.jsonl`))).toBe(true);
    const again = await runAsPrinted(`cd '${work.dir}' && ${send} --yes`, { shim: shim.dir, configDir: a });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Nothing to send: every payout of the plan was accepted earlier.');

    expect(payoutPosts(ctx.sb, from)).toHaveLength(3);
    expectExactlyOncePerId(
      ctx.sb,
      [1, 2, 3].map((i) => `${tag}-${i}`),
      tag,
    );
    for (const dir of dirs) noLocalJournal(dir);
  });

  it("a machine clock set a day ahead (faketime) cannot send past the daily total: the day is the database's", { timeout: 60_000 }, async () => {
    // faketime moves this machine's clock for the one process it runs, as a clock set wrong would.
    const tomorrow = spawnSync('faketime', ['-f', '+1d', process.execPath, '-e', 'process.stdout.write(String(Date.now()))'], { encoding: 'utf8' });
    expect(Number(tomorrow.stdout) - Date.now(), tomorrow.stderr).toBeGreaterThan(23 * 60 * 60 * 1000);

    const { dirs } = await team(2);
    const [a, b] = dirs as [string, string];
    await samePolicy(dirs, { daily_total: { SLE: '1000' } });
    const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
    const first = await payctl(
      createArgs(wallet, 'Aminata Kamara', '0123456702', ['--payout-id', randomUUID()]).map((x) => (x === '999.99' ? '800.00' : x)),
      { dir: a },
    );
    expect(first.code, first.stderr).toBe(0);

    const from = ctx.sb.requests().length;
    const ahead = await fakeDay(
      b,
      createArgs(wallet, 'Aminata Kamara', '0123456703', ['--payout-id', randomUUID()]).map((x) => (x === '999.99' ? '300.00' : x)),
    );
    expect(ahead.code, ahead.stderr).toBe(2);
    expect(ahead.stderr).toContain('policy daily_total.SLE');
    expect(ahead.stderr).toContain("800.00 SLE already sent today through the team's shared ledger");
    expect(ahead.stderr).toContain('Nothing was sent.');
    expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
    expect(heldFrom(wallet)).toHaveLength(1);
  });

  it(
    'a machine clock set a day behind (faketime -1d): its payouts are dated by the database, so a correct machine cannot pass the daily total they used, and the same payout typed there then on a correct machine is a repeat',
    { timeout: 60_000 },
    async () => {
      const yesterday = spawnSync('faketime', ['-f', '-1d', process.execPath, '-e', 'process.stdout.write(String(Date.now()))'], { encoding: 'utf8' });
      expect(Date.now() - Number(yesterday.stdout), yesterday.stderr).toBeGreaterThan(23 * 60 * 60 * 1000);

      const { url, dirs } = await team(2);
      const [slow, right] = dirs as [string, string];
      await samePolicy(dirs, { daily_total: { SLE: '10000' } });
      // The probe's case: 10 x 999 from the slow machine (9,990 of 10,000), then the correct machine's.
      const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
      let said = '';
      for (let i = 0; i < 10; i++) {
        const sent = await fakeDay(
          slow,
          createArgs(wallet, 'Aminata Kamara', '0123456704', ['--payout-id', randomUUID()]).map((x) => (x === '999.99' ? '999.00' : x)),
          '-1d',
        );
        expect(sent.code, sent.stderr).toBe(0);
        said ||= sent.stderr;
      }
      let from = ctx.sb.requests().length;
      const over = await payctl(
        createArgs(wallet, 'Aminata Kamara', '0123456705', ['--payout-id', randomUUID()]).map((x) => (x === '999.99' ? '999.00' : x)),
        { dir: right },
      );
      expect(over.code, over.stderr).toBe(2);
      expect(over.stderr).toContain('policy daily_total.SLE');
      expect(over.stderr).toContain("9,990.00 SLE already sent today through the team's shared ledger");
      expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
      expect(heldFrom(wallet)).toHaveLength(10);
      // Dated by the database's clock, not the slow machine's.
      const [dated] = await sql<{ oldest: Date }>(url, 'SELECT min(created_at) AS oldest FROM payctl_ledger_entries');
      expect(Date.now() - dated!.oldest.getTime()).toBeLessThan(10 * 60 * 1000);

      // The same payout (same wallet, account, amount, currency) from the slow machine, then a correct one.
      const other = freshWallet(ctx.sb, '100000.00', 'SLE');
      const args = createArgs(other, 'Ibrahim Sesay', '0123456706');
      const first = await fakeDay(slow, args, '-1d');
      expect(first.code, first.stderr).toBe(0);
      from = ctx.sb.requests().length;
      const again = await payctl(args, { dir: right });
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain("This payout repeats one sent through the team's shared ledger less than a minute ago");
      expect(payoutPosts(ctx.sb, from)).toHaveLength(0);
      expect(heldFrom(other)).toHaveLength(1);
      // The slow machine was told its clock is off.
      expect(said).toContain("This machine's clock is 24 hours behind the clock of the payout ledger");
    },
  );
});

/** The built payctl under `faketime -f <offset>` (default +1d): this machine's clock a day ahead (or as said), the database's as it is. */
function fakeDay(dir: string, args: string[], offset = '+1d'): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn('faketime', ['-f', offset, process.execPath, BIN, ...args], { env: cliEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

describe("the team's policy in the shared ledger", () => {
  const shim = payctlShim();
  afterAll(() => shim.cleanup());

  it(
    'daily_total 2000 adopted in the ledger holds after config unset policy, for another profile, an empty config folder and a clock a day ahead; raised only once approved',
    { timeout: 120_000 },
    async () => {
      const { url, dirs } = await team(2);
      const [a, b] = dirs as [string, string];
      const maker = await keyOf(a, 'Mariama Kanu');
      const approver = await keyOf(b, 'Ibrahim Sesay');
      const members = { 'Mariama Kanu': { keys: [maker], roles: ['maker'] }, 'Ibrahim Sesay': { keys: [approver], roles: ['approver'] } };
      const tag = randomUUID().slice(0, 8);
      const file = (daily: string) => writeFile(join(work.dir, `team-policy-${tag}-${daily}.json`), JSON.stringify({ members, daily_total: { SLE: daily } }));

      const adopted = await payctl(['policy', 'propose', file('2000')], { dir: a });
      expect(adopted.code, adopted.stderr).toBe(0);
      expect(adopted.stderr).toContain("adopted as the team's policy, version 1");

      const wallet = freshWallet(ctx.sb, '100000.00', 'SLE');
      const pay = (n: number) => createArgs(wallet, `Fatmata Sesay ${n}`, `01234567${String(n).padStart(2, '0')}`, ['--payout-id', `${tag}-${n}`]);
      for (const n of [1, 2]) {
        const sent = await payctl(pay(n), { dir: a });
        expect(sent.code, sent.stderr).toBe(0);
      }
      const from = ctx.sb.requests().length;
      const refusedFor = (r: Run) => {
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain('policy daily_total.SLE');
        expect(r.stderr).toContain("1,999.98 SLE already sent today through the team's shared ledger");
        expect(r.stderr).toContain('Nothing was sent.');
      };

      // Machine B: the profile's policy set to a lenient file, then unset: the team's holds.
      const lenient = writeFile(join(work.dir, `lenient-${tag}.json`), JSON.stringify({ daily_total: { SLE: '1000000' } }));
      expect((await inProcess(['config', 'set', 'policy', lenient], { dir: b })).code).toBe(0);
      const warned = await payctl(pay(3), { dir: b });
      refusedFor(warned);
      expect(warned.stderr).toContain(`is not the team's: the team's policy in the shared ledger (version 1`);
      expect((await inProcess(['config', 'unset', 'policy'], { dir: b })).code).toBe(0);
      refusedFor(await payctl(pay(3), { dir: b }));

      // A second profile on B, on the same ledger, with no policy setting.
      await writeLoggedIn(ctx.sb, b, ctx.sb.apiKey, 'second');
      const set = await inProcess(['config', 'set', 'ledger', '--stdin', '--profile', 'second'], { dir: b, input: `${url}\n` });
      expect(set.code, set.stderr).toBe(0);
      refusedFor(await payctl([...pay(3), '--profile', 'second'], { dir: b }));

      // B's clock a day ahead: the day is the database's.
      refusedFor(await fakeDay(b, pay(3)));

      // A CI runner: an empty config folder, everything from the environment.
      const runner = tempConfigDir();
      folders.push(runner);
      const env = { PAYCTL_API_KEY: ctx.sb.apiKey, PAYCTL_BASE_URL: ctx.sb.baseUrl, PAYCTL_LEDGER_URL: url };
      refusedFor(await payctlIn(pay(3), { dir: runner.dir, env }));

      // A change raising daily_total: proposed, approved by nobody: still refused.
      const proposed = await payctl(['policy', 'propose', file('5000')], { dir: a });
      expect(proposed.code, proposed.stderr).toBe(0);
      const approve = /^An approver signs:\s+(payctl .*)$/m.exec(proposed.stderr)?.[1];
      expect(approve, proposed.stderr).toMatch(/^payctl policy approve sha256:[0-9a-f]{64}$/);
      expect(proposed.stderr).toContain('It needs 1 approval from: Ibrahim Sesay');
      refusedFor(await payctl(pay(3), { dir: b }));
      const own = await runAsPrinted(approve!, { shim: shim.dir, configDir: a });
      expect(own.code, own.stderr).toBe(2);
      refusedFor(await payctl(pay(3), { dir: b }));
      expect(payoutPosts(ctx.sb, from)).toHaveLength(0);

      // Approved by the approver, as printed: version 2, and the payout goes.
      const approved = await runAsPrinted(approve!, { shim: shim.dir, configDir: b });
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stderr).toContain("It is adopted as the team's policy, version 2.");
      const sent = await payctl(pay(3), { dir: b });
      expect(sent.code, sent.stderr).toBe(0);
      expect(payoutPosts(ctx.sb, from)).toHaveLength(1);
      expect(heldFrom(wallet)).toHaveLength(3);
    },
  );
});
