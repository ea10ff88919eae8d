/**
 * The shared PostgreSQL ledger through payctl's main, in process, against a real PostgreSQL
 * (test/helpers/postgres.ts) and the sandbox (README "Working as a team"): `ledger status`
 * reachable and not, `ledger import` twice (the second imports nothing) and a conflict never
 * overwritten, payouts journaled in the shared ledger, a ledger that cannot be reached stopping
 * `payout create` before anything is sent (exit 2, never the local journal instead), the
 * password in no output, --verbose naming the ledger masked, no connection left open
 * once a run ends, and the repeat guard comparing accounts written another way across the
 * rows of this version and the previous one.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closedPort, expectNoSecrets, newKey, oneJson, readProfile, useConfigDir, writeLoggedIn, type Run } from '../helpers/e2e.js';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { batchRows, expectExactlyOncePerId, payoutPosts, postedPayoutId, toCsv, withOwnPayees, writeFile, type BatchRow } from '../helpers/batch.js';
import { bankPayoutArgs, bankPayoutRequest, payoutArgs, previousRepeatKey } from '../helpers/payout-fixtures.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { sharedPostgres, sql, type SharedPostgres } from '../helpers/postgres.js';
import { SCHEMA_VERSION } from '../../src/payouts/ledger/postgres/schema.js';
import { openPostgresLedger } from '../../src/payouts/ledger/postgres/index.js';
import { payoutBody } from '../../src/payouts/request.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const run = (args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<Run> => payctl(args, { dir: cfg.dir, ...opts });

let server: SharedPostgres;
beforeAll(async () => {
  server = await sharedPostgres();
});

/** A fresh database of this file's own, as the password role: its URL, and the URL as payctl shows it. */
async function freshLedger(): Promise<{ url: string; masked: string; database: string }> {
  const url = await server.freshDatabase('ledgercmd');
  return { url, masked: url.replace(`:${server.password}@`, ':****@'), database: new URL(url).pathname.slice(1) };
}

/** Connections to `database` other than this query's own (payctl names its connections "payctl"). */
async function openConnections(database: string): Promise<number> {
  const [r] = await sql<{ n: string }>(server.superuserUrl, "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'payctl'", [database]);
  return Number(r!.n);
}

/** Transactions `database` committed, once every payctl connection has ended (a backend's counts are kept as it exits). */
async function committed(database: string): Promise<number> {
  while (await openConnections(database)) await new Promise((r) => setTimeout(r, 20));
  const [r] = await sql<{ n: string }>(server.superuserUrl, 'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [database]);
  return Number(r!.n);
}

/** Sets the profile's ledger the way the README says to (the URL on standard input). */
async function useLedger(url: string): Promise<void> {
  const r = await run(['config', 'set', 'ledger', '--stdin'], { input: `${url}\n` });
  expect(r.code, r.stderr).toBe(0);
  expect(readProfile(cfg.dir)?.ledger).toBe(url);
}

beforeEach(async () => {
  await writeLoggedIn(ctx.sb, cfg.dir, KEY);
  ctx.sb.clearRequests();
});

describe('ledger status', () => {
  it('a reachable ledger: the URL masked, reachable, schema version, entries; exit 0; no connection left open', async () => {
    const { url, masked, database } = await freshLedger();
    await useLedger(url);
    const r = await run(['ledger', 'status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Ledger          postgresql\nURL             ${masked}\nReachable       yes\nSchema version  ${SCHEMA_VERSION}\nEntries         0\n`);
    const j = await run(['ledger', 'status', '--json']);
    expect(j.code, j.stderr).toBe(0);
    expect(oneJson(j.stdout)).toEqual({
      profile: 'default',
      backend: 'postgresql',
      source: 'profile',
      url: masked,
      reachable: true,
      schema_version: SCHEMA_VERSION,
      entries: 0,
    });
    // Closed: the server's backend may outlive the client's goodbye by a moment under load (it exits
    // on its own time); a connection left open would stay past the 5 s this allows.
    const deadline = Date.now() + 5_000;
    while ((await openConnections(database)) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await openConnections(database)).toBe(0);
    for (const x of [r, j]) expectNoSecrets(x, [server.password]);
  });

  it('PAYCTL_LEDGER_URL names it for the run, above a local profile', async () => {
    const { url, masked } = await freshLedger();
    const j = await run(['ledger', 'status', '--json'], { env: { PAYCTL_LEDGER_URL: url } });
    expect(j.code, j.stderr).toBe(0);
    expect(oneJson(j.stdout)).toMatchObject({ backend: 'postgresql', source: 'PAYCTL_LEDGER_URL', url: masked, reachable: true });
    expectNoSecrets(j, [server.password]);
  });

  it('a ledger that cannot be reached: reachable no with the reason, exit 2, the URL masked, no password anywhere', async () => {
    const url = `postgres://payctl:${server.password}@127.0.0.1:${await closedPort()}/payctl`;
    const masked = url.replace(server.password, '****');
    await useLedger(url);
    const r = await run(['ledger', 'status']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(new RegExp(`^Ledger     postgresql\\nURL        ${esc(masked)}\\nReachable  no: .+\\n$`));
    expect(r.stderr).toContain(`Cannot reach the payout ledger ${masked}`);
    const j = await run(['ledger', 'status', '--json']);
    expect(j.code).toBe(2);
    expect(oneJson(j.stdout)).toMatchObject({ backend: 'postgresql', url: masked, reachable: false, reason: expect.any(String) });
    expect(JSON.parse(j.stderr).error.message).toContain(masked);
    for (const x of [r, j]) expectNoSecrets(x, [server.password]);
  });
});

describe('payout batch on the shared ledger', () => {
  it('a sent file re-saved with its digits as numbers, or its notes changed, is refused (its rows looked up as they read before): exit 2, nothing sent', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const { url } = await freshLedger();
    await useLedger(url);
    const dir = mkdtempSync(join(tmpdir(), 'payctl-pg-batch-'));
    try {
      const rows = batchRows(3, wallet, 'pg-digits');
      for (const row of rows) delete row.payout_id;
      const file = join(dir, 'payroll.csv');
      writeFileSync(file, toCsv(rows));
      const first = await run(['payout', 'batch', file, '--yes']);
      expect(first.code, first.stderr).toBe(0);
      const from = ctx.sb.requests().length;
      writeFileSync(file, toCsv(rows.map((row) => ({ ...row, account_number: row.account_number!.replace(/^0+/, ''), phone_number: row.phone_number!.slice(1) }))));
      const again = await run(['payout', 'batch', file, '--yes']);
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain(
        `${file}: 3 rows pay what payouts sent before paid, but for the leading zeros or "+" of their account or phone number. Nothing was sent.`,
      );
      expect(again.stderr).toContain(`  - row 2: account_number ${rows[0]!.account_number!.replace(/^0+/, '')} was ${rows[0]!.account_number} and phone_number`);
      expect(payoutPosts(ctx.sb, from)).toEqual([]);
      // Its notes changed instead (changed-rows.ts): the rows found by what they pay, through the look-ahead.
      writeFileSync(file, toCsv(rows.map((row) => ({ ...row, note: `${row.note} (re-saved)` }))));
      const changed = await run(['payout', 'batch', file, '--yes']);
      expect(changed.code, changed.stderr).toBe(2);
      expect(changed.stderr).toContain(`${file}: 3 rows pay what batch "default" paid before, their other cells changed since. Nothing was sent.`);
      expect(changed.stderr).toContain(`  - row 2: note "${rows[0]!.note} (re-saved)" was "${rows[0]!.note}" when payout `);
      expect(payoutPosts(ctx.sb, from)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A fresh wallet and shared ledger (its URL as PAYCTL_LEDGER_URL in `env`) and a folder for what `fn` does, removed after. */
async function onFreshLedger(fn: (l: { wallet: string; database: string; dir: string; env: Record<string, string> }) => Promise<void>): Promise<void> {
  const wallet = freshWallet(ctx.sb, '1000000.00', 'SLE');
  const { url, database } = await freshLedger();
  const dir = mkdtempSync(join(tmpdir(), 'payctl-pg-'));
  try {
    await fn({ wallet, database, dir, env: { PAYCTL_LEDGER_URL: url } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `n` batch rows of `wallet` paying accounts of their own, without payout_id when `ids` is false. */
function ownRows(n: number, wallet: string, prefix: string, ids = true): BatchRow[] {
  const rows = withOwnPayees(batchRows(n, wallet, prefix), `${prefix}-${wallet}`);
  return ids ? rows : rows.map(({ payout_id: _id, ...row }) => row);
}

/** Statements the database committed for what `fn` does (at most `most`). */
async function expectStatements(database: string, most: number, fn: () => Promise<void>): Promise<void> {
  const before = await committed(database);
  await fn();
  const statements = (await committed(database)) - before;
  expect(statements).toBeGreaterThan(0);
  expect(statements).toBeLessThan(most);
}

describe('plan create on the shared ledger', () => {
  it('asks the ledger a group of rows at a time: 600 rows planned beside a batch of that day in a few dozen statements, not several a row', async () => {
    // Before: each row was looked up alone (its ids, what it pays, its batch and the last day's
    // batches): 6,006 transactions for 1,000 rows, each a round trip to the database.
    await onFreshLedger(async ({ wallet, database, dir, env }) => {
      const sent = writeFile(join(dir, 'sent.csv'), toCsv(ownRows(3, wallet, 'pg-plan-sent')));
      expect((await run(['payout', 'batch', sent, '--yes'], { env })).code).toBe(0);
      expect((await run(['keys', 'create', '--name', 'Isata Conteh'])).code).toBe(0);
      const file = writeFile(join(dir, 'payroll.csv'), toCsv(ownRows(600, wallet, 'pg-plan', false)));
      await expectStatements(database, 60, async () => {
        const plan = await run(['plan', 'create', file, '-o', join(dir, 'payroll.plan.json')], { env });
        expect(plan.code, plan.stderr).toBe(0);
      });
    });
  });
});

describe('a batch run again on the shared ledger', () => {
  it('looks the rows sent before up a group at a time: 300 rows, 260 of them sent, resumed in a few dozen statements, not one a row', async () => {
    // Before: each row journaled before was looked up alone as it was sent: a 1,000-row batch
    // with 900 rows sent took 821 statements to resume, and 786 to run again once all were.
    await onFreshLedger(async ({ wallet, database, dir, env }) => {
      const rows = ownRows(300, wallet, 'pg-rerun');
      const file = writeFile(join(dir, 'payroll.csv'), toCsv(rows.slice(0, 260)));
      expect((await run(['payout', 'batch', file, '--concurrency', '8', '--yes'], { env })).code).toBe(0);
      writeFile(file, toCsv(rows));
      for (const [sent, earlier] of [
        [40, 260],
        [0, 300],
      ] as const) {
        await expectStatements(database, sent + 60, async () => {
          const r = await run(['payout', 'batch', file, '--concurrency', '8', '--yes'], { env });
          expect(r.code, r.stderr).toBe(0);
          expect(r.stderr).toContain(sent ? `300 accepted (${earlier} in an earlier run)` : `every row of ${file} was accepted earlier`);
        });
      }
      expectExactlyOncePerId(
        ctx.sb,
        rows.map((row) => row.payout_id!),
        'pg-rerun',
      );
    });
  });
});

describe('a re-saved copy sent from another machine the same day without --batch-id', () => {
  it("is refused (exit 2, nothing sent), naming the batch and the file the first machine sent: the last day's batches found through the look-ahead", async () => {
    await onFreshLedger(async ({ wallet, dir, env }) => {
      const other = await secondMachine(dir);
      const rows = ownRows(2, wallet, 'pg-copy', false);
      const file = writeFile(join(dir, 'payroll.csv'), toCsv(rows));
      const first = await run(['payout', 'batch', file, '--batch-id', 'nov-pg', '--yes'], { env });
      expect(first.code, first.stderr).toBe(0);
      const from = ctx.sb.requests().length;
      const copy = writeFile(join(dir, 'payroll (1).csv'), toCsv(rows.map((row) => ({ ...row, note: `${row.note} 11/30/2026` }))));
      const b = await payctl(['payout', 'batch', copy, '--yes'], { dir: other, env });
      expect(b.code, b.stderr).toBe(2);
      expect(b.stderr).toContain(`${copy}: 2 rows pay what batch "nov-pg" paid before, their other cells changed since. Nothing was sent.`);
      expect(b.stderr).toContain(`  - row 2: note "${rows[0]!.note} 11/30/2026" was "${rows[0]!.note}" when payout `);
      expect(b.stderr).toContain(` paid the same in batch "nov-pg" (its row 2 of ${file}, `);
      expect(payoutPosts(ctx.sb, from)).toEqual([]);
    });
  });
});

describe('a payroll and its re-saved copy sent from two machines at once, without --batch-id', () => {
  it('the second waits for the first (the same rows, another file, another machine), then is refused: every account paid once', async () => {
    // Runs without --batch-id locked their file only: both planned at once and each paid every row.
    await onFreshLedger(async ({ wallet, dir, env }) => {
      const other = await secondMachine(dir);
      const rows = ownRows(3, wallet, 'pg-both', false);
      const file = writeFile(join(dir, 'payroll.csv'), toCsv(rows));
      const copy = writeFile(join(dir, 'payroll (1).csv'), toCsv(rows.map((row) => ({ ...row, note: `${row.note} 11/30/2026` }))));
      const from = ctx.sb.requests().length;
      ctx.sb.faults.add({ method: 'GET', path: '/v2/wallets/balances', kind: 'delay', delayMs: 1000, times: 2 });
      try {
        const [a, b] = await Promise.all([
          startPayctl(['payout', 'batch', file, '--yes'], { dir: cfg.dir, env }).done,
          startPayctl(['payout', 'batch', copy, '--yes'], { dir: other, env }).done,
        ]);
        const [sent, refused] = a.code === 0 ? [a, b] : [b, a];
        expect(sent.code, sent.stderr).toBe(0);
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr).toContain('rows pay what batch "default" paid before, their other cells changed since. Nothing was sent.');
        expect(payoutPosts(ctx.sb, from)).toHaveLength(3);
      } finally {
        ctx.sb.faults.clear();
      }
    });
  });
});

describe('two versions of a payroll that pay different sets of rows, sent from two machines at once, without --batch-id', () => {
  it('no row is paid twice: a run that finds the other machine paying its rows stops (exit 1); run again, the payroll is paid once', async () => {
    // The copy has a row added: the runs lock different sets (batch-lock.ts), both planned at
    // once, and each paid the rows they share. Each now looks for a group of its rows among the
    // other runs' once it has journaled them (paid-meanwhile.ts), in one statement a group.
    await onFreshLedger(async ({ wallet, dir, env }) => {
      const other = await secondMachine(dir);
      const rows = ownRows(4, wallet, 'pg-added', false);
      const file = writeFile(join(dir, 'payroll.csv'), toCsv(rows.slice(0, 3)));
      const copy = writeFile(join(dir, 'payroll (1).csv'), toCsv([rows[3]!, ...rows.slice(0, 3)].map((row) => ({ ...row, note: `${row.note} 11/30/2026` }))));
      const from = ctx.sb.requests().length;
      const accounts = () =>
        payoutPosts(ctx.sb, from).map((p) => (JSON.parse(p.body) as { recipient: { accountDetails: { accountNumber: string } } }).recipient.accountDetails.accountNumber);
      // The ledger's tables made first: otherwise one run waits for the other to make them, and plans after its rows are journaled.
      for (const d of [cfg.dir, other]) expect((await startPayctl(['ledger', 'status'], { dir: d, env }).done).code).toBe(0);
      ctx.sb.faults.add({ method: 'GET', path: '/v2/wallets/balances', kind: 'delay', delayMs: 1000, times: 2 });
      try {
        const runs = await Promise.all([
          startPayctl(['payout', 'batch', file, '--yes'], { dir: cfg.dir, env }).done,
          startPayctl(['payout', 'batch', copy, '--yes'], { dir: other, env }).done,
        ]);
        expect(
          accounts().filter((a, i, all) => all.indexOf(a) !== i),
          'accounts paid twice',
        ).toEqual([]);
        const stopped = runs.filter((r) => r.code !== 0);
        expect(stopped.length, runs.map((r) => r.stderr).join('\n')).toBeGreaterThan(0);
        // Stopped once its rows were journaled (exit 1), or refused by its plan when the other run had journaled its rows by then (exit 2).
        for (const r of stopped) {
          if (r.code === 2) expect(r.stderr).toContain('rows pay what batch "default" paid before, their other cells changed since. Nothing was sent.');
          else expect(r.stderr).toMatch(/Row \d+ pays what batch "default" of \S+payroll(?: \(1\))?\.csv (?:paid|may have paid|journaled)/);
        }
        // The payroll run again from the first machine, then the copy from the second.
        for (const [f, d] of [
          [file, cfg.dir],
          [copy, other],
        ] as const) {
          const again = await startPayctl(['payout', 'batch', f, '--yes'], { dir: d, env }).done;
          expect([0, 2], again.stderr).toContain(again.code);
        }
        expect(
          accounts().filter((a, i, all) => all.indexOf(a) !== i),
          'accounts paid twice',
        ).toEqual([]);
        for (const row of rows.slice(0, 3)) expect(accounts()).toContain(row.account_number);
      } finally {
        ctx.sb.faults.clear();
      }
    });
  });
});

/** A second machine's config folder in `dir`, logged in to the sandbox (its ledger is the shared one, through PAYCTL_LEDGER_URL). */
async function secondMachine(dir: string): Promise<string> {
  const other = join(dir, 'machine-b');
  mkdirSync(other, { mode: 0o700 });
  await writeLoggedIn(ctx.sb, other, KEY);
  return other;
}

/**
 * A batch file of `n` rows (payout ids `<prefix>-001`...) on a fresh shared ledger, each payout
 * answered after `delayMs`, sent with `--batch-id <prefix> --concurrency 1` by what `fn` does;
 * the faults and the folder removed after.
 */
async function slowBatch(
  n: number,
  prefix: string,
  delayMs: number,
  fn: (b: { file: string; ids: string[]; masked: string; database: string }) => Promise<void>,
): Promise<void> {
  const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
  const { url, masked, database } = await freshLedger();
  await useLedger(url);
  const dir = mkdtempSync(join(tmpdir(), 'payctl-pg-slow-'));
  try {
    const rows = batchRows(n, wallet, prefix);
    const file = join(dir, 'payroll.csv');
    writeFileSync(file, toCsv(rows));
    ctx.sb.faults.add({ method: 'POST', path: '/v2/payout', kind: 'delay', delayMs, times: Infinity });
    await fn({ file, ids: rows.map((row) => row.payout_id!), masked, database });
  } finally {
    ctx.sb.faults.clear();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("a batch whose lock's connection ends mid-run", () => {
  it("takes no new rows (exit 1, the ledger named masked, the rest not sent), never ends with the client's error; its printed command sends the rest once", async () => {
    await slowBatch(8, 'pg-lost', 200, async ({ file, ids, masked, database }) => {
      const running = run(['payout', 'batch', file, '--batch-id', 'pg-lost', '--concurrency', '1', '--yes']);
      // Two rows sent, then the connection holding the batch's lock ended (a server restart, an
      // administrator, a network cut): before, the client's 'error' event went unheard (the
      // binary ended with its stack trace) and the run sent every row without the lock.
      for (let i = 0; i < 400 && payoutPosts(ctx.sb).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      const ended = await sql<{ ended: boolean }>(
        server.superuserUrl,
        "SELECT pg_terminate_backend(l.pid) AS ended FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND a.datname = $1",
        [database],
      );
      expect(ended).toEqual([{ ended: true }]);
      const r = await running;
      ctx.sb.faults.clear();
      expect(r.code, r.stderr).toBe(1);
      const sent = payoutPosts(ctx.sb).length;
      expect(sent).toBeGreaterThanOrEqual(2);
      expect(sent).toBeLessThan(8);
      expect(r.stderr).toContain(
        `Error: Cannot reach the payout ledger ${masked}: terminating connection due to administrator command. Rows in flight finished; ${8 - sent} rows were not sent: without the lock, another run of batch "pg-lost" could send beside this one.`,
      );
      expectNoSecrets(r, [server.password]);
      const printed = r.stderr.split('\n').at(-2)!.trim();
      expect(printed).toBe(`payctl payout batch ${file} --batch-id pg-lost --concurrency 1 --yes`);
      const rest = await run(printed.split(' ').slice(1));
      expect(rest.code, rest.stderr).toBe(0);
      expectExactlyOncePerId(ctx.sb, ids, 'pg-lost');
    });
  });
});

describe('a batch on a database that ends idle sessions (idle_session_timeout)', () => {
  it("keeps its lock's connection awake: every row sent, exit 0", async () => {
    // About 2.4 s of sending, on a connection that otherwise sits idle holding the batch's lock.
    await slowBatch(6, 'pg-idle', 400, async ({ file, ids, database }) => {
      await sql(server.superuserUrl, `ALTER DATABASE "${database}" SET idle_session_timeout = '1s'`);
      const r = await run(['payout', 'batch', file, '--batch-id', 'pg-idle', '--concurrency', '1', '--yes']);
      expect(r.code, r.stderr).toBe(0);
      expectExactlyOncePerId(ctx.sb, ids, 'pg-idle');
    });
  });
});

describe('ledger import', () => {
  it('copies the local journal once: the second run imports nothing; payctl then reads the shared entries', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    for (const id of ['import-001', 'import-002']) {
      const sent = await run(payoutArgs(wallet, id));
      expect(sent.code, sent.stderr).toBe(0);
    }
    const { url, masked, database } = await freshLedger();
    await useLedger(url);

    const first = await run(['ledger', 'import']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`Imported 2 entries from ${join(cfg.dir, 'journal')} into ${masked}: 0 already there, 0 in conflict, 0 unreadable.\n`);
    const second = await run(['ledger', 'import', '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(oneJson(second.stdout)).toEqual({
      profile: 'default',
      from: join(cfg.dir, 'journal'),
      to: masked,
      imported: 0,
      already: 2,
      outcomes_updated: 0,
      conflicts: [],
      unreadable: 0,
      dated_in_future: [],
      dated_in_future_total: 0,
    });
    expect(oneJson((await run(['ledger', 'status', '--json'])).stdout)).toMatchObject({ entries: 2 });

    // The shared entry is the one payctl goes by: the same payout again sends its journaled key, and history lists both.
    ctx.sb.clearRequests();
    const again = await run(payoutArgs(wallet, 'import-001'));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already submitted/i);
    const history = await run(['history', '--json']);
    expect(history.code, history.stderr).toBe(0);
    expect(oneJson(history.stdout).count).toBe(2);
    expect(await openConnections(database)).toBe(0);
    for (const x of [first, second, again, history]) expectNoSecrets(x, [server.password]);
  });

  it('an entry the shared ledger holds with other details is a conflict: listed by payout id, never overwritten, exit 1', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const { url } = await freshLedger();
    // The shared ledger first, then the local journal, each with its own body for the same payout id.
    const shared = await run(payoutArgs(wallet, 'conflict-001'), { env: { PAYCTL_LEDGER_URL: url } });
    expect(shared.code, shared.stderr).toBe(0);
    const local = await run(payoutArgs(wallet, 'conflict-001', ['--note', 'another note']));
    expect(local.code, local.stderr).not.toBe(2);
    await useLedger(url);

    const r = await run(['ledger', 'import']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Imported 0 entries');
    expect(r.stdout).toContain('0 already there, 1 in conflict, 0 unreadable.');
    expect(r.stderr).toContain('Warning: 1 entry was not imported: the shared ledger holds the same payout id with other details (never overwritten):');
    expect(r.stderr).toContain(`  conflict-001 (${ctx.sb.baseUrl}): the shared ledger holds this payout id with another body (other details)`);
    const j = await run(['ledger', 'import', '--json']);
    expect(j.code).toBe(1);
    expect(oneJson(j.stdout).conflicts).toEqual([
      { payout_id: 'conflict-001', base_url: ctx.sb.baseUrl, reason: 'the shared ledger holds this payout id with another body (other details)' },
    ]);
    // The shared entry is as it was: the first body.
    const get = await run(['history', '--json']);
    expect(oneJson(get.stdout).data).toHaveLength(1);
    expect(JSON.stringify(oneJson(get.stdout).data[0])).not.toContain('another note');
  });
});

describe('the repeat guard on the shared ledger: the account written another way', () => {
  it('refused as a repeat (exit 2, nothing sent) after a payout of this version and after rows the previous version wrote; every row still verifies', async () => {
    const { url, masked } = await freshLedger();
    await useLedger(url);
    const wallet = freshWallet(ctx.sb, '1000.00', 'SLE');
    // Rows as the previous version wrote them, from another machine: each with the repeat key of its account as typed.
    const old = await openPostgresLedger(url, { env: {}, host: 'old-machine' });
    const earlier = new Map<string, string>();
    try {
      for (const account of ['5510001234', '4410-0012-36']) {
        const r = bankPayoutRequest(wallet, account);
        const e = await old.begin({
          baseUrl: ctx.sb.baseUrl,
          payoutId: r.payoutId,
          body: payoutBody(r),
          randomKey: true,
          now: new Date(),
          origin: { repeatKey: previousRepeatKey(r) },
        });
        await old.record(e, { kind: 'accepted', status: 201, transactionId: `TXN-OLD-${account}`, fee: '0.00', replayed: false, at: e.createdAt });
        earlier.set(account, r.payoutId);
      }
    } finally {
      await old.close();
    }
    const first = await run(bankPayoutArgs(wallet, 'SL12ABCD0001'));
    expect(first.code, first.stderr).toBe(0);
    earlier.set('SL12ABCD0001', postedPayoutId(payoutPosts(ctx.sb)[0]!));

    const from = ctx.sb.requests().length;
    for (const [typed, was] of [
      ['sl12abcd0001', 'SL12ABCD0001'],
      ['551-000-1234', '5510001234'],
      ['4410-0012-36', '4410-0012-36'],
    ] as const) {
      const r = await run(bankPayoutArgs(wallet, typed));
      expect(r.stderr).toContain("This payout repeats one sent through the team's shared ledger");
      expect(r.stderr).toContain(`payout id ${earlier.get(was)}, accepted`);
      expect(r.code, r.stderr).toBe(2);
    }
    expect(payoutPosts(ctx.sb, from)).toEqual([]);

    const verify = await run(['ledger', 'verify']);
    expect(verify.stdout).toContain(`Ledger  ${masked}\nRows    3: 3 verified\n`);
    expect(verify.stdout).toContain('Every row verifies.');
    expect(verify.code, verify.stderr).toBe(0);
  });
});

describe('a shared ledger that cannot be reached stops what sends', () => {
  it('payout create: exit 2, nothing sent, the local journal not used, the URL masked; --verbose names it masked', async () => {
    const wallet = freshWallet(ctx.sb, '10000.00', 'SLE');
    const url = `postgres://payctl:${server.password}@127.0.0.1:${await closedPort()}/payctl`;
    const masked = url.replace(server.password, '****');
    await useLedger(url);
    const r = await run([...payoutArgs(wallet, 'unreachable-001'), '--verbose']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Cannot reach the payout ledger ${masked}`);
    expect(r.stderr).toContain('Nothing was sent.');
    expect(r.stderr).toContain(`ledger: PostgreSQL at ${masked}`);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expect(existsSync(join(cfg.dir, 'journal')) ? readdirSync(join(cfg.dir, 'journal')).filter((n) => n.endsWith('.json')) : []).toEqual([]);
    expectNoSecrets(r, [server.password]);

    // The same through PAYCTL_LEDGER_URL, with --json: the error as JSON, exit 2.
    const j = await run([...payoutArgs(wallet, 'unreachable-002'), '--json'], { env: { PAYCTL_LEDGER_URL: url } });
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stderr).error.message).toContain(masked);
    expect(payoutPosts(ctx.sb)).toEqual([]);
    expectNoSecrets(j, [server.password]);
  });
});

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
