/**
 * The local ledger's log (docs/architecture.md, "The ledger"; group commit, for batch runs): one
 * append-only file per process run, `<journal>/log/<uuid>.log` (0600 in a 0700 folder), one
 * JSON line per entry state. Lines appended in the same moment are written with one write and
 * made durable with one fsync: a batch's senders pay for one fsync together instead of a file,
 * a rename and two fsyncs each. An entry is found by its usual per-payout name in the journal
 * folder, which is then a hard link of the log's claim file (`<uuid>.claim`, a Claim of
 * log-reader.ts): creating that link is the exclusive claim of the payout id (it fails when the
 * name is taken), and it costs no new file. The claim is made only after the entry's line is
 * durable, so a line without a claim is one whose request never left. Readers are in
 * log-reader.ts.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { checkFolder } from '../../config/paths.js';
import { fsyncFolder, makeFolder } from './atomic-files.js';
import { LOG_FOLDER, type Claim } from './log-reader.js';

/** Hard links an inode may have on ext4 is 65,000: a claim file takes at most this many (claims and markers). */
const LINKS_PER_CLAIM = 30_000;

/** The whole buffer written at the file's end (a regular file takes it in one call; a short write goes on). */
function writeAll(fd: number, buf: Buffer): void {
  for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off);
}

/** A log line as JSON.stringify({ name, entry }) writes it, the entry given serialized (mac.ts signedJson). */
function logLine(name: string, entryJson: string): string {
  return `{"name":${JSON.stringify(name)},"entry":${entryJson}}\n`;
}

/** This process's log: appends with group commit, and the claim file to link names to. */
export class LogWriter {
  readonly name = `${randomUUID()}.log`;
  readonly #folder: string;
  readonly #journalDir: string;
  #fh: Promise<FileHandle> | undefined;
  /** The log's descriptor once it is open (appendNow writes through it). */
  #fd: number | undefined;
  #lines: string[] = [];
  #next: Promise<void> | undefined;
  #tail: Promise<void> = Promise.resolve();
  #claim: Promise<string> | undefined;
  #claimLinks = 0;
  #created = false;

  constructor(journalDir: string) {
    this.#journalDir = journalDir;
    this.#folder = join(journalDir, LOG_FOLDER);
  }

  get file(): string {
    return join(this.#folder, this.name);
  }

  #folderMade: Promise<void> | undefined;

  /** The log folder, made (durably) and checked once: the log and the claim file go in it. */
  #folderReady(): Promise<void> {
    this.#folderMade ??= (async () => {
      await makeFolder(this.#folder);
      checkFolder(this.#folder, 'payout journal log folder');
      await fsyncFolder(this.#journalDir);
    })();
    return this.#folderMade;
  }

  /** The log file, made on first use: the folder and the file's name durable before any line is trusted to it. */
  #open(): Promise<FileHandle> {
    this.#fh ??= (async () => {
      // Opened again after compact(): it exists, and is appended to.
      if (this.#created) return open(this.file, 'a', 0o600);
      await this.#folderReady();
      const fh = await open(this.file, 'ax', 0o600);
      await fsyncFolder(this.#folder);
      this.#created = true;
      return fh;
    })();
    return this.#fh;
  }

  /**
   * Appends a line; resolves once it is durable. Lines appended while a write is under way
   * go together in the next one: one write and one fsync for all of them.
   */
  append(name: string, entryJson: string): Promise<void> {
    this.#lines.push(logLine(name, entryJson));
    if (!this.#next) {
      const next = this.#tail
        .catch(() => {})
        .then(async () => {
          // Taken now: lines from here on wait for the following write.
          this.#next = undefined;
          const lines = this.#lines;
          this.#lines = [];
          const fh = await this.#open();
          this.#fd = fh.fd;
          // Written at once (to the page cache: microseconds), made durable on the thread pool:
          // one hand-off per group instead of one per write call.
          writeAll(fh.fd, Buffer.from(lines.join(''), 'utf8'));
          await fh.datasync();
        });
      this.#next = next;
      this.#tail = next;
    }
    return this.#next;
  }

  /**
   * Appends a line at once, without waiting for an fsync: it survives the process being
   * killed from the moment this returns, and is durable (against the machine going down)
   * with the next group's fsync or the compaction's. For outcomes: their loss would only
   * make a rerun send the payout again under its journaled key, which the service answers
   * as a replay. Needs the log open (a line of the entry appended before); else it is
   * appended as usual.
   */
  appendNow(name: string, entryJson: string): Promise<void> {
    if (this.#fd === undefined) return this.append(name, entryJson);
    // Lines of the same turn of the event loop (answers read together) go in one write, made
    // as soon as that turn's callbacks have run.
    this.#now.push(logLine(name, entryJson));
    if (!this.#nowWritten) {
      let done!: { resolve: () => void; reject: (err: unknown) => void };
      this.#nowWritten = new Promise<void>((resolve, reject) => (done = { resolve, reject }));
      this.#nowDone = done;
      this.#nowFlush = setImmediate(() => this.#writeNow());
    }
    return this.#nowWritten;
  }

  #now: string[] = [];
  #nowFlush: NodeJS.Immediate | undefined;
  /** Resolves once the lines appended with appendNow so far are written. */
  #nowWritten: Promise<void> | undefined;
  #nowDone: { resolve: () => void; reject: (err: unknown) => void } | undefined;

  #writeNow(): void {
    clearImmediate(this.#nowFlush);
    const done = this.#nowDone;
    const lines = this.#now.join('');
    this.#nowFlush = undefined;
    this.#nowWritten = undefined;
    this.#nowDone = undefined;
    this.#now = [];
    if (!done) return;
    try {
      if (this.#fd === undefined) throw new Error('the journal log was closed');
      writeAll(this.#fd, Buffer.from(lines, 'utf8'));
      done.resolve();
    } catch (err) {
      done.reject(err);
    }
  }

  /**
   * The claim file to link `links` more names to (a new one, durable, when the current one
   * has had its share of links).
   */
  claimFile(links: number): Promise<string> {
    if (!this.#claim || this.#claimLinks + links > LINKS_PER_CLAIM) {
      this.#claimLinks = 0;
      // Made beside the log, not after it: a claim file no name links to is never read.
      this.#claim = (async () => {
        await this.#folderReady();
        const file = join(this.#folder, `${randomUUID()}.claim`);
        const fh = await open(file, 'wx', 0o600);
        try {
          await fh.writeFile(JSON.stringify({ payctl_journal_claim: 1, log: this.name } satisfies Claim) + '\n');
          await fh.sync();
        } finally {
          await fh.close();
        }
        await fsyncFolder(this.#folder);
        return file;
      })();
    }
    this.#claimLinks += links;
    return this.#claim;
  }

  /**
   * Rewrites the log with only the latest line of each entry in `names` (a new file, fsynced,
   * renamed over it) and closes it. Waits for every append first. Streamed: one pass finds
   * where each entry's latest line is, a second copies those lines, a megabyte at a time, so
   * a long batch's log (two lines of about a kilobyte a row) is never held in memory whole.
   */
  async compact(names: ReadonlySet<string>): Promise<void> {
    if (!this.#fh) return;
    await this.#tail.catch(() => {});
    this.#writeNow();
    const fh = await this.#fh;
    await fh.close();
    this.#fh = undefined;
    this.#fd = undefined;
    const tmp = `${this.file}.${randomUUID()}.tmp`;
    const src = openSync(this.file, 'r');
    try {
      const latest = latestLines(src, names);
      const out = await open(tmp, 'wx', 0o600);
      try {
        copyRanges(src, out.fd, latest);
        await out.sync();
      } finally {
        await out.close();
      }
    } finally {
      closeSync(src);
    }
    await rename(tmp, this.file);
    await fsyncFolder(this.#folder);
  }
}

const CHUNK = 1 << 20;
/** Every line starts with its name: LogWriter writes `{"name":"…","entry":…}`. */
const NAME_PREFIX = Buffer.from('{"name":"');

/** Where the latest whole line of each entry in `names` is in the file: [offset, length with its newline], in file order. */
function latestLines(fd: number, names: ReadonlySet<string>): Array<[number, number]> {
  const latest = new Map<string, [number, number]>();
  let buf = Buffer.alloc(CHUNK);
  let at = 0; // file offset of buf[0]
  let have = 0;
  for (;;) {
    if (have === buf.length) {
      // A line longer than the buffer: a bigger one.
      const bigger = Buffer.alloc(buf.length * 2);
      buf.copy(bigger, 0, 0, have);
      buf = bigger;
    }
    const n = readSync(fd, buf, have, buf.length - have, at + have);
    if (n === 0) break;
    have += n;
    let start = 0;
    for (let nl = buf.indexOf(0x0a, start); nl !== -1 && nl < have; nl = buf.indexOf(0x0a, start)) {
      if (buf.compare(NAME_PREFIX, 0, NAME_PREFIX.length, start, start + NAME_PREFIX.length) === 0) {
        const q = buf.indexOf(0x22, start + NAME_PREFIX.length);
        if (q !== -1 && q < nl) {
          const name = buf.toString('latin1', start + NAME_PREFIX.length, q);
          if (names.has(name)) latest.set(name, [at + start, nl + 1 - start]);
        }
      }
      start = nl + 1;
    }
    // Keep the unfinished line (a line cut short by a crash stays unfinished: never copied).
    buf.copy(buf, 0, start, have);
    at += start;
    have -= start;
  }
  return [...latest.values()].sort((x, y) => x[0] - y[0]);
}

/** The byte ranges of `from` written to `to`, in order, through a buffer of a megabyte or so. */
function copyRanges(from: number, to: number, ranges: Array<[number, number]>): void {
  let out = Buffer.alloc(CHUNK);
  let used = 0;
  for (const [offset, length] of ranges) {
    if (used + length > out.length) {
      writeAll(to, out.subarray(0, used));
      used = 0;
      if (length > out.length) out = Buffer.alloc(length);
    }
    for (let got = 0; got < length;) {
      const n = readSync(from, out, used + got, length - got, offset + got);
      if (n === 0) throw new Error('the journal log was cut short while it was being compacted');
      got += n;
    }
    used += length;
  }
  writeAll(to, out.subarray(0, used));
}
