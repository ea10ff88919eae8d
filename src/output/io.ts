/**
 * The streams a command writes to and how it may talk to a person: stdin, stdout,
 * stderr, their terminal flags and colour (IO), messages for people on stderr (Log), and
 * a backpressure-aware write. Made at the entry from the process; tests pass in-memory
 * streams.
 */
import { jsonEscapedStream } from './json.js';
export interface IO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /**
   * The terminal's width in columns, read at each use (a resized terminal is followed):
   * tables and the progress bar are fitted to it. Undefined when the stream is not a
   * terminal (a pipe, a file): then nothing is cut.
   */
  readonly stdoutColumns?: number;
  readonly stderrColumns?: number;
  /** Colour on stdout (tables) and stderr (messages). */
  color: boolean;
  stderrColor: boolean;
  /** Prompts are allowed: stdin and stdout are terminals, no --json, no --no-input. */
  interactive: boolean;
}

/** Messages for people on stderr; made by log.ts (text lines, or JSON lines under --json). */
export interface Log {
  info(line: string): void;
  warn(line: string): void;
  success(line: string): void;
  /** Only with --verbose. */
  verbose(line: string): void;
  /** Lines for people written as they are (a plan, a result): each ends in a newline. */
  block(text: string): void;
}

type Stream<S> = S & { isTTY?: boolean; columns?: number };

/** A terminal's columns now; undefined off a terminal or when it does not say. */
function columnsOf(s: Stream<NodeJS.WritableStream>): number | undefined {
  return s.isTTY === true && typeof s.columns === 'number' && s.columns > 0 ? s.columns : undefined;
}

/**
 * The IO of one run, from the process's streams: terminal flags read once, stdout and
 * stderr written through `wrap` (the secret mask), colour where `color(isTTY)` says.
 * Under --json both also escape C1 and bidi controls as JSON escapes (json.ts), whatever
 * command wrote the JSON.
 */
export function ioFrom(
  s: {
    stdin: Stream<NodeJS.ReadableStream>;
    /** Whether stdin is a terminal, when known without making the stream (read only on first use). */
    stdinIsTTY?: boolean;
    stdout: Stream<NodeJS.WritableStream>;
    stderr: Stream<NodeJS.WritableStream>;
    /** Whether stderr is a terminal, when known without making the stream (read only on first use). */
    stderrIsTTY?: boolean;
  },
  o: { json: boolean; noInput: boolean },
  color: (isTTY: boolean) => boolean,
  wrap: (stream: NodeJS.WritableStream) => NodeJS.WritableStream,
): IO {
  const stdinIsTTY = s.stdinIsTTY ?? s.stdin.isTTY === true;
  const stdoutIsTTY = s.stdout.isTTY === true;
  const stderrIsTTY = s.stderrIsTTY ?? s.stderr.isTTY === true;
  // Masked first, then escaped: a secret is found as it was written.
  const out = (stream: NodeJS.WritableStream) => wrap(o.json ? jsonEscapedStream(stream) : stream);
  let stderr: NodeJS.WritableStream | undefined;
  return {
    get stdin() {
      return s.stdin;
    },
    stdout: out(s.stdout),
    // Made (and wrapped) on first write: a run that writes nothing there never makes it.
    get stderr() {
      return (stderr ??= out(s.stderr));
    },
    stdinIsTTY,
    stdoutIsTTY,
    stderrIsTTY,
    get stdoutColumns() {
      return columnsOf(s.stdout);
    },
    get stderrColumns() {
      return columnsOf(s.stderr);
    },
    color: color(stdoutIsTTY),
    stderrColor: color(stderrIsTTY),
    interactive: stdinIsTTY && stdoutIsTTY && !o.json && !o.noInput,
  };
}

/**
 * Writes a string and resolves once the stream has taken it (backpressure-aware). A stream that
 * refused a write (a full disk) never drains: its error or close ends the wait instead, and the
 * run goes on to its end, where cli.ts says the output is incomplete (OutputError). Waiting for a
 * drain that never came left the run with nothing to do, and Node exited 0 with the output cut.
 */
export function write(stream: NodeJS.WritableStream, chunk: string): Promise<void> | void {
  if (stream.write(chunk) || (stream as { destroyed?: boolean }).destroyed) return;
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('error', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('error', done);
    stream.on('close', done);
  });
}

/**
 * Resolves once `stream` has taken what was written to it so far, with the error a write met, if
 * any. A refused write's error event follows its callback: a tick is waited for it too, so a
 * listener of the stream's errors has heard it by then.
 */
export function flushed(stream: NodeJS.WritableStream): Promise<Error | undefined> {
  return new Promise((resolve) => {
    stream.write('', (err?: Error | null) => setImmediate(() => resolve(err ?? undefined)));
  });
}
