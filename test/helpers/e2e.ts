/**
 * End-to-end helpers: run the built binary (bin/payctl.js) with a temp config folder,
 * keeping stdout and stderr both as text and as raw bytes, write profiles directly,
 * fetch from the sandbox directly (to compare with what payctl printed), and check
 * that no secret leaked into any byte of the output.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { afterEach, beforeEach, expect } from 'vitest';
import { BIN, cliEnv, tempConfigDir } from './cli.js';
import type { Sandbox } from './sandbox.js';

export { BIN };

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
  stderrBytes: Buffer;
  ms: number;
}

export interface E2eOptions {
  /** PAYCTL_CONFIG_DIR (required: never the real ~/.config). */
  dir: string;
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed (a pipe: never a terminal). */
  input?: string;
  timeoutMs?: number;
}

/** Starts payctl; `done` resolves when it exits. */
export function startCli(args: string[], opts: E2eOptions): { child: ChildProcessWithoutNullStreams; done: Promise<Run> } {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cliEnv(opts.dir, opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 25_000);
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      const stderrBytes = Buffer.concat(err);
      resolve({
        code,
        signal,
        stdout: stdoutBytes.toString('utf8'),
        stderr: stderrBytes.toString('utf8'),
        stdoutBytes,
        stderrBytes,
        ms: Date.now() - started,
      });
    });
  });
  child.stdin.on('error', () => {}); // the child may exit before reading stdin
  // A child that exits without reading its input (a refusal, `sh -c chmod`) closes the pipe: EPIPE here is no failure.
  child.stdin.on('error', () => {});
  child.stdin.end(opts.input ?? '');
  return { child, done };
}

export function payctl(args: string[], opts: E2eOptions): Promise<Run> {
  return startCli(args, opts).done;
}

/** A fresh config folder for every test of the file (or describe) that calls it. */
export function useConfigDir(): { readonly dir: string } {
  let current: { dir: string; cleanup: () => void } | undefined;
  beforeEach(() => {
    current = tempConfigDir();
  });
  afterEach(() => {
    current?.cleanup();
    current = undefined;
  });
  return {
    get dir(): string {
      if (!current) throw new Error('the config folder is made in beforeEach');
      return current.dir;
    },
  };
}

/** A random API key the sandbox can be started with (long enough to be masked to its last 4). */
export function newKey(): string {
  return `sk_sandbox_e2e_${randomBytes(10).toString('hex')}`;
}

/** A profile as the config file holds it (what payctl writes: no token, since the key is the bearer). */
export interface ProfileFile {
  baseUrl?: string;
  apiKey?: string;
  webhookSecret?: string;
  webhookSignatureHeader?: string;
  routes?: Record<string, string>;
  policy?: string;
  /** `local` or a PostgreSQL URL (README "Working as a team"). */
  ledger?: string;
  secrets?: 'keyring' | 'file';
}

export function configFile(dir: string): string {
  return join(dir, 'config.json');
}

/** Writes the config file directly (as payctl would: 0600 in a 0700 folder). */
export function writeProfiles(dir: string, profiles: Record<string, ProfileFile>): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(configFile(dir), JSON.stringify({ profiles }, null, '\t'), { mode: 0o600 });
  chmodSync(configFile(dir), 0o600);
}

export function writeProfile(dir: string, profile: ProfileFile, name = 'default'): void {
  writeProfiles(dir, { [name]: profile });
}

/** The profiles in the config file ({} when there is no file). */
export function readProfiles(dir: string): Record<string, ProfileFile> {
  if (!existsSync(configFile(dir))) return {};
  return (JSON.parse(readFileSync(configFile(dir), 'utf8')) as { profiles?: Record<string, ProfileFile> }).profiles ?? {};
}

export function readProfile(dir: string, name = 'default'): ProfileFile | undefined {
  return readProfiles(dir)[name];
}

/** Writes a profile as `payctl login` leaves it (base URL and key; the key is the bearer token): no spawn. */
export async function writeLoggedIn(sb: Sandbox, dir: string, key: string = sb.apiKey, name = 'default'): Promise<ProfileFile> {
  const profile: ProfileFile = { baseUrl: sb.baseUrl, apiKey: key };
  writeProfiles(dir, { ...readProfiles(dir), [name]: profile });
  return profile;
}

export interface Direct {
  status: number;
  raw: string;
  body: any;
  requestId: string | null;
}

/** A request straight to the sandbox with its API key as the bearer and a fresh Idempotency-Key (what payctl should have received). */
export async function direct(sb: Sandbox, method: string, path: string, body?: unknown): Promise<Direct> {
  const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${sb.apiKey}`, 'Idempotency-Key': randomUUID() };
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const res = await fetch(sb.baseUrl + path, init);
  const raw = await res.text();
  return { status: res.status, raw, body: JSON.parse(raw), requestId: res.headers.get('x-request-id') };
}

/** The envelope's timestamp differs on every answer: replace it to compare two answers byte for byte. */
export function sameButTimestamp(raw: string): string {
  return raw.trim().replace(/"timestamp":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z"(?=}$)/, '"timestamp":"<ts>"');
}

/** stdout holds exactly one JSON document (one line); returns it parsed. */
export function oneJson(stdout: string): any {
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(stdout);
}

/**
 * No byte of stdout or stderr holds a secret, nor the part of it that a mask never
 * shows (everything but the last four characters).
 */
export function expectNoSecrets(r: Run, secrets: Array<string | undefined>): void {
  for (const s of secrets) {
    expect(s, 'a secret to look for').toBeTruthy();
    const needles = [s!, s!.slice(0, -4)].filter((n) => n.length >= 8);
    for (const n of needles) {
      expect(r.stdoutBytes.includes(Buffer.from(n)), `stdout leaks ${n.slice(0, 6)}…`).toBe(false);
      expect(r.stderrBytes.includes(Buffer.from(n)), `stderr leaks ${n.slice(0, 6)}…`).toBe(false);
    }
  }
}

/** Lines like Node's stack frames ("    at fn (file:1:2)"). */
export function stackLines(text: string): string[] {
  return text.split('\n').filter((l) => /^\s+at\s/.test(l));
}

/** The last bearer payctl sent (its API key), as the sandbox recorded it. */
export function lastBearer(sb: Sandbox): string | undefined {
  const r = [...sb.requests()].reverse().find((x) => x.headers.authorization?.startsWith('Bearer '));
  return r?.headers.authorization?.slice('Bearer '.length);
}

/** Formats minor units as the tables do: thousands separators and the currency's digits. */
export function fmtMinor(minor: bigint, digits: number): string {
  const neg = minor < 0n;
  const abs = neg ? -minor : minor;
  const s = abs.toString().padStart(digits + 1, '0');
  const whole = s.slice(0, s.length - digits).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (neg ? '-' : '') + whole + (digits ? '.' + s.slice(s.length - digits) : '');
}

/** A decimal string (as the sandbox sends it) formatted as the tables do. */
export function fmtDecimal(value: string | number, digits: number): string {
  const s = String(value);
  const [w, f = ''] = s.split('.');
  return fmtMinor(BigInt(w! + f.padEnd(digits, '0').slice(0, digits)), digits);
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const address = srv.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** Waits until `check` is truthy (polling every 20 ms). */
export async function until<T>(check: () => T, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Requests the sandbox recorded from index `from` on, as "METHOD /path outcome". */
export function since(
  sb: Sandbox,
  from: number,
): Array<{ line: string; method: string; path: string; outcome: number | string; headers: Record<string, string>; query: Record<string, string>; body: string }> {
  return sb
    .requests()
    .slice(from)
    .map((r) => ({ ...r, line: `${r.method} ${r.path} ${r.outcome}` }));
}

/** The transaction ids of a `payouts list` table (column 2 of each data line). */
export function tableIds(stdout: string): Array<string | undefined> {
  return stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => l.split(/\s+/)[2]);
}
