/**
 * The journal index's lines read for zero markers (zero-marks.ts): from where an earlier read
 * ended, the entries whose lines do not say, signed, that the entry has its zero marker (`z`,
 * written by gaps.ts note since zero keys; a payctl before them writes none). Where the line an
 * earlier read ended on is not there any more (the index restored from an older copy, deleted and
 * made again, or cut), the index is read again from its start: read on from a byte past a
 * rolled-back index, the lines an older payctl wrote in between were passed over and their payouts
 * paid again (probe R60 finding 1).
 */
import { closeSync, readSync } from 'node:fs';
import { openRegular, readLines, type OpenedFile } from '../../config/regular-file.js';
import type { JournalMac } from './mac.js';
import { ENTRY_NAME, MAX_ENTRY_BYTES } from './names.js';

/** What the HMAC of an index line that says its entry has its zero marker covers: another text than a plain line's, so `z` cannot be added to one. */
export const zeroedText = (name: string, payoutId: string) => `payctl-journal-index-z-v1\n${name}\n${payoutId}`;

/** What the HMAC of zeros.complete's place covers (zero-marks.ts): a place copied from the index's own text is not one. */
export const placeText = (p: IndexPlace) => `payctl-journal-zeros-v1\n${p.end}\n${p.mac ?? ''}`;

/** Where a read of the index ended: the byte after its last whole line, and that line's HMAC. */
export interface IndexPlace {
  end: number;
  mac?: string;
}

/**
 * The names of the entries whose lines from `from` on (from the start when the line `from` ends
 * does not have its HMAC, or the index is shorter) do not say `z` with an HMAC that holds, and
 * where this read ended; undefined when the index cannot be read.
 */
export function unzeroedLines(file: string, mac: JournalMac, from: IndexPlace): { place: IndexPlace; names: string[] } | undefined {
  let f: OpenedFile | undefined;
  try {
    f = openRegular(file);
  } catch {
    return undefined;
  }
  if (!f) return { place: { end: 0 }, names: [] };
  const names: string[] = [];
  try {
    const start = from.end > 0 && from.end <= f.st.size && from.mac !== undefined && macEndingAt(f.fd, from.end) === from.mac ? from.end : 0;
    // Whole lines only (readLines hands them so): a line half written now is read whole next time.
    const place: IndexPlace = start === from.end ? { ...from } : { end: 0 };
    const take = (lines: Buffer) => {
      place.end += lines.length;
      for (const text of lines.toString('utf8').split('\n')) {
        if (!text) continue;
        try {
          const l = JSON.parse(text) as { name?: unknown; payoutId?: unknown; z?: unknown; mac?: unknown };
          if (typeof l.mac === 'string') place.mac = l.mac;
          if (typeof l.name !== 'string' || typeof l.payoutId !== 'string' || !ENTRY_NAME.test(l.name)) continue;
          if (l.z === 1 && mac.matches(zeroedText(l.name, l.payoutId), l.mac as string)) continue;
          names.push(l.name);
        } catch {
          // Not an entry's line.
        }
      }
    };
    if (readLines(f.fd, start, f.st.size, MAX_ENTRY_BYTES, take)) return undefined;
    return { place, names };
  } catch {
    return undefined;
  } finally {
    closeSync(f.fd);
  }
}

/** The HMAC of the whole line that ends at byte `end` (its newline the byte before); undefined when there is none. */
function macEndingAt(fd: number, end: number): string | undefined {
  const buf = Buffer.alloc(Math.min(end, MAX_LINE_BACK));
  const n = readSync(fd, buf, 0, buf.length, end - buf.length);
  if (n !== buf.length || buf[n - 1] !== 0x0a) return undefined;
  const line = buf.subarray(buf.lastIndexOf(0x0a, n - 2) + 1, n - 1).toString('utf8');
  try {
    const m = (JSON.parse(line) as { mac?: unknown }).mac;
    return typeof m === 'string' ? m : undefined;
  } catch {
    return undefined;
  }
}

/** How far back the line an earlier read ended on is looked for: an index line is a few hundred bytes. */
const MAX_LINE_BACK = 4096;
