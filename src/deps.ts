/**
 * What every command receives (GUIDE pattern 1): streams, environment, options,
 * clock, an abort signal for Ctrl-C, and lazy, memoized getters for the config
 * store, the API client and the prompter. Nothing below src/cli.ts reads process.*.
 */
import type { ConfigStore } from './config/store.js';
import type { ApiClient } from './api/client.js';
import type { Prompter } from './output/prompter.js';

export interface IO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour on stdout (tables) and stderr (messages). */
  color: boolean;
  stderrColor: boolean;
  /** Prompts are allowed: stdin and stdout are terminals, no --json, no --no-input. */
  interactive: boolean;
}

export interface GlobalOptions {
  profile: string;
  /** Set when --base-url was given on the command line. */
  baseUrl: string | undefined;
  json: boolean;
  noInput: boolean;
  verbose: boolean;
  timeoutMs: number;
}

export interface Deps {
  io: IO;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  /** The command line as typed (without node and the script), for "retry with" hints. */
  argv: readonly string[];
  now(): Date;
  /** Aborted on the first Ctrl-C. */
  signal: AbortSignal;
  config(): ConfigStore;
  api(): Promise<ApiClient>;
  /** A client for a given base URL and API key, ignoring stored credentials (login). */
  apiWith(target: { baseUrl: string; apiKey: string }): Promise<ApiClient>;
  prompter(): Promise<Prompter>;
  /** Messages for people on stderr (never results). */
  log: Log;
}

export interface Log {
  info(line: string): void;
  warn(line: string): void;
  success(line: string): void;
  /** Only with --verbose. */
  verbose(line: string): void;
}

/** Writes a string and resolves once the stream has taken it (backpressure-aware). */
export function write(stream: NodeJS.WritableStream, chunk: string): Promise<void> | void {
  if (stream.write(chunk)) return;
  return new Promise((resolve) => stream.once('drain', () => resolve()));
}

/** Resolves when `signal` aborts (Ctrl-C or SIGTERM): how a long-running command waits to stop. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
