/**
 * The record of a background sandbox (`payctl sandbox start --detach`):
 * `<config dir>/sandbox.json`, mode 0600 in a 0700 folder. The detached process claims the
 * config folder with it once it listens: created exclusively (so of two starts at the same
 * moment one runs and the other exits 2, never an orphan), first `starting`, then rewritten
 * atomically once the profile is saved; removed by it on a clean shutdown (only when the record
 * is still its own). `stop` and `status` read it and act only on a process proven to be this
 * record's sandbox: its health route answers with the recorded pid and the record's instance
 * token, or (hung, not answering) it is a detached `payctl sandbox start` of this config folder
 * by its command line and environment. Anything else is a stale record, even when its pid is
 * alive: the pid may have been reused by any program, or by another folder's sandbox. A record
 * that is damaged (not one payctl wrote: cut short, emptied, edited) proves nothing either way:
 * it is never taken for none, nor removed by payctl (findRecord).
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, rename, unlink, writeFile } from 'node:fs/promises';
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { configDir, ensureConfigDir } from '../config/paths.js';
import { folderFault, isFsError } from '../config/folder-fault.js';
import { readRegular } from '../config/regular-file.js';
import { procStat, type Host } from '../host.js';

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
  /** A random token of this start, which its health route reports; '' in a record of an older payctl. */
  instance: string;
  /** Claimed, listening, the profile not saved yet. */
  starting: boolean;
}

/** A new instance token. */
export function newInstance(): string {
  return randomBytes(16).toString('hex');
}

export function recordPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), RECORD_FILE);
}

export function logPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), LOG_FILE);
}

/**
 * What is at the record's place: nothing, a record, or a damaged one: a file that is no record
 * payctl wrote (cut short by a full disk or a crash, edited), `why` in words and the port it
 * names when it names one. Its sandbox may still run, so a damaged record is never taken for
 * none (sandbox/damaged-record.ts says what to do). Read never blocking, never through a
 * symlink, never past 64 KiB (regular-file.ts): a named pipe there hung `sandbox status`,
 * `stop` and `start` in open(), deaf to SIGTERM. Anything that cannot be read as a file at all
 * (a pipe, a symlink, a file too large, one not readable) is no one's claim: taken for none.
 */
export type FoundRecord = { record: SandboxRecord } | { damaged: string; port?: number } | undefined;

// eslint-disable-next-line @typescript-eslint/require-await -- read synchronously (readRegular); callers await it
export async function findRecord(env: NodeJS.ProcessEnv): Promise<FoundRecord> {
  let text: string | undefined;
  try {
    text = readRegular(recordPath(env), 64 * 1024)?.toString('utf8');
  } catch {
    return undefined;
  }
  return text === undefined ? undefined : parseRecord(text);
}

/** The record, or undefined when there is none or it is damaged (findRecord tells the two apart). */
export async function readRecord(env: NodeJS.ProcessEnv): Promise<SandboxRecord | undefined> {
  const found = await findRecord(env);
  return found && 'record' in found ? found.record : undefined;
}

const NEEDED = [
  ['pid', 'number'],
  ['port', 'number'],
  ['baseUrl', 'string'],
] as const;

/** A string field of a record as written; anything else as text, as a record of an older payctl held it. */
function asText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

function parseRecord(text: string): NonNullable<FoundRecord> {
  if (text.trim() === '') return { damaged: text === '' ? 'it is empty (0 bytes)' : 'it holds only white space' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { damaged: 'it is not complete JSON: cut short or overwritten' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { damaged: 'it holds no JSON object' };
  const r = parsed as Partial<Record<keyof SandboxRecord, unknown>>;
  const port = typeof r.port === 'number' && Number.isInteger(r.port) && r.port > 0 && r.port < 65536 ? { port: r.port } : {};
  const bad = NEEDED.filter(([key, type]) => typeof r[key] !== type).map(([key, type]) => `${key} (a ${type})`);
  if (bad.length > 0) return { damaged: `it names no ${bad.join(', no ')}`, ...port };
  return {
    record: {
      pid: r.pid as number,
      port: r.port as number,
      baseUrl: r.baseUrl as string,
      apiKey: asText(r.apiKey),
      webhookSecret: asText(r.webhookSecret),
      startedAt: asText(r.startedAt),
      instance: typeof r.instance === 'string' ? r.instance : '',
      starting: r.starting === true,
    },
  };
}

/** The record as written: `starting` only while it is. */
function recordText(record: SandboxRecord): string {
  const { starting, ...rest } = record;
  return JSON.stringify(starting ? { ...rest, starting } : rest, null, 2) + '\n';
}

/** A 0600 temp file beside the record, holding `record`. */
async function tempRecord(env: NodeJS.ProcessEnv, record: SandboxRecord, after?: string): Promise<string> {
  ensureConfigDir(configDir(env), env);
  const tmp = `${recordPath(env)}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, recordText(record), { mode: 0o600 });
    await chmod(tmp, 0o600);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    // The folder is named, never the temp file made in it.
    if (isFsError(err)) throw folderFault(configDir(env), err, `record the sandbox in ${recordPath(env)}`, after);
    throw err;
  }
  return tmp;
}

/** Replaces the record atomically (the detached child, over its own claim). */
export async function writeRecord(env: NodeJS.ProcessEnv, record: SandboxRecord): Promise<void> {
  await rename(await tempRecord(env, record), recordPath(env));
}

/**
 * Creates the record only if there is none (a hard link of a complete file: never half
 * written, and of two at the same moment only one succeeds): claimed, or what is in the way,
 * a record or a damaged one (its sandbox may run: never removed here). One removed meanwhile
 * is tried again.
 */
export async function claimRecord(env: NodeJS.ProcessEnv, record: SandboxRecord): Promise<{ claimed: true } | { claimed: false; holder: NonNullable<FoundRecord> }> {
  const tmp = await tempRecord(env, record, '. The sandbox was not started.');
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(tmp, recordPath(env));
        return { claimed: true };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err;
      }
      const holder = await findRecord(env);
      if (holder) return { claimed: false, holder };
      // Removed meanwhile, or no file to read (a pipe, a symlink): no one's claim.
      await unlink(recordPath(env)).catch(() => {});
    }
  } finally {
    await unlink(tmp).catch(() => {});
  }
}

/** Removes the record; with `owner`, only when the record is still that one (its pid, and its instance when given). */
export async function removeRecord(env: NodeJS.ProcessEnv, owner?: { pid: number; instance?: string }): Promise<void> {
  if (owner !== undefined) {
    const r = await readRecord(env);
    if (!r || r.pid !== owner.pid || (owner.instance !== undefined && r.instance !== owner.instance)) return;
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
  // No /proc (macOS): kill(0) is all we have.
  const state = procStat(pid)?.state;
  return state !== 'Z' && state !== 'X';
}

/** A file of /proc/<pid> split at NULs (environ, cmdline); undefined where /proc does not show it (another user's, macOS). */
function procList(pid: number, file: 'environ' | 'cmdline'): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

/**
 * Whether the process is a detached `payctl sandbox start` of the config folder `env` names:
 * its arguments hold `sandbox start`, its environment the detached child's mark, and the
 * config folder its environment names (from its working folder) is this one. What proves a
 * hung sandbox, which cannot answer its health route.
 */
function detachedSandboxOf(pid: number, env: NodeJS.ProcessEnv): boolean {
  const args = procList(pid, 'cmdline');
  const environ = procList(pid, 'environ');
  if (!args || !environ) return false;
  const at = args.indexOf('sandbox');
  if (at < 0 || args[at + 1] !== 'start') return false;
  const theirs: NodeJS.ProcessEnv = {};
  for (const entry of environ) {
    const eq = entry.indexOf('=');
    if (eq > 0) theirs[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  if (theirs[DETACHED_ENV] !== '1') return false;
  let cwd: string;
  try {
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return false;
  }
  // Their relative PAYCTL_CONFIG_DIR from their working folder, not from ours.
  return configDir(theirs, cwd) === configDir(env);
}

/**
 * GET /_sandbox/health of the recorded sandbox answers with the recorded pid and the record's
 * instance token (a record of an older payctl, without one: its port).
 */
export async function healthMatches(record: SandboxRecord, timeoutMs = 1500): Promise<boolean> {
  try {
    const origin = record.baseUrl.replace(/\/v2\/?$/, '');
    const res = await fetch(`${origin}/_sandbox/health`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return false;
    const body = (await res.json()) as { data?: { pid?: unknown; instance?: unknown; port?: unknown } };
    if (body.data?.pid !== record.pid) return false;
    return record.instance !== '' ? body.data.instance === record.instance : body.data.port === record.port;
  } catch {
    return false;
  }
}

/**
 * Whether the recorded sandbox still runs: its process is alive and proven to be this
 * record's sandbox, by its health route (healthMatches) or, when it does not answer (hung), by
 * being a detached sandbox of this config folder (`env`'s). A command line naming "sandbox
 * start" alone proves nothing (a script named so, another folder's sandbox), nor does a pid.
 */
export async function recordedSandboxRuns(record: SandboxRecord, host: Host, env: NodeJS.ProcessEnv): Promise<boolean> {
  if (!processAlive(host, record.pid)) return false;
  if (await healthMatches(record)) return true;
  return detachedSandboxOf(record.pid, env);
}
