/**
 * The PostgreSQL harness itself (test/helpers/postgres.ts): a real server, reached with the `pg`
 * client as the ledger will be, its password role refusing a wrong password, a fresh database
 * per caller, listening on loopback only, and a server that stops and comes back with its data.
 */
import { existsSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privatePostgres, sharedPostgres, type PostgresCluster, type SharedPostgres } from '../helpers/postgres.js';

/** Runs one query in a connection of its own. */
async function query<R extends pg.QueryResultRow>(config: string | pg.ClientConfig, sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client(config);
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The error a connection attempt ends in (fails the test if it succeeds). */
async function connectError(config: string | pg.ClientConfig): Promise<Error & { code?: string }> {
  const client = new pg.Client({ ...(typeof config === 'string' ? { connectionString: config } : config), connectionTimeoutMillis: 5_000 });
  // A refused connection also emits 'error' on some paths: the rejection is what is checked.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    return err as Error & { code?: string };
  }
  await client.end();
  throw new Error('connected, expected a refusal');
}

/** Listening TCP sockets on a port, from the kernel's tables: [local address as hex, family]. */
function listeners(port: number): string[] {
  const found: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [address, hexPort] = local.split(':');
      if (parseInt(hexPort ?? '', 16) === port) found.push(`${table.endsWith('6') ? 'tcp6' : 'tcp'} ${address}`);
    }
  }
  return found;
}

describe('the shared PostgreSQL cluster', () => {
  let db: SharedPostgres;
  beforeAll(async () => {
    db = await sharedPostgres();
  });

  it('is a real PostgreSQL, reached with the pg client as the superuser without a password', async () => {
    const [row] = await query<{ user: string; version: string; fsync: string }>(
      db.superuserUrl,
      "SELECT current_user AS user, version(), current_setting('fsync') AS fsync",
    );
    expect(row?.user).toBe('postgres');
    expect(row?.version).toMatch(/^PostgreSQL \d+/);
    expect(row?.fsync).toBe('off');
    expect(db.superuserUrl).not.toContain(':@');
  });

  it('has a role with a password: the right one logs in, a wrong one or none is refused', async () => {
    expect(db.url).toBe(`postgres://payctl:${db.password}@127.0.0.1:${db.port}/payctl`);
    expect(db.password).toMatch(/^[0-9a-f]{24}$/);
    expect(await query(db.url, 'SELECT current_user AS user, current_database() AS db')).toEqual([{ user: 'payctl', db: 'payctl' }]);
    const [role] = await query<{ rolsuper: boolean; scram: boolean }>(
      db.superuserUrl,
      "SELECT rolsuper, rolpassword LIKE 'SCRAM-SHA-256$%' AS scram FROM pg_authid WHERE rolname = 'payctl'",
    );
    expect(role).toEqual({ rolsuper: false, scram: true });

    const wrong = await connectError({ host: db.host, port: db.port, user: db.user, database: db.database, password: `${db.password}x` });
    expect(wrong.code).toBe('28P01'); // invalid_password
    expect(wrong.message).toMatch(/password authentication failed for user "payctl"/);
    // No password at all: the server asks for one, which the client does not have.
    const none = await connectError({ host: db.host, port: db.port, user: db.user, database: db.database, password: '' });
    expect(none.message).toMatch(/password/i);
  });

  it('gives each caller a fresh database of its own, owned by the password role', async () => {
    const a = await db.freshDatabase('postgres-harness.test.ts');
    const b = await db.freshDatabase('postgres-harness.test.ts');
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^postgres://payctl:${db.password}@127\\.0\\.0\\.1:${db.port}/postgres_harness_test_ts_\\d+_\\d+_[0-9a-f]{6}$`));
    await query(a, 'CREATE TABLE payouts (id text PRIMARY KEY)');
    await query(a, "INSERT INTO payouts VALUES ('p-1')");
    expect(await query(a, 'SELECT id FROM payouts')).toEqual([{ id: 'p-1' }]);
    const seen = await query<{ n: number }>(b, "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'payouts'");
    expect(seen).toEqual([{ n: 0 }]);
    const [owner] = await query<{ owner: string }>(db.superuserUrl, 'SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1', [
      new URL(a).pathname.slice(1),
    ]);
    expect(owner).toEqual({ owner: 'payctl' });
  });

  it('listens on 127.0.0.1 only: no other address, no IPv6, its unix socket in its own folder', async () => {
    const [row] = await query<{ listen: string; sockets: string }>(
      db.superuserUrl,
      "SELECT current_setting('listen_addresses') AS listen, current_setting('unix_socket_directories') AS sockets",
    );
    expect(row).toEqual({ listen: '127.0.0.1', sockets: db.dir });
    expect(existsSync(join(db.dir, `.s.PGSQL.${db.port}`))).toBe(true);
    // The kernel's listening sockets on the port: one, 127.0.0.1 (0100007F, little-endian hex).
    expect(listeners(db.port)).toEqual(['tcp 0100007F']);
    // And a connection to any other address of this machine is refused.
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && a.family === 'IPv4')
      .map((a) => a!.address);
    for (const host of [...others, '::1']) {
      const err = await connectError({ host, port: db.port, user: 'postgres', database: 'postgres' });
      expect((err as { code?: string }).code, host).toBe('ECONNREFUSED');
    }
  });
});

describe('a private cluster, stopped and started again', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await privatePostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('stops mid-connection, refuses connections while down, and comes back on the same port with its committed data', async () => {
    const url = await cluster.freshDatabase('restart');
    await query(url, 'CREATE TABLE entries (id int PRIMARY KEY)');
    await query(url, 'INSERT INTO entries SELECT generate_series(1, 100)');
    const port = cluster.port;

    // A connection open when the server stops is cut off: its next query fails, nothing crashes.
    const open = new pg.Client(url);
    const dropped = new Promise<Error>((resolve) => open.on('error', resolve));
    await open.connect();
    await cluster.stopServer();
    await expect(open.query('SELECT 1')).rejects.toThrow();
    await dropped.catch(() => undefined);
    await open.end().catch(() => undefined);
    expect((await connectError(url)).code).toBe('ECONNREFUSED');
    expect(listeners(port)).toEqual([]);

    await cluster.startServer();
    expect(cluster.port).toBe(port);
    expect(await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM entries')).toEqual([{ n: 100 }]);
    // The password role survives the restart too (it is data), and still needs the password.
    expect((await connectError(url.replace(cluster.password, 'wrong'))).code).toBe('28P01');
  });

  it('is its own cluster: another port, another folder, another password than the shared one', async () => {
    const db = await sharedPostgres();
    expect(cluster.port).not.toBe(db.port);
    expect(cluster.dir).not.toBe(db.dir);
    expect(cluster.password).not.toBe(db.password);
  });

  it('stop() ends the server and removes its folder', async () => {
    const own = await privatePostgres();
    const pid = Number(readFileSync(join(own.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await own.stop();
    expect(existsSync(own.dir)).toBe(false);
    expect(() => process.kill(pid, 0)).toThrow();
    expect((await connectError(own.superuserUrl)).code).toBe('ECONNREFUSED');
    await own.stop(); // twice is fine
  });
});
