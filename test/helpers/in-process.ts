/**
 * The in-process test tier (docs/architecture.md, "Tests"): payctl's own `main` run inside the test
 * process with in-memory streams, an explicit environment and a temp config folder,
 * against the in-process sandbox over real HTTP. Same answer as the e2e helper's
 * `payctl` (exit code, stdout, stderr as text and bytes), without starting a process.
 * A test may give a clock (TestClock: retries without real waits), terminal flags and a
 * scripted prompter (prompts.ts), and may interrupt a run as Ctrl-C would.
 * Exit codes of the real binary, signals, real terminals, detach and SIGKILL stay in the
 * spawned-binary tests (test/e2e/).
 */
import { PassThrough, Writable } from 'node:stream';
import { main, type Process } from '../../src/cli.js';
import type { Clock } from '../../src/clock.js';
import type { Prompter } from '../../src/output/prompter.js';
import { cliEnv } from './cli.js';
import type { E2eOptions, Run } from './e2e.js';
import { scriptedPrompter, type ScriptedPrompter, type Step } from './prompts.js';

/** A stream that refuses writes past `after` bytes with an errno `code`, as a full disk (ENOSPC) does. */
export interface StreamFault {
  after: number;
  code: string;
}

class Collector extends Writable {
  readonly chunks: Buffer[] = [];
  #held = 0;
  constructor(
    public isTTY: boolean,
    readonly fault?: StreamFault,
  ) {
    super();
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error) => void): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (this.fault && this.#held + buf.length > this.fault.after) {
      cb(Object.assign(new Error(`${this.fault.code}: refused, write`), { code: this.fault.code, syscall: 'write' }));
      return;
    }
    this.#held += buf.length;
    this.chunks.push(buf);
    cb();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

export interface InProcessOptions extends E2eOptions {
  /** The clock payctl sees (default: the system clock). */
  clock?: Clock;
  /** Which streams claim to be terminals (default: none). */
  tty?: { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  /** Answers to prompts; any other prompt fails the run. Implies stdin and stdout terminals unless `tty` says otherwise. */
  prompts?: Step[] | ScriptedPrompter;
  /** stdout refuses what would take it past `after` bytes (a full disk: ENOSPC). */
  stdoutFault?: StreamFault;
}

export interface Started {
  /** Ctrl-C (SIGINT), as the process would get it. */
  interrupt(): void;
  /** What has been written so far. */
  stdout(): string;
  stderr(): string;
  prompter: ScriptedPrompter | undefined;
  done: Promise<Run>;
}

/** Starts `payctl <args>` in this process. */
export function startPayctl(args: string[], opts: InProcessOptions): Started {
  const started = Date.now();
  const prompter = opts.prompts === undefined ? undefined : Array.isArray(opts.prompts) ? scriptedPrompter(opts.prompts) : opts.prompts;
  const tty = opts.tty ?? (prompter ? { stdin: true, stdout: true } : {});
  const stdout = new Collector(tty.stdout === true, opts.stdoutFault);
  const stderr = new Collector(tty.stderr === true);
  const stdin = Object.assign(new PassThrough(), { isTTY: tty.stdin === true });
  stdin.end(opts.input ?? '');
  const handlers = new Set<() => void>();
  const proc: Process = {
    argv: [process.execPath, 'payctl', ...args],
    env: cliEnv(opts.dir, opts.env),
    stdin,
    stdout,
    stderr,
    on: (_event, fn) => handlers.add(fn),
    off: (_event, fn) => handlers.delete(fn),
    exit: (code: number): never => {
      throw new Exit(code);
    },
    // The test process is the host: its pid, user and signals.
    pid: process.pid,
    execPath: process.execPath,
    getuid: () => process.getuid?.() ?? -1,
    kill: (pid, signal) => process.kill(pid, signal),
  };
  const run = async (): Promise<Run> => {
    let code: number;
    try {
      code = await main(proc, { clock: opts.clock, prompter: prompter ? async (): Promise<Prompter> => prompter : undefined });
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
  };
  return {
    interrupt: () => {
      for (const fn of [...handlers]) fn();
    },
    stdout: () => stdout.text(),
    stderr: () => stderr.text(),
    prompter,
    done: run(),
  };
}

/** Runs `payctl <args>` in this process; resolves with what a spawned run would give. */
export function payctl(args: string[], opts: InProcessOptions): Promise<Run> {
  return startPayctl(args, opts).done;
}
