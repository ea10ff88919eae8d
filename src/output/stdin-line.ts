/**
 * The first line of standard input, as `login --api-key-stdin`, `config set --stdin` and
 * `webhooks listen --secret-stdin` read a secret: ended at once by the run's abort signal (the
 * first Ctrl-C or SIGTERM), not only when the writer closes the pipe. A pipe held open
 * (`sleep 20 | payctl login --api-key-stdin`) kept the read, and the process, deaf to SIGTERM
 * until it closed.
 */
import { UsageError } from '../errors.js';

/** The longest first line read (characters): a secret, a URL or a path is far shorter. */
export const MAX_LINE = 65_536;

/**
 * Reads until the first line break or the end of the stream; the rest is not read. A line
 * longer than MAX_LINE is refused (exit 2) once that much is read: `tr '\0' a </dev/zero` had
 * been read, and held, until Ctrl-C.
 */
async function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  let buf = '';
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    buf += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const nl = buf.indexOf('\n');
    if (nl >= 0 && nl <= MAX_LINE) return buf.slice(0, nl).replace(/\r$/, '');
    if (buf.length > MAX_LINE) {
      throw new UsageError(
        `The first line of standard input is longer than ${MAX_LINE.toLocaleString('en-US')} characters: it is not what payctl asked for. Nothing was sent or saved.`,
        [],
        'Pipe the value alone, on one line.',
      );
    }
  }
  return buf.replace(/\r$/, '');
}

/**
 * The first line of `stream` (a trailing carriage return dropped), or `interrupted()` thrown
 * as soon as `signal` aborts: the stream is then destroyed (nothing more is read from it).
 */
export async function readFirstLine(stream: NodeJS.ReadableStream, signal: AbortSignal, interrupted: () => Error): Promise<string> {
  if (signal.aborted) throw interrupted();
  let onAbort = (): void => undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(interrupted());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const reading = firstLine(stream);
  // Ended by the signal, the read's own end (the destroyed stream) is no one's error.
  reading.catch(() => undefined);
  try {
    return await Promise.race([reading, stopped]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (signal.aborted) (stream as { destroy?: () => void }).destroy?.();
  }
}
