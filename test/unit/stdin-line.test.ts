/**
 * The first line of standard input as payctl reads a piped secret (output/stdin-line.ts):
 * decoded only once whole, so a character written in two pieces stays one character, and
 * bounded in bytes, as the refusal says.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_LINE, readFirstLine } from '../../src/output/stdin-line.js';
import { UsageError } from '../../src/errors.js';

const read = (chunks: (Buffer | string)[]): Promise<string> =>
  readFirstLine(Readable.from(chunks, { objectMode: true }), new AbortController().signal, () => new Error('interrupted'));

describe('readFirstLine', () => {
  it('keeps a character whose UTF-8 bytes arrive in two chunks whole', async () => {
    const secret = Buffer.from('whsec_caf\u00e9\u20ac\n', 'utf8');
    const cuts = [secret.indexOf(0xc3) + 1, secret.indexOf(0xe2) + 2];
    const chunks = [secret.subarray(0, cuts[0]), secret.subarray(cuts[0], cuts[1]), secret.subarray(cuts[1])];
    expect(await read(chunks)).toBe('whsec_caf\u00e9\u20ac');
  });

  it('ends at the first line break (a trailing carriage return dropped), in any chunk', async () => {
    expect(await read(['sk_', Buffer.from('live_1\r\nsecond line\n')])).toBe('sk_live_1');
    expect(await read([Buffer.from('no line break at all')])).toBe('no line break at all');
  });

  it('counts the bound in bytes: 64 KiB of ASCII is read, 40,000 two-byte characters are refused', async () => {
    expect(await read([Buffer.alloc(MAX_LINE, 'a'), '\n'])).toHaveLength(MAX_LINE);
    const wide = '\u00e9'.repeat(40_000) + '\n'; // 80,000 bytes, 40,000 UTF-16 units
    await expect(read([wide])).rejects.toThrow(UsageError);
    await expect(read([wide])).rejects.toThrow('longer than 64 KiB');
    await expect(read([Buffer.alloc(MAX_LINE + 1, 'a')])).rejects.toThrow('longer than 64 KiB');
  });
});
