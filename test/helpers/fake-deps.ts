/**
 * fakeDeps(): the Deps a command's `run(opts, deps)` gets, made for a test (docs/architecture.md,
 * "Deps" and "Tests"; like gh's iostreams.Test() with a Factory): in-memory streams
 * with the terminal flags asked for, a TestClock, a scripted prompter that fails on any
 * unexpected question, a config store in the given temp folder, and the API client of
 * the profile and environment given (in tests: the in-process sandbox over HTTP).
 */
import { PassThrough, Writable } from 'node:stream';
import type { Deps } from '../../src/deps.js';
import type { GlobalOptions } from '../../src/config/globals.js';
import type { ApiClient } from '../../src/api/client.js';
import { createApiClient, createKeyClient } from '../../src/api/session.js';
import { openConfigStore, type ConfigStore } from '../../src/config/store.js';
import { cliEnv } from './cli.js';
import { TestClock } from './clock.js';
import { scriptedPrompter, type ScriptedPrompter, type Step } from './prompts.js';

class Collector extends Writable {
  readonly chunks: Buffer[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    cb();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export interface FakeDepsOptions {
  /** The config folder (PAYCTL_CONFIG_DIR). */
  dir: string;
  env?: Record<string, string | undefined>;
  globals?: Partial<GlobalOptions>;
  /** Terminal flags (default: none; `prompts` imply stdin and stdout). */
  tty?: { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  prompts?: Step[];
  clock?: TestClock;
  /** The command line as typed, for printed commands. */
  argv?: string[];
  input?: string;
}

export interface FakeDeps {
  deps: Deps;
  stdout(): string;
  stderr(): string;
  clock: TestClock;
  prompter: ScriptedPrompter;
  /** Ctrl-C. */
  interrupt(): void;
  close(): Promise<void>;
}

export function fakeDeps(o: FakeDepsOptions): FakeDeps {
  const tty = o.tty ?? (o.prompts ? { stdin: true, stdout: true } : {});
  const globals: GlobalOptions = {
    profile: 'default',
    profileChosen: false,
    baseUrl: undefined,
    json: false,
    noInput: false,
    verbose: false,
    timeoutMs: 30_000,
    ...o.globals,
  };
  const env = cliEnv(o.dir, o.env);
  const stdout = new Collector();
  const stderr = new Collector();
  const stdin = new PassThrough();
  stdin.end(o.input ?? '');
  const clock = o.clock ?? new TestClock();
  const prompter = scriptedPrompter(o.prompts ?? []);
  const controller = new AbortController();
  const clients: ApiClient[] = [];
  const owned: Array<{ close(): Promise<void> }> = [];
  let store: ConfigStore | undefined;
  const session = { globals, env, signal: controller.signal, clock, verbose: undefined, userAgent: 'payctl/test' };
  const deps: Deps = {
    io: {
      stdin,
      stdout,
      stderr,
      stdinIsTTY: tty.stdin === true,
      stdoutIsTTY: tty.stdout === true,
      stderrIsTTY: tty.stderr === true,
      color: false,
      stderrColor: false,
      interactive: tty.stdin === true && tty.stdout === true && !globals.json && !globals.noInput,
    },
    env,
    globals,
    argv: o.argv ?? [],
    clock,
    host: { pid: process.pid, uid: process.getuid?.(), execPath: process.execPath, kill: (pid, signal) => void process.kill(pid, signal) },
    signal: controller.signal,
    log: {
      info: (line) => void stderr.write(line + '\n'),
      block: (text) => void stderr.write(text),
      warn: (line) => void stderr.write(`Warning: ${line}\n`),
      success: (line) => void stderr.write(`✓ ${line}\n`),
      verbose: (line) => {
        if (globals.verbose) stderr.write(line + '\n');
      },
    },
    config: () => (store ??= openConfigStore(env)),
    api: async () => {
      const client = createApiClient({ ...session, store: deps.config() });
      clients.push(client);
      return client;
    },
    apiWith: async (target) => {
      const client = createKeyClient(session, target);
      clients.push(client);
      return client;
    },
    prompter: async () => prompter,
    resources: { closeAtEnd: (resource) => void owned.push(resource) },
  };
  return {
    deps,
    stdout: () => stdout.text(),
    stderr: () => stderr.text(),
    clock,
    prompter,
    interrupt: () => controller.abort(),
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await Promise.all(owned.splice(0).map((r) => r.close()));
    },
  };
}
