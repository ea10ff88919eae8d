/**
 * The journal's log (group commit, for batch runs): one append-only file per process run,
 * `<journal>/log/<uuid>.log` (0600 in a 0700 folder), one JSON line per entry state. Lines
 * appended in the same moment are written with one write and made durable with one fsync:
 * a batch's senders pay for one fsync together instead of a file, a rename and two fsyncs
 * each. An entry is found by its usual per-payout name in the journal folder, which is then
 * a hard link of the log's claim file (`<uuid>.claim`, `{"payctl_journal_claim":1,"log":…}`):
 * creating that link is the exclusive claim of the payout id (it fails when the name is
 * taken), and it costs no new file. The claim is made only after the entry's line is
 * durable, so a line without a claim is one whose request never left.
 *
 * Readers keep, per log, the latest line of each entry and the offset read so far, so a log
 * another process is still appending to is read once, incrementally. A line cut short by a
 * crash (no newline at its end) is never read: its claim was never made.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, statSync, writeSync } from 'node:fs';
import { mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { checkFolder } from '../config/paths.js';

export const LOG_FOLDER = 'log';
const LOG_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.log$/;
/** Hard links an inode may have on ext4 is 65,000: a claim file takes at most this many (claims and markers). */
const LINKS_PER_CLAIM = 30_000;

/** What a per-payout name holds when the entry is kept in a log. */
export interface Claim {
  payctl_journal_claim: 1;
  log: string;
}

/** A claim, or (when it claims to be one but holds anything else) 'changed': not as payctl writes claims. */
export function claimOf(value: unknown): Claim | 'changed' | undefined {
  if (typeof value !== 'object' || value === null || !('payctl_journal_claim' in value)) return undefined;
  const keys = Object.keys(value).sort();
  const c = value as Claim;
  return keys.length === 2 && keys[0] === 'log' && keys[1] === 'payctl_journal_claim' && c.payctl_journal_claim === 1 && typeof c.log === 'string' ? c : 'changed';
}

/** One line: the entry's per-payout name and the entry, with its HMAC, as a file would hold it. */
export interface LogLine {
  name: string;
  entry: Record<string, unknown>;
}

/** The whole buffer written at the file's end (a regular file takes it in one call; a short write goes on). */
function writeAll(fd: number, buf: Buffer): void {
  for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off);
}

async function fsyncFolder(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
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

  /** The log file, made on first use: the folder and the file's name durable before any line is trusted to it. */
  #open(): Promise<FileHandle> {
    this.#fh ??= (async () => {
      // Opened again after compact(): it exists, and is appended to.
      if (this.#created) return open(this.file, 'a', 0o600);
      await mkdir(this.#folder, { recursive: true, mode: 0o700 });
      checkFolder(this.#folder, 'payout journal log folder');
      await fsyncFolder(this.#journalDir);
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
    // As JSON.stringify({ name, entry }) writes it; the entry comes serialized (journal.ts #signedJson).
    this.#lines.push(`{"name":${JSON.stringify(name)},"entry":${entryJson}}\n`);
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
    writeAll(this.#fd, Buffer.from(`{"name":${JSON.stringify(name)},"entry":${entryJson}}\n`, 'utf8'));
    return Promise.resolve();
  }

  /**
   * The claim file to link `links` more names to (a new one, durable, when the current one
   * has had its share of links).
   */
  claimFile(links: number): Promise<string> {
    if (!this.#claim || this.#claimLinks + links > LINKS_PER_CLAIM) {
      this.#claimLinks = 0;
      this.#claim = (async () => {
        await this.#open();
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
   * renamed over it) and closes it. Waits for every append first. Lines are kept as the text
   * they are, never parsed whole: a long batch's log is not held as objects.
   */
  async compact(names: ReadonlySet<string>): Promise<void> {
    if (!this.#fh) return;
    await this.#tail.catch(() => {});
    const fh = await this.#fh;
    await fh.close();
    this.#fh = undefined;
    this.#fd = undefined;
    const latest = new Map<string, string>();
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      // Every line starts with its name (LogWriter writes {"name":…,"entry":…}).
      const name = /^\{"name":"([^"]+)"/.exec(line)?.[1];
      if (name !== undefined && names.has(name)) latest.set(name, line);
    }
    const tmp = `${this.file}.${randomUUID()}.tmp`;
    const out = await open(tmp, 'wx', 0o600);
    try {
      await out.writeFile([...latest.values()].join('\n') + (latest.size ? '\n' : ''));
      await out.sync();
    } finally {
      await out.close();
    }
    await rename(tmp, this.file);
    await fsyncFolder(this.#folder);
  }
}

interface LogIndex {
  offset: number;
  lines: Map<string, LogLine>;
}

/** What readers know of each log: the latest line of every entry, read incrementally. */
export class LogReader {
  readonly #folder: string;
  readonly #logs = new Map<string, LogIndex>();

  constructor(journalDir: string) {
    this.#folder = join(journalDir, LOG_FOLDER);
  }

  /** The latest line of entry `name` in log `log`, or undefined (a log that is not there: none). */
  line(log: string, name: string): LogLine | undefined {
    if (!LOG_NAME.test(log)) return undefined;
    const file = join(this.#folder, log);
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return undefined;
    }
    let idx = this.#logs.get(log);
    // A log rewritten shorter (compacted) is read again from its start.
    if (!idx || size < idx.offset) {
      idx = { offset: 0, lines: new Map() };
      this.#logs.set(log, idx);
    }
    if (size > idx.offset) this.#readFrom(file, idx, size);
    return idx.lines.get(name);
  }

  #readFrom(file: string, idx: LogIndex, size: number): void {
    const fd = openSync(file, 'r');
    let text: string;
    try {
      const buf = Buffer.alloc(size - idx.offset);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, idx.offset + got);
        if (n === 0) break;
        got += n;
      }
      // Only whole lines: a line still being written (or cut by a crash) waits.
      const end = buf.lastIndexOf(0x0a, got - 1);
      if (end < 0) return;
      text = buf.subarray(0, end + 1).toString('utf8');
      idx.offset += end + 1;
    } finally {
      closeSync(fd);
    }
    for (const raw of text.split('\n')) {
      if (!raw) continue;
      try {
        const l = JSON.parse(raw) as LogLine;
        if (typeof l.name === 'string' && typeof l.entry === 'object' && l.entry !== null) idx.lines.set(l.name, l);
      } catch {
        // Not a line payctl wrote whole: passed over (what it claimed is checked where it is read).
      }
    }
  }
}
