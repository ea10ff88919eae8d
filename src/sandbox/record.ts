/**
 * The record of a background sandbox (`payctl sandbox start --detach`):
 * `<config dir>/sandbox.json`, mode 0600 in a 0700 folder, written atomically by the
 * detached process once it listens and removed by it on a clean shutdown (only when
 * the record is still its own). `stop` and `status` read it and check that the
 * process is alive and really is that sandbox.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, unlink, writeFile, chmod } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir, ensureConfigDir } from '../config/paths.js';
import type { Host } from '../host.js';

export const RECORD_FILE = 'sandbox.json';
export const LOG_FILE = 'sandbox.log';
/** Set in the environment of the detached child, which then writes and removes the record. */
export const DETACHED_ENV = 'PAYCTL_SANDBOX_DETACHED';
/**
 * The sandbox's API key and webhook secret when not given as flags. The detached child
 * always gets them this way: a process's command line is visible to every user of the
 * machine (ps, /proc/<pid>/cmdline), its environment only to its owner.
 */
export const API_KEY_ENV = 'PAYCTL_SANDBOX_API_KEY';
export const WEBHOOK_SECRET_ENV = 'PAYCTL_SANDBOX_WEBHOOK_SECRET';

export interface SandboxRecord {
  pid: number;
  port: number;
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  startedAt: string;
}

export function recordPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), RECORD_FILE);
}

export function logPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), LOG_FILE);
}

/** The record, or undefined when there is none (or it is unreadable: treated as stale). */
export async function readRecord(env: NodeJS.ProcessEnv): Promise<SandboxRecord | undefined> {
  let text: string;
  try {
    text = await readFile(recordPath(env), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const r = JSON.parse(text) as Partial<SandboxRecord>;
    if (typeof r.pid !== 'number' || typeof r.port !== 'number' || typeof r.baseUrl !== 'string') return undefined;
    return {
      pid: r.pid,
      port: r.port,
      baseUrl: r.baseUrl,
      apiKey: String(r.apiKey ?? ''),
      webhookSecret: String(r.webhookSecret ?? ''),
      startedAt: String(r.startedAt ?? ''),
    };
  } catch {
    return undefined;
  }
}

export async function writeRecord(env: NodeJS.ProcessEnv, record: SandboxRecord): Promise<void> {
  ensureConfigDir(configDir(env), env);
  const file = recordPath(env);
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/** Removes the record; with `pid`, only when the record names that pid. */
export async function removeRecord(env: NodeJS.ProcessEnv, pid?: number): Promise<void> {
  if (pid !== undefined) {
    const r = await readRecord(env);
    if (!r || r.pid !== pid) return;
  }
  await unlink(recordPath(env)).catch(() => {});
}

/**
 * Whether a process runs. A zombie (exited, waiting to be reaped by a parent that
 * never does, as in some containers where PID 1 does not reap orphans) counts as gone.
 */
export function processAlive(host: Host, pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    host.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
  } catch {
    // No /proc (macOS): kill(0) is all we have.
  }
  return true;
}

/** The command line of a process where /proc has it; undefined elsewhere. */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return undefined;
  }
}

/** GET /_sandbox/health of the recorded sandbox answers with the recorded pid. */
export async function healthMatches(record: SandboxRecord, timeoutMs = 1500): Promise<boolean> {
  try {
    const origin = record.baseUrl.replace(/\/v2\/?$/, '');
    const res = await fetch(`${origin}/_sandbox/health`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return false;
    const body = (await res.json()) as { data?: { pid?: unknown } };
    return body.data?.pid === record.pid;
  } catch {
    return false;
  }
}

/**
 * Whether the recorded sandbox still runs: its process is alive and either answers
 * health checks with its pid or (when it does not answer, hung) its command line is a
 * payctl sandbox. A reused pid of some other program is not mistaken for it.
 */
export async function recordedSandboxRuns(record: SandboxRecord, host: Host): Promise<boolean> {
  if (!processAlive(host, record.pid)) return false;
  if (await healthMatches(record)) return true;
  const cmd = commandLine(record.pid);
  return cmd === undefined ? true : /sandbox/.test(cmd) && /start/.test(cmd);
}
