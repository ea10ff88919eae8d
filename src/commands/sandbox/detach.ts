/**
 * `payctl sandbox start --detach`, the parent: starts the sandbox in a background process (the
 * detached child, start.ts run with PAYCTL_SANDBOX_DETACHED=1), waits until the child has
 * claimed the config folder's record and saved the profile, and prints what it recorded. The
 * child gets the secrets through its environment, never on its command line, and only the
 * variables it needs. Of two starts at the same moment, the child that
 * claims the record second exits 2; its parent then says which sandbox runs (exit 2).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, existsSync, fchmodSync, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, ExitCode, LocalError, RefusedError, UsageError } from '../../errors.js';
import { folderFault } from '../../config/folder-fault.js';
import { kindOf, openRegular } from '../../config/regular-file.js';
import { shellQuote } from '../../config/shell.js';
import type { Deps } from '../../deps.js';
import { configDir, ensureConfigDir } from '../../config/paths.js';
import type { ErrorShape, ListShape } from '../../sandbox/shapes.js';
import {
  API_KEY_ENV,
  DETACHED_ENV,
  WEBHOOK_SECRET_ENV,
  findRecord,
  logPath,
  readRecord,
  recordedSandboxRuns,
  removeRecord,
  type SandboxRecord,
} from '../../sandbox/record.js';
import { damagedRecord } from './damaged-record.js';
import { alreadyRunning, sayHowToUse, show } from './announce.js';

export interface StartOptions {
  port?: number;
  detach?: boolean;
  apiKey?: string;
  seed?: number;
  state?: string;
  settleAfter?: number;
  listShape?: ListShape;
  errorShape?: ErrorShape;
  kycStatus?: string;
  webhookUrl?: string;
  webhookSecret?: string;
  rateLimit?: number;
}

const READY_TIMEOUT_MS = 10_000;
/** The end of a start's refusal over a damaged record. */
export const NOT_STARTED = 'The sandbox was not started.';

/** bin/payctl.js of this package: found upwards from this module (a dist chunk, or src/… under tests). */
function binPath(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'bin', 'payctl.js');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error('cannot find bin/payctl.js above ' + fileURLToPath(import.meta.url));
  }
}

/** The child's command line: no secret (see childEnv). */
function childArgs(opts: StartOptions): string[] {
  const args = ['sandbox', 'start', '--port', String(opts.port ?? 0)];
  if (opts.seed !== undefined) args.push('--seed', String(opts.seed));
  if (opts.settleAfter !== undefined) args.push('--settle-after', String(opts.settleAfter));
  if (opts.rateLimit !== undefined) args.push('--rate-limit', String(opts.rateLimit));
  if (opts.listShape !== undefined) args.push('--list-shape', opts.listShape);
  if (opts.errorShape !== undefined) args.push('--error-shape', opts.errorShape);
  if (opts.kycStatus !== undefined) args.push('--kyc-status', opts.kycStatus);
  if (opts.state !== undefined) args.push('--state', opts.state);
  if (opts.webhookUrl !== undefined) args.push('--webhook-url', opts.webhookUrl);
  return args;
}

/**
 * What the detached child keeps of this environment: finding node and the user (PATH,
 * HOME, USER), the config folder and the code cache, the OS keyring's session (the
 * sandbox profile may keep its key there), temp files, locale and time zone, and Windows'
 * own. Nothing else: the child outlives the shell, and PAYCTL_API_KEY, tokens and proxies
 * have no business in a process that anyone who can read its environment may read.
 */
const CHILD_ENV = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'TMP',
  'TEMP',
  'TZ',
  'LANG',
  'LANGUAGE',
  'PAYCTL_CONFIG_DIR',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
  'DBUS_SESSION_BUS_ADDRESS',
  'SYSTEMROOT',
  'WINDIR',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'COMSPEC',
  'PATHEXT',
]);

/** The child's environment: only CHILD_ENV and LC_* of ours, and the secrets (readable only by this user). */
function childEnv(opts: StartOptions, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    // Windows names its variables in any case (Path, SystemRoot).
    if (v !== undefined && (CHILD_ENV.has(k.toUpperCase()) || k.startsWith('LC_'))) out[k] = v;
  }
  out[DETACHED_ENV] = '1';
  out.NO_COLOR = '1';
  if (opts.apiKey !== undefined) out[API_KEY_ENV] = opts.apiKey;
  if (opts.webhookSecret !== undefined) out[WEBHOOK_SECRET_ENV] = opts.webhookSecret;
  return out;
}

/** The last lines of the child's log, for a start that failed: its last 64 KiB, never blocking (regular-file.ts). */
function logTail(file: string): string {
  try {
    const f = openRegular(file);
    if (!f) return '';
    try {
      const buf = Buffer.alloc(Math.min(f.st.size, 64 * 1024));
      const n = readSync(f.fd, buf, 0, buf.length, f.st.size - buf.length);
      return buf.toString('utf8', 0, n).trim().split('\n').slice(-8).join('\n');
    } finally {
      closeSync(f.fd);
    }
  } catch {
    return '';
  }
}

/**
 * The log opened for the child's output (it holds the sandbox's API key and webhook secret):
 * never through a symlink (one there had its target overwritten with them, left 0644), never
 * blocking, a regular file, 0600 even when it was there before. Refused otherwise (exit 2).
 */
function openLog(log: string): number {
  let fd: number;
  try {
    fd = openSync(log, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0), 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENXIO: a named pipe nobody reads (opened without waiting).
    if (code === 'ELOOP' || code === 'ENXIO') throw refusedLog(log, code === 'ELOOP' ? 'it is a symbolic link' : 'it is a named pipe (FIFO), not a regular file');
    // The folder cannot be written (permission denied, read-only, full): named, with what would help.
    throw folderFault(dirname(log), err, `write the sandbox log ${log}`, `. ${NOT_STARTED}`);
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw refusedLog(log, `it is ${kindOf(st)}, not a regular file`);
  }
  fchmodSync(fd, 0o600);
  return fd;
}

function refusedLog(log: string, why: string): ConfigError {
  return new ConfigError(
    `Cannot write the sandbox log ${log}: ${why}. The sandbox was not started.`,
    `payctl writes the sandbox's API key and webhook secret there, into a file of its own. Move it away, then start the sandbox again:\n  mv ${shellQuote(log)} ${shellQuote(`${log}.moved`)}`,
  );
}

/** How the child ended, once it has. */
interface Watched {
  exited?: { code: number | null; signal: NodeJS.Signals | null };
  spawnError?: Error;
}

/** Starts the child, its output to the log (0600), detached from this process. */
function spawnChild(opts: StartOptions, deps: Deps, log: string): { child: ChildProcess; watched: Watched } {
  const fd = openLog(log);
  let child: ChildProcess;
  try {
    child = spawn(deps.host.execPath, [binPath(), ...childArgs(opts)], {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: childEnv(opts, deps.env),
    });
  } finally {
    closeSync(fd);
  }
  const watched: Watched = {};
  child.on('exit', (code, signal) => (watched.exited = { code, signal }));
  child.on('error', (err) => (watched.spawnError = err));
  child.unref();
  return { child, watched };
}

/**
 * Why the child ended before it was ready: another start claimed the record first (the child
 * exits 2 for it) and its sandbox runs, or else the end of its log. A child that refused what it
 * was given (exit 2: a damaged state file, a port in use) ends the parent with exit 2 too, as
 * the same start in the foreground does; any other end is a failure here (exit 1).
 */
async function endedEarly(deps: Deps, child: ChildProcess, exited: NonNullable<Watched['exited']>, log: string): Promise<Error> {
  if (exited.code === ExitCode.usage) {
    const holder = await readRecord(deps.env);
    if (holder && holder.pid !== child.pid && (await recordedSandboxRuns(holder, deps.host, deps.env))) return alreadyRunning(holder);
  }
  const tail = logTail(log);
  const how = `The background sandbox exited before it was ready (${exited.signal ?? `exit code ${exited.code}`})`;
  const said = childError(tail);
  const message = said ? `${how}: ${said.message}` : `${how}.` + (tail ? `\n${tail}` : '');
  const hint = [said?.advice, `Its log is in ${log}.`].filter(Boolean).join('\n');
  if (exited.code === ExitCode.usage) return new RefusedError(message, [], hint);
  return new LocalError(message, hint);
}

/**
 * The child's own error, as it printed it in its log ("Error: Port 4010 is already in use.",
 * its "  - " lines, then its advice): the message without "Error:", and the advice apart, for
 * the hint (probe C53, 6: both were in the message, "Error:" and all). Undefined when the log
 * ends without one (a child that died otherwise: its last lines are the message, as before).
 */
function childError(tail: string): { message: string; advice: string | undefined } | undefined {
  const lines = tail.split('\n');
  let i = lines.length - 1;
  while (i >= 0 && !lines[i]!.startsWith('Error: ')) i--;
  if (i < 0) return undefined;
  let j = i + 1;
  while (j < lines.length && lines[j]!.startsWith('  ')) j++;
  const advice = lines.slice(j).join('\n').trim();
  return { message: [lines[i]!.slice('Error: '.length), ...lines.slice(i + 1, j)].join('\n'), advice: advice || undefined };
}

/** Waits for the child's finished record (claimed, profile saved); stops the child on Ctrl-C or time-out. */
async function untilReady(deps: Deps, child: ChildProcess, watched: Watched, log: string): Promise<SandboxRecord> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (watched.spawnError) throw new LocalError(`Could not start the background sandbox: ${watched.spawnError.message}`);
    if (watched.exited) throw await endedEarly(deps, child, watched.exited, log);
    if (deps.signal.aborted || Date.now() > deadline) {
      if (child.pid) {
        try {
          deps.host.kill(child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      if (deps.signal.aborted) throw new UsageError('Interrupted before the sandbox was ready; it was stopped.');
      throw new LocalError(`The background sandbox did not report ready within ${READY_TIMEOUT_MS / 1000} s; it was stopped.`, `Its log is in ${log}.`);
    }
    await new Promise((r) => setTimeout(r, 50));
    const r = await readRecord(deps.env);
    if (r && r.pid === child.pid && !r.starting) return r;
  }
}

/**
 * The parent of `sandbox start --detach`: refuses when this folder's sandbox runs, or its record
 * is damaged (before the log, which names the port, is written over), else starts one and waits for it.
 */
export async function startDetached(opts: StartOptions, deps: Deps): Promise<number> {
  const found = await findRecord(deps.env);
  if (found && 'damaged' in found) throw damagedRecord(deps.env, found, NOT_STARTED);
  const existing = found?.record;
  if (existing) {
    if (await recordedSandboxRuns(existing, deps.host, deps.env)) throw alreadyRunning(existing);
    // Stale: its process is gone, or is not this record's sandbox (left alone).
    await removeRecord(deps.env, { pid: existing.pid, instance: existing.instance });
  }
  ensureConfigDir(configDir(deps.env));
  const log = logPath(deps.env);
  const { child, watched } = spawnChild(opts, deps, log);
  const record = await untilReady(deps, child, watched, log);
  await show(deps, { baseUrl: record.baseUrl, apiKey: record.apiKey, webhookSecret: record.webhookSecret, port: record.port, pid: record.pid });
  // The child saved the profiles before it finished its record.
  sayHowToUse(deps, record);
  deps.log.info(`Running in the background (pid ${record.pid}). Stop it with: payctl sandbox stop`);
  return 0;
}
