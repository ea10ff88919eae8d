/**
 * stdout written straight to its file descriptor while that is safe, the process's stream
 * made only when it is needed. Making `process.stdout` on a pipe makes a socket and loads
 * Node's stream and net modules: 3-5 ms of a 60-90 ms start, for `balances --json | jq` or a
 * script reading `--help`, that a few kilobytes written with one write(2) do not need.
 *
 * Written directly: the first writes, up to DIRECT_BYTES in all, when stdout is not a
 * terminal. A pipe holds 64 KiB on Linux (16 KiB to start on macOS), so such a write does not
 * wait on the reader: the event loop is never held while requests are in flight, as Node's
 * own synchronous writes could hold it. Everything else goes through the stream, made then,
 * and stays there, in order: a terminal (its width and colours are read from the stream), the
 * bytes after the first DIRECT_BYTES, a descriptor that answers EAGAIN (made non-blocking by
 * another process), and every error (EPIPE from a reader that went away included): the
 * rest of the chunk is handed to the stream, which reports the error as it always did
 * (bin/payctl.js ends the run quietly on EPIPE). Anything else asked of it (events, `end`,
 * `columns`) is the stream's.
 */

/**
 * Whether a descriptor, by its fstat, is certainly not a terminal: a pipe, a socket, a file,
 * or on Linux a memory device (/dev/null, /dev/zero, /dev/full: major 1; terminals are 4, 5
 * and 136-143). Anything else may be one: node:tty's isatty says (it loads node:net, 3-4 ms).
 */
export function certainlyNotTerminal(
  st: { isFIFO(): boolean; isFile(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; rdev: number },
  platform: string,
): boolean {
  if (st.isFIFO() || st.isFile() || st.isSocket()) return true;
  return platform === 'linux' && st.isCharacterDevice() && ((st.rdev >>> 8) & 0xfff) === 1;
}

/** The bytes written directly at most, in all: a quarter of a Linux pipe. */
export const DIRECT_BYTES = 16 * 1024;

export interface DirectStdoutSeams {
  /** write(2) on stdout: the bytes written, or a throw (with `code`, as fs.writeSync throws). */
  writeSync: (buf: Uint8Array, offset: number, length: number) => number;
  /** The process's stdout stream, made on first call. */
  stream: () => NodeJS.WritableStream;
  /** Whether stdout may be written directly: certainly not a terminal (certainlyNotTerminal). */
  direct: boolean;
  /** Defers a write's callback as a stream would (process.nextTick). */
  defer: (fn: () => void) => void;
  /** Told of every error the stream reports, listening from when it is made (not before: making it is what this saves). */
  onError?: (err: NodeJS.ErrnoException) => void;
}

type Callback = (err?: Error | null) => void;

/**
 * A stdout that writes its first DIRECT_BYTES straight to the descriptor (not on a terminal),
 * and otherwise is the process's stream, made on first need.
 */
export function directStdout(s: DirectStdoutSeams): NodeJS.WritableStream & { isTTY?: boolean } {
  let budget = s.direct ? DIRECT_BYTES : 0;
  let made: NodeJS.WritableStream | undefined;
  const stream = (): NodeJS.WritableStream => {
    budget = 0; // once the stream exists, everything goes through it, in order
    if (made === undefined) {
      made = s.stream();
      if (s.onError) made.on('error', s.onError);
    }
    return made;
  };

  // A stream's write takes an encoding or a callback second, and treats either left undefined as not given.
  const passOn = (chunk: unknown, encodingOrCb?: BufferEncoding | Callback, maybeCb?: Callback): boolean =>
    (stream() as unknown as { write: (...a: unknown[]) => boolean }).write(chunk, encodingOrCb, maybeCb);
  const write = (chunk: unknown, encodingOrCb?: BufferEncoding | Callback, maybeCb?: Callback): boolean => {
    const cb = typeof encodingOrCb === 'function' ? encodingOrCb : maybeCb;
    const encoding = typeof encodingOrCb === 'string' ? encodingOrCb : 'utf8';
    // Nothing to write, and no stream to wait for: nothing to make one for (cli.ts asks so at the end of every run).
    if (made === undefined && (chunk === '' || (chunk instanceof Uint8Array && chunk.length === 0))) {
      if (cb) s.defer(() => cb(null));
      return true;
    }
    if (budget === 0 || (typeof chunk !== 'string' && !(chunk instanceof Uint8Array))) return passOn(chunk, encodingOrCb, maybeCb);
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk;
    if (buf.length > budget) return passOn(chunk, encodingOrCb, maybeCb);
    let done = 0;
    try {
      while (done < buf.length) done += s.writeSync(buf, done, buf.length - done);
    } catch {
      // EAGAIN, EPIPE or any other refusal: the stream takes the rest and reports what it meets.
      return stream().write(buf.subarray(done), cb as Callback);
    }
    budget -= buf.length;
    if (cb) s.defer(() => cb(null));
    return true;
  };

  return new Proxy({} as NodeJS.WritableStream & { isTTY?: boolean }, {
    get(_target, prop) {
      if (prop === 'write') return write;
      // Only a descriptor that may be a terminal needs its stream to say.
      if (prop === 'isTTY') return s.direct ? false : (stream() as { isTTY?: boolean }).isTTY;
      const real = stream();
      const v = Reflect.get(real, prop, real) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(real) : v;
    },
    has(_target, prop) {
      return prop === 'write' || prop === 'isTTY' || Reflect.has(stream(), prop);
    },
  });
}
