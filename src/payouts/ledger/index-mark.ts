/**
 * The journal index's high-water mark (docs/architecture.md, "The ledger"): `<config>/journal.mark`,
 * beside journal.key and outside journal/ and journal.index, so that restoring those two from an
 * older backup leaves it. It names the last line payctl appended to the index (by that line's
 * HMAC) and how long the index was then, signed with the journal key. An index shorter than that,
 * or without that line, was rolled back: gaps.ts takes it for a journal lost whole. Written after
 * every append (a temp file, fsynced, renamed over it; the index's line made durable first), or,
 * while a batch holds the index open, at most once every MARK_EVERY_MS and when it is let go (a
 * mark behind the index says nothing wrong; written for the lines of each moment, its fsyncs on
 * the main thread were a tenth of a 10,000-row batch's time).
 * A mark missing (a folder of a payctl before it, or deleted) says nothing; it is written again
 * with the next line.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, fsyncSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openRegular, RefusedFile } from '../../config/regular-file.js';
import type { JournalMac } from './mac.js';

/** How long a batch's mark may stay behind its index (defer). */
const MARK_EVERY_MS = 250;

/** What the mark's HMAC covers. */
const markText = (size: number, line: string) => `payctl-journal-index-mark-v1\n${size}\n${line}`;

/** The mark as read: the index's size then, and the HMAC of its last line then. */
export interface Mark {
  size: number;
  line: string;
}

/** What `read` found: no mark, a mark that verifies, or why it cannot be trusted. */
export type MarkRead = { mark?: Mark; damaged?: string };

export class IndexMark {
  readonly file: string;
  readonly #mac: JournalMac;
  /** The mark to write once the lines of this moment are appended (`defer`). */
  #pending: { fd: number; mark: Mark } | undefined;
  #flush: NodeJS.Timeout | undefined;

  constructor(configDir: string, mac: JournalMac) {
    this.file = join(configDir, 'journal.mark');
    this.#mac = mac;
  }

  /** The mark in its file: none when there is none; `damaged` when it is not as payctl writes it or does not verify. */
  read(): MarkRead {
    let text: string;
    try {
      const f = openRegular(this.file);
      if (!f) return {};
      try {
        const buf = Buffer.alloc(Math.min(f.st.size, 4096));
        const n = readSync(f.fd, buf, 0, buf.length, 0);
        text = buf.subarray(0, n).toString('utf8');
      } finally {
        closeSync(f.fd);
      }
    } catch (err) {
      return { damaged: `The payout journal's high-water mark ${this.file} ${err instanceof RefusedFile ? err.why : `cannot be read (${(err as Error).message})`}.` };
    }
    try {
      const m = JSON.parse(text) as { size?: unknown; line?: unknown; mac?: unknown };
      if (typeof m.size !== 'number' || !Number.isSafeInteger(m.size) || m.size < 0 || typeof m.line !== 'string' || typeof m.mac !== 'string')
        throw new Error('not a mark');
      if (!this.#mac.matches(markText(m.size, m.line), m.mac)) throw new Error('not verified');
      return { mark: { size: m.size, line: m.line } };
    } catch {
      return { damaged: `The payout journal's high-water mark ${this.file} was changed outside payctl (it does not verify).` };
    }
  }

  /** After `line` was appended to the index open on `fd`: the mark written now (the line made durable first). */
  now(fd: number, line: string, size: number): void {
    fdatasyncSync(fd);
    this.#write({ size, line });
  }

  /** As `now`, for an index held open by a batch: written within MARK_EVERY_MS (or at `settle`). */
  defer(fd: number, line: string, size: number): void {
    this.#pending = { fd, mark: { size, line } };
    this.#flush ??= setTimeout(() => this.settle(), MARK_EVERY_MS).unref();
  }

  /** A deferred mark written now (before the index is let go). */
  settle(): void {
    clearTimeout(this.#flush);
    this.#flush = undefined;
    const p = this.#pending;
    this.#pending = undefined;
    if (!p) return;
    try {
      fdatasyncSync(p.fd);
      this.#write(p.mark);
    } catch {
      // Not written: the mark stays behind the index, which says nothing wrong.
    }
  }

  /** The mark written whole: a temp file (0600, fsynced) renamed over it. */
  #write(mark: Mark): void {
    const tmp = `${this.file}.${randomUUID()}.tmp`;
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      try {
        writeSync(fd, JSON.stringify({ ...mark, mac: this.#mac.of(markText(mark.size, mark.line)) }) + '\n');
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.file);
    } catch (err) {
      try {
        unlinkSync(tmp);
      } catch {
        // Gone already.
      }
      throw err;
    }
  }
}
