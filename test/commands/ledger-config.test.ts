/**
 * The ledger setting through payctl's main, in process (README "Working as a team"), where no
 * database is needed: `config set|get|unset|list ledger` (checked before it is saved, the
 * password masked everywhere, a warning for a password on the command line, `--stdin`),
 * PAYCTL_LEDGER_URL above the profile, `ledger status` of the local journal, `ledger import`
 * refused for a local ledger (and the command it prints, run as printed), `status` naming the
 * shared ledger without connecting, and the reads that never need the ledger.
 */
import { existsSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closedPort, expectNoSecrets, newKey, oneJson, readProfile, useConfigDir, writeLoggedIn, writeProfile } from '../helpers/e2e.js';
import { errorOf, warningsOf } from '../helpers/stderr-json.js';
import { payctl } from '../helpers/in-process.js';
import { useSandbox } from '../helpers/sandbox.js';

const KEY = newKey();
const ctx = useSandbox({ apiKey: KEY });
const cfg = useConfigDir();
const PASSWORD = 'Tr0ub4dor-and-3-more';
const run = (args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}) => payctl(args, { dir: cfg.dir, ...opts });

describe('config set|get|unset ledger', () => {
  beforeEach(() => writeProfile(cfg.dir, {}));

  it('a URL without a password: saved as given, read back as it is, listed', async () => {
    const url = 'postgres://payctl@db.example.com:5432/payctl?sslmode=verify-full';
    const set = await run(['config', 'set', 'ledger', url]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toBe(`✓ Set ledger in profile "default": ${url}.\n`);
    expect(readProfile(cfg.dir)).toEqual({ ledger: url });
    const get = await run(['config', 'get', 'ledger']);
    expect([get.code, get.stdout, get.stderr]).toEqual([0, `${url}\n`, '']);
    expect(oneJson((await run(['config', 'get', 'ledger', '--json'])).stdout)).toEqual({ key: 'ledger', value: url });
    expect((await run(['config', 'list'])).stdout).toBe(`ledger  ${url}\n`);
    const unset = await run(['config', 'unset', 'ledger']);
    expect([unset.code, unset.stderr]).toEqual([0, '✓ Unset ledger in profile "default".\n']);
    expect(readProfile(cfg.dir)).toEqual({});
  });

  it('local is a value too', async () => {
    const r = await run(['config', 'set', 'ledger', 'local']);
    expect(r.code, r.stderr).toBe(0);
    expect(readProfile(cfg.dir)).toEqual({ ledger: 'local' });
  });

  it('a password on the command line: saved in the 0600 file, a warning, and shown masked everywhere', async () => {
    const url = `postgres://team:${PASSWORD}@db.example.com:5432/payctl`;
    const masked = 'postgres://team:****@db.example.com:5432/payctl';
    const set = await run(['config', 'set', 'ledger', url]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain("Warning: The ledger URL's password was given on the command line");
    expect(set.stderr).toContain('payctl config set ledger --stdin');
    expect(set.stderr).toContain('PGPASSWORD or ~/.pgpass');
    expect(set.stderr).toContain(`✓ Set ledger in profile "default": ${masked}.`);
    expect(readProfile(cfg.dir)).toEqual({ ledger: url });

    const get = await run(['config', 'get', 'ledger']);
    expect([get.code, get.stdout, get.stderr]).toEqual([0, `${masked}\n`, "The ledger URL's password is shown masked; payctl never prints it in clear.\n"]);
    const json = await run(['config', 'get', 'ledger', '--json']);
    expect(oneJson(json.stdout)).toEqual({ key: 'ledger', value: masked, masked: true });
    const list = await run(['config', 'list', '--json']);
    expect(oneJson(list.stdout).settings).toEqual({ ledger: masked });
    const verbose = await run(['config', 'list', '--verbose']);
    expect(verbose.stdout).toBe(`ledger  ${masked}\n`);
    for (const r of [set, get, json, list, verbose]) expectNoSecrets(r, [PASSWORD]);
  });

  it('a password as a query parameter counts too', async () => {
    const set = await run(['config', 'set', 'ledger', `postgres://team@db/payctl?password=${PASSWORD}`]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain('password was given on the command line');
    expect(set.stderr).toContain('postgres://team@db/payctl?password=****');
    expectNoSecrets(set, [PASSWORD]);
  });

  it('--stdin: the URL from standard input, no warning, never printed in clear', async () => {
    const url = `postgresql://team:${PASSWORD}@db.example.com/payctl?sslmode=require`;
    const set = await run(['config', 'set', 'ledger', '--stdin'], { input: `${url}\n` });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toBe(
      "Warning: The ledger postgresql://team:****@db.example.com/payctl?sslmode=require uses sslmode=require: the connection is encrypted but the server's certificate is not checked, " +
        'so the password goes to whoever answers for db.example.com. Use sslmode=verify-full instead: postgresql://team:****@db.example.com/payctl?sslmode=verify-full (your password in place of ****).\n' +
        '✓ Set ledger in profile "default": postgresql://team:****@db.example.com/payctl?sslmode=require.\n',
    );
    expect(readProfile(cfg.dir)).toEqual({ ledger: url });
    expectNoSecrets(set, [PASSWORD]);
  });

  it('--stdin with a value, or with nothing on standard input: exit 2, nothing saved', async () => {
    const both = await run(['config', 'set', 'ledger', 'local', '--stdin'], { input: 'local\n' });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Give the value or --stdin, not both.');
    const empty = await run(['config', 'set', 'ledger', '--stdin'], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('No value for ledger on standard input.');
    const neither = await run(['config', 'set', 'ledger']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("missing required argument 'value'");
    expect(readProfile(cfg.dir)).toEqual({});
  });

  it.each([
    [`mysql://team:${PASSWORD}@db/payctl`, 'The ledger must be local or a postgres:// or postgresql:// URL (got "mysql://team:****@db/payctl").'],
    ['db.example.com/payctl', 'The ledger must be local or a postgres:// or postgresql:// URL'],
    [`postgres://team:${PASSWORD}@/payctl`, 'The ledger "postgres://team:****@/payctl" names no host.'],
    ['postgres:///payctl', 'The ledger "postgres:///payctl" names no host.'],
    [`postgres://team:${PASSWORD}@db/payctl?sslmode=sometimes`, 'has an unknown sslmode "sometimes"'],
  ])('refuses %s: exit 2, a clear message, nothing saved, no password printed', async (value, says) => {
    const r = await run(['config', 'set', 'ledger', value]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(says);
    expect(r.stderr).not.toContain('Warning');
    expect(readProfile(cfg.dir)).toEqual({});
    expectNoSecrets(r, [PASSWORD]);
  });
});

describe('the ledger password never in clear text to another machine', () => {
  beforeEach(() => writeProfile(cfg.dir, {}));
  const url = `postgres://u:${PASSWORD}@db.example.com/x`;
  const masked = 'postgres://u:****@db.example.com/x';

  /**
   * Connections the run tried to open to db.example.com (pg opens a net.Socket and connects
   * it): counted, and refused at once here, so no test waits on a name lookup.
   */
  let attempts: unknown[][];
  beforeEach(() => {
    attempts = [];
    const connect = Object.getOwnPropertyDescriptor(Socket.prototype, 'connect')!.value as (...a: unknown[]) => Socket;
    vi.spyOn(Socket.prototype, 'connect').mockImplementation(function (this: Socket, ...args: unknown[]) {
      if (!JSON.stringify(args).includes('db.example.com')) return connect.apply(this, args);
      attempts.push(args);
      process.nextTick(() => this.destroy(Object.assign(new Error('connect ECONNREFUSED db.example.com (refused by the test)'), { code: 'ECONNREFUSED' })));
      return this;
    });
  });
  afterEach(() => vi.restoreAllMocks());

  it.each(['prefer', 'disable', 'allow'])('config set ledger --stdin with sslmode=%s for db.example.com: exit 2, nothing saved, the verify-full form', async (mode) => {
    const r = await run(['config', 'set', 'ledger', '--stdin'], { input: `${url}?sslmode=${mode}\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`The ledger "${masked}?sslmode=${mode}" asks for sslmode=${mode}, which would send the password to db.example.com without TLS`);
    expect(r.stderr).toContain(`${masked}?sslmode=verify-full (your password in place of ****)`);
    expect(readProfile(cfg.dir)).toEqual({});
    expectNoSecrets(r, [PASSWORD]);
  });

  it('no sslmode for db.example.com is verify-full: saved as given, no warning', async () => {
    const r = await run(['config', 'set', 'ledger', '--stdin'], { input: `${url}\n` });
    expect([r.code, r.stderr]).toEqual([0, `✓ Set ledger in profile "default": ${masked}.\n`]);
  });

  it.each([
    ['sslmode=prefer in the URL', `${url}?sslmode=prefer`, {}, `PAYCTL_LEDGER_URL "${masked}?sslmode=prefer" asks for sslmode=prefer`],
    ['PGSSLMODE=disable', url, { PGSSLMODE: 'disable' }, `PAYCTL_LEDGER_URL "${masked}" asks for PGSSLMODE=disable`],
  ])('PAYCTL_LEDGER_URL with %s, to ledger status, import, history and plan commands: exit 2 before any connection is tried', async (_, value, env, says) => {
    for (const args of [['ledger', 'status'], ['ledger', 'import'], ['history'], ['plan', 'show', 'sha256:0123456789ab'], ['ledger', 'status', '--json']]) {
      const r = await run(args, { env: { PAYCTL_LEDGER_URL: value, ...env } });
      // With --json the error is a JSON document on stderr, stdout empty.
      const json = args.includes('--json') ? oneJson(r.stderr).error : undefined;
      const out = json ? `${json.message} ${json.hint}` : r.stderr;
      if (json) expect(r.stdout).toBe('');
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(out).toContain(`${says}, which would send the password to db.example.com without TLS`);
      expect(out).toContain(`${masked}?sslmode=verify-full (your password in place of ****)`);
      expect(out).not.toContain('Cannot reach');
      expectNoSecrets(r, [PASSWORD]);
    }
    expect(attempts).toEqual([]);
  });

  it('a profile ledger saved before with sslmode=prefer: refused when used, before any connection', async () => {
    writeProfile(cfg.dir, { ledger: `${url}?sslmode=prefer` });
    const r = await run(['ledger', 'status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`The profile's ledger "${masked}?sslmode=prefer" asks for sslmode=prefer`);
    expect(attempts).toEqual([]);
  });

  it('sslmode=require when used: one warning on stderr per command, --json stdout the result alone', async () => {
    // ?host= names the host the client connects to: loopback here, so no warning.
    const loopback = `postgres://u:${PASSWORD}@db.example.com:${await closedPort()}/x?sslmode=require&host=127.0.0.1`;
    const r = await run(['ledger', 'status', '--json'], { env: { PAYCTL_LEDGER_URL: loopback } });
    expect(r.code).toBe(2);
    expect(warningsOf(r.stderr)).toEqual([]);
    const remote = await run(['ledger', 'status', '--json'], { env: { PAYCTL_LEDGER_URL: `${url}?sslmode=require&connect_timeout=2` } });
    expect(remote.code).toBe(2);
    expect(attempts.length).toBeGreaterThan(0);
    // Under --json a JSON line of its own (src/output/log.ts), before the error, the last line.
    expect(
      warningsOf(remote.stderr).filter((w) =>
        w.startsWith('PAYCTL_LEDGER_URL postgres://u:****@db.example.com/x?sslmode=require&connect_timeout=2 uses sslmode=require'),
      ),
    ).toHaveLength(1);
    expect(errorOf(remote.stderr).message).toBeTruthy();
    expect(remote.stderr).toContain('postgres://u:****@db.example.com/x?sslmode=verify-full&connect_timeout=2 (your password in place of ****)');
    expect(oneJson(remote.stdout)).toMatchObject({ backend: 'postgresql', reachable: false });
    expectNoSecrets(remote, [PASSWORD]);
  });
});

describe('ledger status and import with the local journal', () => {
  beforeEach(() => writeProfile(cfg.dir, {}));

  it('status: local, the journal folder and its entries; --json', async () => {
    const r = await run(['ledger', 'status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Ledger   local\nJournal  ${join(cfg.dir, 'journal')}\nEntries  0\n`);
    const j = await run(['ledger', 'status', '--json']);
    expect(oneJson(j.stdout)).toEqual({ profile: 'default', backend: 'local', source: 'default', path: join(cfg.dir, 'journal'), entries: 0, unreadable: 0 });
  });

  it('PAYCTL_LEDGER_URL wins over the profile, local included; a bad one is exit 2 and masked', async () => {
    writeProfile(cfg.dir, { ledger: `postgres://team:${PASSWORD}@127.0.0.1:1/payctl` });
    const local = await run(['ledger', 'status', '--json'], { env: { PAYCTL_LEDGER_URL: 'local' } });
    expect(local.code, local.stderr).toBe(0);
    expect(oneJson(local.stdout)).toMatchObject({ backend: 'local', source: 'PAYCTL_LEDGER_URL' });
    const bad = await run(['ledger', 'status'], { env: { PAYCTL_LEDGER_URL: `mysql://team:${PASSWORD}@db/x` } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('PAYCTL_LEDGER_URL must be local or a postgres:// or postgresql:// URL (got "mysql://team:****@db/x")');
    for (const r of [local, bad]) expectNoSecrets(r, [PASSWORD]);
  });

  it('import into a local ledger: exit 2, nothing to import into; the command it prints works as printed', async () => {
    const r = await run(['ledger', 'import']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Nothing to import into: profile "default" keeps its journal locally. Nothing was copied.');
    expect(r.stderr).toContain('Set a shared ledger first: payctl config set ledger --stdin (reads the PostgreSQL URL from standard input)');
    const printed = /Set a shared ledger first: payctl (config set ledger --stdin) /.exec(r.stderr)![1]!.split(' ');
    const url = 'postgres://team@db.example.com/payctl';
    const set = await run(printed, { input: `${url}\n` });
    expect(set.code, set.stderr).toBe(0);
    expect(readProfile(cfg.dir)).toEqual({ ledger: url });
    expect(existsSync(join(cfg.dir, 'journal'))).toBe(false);
  });

  it('import with another profile prints the command for that profile', async () => {
    writeProfile(cfg.dir, {}, 'team');
    const r = await run(['ledger', 'import', '--profile', 'team']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('payctl config set ledger --profile team --stdin');
  });
});

describe('reads and status with a shared ledger that cannot be reached', () => {
  let url: string;
  beforeEach(async () => {
    await writeLoggedIn(ctx.sb, cfg.dir, KEY);
    url = `postgres://team:${PASSWORD}@127.0.0.1:${await closedPort()}/payctl`;
    const set = await run(['config', 'set', 'ledger', '--stdin'], { input: url });
    expect(set.code, set.stderr).toBe(0);
  });

  it('balances, payouts list and summary work: they never open the ledger', async () => {
    for (const args of [['balances'], ['payouts', 'list'], ['summary']]) {
      const r = await run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expectNoSecrets(r, [PASSWORD]);
    }
  });

  it('status names the ledger, masked, without connecting (exit 0); --json too', async () => {
    const masked = url.replace(PASSWORD, '****');
    const r = await run(['status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Ledger +${masked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(PostgreSQL, not checked here: payctl ledger status\\)$`, 'm'));
    const j = await run(['status', '--json']);
    expect(j.code, j.stderr).toBe(0);
    expect(oneJson(j.stdout).ledger).toEqual({ backend: 'postgresql', url: masked, source: 'profile' });
    const env = await run(['status', '--json'], { env: { PAYCTL_LEDGER_URL: 'local' } });
    expect(oneJson(env.stdout).ledger).toBeUndefined();
    for (const x of [r, j, env]) expectNoSecrets(x, [PASSWORD]);
  });
});
