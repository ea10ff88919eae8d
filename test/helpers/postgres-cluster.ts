/**
 * A real, throw-away PostgreSQL cluster: initdb (or a copy of a cluster folder initdb made) in a
 * temp folder, postgres listening on 127.0.0.1 only, on a free port, its unix sockets in that
 * folder; stopped fast and the folder removed afterwards. The programs come from
 * scripts/pg-bin.mjs (on PATH, or Debian's /usr/lib/postgresql/<version>/bin), which
 * scripts/test-prereqs.mjs installs when missing.
 *
 * Two roles: the superuser `postgres`, trusted on loopback and the sockets (no password), for the
 * harness and for tests that set things up; and `payctl`, a login role with a random password
 * (scram-sha-256), owner of the database `payctl` and of every fresh database: what the ledger
 * connects as, so that tests exercise a password.
 *
 * initdb and postgres refuse to run as root: as root they run as the `postgres` user (the
 * package makes it), through setpriv, which execs the program (no process in between: the
 * child's pid is the postmaster's, which is what gets signalled), and the folder is theirs.
 *
 * The server runs with fsync off (initdb with --no-sync): a throw-away cluster, usually on tmpfs
 * (vitest.config.ts points TMPDIR at /dev/shm), whose flushes would only cost time where TMPDIR
 * is a disk. What fsync guards against is the machine losing its page cache; a server stopped
 * with SIGQUIT (stopServer, `pg_ctl stop -m immediate`) is a crash of PostgreSQL, not of the
 * machine, and comes back through crash recovery from the WAL exactly as with fsync on. The
 * ledger's durability is the server's business, not this harness's.
 *
 * This module runs in vitest's main process (test/helpers/postgres-global.ts starts the suite's
 * shared cluster) as well as in test files: it does not import vitest. Test files use
 * test/helpers/postgres.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, mkdtempSync, openSync, readFileSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBinDir } from '../../scripts/pg-bin.mjs';

export const HOST = '127.0.0.1';
const SUPERUSER = 'postgres';
/** The password-protected role, and its database. */
const ROLE = 'payctl';
const DIR_PREFIX = 'payctl-pg-';

/** Where to reach a running cluster: plain data, written to a file for test files to read. */
export interface PostgresInfo {
  host: string;
  port: number;
  /** The superuser (`postgres`), no password (trusted on loopback), database `postgres`. */
  superuserUrl: string;
  /** The password role `payctl`, on its database `payctl`. */
  url: string;
  user: string;
  password: string;
  database: string;
  /** The cluster's temp folder: data/, the log (postgres.log), the unix sockets. */
  dir: string;
}

export interface PostgresCluster extends PostgresInfo {
  /** A new, empty database owned by `payctl`: its URL as `payctl` (with the password). */
  freshDatabase(hint?: string): Promise<string>;
  /** Stops the server at once (SIGQUIT: `pg_ctl stop -m immediate`, a crash), keeping the data and the port. */
  stopServer(): Promise<void>;
  /** Starts the stopped server again on the same data and port; resolves once it accepts connections. */
  startServer(): Promise<void>;
  /** Stops the server and removes the folder. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** A cluster folder made by initCluster (never started): copied instead of running initdb. */
  template?: string;
  /** Aborts the start: the running initdb, copy or postgres is killed and the folder removed. */
  signal?: AbortSignal;
  /**
   * fsync on, in a folder under `parent` (default: the temp folder): what `npm run bench` uses to
   * compare the shared ledger with the local one, which fsyncs every claim on the ordinary disk.
   */
  durable?: { parent?: string };
}

const asRoot = process.getuid?.() === 0;

function bin(program: string): string {
  const dir = postgresBinDir();
  if (!dir) throw new Error('PostgreSQL (initdb, postgres) is not installed: run `node scripts/test-prereqs.mjs` (as root it installs Debian\'s "postgresql").');
  return join(dir, program);
}

/** The `postgres` user's uid and gid, when running as root. */
let owner: { uid: number; gid: number } | undefined;
function ownerIds(): { uid: number; gid: number } {
  if (owner) return owner;
  const id = (flag: string) => Number(spawnSync('id', [flag, SUPERUSER], { encoding: 'utf8' }).stdout.trim());
  const ids = { uid: id('-u'), gid: id('-g') };
  if (!Number.isInteger(ids.uid) || ids.uid <= 0)
    throw new Error('Running as root, the PostgreSQL harness needs the `postgres` user (Debian\'s "postgresql" package makes it).');
  return (owner = ids);
}

/** The command line that runs a PostgreSQL program as the user that may run it. */
function asOwner(program: string, args: string[]): [string, string[]] {
  if (!asRoot) return [program, args];
  ownerIds();
  return ['setpriv', [`--reuid=${SUPERUSER}`, `--regid=${SUPERUSER}`, '--init-groups', '--', program, ...args]];
}

/** Runs a program to its end; rejects with its output when it fails or the signal aborts it. */
function run(command: string, args: string[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const abort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', abort, { once: true });
    child.on('error', reject);
    child.on('close', (code, sig) => {
      signal?.removeEventListener('abort', abort);
      if (signal?.aborted) reject(signal.reason as Error);
      else if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} failed (${code ?? sig}):\n${output}`));
    });
  });
}

/**
 * A temp folder for a cluster (or the suite's shared state), named payctl-pg-*, with the pid of
 * the process that owns it (sweepStale removes folders whose owner is gone), and owned by the
 * user that runs PostgreSQL.
 */
export function makeDir(parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, DIR_PREFIX));
  writeFileSync(join(dir, 'owner'), String(process.pid));
  if (asRoot) chownSync(dir, ownerIds().uid, ownerIds().gid);
  return dir;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The postmaster's pid from a data folder's postmaster.pid, if that process is the one running there. */
function postmasterIn(data: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && readlinkSync(`/proc/${pid}/cwd`) === data ? pid : undefined;
  } catch {
    return undefined;
  }
}

let swept = false;
/**
 * Removes what earlier runs left behind (a run killed before its teardown): every payctl-pg-*
 * folder in the temp folder whose owning process is gone, its server stopped first. Folders of
 * live processes (another vitest run at the same time) are left alone.
 */
export function sweepStale(): void {
  if (swept) return;
  swept = true;
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = join(tmpdir(), name);
    try {
      let pid: number;
      try {
        pid = Number(readFileSync(join(dir, 'owner'), 'utf8'));
      } catch {
        // Just made, its owner not written yet; or a minute old and never will be.
        if (Date.now() - statSync(dir).mtimeMs < 60_000) continue;
        pid = 0;
      }
      if (pid > 0 && alive(pid)) continue;
      const postmaster = postmasterIn(join(dir, 'data'));
      if (postmaster) process.kill(postmaster, 'SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // another sweeper got there first, or not ours to remove
    }
  }
}

/**
 * initdb into `data` (a folder that must not exist, in one from makeDir), and the cluster's
 * access rules: the superuser trusted on the sockets and loopback, everyone else by password.
 */
export async function initCluster(data: string, signal?: AbortSignal): Promise<void> {
  const [command, args] = asOwner(bin('initdb'), ['-D', data, '-U', SUPERUSER, '--auth=trust', '--no-sync', '--no-instructions', '--locale=C', '--encoding=UTF8']);
  await run(command, args, signal);
  writeFileSync(
    join(data, 'pg_hba.conf'),
    [
      '# A throw-away test cluster (test/helpers/postgres-cluster.ts).',
      `local all ${SUPERUSER} trust`,
      `host all ${SUPERUSER} ${HOST}/32 trust`,
      'local all all scram-sha-256',
      `host all all ${HOST}/32 scram-sha-256`,
      '',
    ].join('\n'),
  );
}

/** A port free on 127.0.0.1 now (the kernel's pick); released for postgres to take. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The port was taken between freePort and postgres binding it. */
class PortTaken extends Error {}

/**
 * Clusters of this process still running: stopped when the process exits without stopping them
 * (a test file without its afterAll), on exit or on SIGTERM, which is how vitest ends its forks
 * workers (and which ends a process without an 'exit' event). The SIGTERM is then raised again,
 * to end the process as it would have, unless something else of the process handles it.
 */
const running = new Set<Cluster>();
let exitHook = false;
function onExit(): void {
  for (const cluster of running) cluster.kill();
}
function onSigterm(): void {
  onExit();
  if (process.listenerCount('SIGTERM') === 0) process.kill(process.pid, 'SIGTERM');
}

class Cluster implements PostgresCluster {
  readonly host = HOST;
  readonly user = ROLE;
  readonly database = ROLE;
  readonly password = randomBytes(12).toString('hex');
  port = 0;
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;
  private stopped = false;

  constructor(
    readonly dir: string,
    readonly durable = false,
  ) {}

  get data(): string {
    return join(this.dir, 'data');
  }

  get superuserUrl(): string {
    return `postgres://${SUPERUSER}@${HOST}:${this.port}/${SUPERUSER}`;
  }

  get url(): string {
    return urlFor(this, this.database);
  }

  freshDatabase(hint?: string): Promise<string> {
    return freshDatabase(this, hint);
  }

  /** Spawns postgres on this.port and waits until it accepts connections (postmaster.pid says "ready"). */
  async startServer(signal?: AbortSignal): Promise<void> {
    if (this.child) throw new Error('the server is already running');
    const log = openSync(join(this.dir, 'postgres.log'), 'a');
    const logStart = statSync(join(this.dir, 'postgres.log')).size;
    const [command, args] = asOwner(bin('postgres'), [
      '-D',
      this.data,
      '-p',
      String(this.port),
      '-k',
      this.dir,
      '-c',
      `listen_addresses=${HOST}`,
      '-c',
      `fsync=${this.durable ? 'on' : 'off'}`,
    ]);
    let child: ChildProcess;
    try {
      child = spawn(command, args, { stdio: ['ignore', log, log], env: { ...process.env, LC_ALL: 'C' } });
    } finally {
      closeSync(log);
    }
    // The server is not what keeps a test process (or vitest) running.
    child.unref();
    let exitedWith: string | undefined;
    this.child = child;
    this.exited = new Promise<void>((resolve) => {
      child.once('error', (err) => {
        exitedWith = String(err);
        resolve();
      });
      child.once('exit', (code, sig) => {
        exitedWith = String(code ?? sig);
        resolve();
      });
    }).then(() => {
      if (this.child === child) this.child = undefined;
      running.delete(this);
    });
    running.add(this);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', onExit);
      process.once('SIGTERM', onSigterm);
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (exitedWith !== undefined) {
        await this.exited;
        const output = readFileSync(join(this.dir, 'postgres.log'), 'utf8').slice(logStart);
        if (/could not bind IPv4 address|Address already in use|could not create any TCP\/IP sockets/.test(output)) throw new PortTaken(output);
        throw new Error(`postgres exited (${exitedWith}) while starting:\n${output}`);
      }
      if (signal?.aborted) {
        await this.stopServer();
        throw signal.reason as Error;
      }
      if (Date.now() > deadline) {
        await this.stopServer();
        throw new Error(`postgres did not get ready in 30 s: see ${join(this.dir, 'postgres.log')}`);
      }
      try {
        const lines = readFileSync(join(this.data, 'postmaster.pid'), 'utf8').split('\n');
        if (Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return;
      } catch {
        // not written yet
      }
      await sleep(10);
    }
  }

  async stopServer(): Promise<void> {
    const child = this.child;
    if (!child) return;
    // Immediate shutdown: the postmaster quits its backends and exits without a checkpoint. Its
    // exit is waited for with the child referenced again: in a teardown nothing else may keep
    // Node's event loop alive, and Node would exit (leaving the rest undone) while waiting.
    child.ref();
    child.kill('SIGQUIT');
    await this.exited;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    try {
      await this.stopServer();
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  /** At process exit (synchronous): the server told to quit, the folder removed. */
  kill(): void {
    try {
      this.child?.kill('SIGQUIT');
    } catch {
      // already gone
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function urlFor(info: { host: string; port: number; user: string; password: string }, database: string): string {
  return `postgres://${info.user}:${info.password}@${info.host}:${info.port}/${database}`;
}

/** Runs SQL as the superuser, in one short connection. */
async function asSuperuser(info: Pick<PostgresInfo, 'superuserUrl'>, statements: string[]): Promise<void> {
  // Loaded when first needed (73 ms): not while vitest's globalSetup holds up the run.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: info.superuserUrl });
  await client.connect();
  try {
    for (const sql of statements) await client.query(sql);
  } finally {
    await client.end();
  }
}

let databases = 0;
/**
 * A new, empty database owned by the password role, named after the hint (a test file's name)
 * and made unique: test files do not see each other's tables. Its URL as the password role.
 */
export async function freshDatabase(info: Omit<PostgresInfo, 'url' | 'dir'>, hint = 'test'): Promise<string> {
  const name = `${hint
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30)}_${process.pid}_${++databases}_${randomBytes(3).toString('hex')}`;
  await asSuperuser(info, [`CREATE DATABASE "${name}" OWNER "${info.user}"`]);
  return urlFor(info, name);
}

/**
 * A running cluster in a new temp folder, ready for connections, with the password role and its
 * database. The caller stops it (`stop()`, in an afterAll), or it is stopped when the process exits.
 */
export async function startPostgres(options: StartOptions = {}): Promise<PostgresCluster> {
  const { template, signal, durable } = options;
  sweepStale();
  const cluster = new Cluster(makeDir(durable?.parent), durable !== undefined);
  try {
    if (template) await run('cp', ['-a', template, cluster.data], signal);
    else await initCluster(cluster.data, signal);
    for (let attempt = 1; ; attempt++) {
      cluster.port = await freePort();
      try {
        await cluster.startServer(signal);
        break;
      } catch (err) {
        if (!(err instanceof PortTaken) || attempt === 5) throw err;
      }
    }
    await asSuperuser(cluster, [`CREATE ROLE "${ROLE}" LOGIN PASSWORD '${cluster.password}'`, `CREATE DATABASE "${ROLE}" OWNER "${ROLE}"`]);
    return cluster;
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}

/**
 * The shared cluster's state folder (test/helpers/postgres-global.ts): a test file that needs the
 * cluster writes WANTED; the cluster's start then writes READY, a SharedState as JSON, once the
 * server accepts connections, or FAILED, the error, when it cannot start.
 */
export const WANTED = 'wanted';
export const READY = 'ready.json';
export const FAILED = 'failed';

export interface SharedState extends PostgresInfo {
  /** The cluster folder initdb made, never started: startPostgres({ template }) copies it. */
  template: string;
  /** Milliseconds from the start of initdb: to its end, and to the server accepting connections. */
  timing: { initdbMs: number; startMs: number };
}

/** Writes a file whole or not at all (for a reader polling for it). */
export function writeAtomically(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}
