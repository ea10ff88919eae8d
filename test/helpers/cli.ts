/**
 * Runs the real built binary (bin/payctl.js -> dist/) in a child process, with a
 * temp config folder and no colour or terminal unless asked.
 */
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const BIN = resolve(__dirname, '../../bin/payctl.js');

let readable: string | undefined;

/**
 * The built binary copied (bin/, dist/, package.json) to a folder any user may read, once per
 * process: a run as another user (setpriv --reuid) cannot read a checkout under a private folder
 * (a clean clone in a 0700 temp folder, as CI makes), and would fail to load before it starts.
 */
export function readableBin(): string {
  if (readable === undefined) {
    const root = mkdtempSync(join(tmpdir(), 'payctl-readable-'));
    chmodSync(root, 0o755);
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
    for (const part of ['bin', 'dist', 'package.json']) cpSync(resolve(__dirname, '../..', part), join(root, part), { recursive: true });
    readable = join(root, 'bin', 'payctl.js');
  }
  return readable;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  configDir?: string;
  timeoutMs?: number;
  cwd?: string;
}

/** A fresh temp folder for PAYCTL_CONFIG_DIR; removed by the returned cleanup. */
export function tempConfigDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Environment for a child payctl: nothing inherited that could change its behaviour. */
export function cliEnv(configDir: string | undefined, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: configDir ?? process.env.HOME,
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  };
  if (configDir) env.PAYCTL_CONFIG_DIR = configDir;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: cliEnv(opts.configDir, opts.env),
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 25_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    // A child that exits without reading its input (a refusal, `sh -c chmod`) closes the pipe: EPIPE here is no failure.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * A folder holding an executable `payctl` that runs the built binary: put first on PATH,
 * a command payctl printed runs exactly as printed (docs/architecture.md, "Printed commands").
 */
export function payctlShim(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-shim-'));
  writeFileSync(join(dir, 'payctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(dir, 'payctl'), 0o755);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `bash -c <line>` with the shim first on PATH and the given config folder: the line exactly as printed. */
export function runAsPrinted(
  line: string,
  opts: { shim: string; configDir: string; timeoutMs?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const env = cliEnv(opts.configDir);
    env.PATH = `${opts.shim}:${process.env.PATH ?? ''}`;
    const child = spawn('bash', ['-c', line], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 25_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    // A child that exits without reading its input (a refusal, `sh -c chmod`) closes the pipe: EPIPE here is no failure.
    child.stdin.on('error', () => {});
    child.stdin.end();
  });
}

/**
 * `argv` run without the right to read or write every file, so that a file's or folder's mode is
 * obeyed for real: as root, through setpriv with the capabilities that override modes dropped;
 * as anyone else, as is. `env` (the test's own when not given) and `input` on stdin.
 */
export function runUnprivileged(
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const root = process.getuid?.() === 0;
  const [cmd, ...args] = root ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--inh-caps=-all', '--', ...argv] : argv;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd!, args, { env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    // A child that exits without reading its input (a refusal, `sh -c chmod`) closes the pipe: EPIPE here is no failure.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}
