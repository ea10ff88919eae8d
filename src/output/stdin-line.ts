/**
 * The first line of standard input, as `login --api-key-stdin`, `config set --stdin` and
 * `webhooks listen --secret-stdin` read a secret: ended at once by the run's abort signal (the
 * first Ctrl-C or SIGTERM), not only when the writer closes the pipe. A pipe held open
 * (`sleep 20 | payctl login --api-key-stdin`) kept the read, and the process, deaf to SIGTERM
 * until it closed.
 */
import { UsageError } from '../errors.js';

/** The longest first line read, in bytes (64 KiB): a secret, a URL or a path is far shorter. */
export const MAX_LINE = 65_536;

/**
 * Reads until the first line break or the end of the stream; the rest is not read. A line
 * longer than MAX_LINE bytes is refused (exit 2) once that much is read: `tr '\0' a </dev/zero`
 * had been read, and held, until Ctrl-C. The bytes are decoded as UTF-8 once the line is whole:
 * a character that arrives in two writes is not cut in two (each piece decoded apart became
 * U+FFFD, a secret other than the one piped).
 */
async function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const nl = bytes.indexOf(10);
    if (nl >= 0 && length + nl <= MAX_LINE) {
      chunks.push(bytes.subarray(0, nl));
      return Buffer.concat(chunks).toString('utf8').replace(/\r$/, '');
    }
    chunks.push(bytes);
    length += bytes.length;
    if (nl >= 0 || length > MAX_LINE) {
      throw new UsageError(
        'The first line of standard input is longer than 64 KiB: it is not what payctl asked for. Nothing was sent or saved.',
        [],
        'Pipe the value alone, on one line.',
      );
    }
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r$/, '');
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
