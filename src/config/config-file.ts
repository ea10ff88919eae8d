/**
 * The config file read back: `config.json`, a regular file of at most 1 MiB that only its
 * owner can write, parsed against the shape payctl writes (profiles by name). A file that is
 * damaged (a key given twice in one object included), too large, a symlink or writable by
 * others, or readable by others while it keeps a secret (a key, a webhook secret, a ledger
 * password), is refused with its path, never fixed
 * or overwritten (store.ts, the profile store, writes through conf). A file unchanged since
 * the last read (inode, size, modification and change times) is not parsed again, unless it
 * changed in the last two seconds (the "racily clean" files of git).
 */
import { closeSync, lstatSync, readSync } from 'node:fs';
import { openRegular, RefusedFile, type OpenedFile } from './regular-file.js';
import { ConfigError } from '../errors.js';
import { jsonFault } from './json-fault.js';
import { hasPassword } from './ledger-setting.js';
import { keyTwice } from './json-scan.js';
import { ownerId } from './paths.js';
import { shellQuote } from './shell.js';
import { commandLine } from './command-line.js';
import type { Profile } from './profile.js';

/** The file as conf writes it: the profiles by name (a token kept by earlier versions is read, then dropped). */
export interface FileShape {
  profiles?: Record<string, Profile & { token?: string; tokenExpiresAt?: string }>;
  [key: string]: unknown;
}

/**
 * A profile's fields and what each must be. Read by hand, not by a zod schema: every command
 * reads this file, and making its schema cost every start about 1.5 ms (zod builds a schema when
 * it is made), more than reading the file. `token` and `tokenExpiresAt` were kept by versions
 * that exchanged the key for a token (the service has no such exchange).
 */
const PROFILE_FIELDS: Record<string, 'string' | 'routes' | 'secrets'> = {
  baseUrl: 'string',
  apiKey: 'string',
  token: 'string',
  tokenExpiresAt: 'string',
  webhookSecret: 'string',
  webhookSignatureHeader: 'string',
  routes: 'routes',
  policy: 'string',
  ledger: 'string',
  secrets: 'secrets',
};

/** What a value is, as a problem names it: `null`, `array`, `number`, ... */
function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** A JSON object (not null, not an array). */
function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The first problem of a profile's field, or undefined when it is as it must be. */
function fieldProblem(kind: 'string' | 'routes' | 'secrets', v: unknown, at: string): string | undefined {
  if (kind === 'secrets') return v === 'keyring' || v === 'file' ? undefined : `${at}: Invalid option: expected one of "keyring"|"file"`;
  if (kind === 'string') return typeof v === 'string' ? undefined : `${at}: Invalid input: expected string, received ${kindOf(v)}`;
  if (!isRecord(v)) return `${at}: Invalid input: expected record, received ${kindOf(v)}`;
  for (const [k, route] of Object.entries(v)) if (typeof route !== 'string') return `${at}.${k}: Invalid input: expected string, received ${kindOf(route)}`;
  return undefined;
}

/**
 * The file's profiles when it has the shape conf writes (other top-level keys are left alone;
 * a profile's unknown keys are dropped), else the first problem, by its path in the file.
 */
function readShape(raw: unknown): { profiles: NonNullable<FileShape['profiles']> } | { problem: string } {
  if (!isRecord(raw)) return { problem: `top level: Invalid input: expected object, received ${kindOf(raw)}` };
  if (raw.profiles === undefined) return { profiles: {} };
  if (!isRecord(raw.profiles)) return { problem: `profiles: Invalid input: expected record, received ${kindOf(raw.profiles)}` };
  const profiles: NonNullable<FileShape['profiles']> = {};
  for (const [name, p] of Object.entries(raw.profiles)) {
    if (!isRecord(p)) return { problem: `profiles.${name}: Invalid input: expected object, received ${kindOf(p)}` };
    const kept: Record<string, unknown> = {};
    for (const [field, kind] of Object.entries(PROFILE_FIELDS)) {
      if (p[field] === undefined) continue;
      const problem = fieldProblem(kind, p[field], `profiles.${name}.${field}`);
      if (problem) return { problem };
      kept[field] = p[field];
    }
    profiles[name] = kept;
  }
  return { profiles };
}

/** The file's name in the config folder. */
export const FILE_NAME = 'config.json';
/** The largest config file read: a profile store is a few KiB; anything near this is not one. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** A config file changed this recently is parsed at every read. */
const RACY_MS = 2000;

/** The profiles of a file as last parsed, and the file they were read from. */
export interface ParsedFile {
  stamp: string;
  profiles: Record<string, Profile>;
}

function damaged(path: string, err: unknown): ConfigError {
  const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
  return new ConfigError(
    `The config file ${path} is damaged and cannot be read (${why}).`,
    `Fix it by hand, or move it away and run \`payctl login\` again. payctl does not overwrite it.`,
  );
}

/**
 * Why the config file could not be opened or read, in words: permission denied (EACCES, EPERM)
 * is about who may read it, not about what it says, so it is never called damaged; the hint makes
 * it readable again (every command printed works as printed: the path quoted for sh, bash, zsh and fish alike: shell.ts).
 * Anything else is `damaged`.
 */
export function unreadable(path: string, err: unknown): ConfigError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'EACCES' && code !== 'EPERM') return damaged(path, err);
  const file = shellQuote(path);
  return new ConfigError(
    `The config file ${path} cannot be read: permission denied (${code}). Nothing was sent.`,
    `Check its owner and mode:\n  ls -l ${file}\nIt must be your own file; make it readable by you only:\n  chmod 600 ${file}`,
  );
}

/**
 * The profiles in the file at `path` (none when there is no file), and what to keep for the
 * next read (undefined when the file changed too recently to be trusted unchanged). `last`:
 * what the previous read kept; its profiles are returned as they are when the file is the
 * same. The record returned is the caller's to change; the profiles in it are not.
 */
export function readProfilesFile(path: string, last: ParsedFile | undefined): { profiles: Record<string, Profile>; keep: ParsedFile | undefined } {
  let text: string;
  let stamp: string;
  let settled: boolean;
  let mode = 0;
  try {
    // Only a regular file: a FIFO would block every command, a symlink would have its
    // target rewritten and chmodded.
    const st = lstatSync(path, { bigint: true });
    if (!st.isFile()) throw notRegular(path, st.isSymbolicLink() ? 'is a symbolic link' : 'is not a regular file');
    checkTrusted(path, Number(st.mode), Number(st.uid), Number(st.size));
    mode = Number(st.mode);
    stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    settled = Date.now() - Number(st.mtimeMs) > RACY_MS;
    if (last?.stamp === stamp) return { profiles: { ...last.profiles }, keep: last };
    text = readBounded(path);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {}, keep: undefined };
    throw unreadable(path, err);
  }
  // payctl never leaves an empty file (conf writes a whole file, then renames it over the old):
  // one is what a crash, a full disk or a stray `>` left of a file that held profiles, so it is
  // damage like any other, never taken for a fresh start and written over.
  if (text.trim() === '') throw damaged(path, new Error(text === '' ? 'it is empty (0 bytes)' : 'it holds only white space'));
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw damaged(path, jsonFault(err, text));
  }
  // A key given twice ("apiKey" in one profile): JSON.parse keeps the last, silently, while the
  // person who edited the file reads the first. Refused as the policy file refuses it.
  const twice = keyTwice(text);
  if (twice !== undefined) throw damaged(path, new Error(twice));
  const shape = readShape(raw);
  if ('problem' in shape) throw damaged(path, new Error(shape.problem));
  const profiles: Record<string, Profile> = {};
  for (const [name, { token: _t, tokenExpiresAt: _e, ...p }] of Object.entries(shape.profiles)) profiles[name] = p;
  refuseReadableSecrets(path, mode, profiles);
  return { profiles: { ...profiles }, keep: settled ? { stamp, profiles } : undefined };
}

/**
 * Refuses a file that holds a secret (an API key or webhook secret kept with --insecure-storage,
 * a ledger URL with its password) and that others can read: used, it would say nothing while the
 * secret sits readable (a signing key so exposed is refused, like ssh). The message names the
 * secrets it holds; the fix is a chmod, and new secrets if others had them.
 */
/**
 * `payctl config set ledger --stdin --profile P` for each profile that keeps a ledger password:
 * the profile named always (before, none: pasted, it set the default profile's ledger, or the
 * one PAYCTL_PROFILE names).
 */
function ledgerCommands(holding: Array<[string, Profile]>): string {
  const names = holding.filter(([, p]) => secretsHeld(p).includes('ledger password')).map(([name]) => name);
  return names.map((name) => `\`${commandLine({ profile: name }, ['config', 'set', 'ledger'], ['--stdin'])}\``).join(', ');
}

function refuseReadableSecrets(path: string, mode: number, profiles: Record<string, Profile>): void {
  if ((mode & 0o044) === 0) return;
  const holding = Object.entries(profiles).filter(([, p]) => secretsHeld(p).length);
  if (!holding.length) return;
  const kinds = SECRET_KINDS.filter((k) => holding.some(([, p]) => secretsHeld(p).includes(k)));
  const whose = holding.length === 1 ? `profile "${holding[0]![0]}"'s ${listed(kinds)}` : `${holding.length} profiles' ${listed(kinds.map((k) => `${k}s`))}`;
  const renew = [
    ...(kinds.some((k) => k !== 'ledger password') ? ['make new keys at the service and log in again'] : []),
    ...(kinds.includes('ledger password') ? [`change the ledger's database password and give the new URL to ${ledgerCommands(holding)}`] : []),
  ];
  throw new ConfigError(
    `Refusing to use the config file ${path}: it keeps ${whose}, and others can read it (mode ${(mode & 0o777).toString(8)}). Nothing was sent.`,
    `Make it private:\n  chmod 600 ${shellQuote(path)}\nIf others may have read it, ${renew.join('; ')}.`,
  );
}

/** The secrets a profile can keep in the file, in the order they are named. */
const SECRET_KINDS = ['API key', 'webhook secret', 'ledger password'] as const;

/** The secrets the profile keeps in the file (a ledger URL without a password keeps none). */
function secretsHeld(p: Profile): Array<(typeof SECRET_KINDS)[number]> {
  return SECRET_KINDS.filter((k) => (k === 'API key' ? !!p.apiKey : k === 'webhook secret' ? !!p.webhookSecret : !!p.ledger && hasPassword(p.ledger)));
}

/** "a", "a and b", "a, b and c". */
function listed(items: string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

/** A config file that is not a regular file (`why`: "is a symbolic link"): never read nor written. */
function notRegular(path: string, why: string): ConfigError {
  return new ConfigError(
    `The config file ${path} ${why}; payctl reads and writes only a regular file there.`,
    'Move it away and run `payctl login` again, or point PAYCTL_CONFIG_DIR at another folder.',
  );
}

/** Refuses a file too large to be a profile store, or one that others could have written. */
function checkTrusted(path: string, mode: number, uid: number, size: number): void {
  if (size > MAX_CONFIG_BYTES) {
    throw new ConfigError(
      `The config file ${path} is over ${MAX_CONFIG_BYTES} bytes (1 MiB), too large to be a payctl config file; payctl does not read it.`,
      'A profile store is a few KiB: move this file away and run `payctl login` again.',
    );
  }
  const owner = ownerId();
  if (owner !== undefined && uid !== owner) {
    throw new ConfigError(
      `Refusing to use the config file ${path}: it is owned by another user (uid ${uid}). Nothing was sent.`,
      'Use a config file of your own: move it away and run `payctl login` again.',
    );
  }
  if ((mode & 0o022) !== 0) {
    throw new ConfigError(
      `Refusing to use the config file ${path}: others can write to it (mode ${(mode & 0o777).toString(8)}), so its base URL and keys may not be yours. Nothing was sent.`,
      // payctl itself refuses the file until then (config list too): the commands printed are the shell's.
      `Check what it says (API keys kept in it show in full):\n  cat ${shellQuote(path)}\nThen make it private:\n  chmod 600 ${shellQuote(path)}`,
    );
  }
}

/** The file's text, read through one descriptor (never blocking: regular-file.ts) and never past MAX_CONFIG_BYTES (it may grow after the check). */
function readBounded(path: string): string {
  let f: OpenedFile | undefined;
  try {
    f = openRegular(path);
  } catch (err) {
    if (err instanceof RefusedFile) throw notRegular(path, err.why);
    throw err;
  }
  if (!f) throw Object.assign(new Error(`${path} is gone`), { code: 'ENOENT' });
  const { fd, st } = f;
  try {
    checkTrusted(path, st.mode, st.uid, st.size);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const got = readSync(fd, chunk, 0, chunk.length, null);
      if (got === 0) break;
      chunks.push(chunk.subarray(0, got));
      total += got;
      if (total > MAX_CONFIG_BYTES) checkTrusted(path, st.mode, st.uid, total);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
