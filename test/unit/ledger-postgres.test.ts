/**
 * The PostgreSQL store of the ledger (src/payouts/ledger/postgres/), beyond the contract every
 * store passes (ledger-contract.test.ts): against a real server, two instances standing for two
 * machines. One claim per payout id under races, the schema migrated once and a newer one
 * refused, the password never in a message, a server gone and back, the wallets' locks between
 * machines, paging through a long listing, and a local journal imported without duplicates.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, ExitCode, LocalError } from '../../src/errors.js';
import { JournalConflict, newEntry } from '../../src/payouts/ledger/entries.js';
import type { JournalEntry, Outcome } from '../../src/payouts/ledger/ledger.js';
import { LocalLedger } from '../../src/payouts/ledger/local.js';
import { connectionOf } from '../../src/payouts/ledger/postgres/connect.js';
import { maskLedgerUrl } from '../../src/config/ledger-setting.js';
import {
  LedgerUnreachable,
  MIGRATIONS,
  PostgresLedger,
  SCHEMA_VERSION,
  clockWarning,
  importEntries,
  openPostgresLedger,
} from '../../src/payouts/ledger/postgres/index.js';
import { ledgerNow } from '../../src/payouts/ledger/entries.js';
import type { WalletLockOptions } from '../../src/payouts/wallet-lock.js';
import { recentOwner } from '../../src/payouts/send-result.js';
import { privatePostgres, sharedPostgres, sql, type PostgresCluster, type SharedPostgres } from '../helpers/postgres.js';
import { scanned } from '../helpers/scanned.js';

const BASE = 'https://api.example.com/v2';
const T0 = new Date('2026-11-21T10:15:30.123Z');
const body = (id: string, amount = '12.50') => `{"amount":${amount},"currency":"SLE","payoutId":"${id}","walletId":"w-1"}`;
const accepted = (transactionId: string): Outcome => ({ kind: 'accepted', status: 200, transactionId, fee: undefined, replayed: false, at: T0.toISOString() });
const lockOptions = (o: Partial<WalletLockOptions> = {}): WalletLockOptions => ({ host: { pid: process.pid, kill: (pid, sig) => process.kill(pid, sig) }, ...o });

let db: SharedPostgres;
const opened: PostgresLedger[] = [];
/** A ledger on `url`, closed after the test. */
async function open(url: string, env: Record<string, string | undefined> = {}): Promise<PostgresLedger> {
  const l = await openPostgresLedger(url, { env, host: 'test-machine' });
  opened.push(l);
  return l;
}

beforeAll(async () => {
  db = await sharedPostgres();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((l) => l.close()));
});

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

/** A TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** Everything an error says (message, hint, stack, own fields). */
const everything = (err: Error) => [err.message, (err as { hint?: string }).hint ?? '', err.stack ?? '', JSON.stringify(err)].join('\n');

describe('the URL as shown, and the connection a URL names', () => {
  it('masks the password in the user part, in the query and in key=value text', () => {
    expect(maskLedgerUrl('postgres://payctl:s3cret@db.example.com:5433/ledger?sslmode=require')).toBe(
      'postgres://payctl:****@db.example.com:5433/ledger?sslmode=require',
    );
    expect(maskLedgerUrl('postgresql://u:p@ss/w?rd@host/db')).toBe('postgresql://u:****@host/db');
    expect(maskLedgerUrl('postgres://host/db?user=u&password=hunter22&sslmode=disable')).toBe('postgres://host/db?user=u&password=****&sslmode=disable');
    expect(maskLedgerUrl('postgres://u@host/db')).toBe('postgres://u@host/db');
    expect(maskLedgerUrl("host=db password='a b' user=u")).toBe('host=db password=**** user=u');
  });

  it('fills what the URL leaves out from PGHOST, PGPORT, PGUSER, PGDATABASE and PGSSLMODE of the environment handed in', () => {
    const c = connectionOf('postgres://', { PGHOST: 'db.internal', PGPORT: '6543', PGUSER: 'team', PGDATABASE: 'payouts', PGSSLMODE: 'require' });
    expect(c.config).toMatchObject({
      host: 'db.internal',
      port: 6543,
      user: 'team',
      database: 'payouts',
      application_name: 'payctl',
      ssl: { rejectUnauthorized: false },
    });
    const d = connectionOf('postgres://me@h:7000/x?sslmode=verify-full', { PGHOST: 'no', PGPORT: '1', PGUSER: 'no', PGDATABASE: 'no' });
    expect(d.config).toMatchObject({ host: 'h', port: 7000, user: 'me', database: 'x', ssl: { rejectUnauthorized: true } });
    expect(connectionOf('postgres://localhost/x?sslmode=disable', {}).config.ssl).toBe(false);
    expect(() => connectionOf('postgres://u:pw123@h/x?sslmode=sometimes', {})).toThrow(/postgres:\/\/u:\*\*\*\*@h.*sslmode "sometimes"/);
    expect(() => connectionOf('mysql://u:pw123@h/x', {})).toThrow(ConfigError);
  });

  it('connects with the password from PGPASSWORD, or from the password file (0600 only)', async () => {
    const url = await db.freshDatabase('ledger-env');
    const u = new URL(url);
    const bare = `postgres://${u.username}@${u.host}${u.pathname}`;
    await open(bare, { PGPASSWORD: db.password });
    const dir = mkdtempSync(join(tmpdir(), 'payctl-pgpass-'));
    try {
      const file = join(dir, 'pgpass');
      writeFileSync(file, `# a comment\nother:*:*:*:nope\n${u.hostname}:${u.port}:*:${u.username}:${db.password.replace(/:/g, '\\:')}\n`, { mode: 0o600 });
      await open(bare, { PGPASSFILE: file });
      chmodSync(file, 0o644);
      // Passed over, as libpq does, and said so with the chmod that fixes it: in the error, and as a
      // warning (before, only "none was given (in the URL, PGPASSWORD or the password file)").
      const warnings: string[] = [];
      const err = await rejection(openPostgresLedger(bare, { env: { PGPASSFILE: file }, host: 'test-machine', warn: (l) => warnings.push(l) }));
      expect(err).toBeInstanceOf(LedgerUnreachable);
      const skipped = `the password file ${file} was passed over: group or others can read it (mode 0644), and libpq (psql) passes such a file over too. Make it yours alone with: chmod 600 ${file}`;
      expect(err.message).toContain(`: the server asks for a password and none was given: none is in the URL or PGPASSWORD, and ${skipped}. Nothing was sent.`);
      expect(warnings).toEqual([
        `The password file ${file} was passed over: group or others can read it (mode 0644), and libpq (psql) passes such a file over too. Make it yours alone with: chmod 600 ${file}. Until then no password is read from it.`,
      ]);
      expect(everything(err)).not.toContain(db.password);
      // Without a password file at all: the words of before.
      const none = await rejection(open(bare, { PGPASSFILE: join(dir, 'none') }));
      expect(none.message).toContain('the server asks for a password and none was given (in the URL, PGPASSWORD or the password file). Nothing was sent.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a ledger that cannot be opened: a clear error, exit 2, the password never said', () => {
  it('a wrong password', async () => {
    const url = await db.freshDatabase('ledger-password');
    const wrong = url.replace(`:${db.password}@`, ':Wr0ngPassw0rd-xyzzy@');
    const err = await rejection(open(wrong));
    expect(err).toBeInstanceOf(LedgerUnreachable);
    expect((err as LedgerUnreachable).exitCode).toBe(ExitCode.usage);
    expect(err.message).toContain(`postgres://${db.user}:****@`);
    expect(err.message).toMatch(/password authentication failed.*Nothing was sent/);
    expect(everything(err)).not.toContain('Wr0ngPassw0rd-xyzzy');
    expect(everything(err)).not.toContain(db.password);
  });

  it('a port nothing listens on, and a database that does not exist', async () => {
    const refused = await rejection(open(`postgres://${db.user}:${db.password}@127.0.0.1:${await closedPort()}/payctl`));
    expect(refused).toBeInstanceOf(LedgerUnreachable);
    expect(refused.message).toMatch(/ECONNREFUSED/);
    expect(everything(refused)).not.toContain(db.password);
    const missing = await rejection(open(`postgres://${db.user}:${db.password}@${db.host}:${db.port}/no_such_ledger`));
    expect(missing).toBeInstanceOf(LedgerUnreachable);
    expect(missing.message).toMatch(/no_such_ledger.*does not exist/);
    expect(everything(missing)).not.toContain(db.password);
  });

  it('sslmode=require against a server without TLS', async () => {
    const url = await db.freshDatabase('ledger-tls');
    const err = await rejection(open(`${url}?sslmode=require`));
    expect(err).toBeInstanceOf(LedgerUnreachable);
    expect(err.message).toMatch(/SSL/);
    expect(everything(err)).not.toContain(db.password);
  });
});

describe('the schema', () => {
  it('is migrated once when several machines open a new ledger at once', async () => {
    const url = await db.freshDatabase('ledger-migrate');
    const ledgers = await Promise.all([open(url), open(url), open(url), open(url)]);
    expect(ledgers.map((l) => l.schemaVersion)).toEqual([1, 1, 1, 1].map(() => SCHEMA_VERSION));
    const rows = await sql<{ version: number }>(url, 'SELECT version FROM payctl_schema_version ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(await ledgers[0].status()).toEqual({ backend: 'postgresql', url: maskLedgerUrl(url), schemaVersion: SCHEMA_VERSION, entries: 0 });
  });

  it('a newer schema than this payctl knows is refused (exit 2)', async () => {
    const url = await db.freshDatabase('ledger-newer');
    await open(url);
    await sql(url, 'INSERT INTO payctl_schema_version (version) VALUES ($1)', [SCHEMA_VERSION + 1]);
    const err = await rejection(open(url));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expect(err.message).toMatch(/newer payctl.*Nothing was sent/);
    expect(err.message).toContain(maskLedgerUrl(url));
  });
});

describe("the database's clock", () => {
  it('a ledger of schema 3 is migrated to 4 (rows dated by the database), its rows read as before', async () => {
    const url = await db.freshDatabase('ledger-schema3');
    await sql(url, 'CREATE TABLE payctl_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const [i, m] of MIGRATIONS.slice(0, 3).entries()) {
      await sql(url, m);
      await sql(url, 'INSERT INTO payctl_schema_version (version) VALUES ($1)', [i + 1]);
    }
    // A row as payctl of schema 3 wrote it: dated by its machine's clock (T0), its entry alike.
    const old = await open(url);
    expect(old.schemaVersion).toBe(SCHEMA_VERSION);
    const [written] = await old.insertEntries([newEntry({ baseUrl: BASE, payoutId: 'p-3', body: body('p-3'), now: T0 })]);
    expect(written?.inserted).toBe(true);
    expect((await sql<{ version: number }>(url, 'SELECT max(version) AS version FROM payctl_schema_version'))[0]!.version).toBe(SCHEMA_VERSION);
    const [comment] = await sql<{ c: string }>(
      url,
      "SELECT col_description('payctl_ledger_entries'::regclass, (SELECT attnum FROM pg_attribute WHERE attrelid = 'payctl_ledger_entries'::regclass AND attname = 'created_at')) AS c",
    );
    expect(comment!.c).toContain("by the database's clock");
    expect((await (await open(url)).get(BASE, 'p-3'))?.createdAt).toBe(T0.toISOString());
  });

  it('a machine whose clock is a day behind: the skew measured when it is opened and said once (under a minute is not); its claims dated by the database', async () => {
    const url = await db.freshDatabase('ledger-skew');
    const said: string[] = [];
    const behind = { now: () => new Date(Date.now() - 86_400_000) };
    const l = await openPostgresLedger(url, { env: {}, host: 'slow-machine', clock: behind, warn: (line) => said.push(line) });
    opened.push(l);
    expect(Math.abs(l.clockSkew() - 86_400_000)).toBeLessThan(10_000);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^This machine's clock is 24 hours behind the clock of the payout ledger postgres:\/\/[^ ]*:\*\*\*\*@.* UTC there\)\. The shared ledger dates its rows/,
    );
    expect(said[0]).not.toContain(db.password);
    const e = await l.begin({ baseUrl: BASE, payoutId: 'p-skew', body: body('p-skew'), now: behind.now() });
    expect(Math.abs(Date.parse(e.createdAt) - Date.now())).toBeLessThan(10_000);
    expect(ledgerNow(l, behind).getTime() - Date.parse(e.createdAt)).toBeLessThan(10_000);
    expect(clockWarning(59_000, new Date(), 'postgres://x')).toBeUndefined();
    expect(clockWarning(-3 * 86_400_000, new Date('2026-11-28T12:00:00Z'), 'postgres://x')).toMatch(
      /^This machine's clock is 3 days ahead of the clock of the payout ledger postgres:\/\/x \(2026-11-28 12:00 UTC there\)/,
    );
    expect(clockWarning(-5 * 60_000, new Date(), 'postgres://x')).toMatch(/is 5 minutes ahead of/);
    const right: string[] = [];
    opened.push(await openPostgresLedger(url, { env: {}, warn: (line) => right.push(line) }));
    expect(right).toEqual([]);
  });
});

describe('two machines on one ledger', () => {
  let url: string;
  beforeAll(async () => {
    url = await db.freshDatabase('ledger-machines');
  });

  it('claiming the same payout id at once, 20 times: one entry each, one key for both', async () => {
    const [a, b] = [await open(url), await open(url)];
    for (let i = 0; i < 20; i++) {
      const id = `race-${i}`;
      const claim = (l: PostgresLedger, log: boolean) => l.begin({ baseUrl: BASE, payoutId: id, body: body(id), now: T0, randomKey: true, log });
      const [x, y] = await Promise.all([claim(a, i % 2 === 0), claim(b, i % 3 === 0)]);
      expect(x.idempotencyKey, id).toBe(y.idempotencyKey);
    }
    const rows = await sql<{ n: string }>(url, "SELECT count(*) AS n FROM payctl_ledger_entries WHERE payout_id LIKE 'race-%'");
    expect(rows[0]!.n).toBe('20');
  });

  it("the same payout id twice in one moment of one machine: the second gets the first one's entry", async () => {
    const a = await open(url);
    const [x, y] = await Promise.all([
      a.begin({ baseUrl: BASE, payoutId: 'twice', body: body('twice'), now: T0, randomKey: true, log: true }),
      a.begin({ baseUrl: BASE, payoutId: 'twice', body: body('twice'), now: T0, randomKey: true, log: true }),
    ]);
    expect(y.idempotencyKey).toBe(x.idempotencyKey);
    const [, other] = await Promise.allSettled([
      a.begin({ baseUrl: BASE, payoutId: 'twice-2', body: body('twice-2'), now: T0, log: true }),
      a.begin({ baseUrl: BASE, payoutId: 'twice-2', body: body('twice-2', '99.00'), now: T0, log: true }),
    ]);
    expect((other as PromiseRejectedResult).reason).toBeInstanceOf(JournalConflict);
  });

  it('keeps the body byte for byte', async () => {
    const a = await open(url);
    const odd = '{ "amount" : 12.500000000000000000001,\t"note":"é \\u0000 \\ud800 𝄞 \\"q\\"" ,"payoutId":"odd"}';
    await a.begin({ baseUrl: BASE, payoutId: 'odd', body: odd, now: T0 });
    expect((await (await open(url)).get(BASE, 'odd'))!.body).toBe(odd);
  });

  it("a wallet's lock held by one machine is waited for by the other: told once after a second, then a LocalError naming where the holder connected from", async () => {
    const [a, b] = [await open(url), await open(url)];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inA = new Promise<void>((r) => (entered = r));
    const held = a.withWalletLocks(['w-9'], async () => (entered(), await gate), lockOptions());
    await inA;
    const told: string[] = [];
    const err = await rejection(b.withWalletLocks(['w-9'], async () => 'never', lockOptions({ waitMs: 1_300, onWait: (w) => told.push(w) })));
    expect(told).toEqual(['w-9']);
    expect(err).toBeInstanceOf(LocalError);
    expect(err.message).toMatch(/Wallet w-9 is locked by another payctl \(connected from 127\.0\.0\.1/);
    release();
    await held;
    expect(await b.withWalletLocks(['w-9'], async () => 'mine', lockOptions({ waitMs: 0 }))).toBe('mine');
  });

  it("a daily limit counted and claimed under the wallet's lock holds across machines: three makers racing never pass it together", async () => {
    const fresh = await db.freshDatabase('ledger-limit');
    const machines = [await open(fresh), await open(fresh), await open(fresh)];
    const LIMIT = 10;
    // Each attempt: count what the ledger holds for the wallet (as the policy's daily total does, by a listing), claim one more if under the limit.
    const attempt = (l: PostgresLedger, id: string) =>
      l.withWalletLocks(
        ['w-1'],
        async () => {
          const n = (await scanned(l)).length;
          if (n >= LIMIT) return false;
          await l.begin({ baseUrl: BASE, payoutId: id, body: body(id), now: T0, log: true });
          return true;
        },
        lockOptions({ waitMs: 20_000 }),
      );
    const made = await Promise.all(machines.flatMap((l, m) => Array.from({ length: 8 }, (_, i) => attempt(l, `m${m}-${i}`))));
    expect(made.filter(Boolean).length).toBe(LIMIT);
    expect((await machines[0]!.status()).entries).toBe(LIMIT);
  });

  it("a batch's claims made while holding a wallet's lock (the pool shared with the lock's connection)", async () => {
    const fresh = await db.freshDatabase('ledger-lock-claims');
    const a = await open(fresh);
    const ids = Array.from({ length: 600 }, (_, i) => `locked-${i}`);
    const entries = await a.withWalletLocks(
      ['w-1', 'w-2'],
      () => Promise.all(ids.map((id) => a.begin({ baseUrl: BASE, payoutId: id, body: body(id), now: T0, log: true }))),
      lockOptions(),
    );
    expect(entries.map((e) => e.payoutId)).toEqual(ids);
    await Promise.all(entries.map((e, i) => a.record(e, accepted(`TXN-L${i}`))));
    await a.closeLog();
    expect(await a.transactionOwner(BASE, 'TXN-L599')).toBe('locked-599');
  });

  it('a listing of 1,200 entries pages through them: each once', async () => {
    const fresh = await db.freshDatabase('ledger-scan');
    const a = await open(fresh);
    const ids = Array.from({ length: 1_200 }, (_, i) => `scan-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < ids.length; i += 100) {
      await Promise.all(
        ids.slice(i, i + 100).map((id) => a.begin({ baseUrl: i % 200 ? BASE : 'http://localhost:4010/v2', payoutId: id, body: body(id), now: T0, log: true })),
      );
    }
    await a.closeLog();
    const listed = await scanned(await open(fresh));
    const names = listed.map((it) => ('entry' in it ? it.entry.payoutId : it.error.message));
    expect(names.length).toBe(1_200);
    expect([...names].sort()).toEqual(ids);
    expect(await a.byName(listed[700]!.name)).toEqual((listed[700] as { entry: JournalEntry }).entry);
    expect(await a.byName('not a name')).toBeUndefined();
    expect((await a.status()).entries).toBe(1_200);
  });

  it('a row that is not an entry: get rejects with a ConfigError, a listing gives its error and goes on', async () => {
    const fresh = await db.freshDatabase('ledger-damaged');
    const a = await open(fresh);
    await a.begin({ baseUrl: BASE, payoutId: 'fine', body: body('fine'), now: T0 });
    await sql(fresh, "INSERT INTO payctl_ledger_entries (base, payout_id, idempotency_key, entry, created_at) VALUES ($1, 'bad', 'k', '{not json', now())", [BASE]);
    expect(await rejection(a.get(BASE, 'bad'))).toBeInstanceOf(ConfigError);
    const listed = await scanned(a);
    expect(listed.map((it) => ('entry' in it ? it.entry.payoutId : 'error'))).toEqual(['bad', 'fine'].map((id) => (id === 'bad' ? 'error' : id)));
  });
});

describe('the server gone and back', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await privatePostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('a claim fails with nothing sent, an outcome fails (left unknown), a new open fails; after a restart another machine resolves it', async () => {
    const url = await cluster.freshDatabase('ledger-gone');
    const a = await open(url);
    const entry = await a.begin({ baseUrl: BASE, payoutId: 'sent', body: body('sent'), now: T0 });
    await cluster.stopServer();
    const claim = await rejection(a.begin({ baseUrl: BASE, payoutId: 'next', body: body('next'), now: T0, log: true }));
    expect(claim).toBeInstanceOf(ConfigError);
    expect(claim.message).toMatch(/Nothing was sent for payout next/);
    expect(claim.message).toContain(maskLedgerUrl(url));
    expect(everything(claim)).not.toContain(cluster.password);
    const record = await rejection(a.record(entry, accepted('TXN-1')));
    expect(record.message).toMatch(/payout ledger postgres:\/\/payctl:\*\*\*\*@/);
    expect(everything(record)).not.toContain(cluster.password);
    expect(await rejection(open(url))).toBeInstanceOf(LedgerUnreachable);

    await cluster.startServer();
    const b = await open(url);
    expect((await b.get(BASE, 'sent'))!.outcome).toBeUndefined();
    expect(await b.get(BASE, 'next')).toBeUndefined();
    expect((await b.record(entry, accepted('TXN-1'))).outcome).toEqual(accepted('TXN-1'));
    // The first machine's pool connects again by itself.
    expect((await a.get(BASE, 'sent'))!.outcome).toEqual(accepted('TXN-1'));
  });
});

describe('importing a local journal', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'payctl-import-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('copies every entry once: a second run imports nothing; a conflict is reported, never overwritten; a stronger outcome is merged', async () => {
    const local = new LocalLedger(root);
    const made: JournalEntry[] = [];
    for (const id of ['i-1', 'i-2', 'i-3', 'i-4']) made.push(await local.begin({ baseUrl: BASE, payoutId: id, body: body(id), now: T0 }));
    await local.record(made[0]!, accepted('TXN-I1'));
    await local.record(made[3]!, accepted('TXN-I4'));
    const url = await db.freshDatabase('ledger-import');
    const shared = await open(url);
    // The shared ledger has i-3 with another body, and i-4 (same key and body) without an outcome.
    await shared.begin({ baseUrl: BASE, payoutId: 'i-3', body: body('i-3', '99.00'), now: T0 });
    await shared.begin({ baseUrl: BASE, payoutId: 'i-4', body: body('i-4'), now: T0 });

    const first = await importEntries(local, shared, await shared.now());
    expect(first).toMatchObject({ imported: 2, already: 1, outcomes: 1, unreadable: 0 });
    expect(first.conflicts).toEqual([expect.objectContaining({ payoutId: 'i-3', baseUrl: BASE, what: 'details', localKey: made[2]!.idempotencyKey })]);
    expect((await shared.get(BASE, 'i-3'))!.body).toBe(body('i-3', '99.00'));
    expect((await shared.get(BASE, 'i-1'))!.outcome).toEqual(accepted('TXN-I1'));
    expect((await shared.get(BASE, 'i-4'))!.outcome).toEqual(accepted('TXN-I4'));
    expect(await shared.byTransactionId(BASE, 'TXN-I1')).toEqual(JSON.parse(JSON.stringify({ ...made[0]!, outcome: accepted('TXN-I1') })));

    const second = await importEntries(local, shared, await shared.now());
    expect(second).toMatchObject({ imported: 0, already: 3, outcomes: 0, unreadable: 0 });
    expect(second.conflicts.map((c) => c.payoutId)).toEqual(['i-3']);
    expect((await shared.status()).entries).toBe(4);
  });
});

describe('look-ups answered ahead (prefetch): what a batch plan asks a group at a time', () => {
  it('get and find after a prefetch answer as the database does; a write of the store forgets them; an edited row still refused', async () => {
    const url = await db.freshDatabase('ahead');
    const writer = await open(url);
    // Dated by the database as they are claimed: a-0 first.
    await writer.begin({ baseUrl: BASE, payoutId: 'a-0', body: body('a-0'), now: T0, origin: { fingerprint: 'f-1' } });
    await writer.begin({ baseUrl: BASE, payoutId: 'a-1', body: body('a-1'), now: T0, origin: { fingerprint: 'f-1' } });
    const run = { id: 'nov "30"', file: '/home/finance/pay,roll.csv' };
    await writer.begin({ baseUrl: BASE, payoutId: 'a-2', body: body('a-2'), now: T0, origin: { repeatKey: 'r-2', batch: { ...run, row: 2 } } });
    // The same repeat key in another batch run: not one of this run's.
    await writer.begin({
      baseUrl: BASE,
      payoutId: 'a-4',
      body: body('a-4'),
      now: T0,
      origin: { repeatKey: 'r-2', batch: { id: run.id, file: '/home/finance/other.csv', row: 2 } },
    });
    const fresh = await open(url);
    const ahead = await open(url);
    await ahead.prefetch(BASE, ['a-1', 'a-2', 'missing'], ['f-1', 'f-none'], { batch: run, repeatKeys: ['r-2', 'r-none'] });
    // Written after the prefetch: not among the answers asked ahead.
    await writer.begin({ baseUrl: BASE, payoutId: 'a-3', body: body('a-3'), now: T0, origin: { repeatKey: 'r-2', batch: { ...run, row: 3 } } });
    // Another machine writes after the prefetch: what was asked ahead is what the plan sees.
    await writer.begin({ baseUrl: BASE, payoutId: 'missing', body: body('missing'), now: T0 });
    expect(await ahead.get(BASE, 'a-1')).toEqual(await fresh.get(BASE, 'a-1'));
    expect(await ahead.get(BASE, 'a-2')).toEqual(await fresh.get(BASE, 'a-2'));
    expect(await ahead.get(BASE, 'missing')).toBeUndefined();
    expect((await ahead.find(BASE, 'fingerprint', 'f-1')).map((e) => e.payoutId)).toEqual(['a-0', 'a-1']);
    expect(await ahead.find(BASE, 'fingerprint', 'f-none')).toEqual([]);
    // Repeat keys within a batch run too (rows it sent, changed since: changed-rows.ts).
    expect((await ahead.findInBatch(BASE, 'r-2', run)).map((e) => e.payoutId)).toEqual(['a-2']);
    expect(await ahead.findInBatch(BASE, 'r-none', run)).toEqual([]);
    expect((await fresh.findInBatch(BASE, 'r-2', run)).map((e) => e.payoutId)).toEqual(['a-2', 'a-3']);
    expect((await fresh.find(BASE, 'repeat', 'r-2')).map((e) => e.payoutId).sort()).toEqual(['a-2', 'a-3', 'a-4']);
    // A named batch from any file: asked ahead with its id alone.
    const anyFile = await open(url);
    await anyFile.prefetch(BASE, [], [], { batch: { id: run.id }, repeatKeys: ['r-2'] });
    await writer.begin({ baseUrl: BASE, payoutId: 'a-5', body: body('a-5'), now: T0, origin: { repeatKey: 'r-2', batch: { id: run.id, file: '/x.csv', row: 2 } } });
    // Oldest first, by the time the database dated each claim (a-4 was claimed before a-3).
    expect((await anyFile.findInBatch(BASE, 'r-2', { id: run.id })).map((e) => e.payoutId)).toEqual(['a-2', 'a-4', 'a-3']);
    expect((await fresh.findInBatch(BASE, 'r-2', { id: run.id })).map((e) => e.payoutId)).toEqual(['a-2', 'a-4', 'a-3', 'a-5']);
    // Repeat keys of any entry, batch row or not (what a row pays as compared: repeats.ts samePayoutsSent).
    const anyRun = await open(url);
    await anyRun.prefetch(BASE, [], [], undefined, ['r-2', 'r-none']);
    await writer.begin({ baseUrl: BASE, payoutId: 'a-6', body: body('a-6'), now: T0, origin: { repeatKey: 'r-2' } });
    expect((await anyRun.find(BASE, 'repeat', 'r-2')).map((e) => e.payoutId)).toEqual(['a-2', 'a-4', 'a-3', 'a-5']);
    expect(await anyRun.find(BASE, 'repeat', 'r-none')).toEqual([]);
    expect((await fresh.find(BASE, 'repeat', 'r-2')).map((e) => e.payoutId)).toEqual(['a-2', 'a-4', 'a-3', 'a-5', 'a-6']);
    // Another base URL was not asked ahead: read from the database.
    expect(await ahead.get('https://other.example.com/v2', 'a-1')).toBeUndefined();
    // A claim of this store forgets the answers: the next read is the database's.
    const claimed = await ahead.begin({ baseUrl: BASE, payoutId: 'missing', body: body('missing'), now: T0 });
    expect(claimed.idempotencyKey).toBe((await fresh.get(BASE, 'missing'))!.idempotencyKey);
    expect((await ahead.get(BASE, 'missing'))!.payoutId).toBe('missing');

    // A row changed outside payctl is refused when asked for, prefetched or not.
    await sql(url, `UPDATE payctl_ledger_entries SET entry = replace(entry, '12.50', '99.50') WHERE payout_id = 'a-2'`);
    await ahead.prefetch(BASE, ['a-1', 'a-2'], []);
    expect(await ahead.get(BASE, 'a-1')).toEqual(await fresh.get(BASE, 'a-1'));
    expect(await rejection(ahead.get(BASE, 'a-2'))).toBeInstanceOf(ConfigError);
  });
});

/**
 * payout create checks its answer's transaction id against the last day's rows (send-result.ts
 * recentOwner). It paged every row of the day to the client and checked each one's signature;
 * now one statement by the index of transaction ids brings only the rows accepted with it.
 * Counted through entryOf (each row checked), not timed.
 */
describe("a transaction id looked up among the day's rows", () => {
  it('checks only the row accepted with it; a row changed since is still passed over', async () => {
    const url = await db.freshDatabase('txn');
    const ledger = await open(url);
    let made = 0;
    for (let i = 0; i < 30; i++) {
      const e = await ledger.begin({ baseUrl: BASE, payoutId: `t-${i}`, body: body(`t-${i}`), now: T0 });
      made = Date.parse(e.createdAt);
      await ledger.record(e, accepted(`TXN-${i}`));
    }
    // Dated by the database: an hour after the last claim, by its clock.
    const later = new Date(made + 3_600_000);
    const checked = vi.spyOn(PostgresLedger.prototype, 'entryOf');
    try {
      expect(await recentOwner(ledger, BASE, 'TXN-7', later)).toBe('t-7');
      expect(await recentOwner(ledger, BASE, 'TXN-none', later)).toBeUndefined();
      expect(checked.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      checked.mockRestore();
    }
    // A day later it is no longer within the window.
    expect(await recentOwner(ledger, BASE, 'TXN-7', new Date(made + 3 * 86_400_000))).toBeUndefined();
    await sql(url, `UPDATE payctl_ledger_entries SET entry = replace(entry, '12.50', '99.50') WHERE payout_id = 't-7'`);
    expect(await recentOwner(ledger, BASE, 'TXN-7', later)).toBeUndefined();
  });
});
