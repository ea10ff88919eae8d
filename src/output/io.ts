/**
 * The streams a command writes to and how it may talk to a person: stdin, stdout,
 * stderr, their terminal flags and colour (IO), messages for people on stderr (Log), and
 * a backpressure-aware write. Made at the entry from the process; tests pass in-memory
 * streams.
 */
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
