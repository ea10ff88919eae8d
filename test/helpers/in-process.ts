/**
 * The in-process test tier (GUIDE "Tests"): payctl's own `main` run inside the test
 * process with in-memory streams (no terminal), an explicit environment and a temp config
 * folder, against the in-process sandbox over real HTTP. Same answer as the e2e helper's
 * `payctl` (exit code, stdout, stderr as text and bytes), without starting a process:
 * for what needs no process. Exit codes, signals, terminals, detach and SIGKILL stay in
 * the spawned-binary tests.
 */
import { PassThrough, Writable } from 'node:stream';
import { main, type Process } from '../../src/cli.js';
import { cliEnv } from './cli.js';
import type { E2eOptions, Run } from './e2e.js';

class Collector extends Writable {
  readonly chunks: Buffer[] = [];
  isTTY = false;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    cb();
  }
}

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Runs `payctl <args>` in this process; resolves with what a spawned run would give. */
export async function payctl(args: string[], opts: E2eOptions): Promise<Run> {
  const started = Date.now();
  const stdout = new Collector();
  const stderr = new Collector();
  const stdin = new PassThrough();
  stdin.end(opts.input ?? '');
  const proc: Process = {
    argv: [process.execPath, 'payctl', ...args],
    env: cliEnv(opts.dir, opts.env),
    stdin,
    stdout,
    stderr,
    on: () => undefined,
    off: () => undefined,
    exit: (code: number): never => {
      throw new Exit(code);
    },
  };
  let code: number;
  try {
    code = await main(proc);
  } catch (err) {
    if (!(err instanceof Exit)) throw err;
    code = err.code;
  }
  const stdoutBytes = Buffer.concat(stdout.chunks);
  const stderrBytes = Buffer.concat(stderr.chunks);
  return {
    code,
    signal: null,
    stdout: stdoutBytes.toString('utf8'),
    stderr: stderrBytes.toString('utf8'),
    stdoutBytes,
    stderrBytes,
    ms: Date.now() - started,
  };
}
