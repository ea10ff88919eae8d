/**
 * Claims on a log, and reading logs (docs/architecture.md, "The ledger"): a batch run keeps its
 * entries in a log of its own (log.ts), and each entry's per-payout name is then a claim,
 * `{"payctl_journal_claim":1,"log":…}`, on that log. Readers keep, per log, the latest line of
 * each entry and the offset read so far, so a log another process is still appending to is
 * read once, incrementally (and from its start again once compacted: #index). A line cut
 * short by a crash (no newline at its end) is never read: its claim was never made.
 */
import { closeSync, existsSync, readdirSync, readSync, statSync } from 'node:fs';
import { ConfigError } from '../../errors.js';
import { openRegular, readLines, RefusedFile, type OpenedFile } from '../../config/regular-file.js';
import { join } from 'node:path';
import { MAX_ENTRY_BYTES, NOT_ACTED_ON } from './names.js';
import { entryZeroKey } from '../sent-body.js';
import type { JournalEntry } from './ledger.js';

/** The prefix of a look-up key's names in a log's index (LogIndex.keys). */
const KIND_PREFIX = { fingerprint: 'f', repeat: 'r', zero: 'z', day: 'd' } as const;

export const LOG_FOLDER = 'log';
const LOG_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.log$/;

/** What a per-payout name holds when the entry is kept in a log. */
export interface Claim {
  payctl_journal_claim: 1;
  log: string;
}

/** The field that makes a file's text a claim. */
export const CLAIM_KEY = 'payctl_journal_claim';

/** A claim, or (when it claims to be one but holds anything else) 'changed': not as payctl writes claims. */
export function claimOf(value: unknown): Claim | 'changed' | undefined {
  if (typeof value !== 'object' || value === null || !(CLAIM_KEY in value)) return undefined;
  const keys = Object.keys(value).sort();
  const c = value as Claim;
  return keys.length === 2 && keys[0] === 'log' && keys[1] === CLAIM_KEY && c.payctl_journal_claim === 1 && typeof c.log === 'string' ? c : 'changed';
}

/** An entry's day marker key (markers.ts): the UTC day of its createdAt ("2026-11-28"); undefined for a createdAt that is no such time. */
export function dayOf(createdAt: string): string | undefined {
  return /^\d{4}-\d{2}-\d{2}T/.test(createdAt) ? createdAt.slice(0, 10) : undefined;
}

/** The transaction id of a line's outcome, unchecked (LogReader.named looks a day's lines up by it). */
function transactionOf(entry: Record<string, unknown>): string | undefined {
  const o = entry.outcome as { transactionId?: unknown } | undefined;
  return typeof o?.transactionId === 'string' ? o.transactionId : undefined;
}

/**
 * Whether the bytes of `file` hold any of `texts`, read `chunk` bytes at a time (the end of each
 * kept for the next: a text cut in two by a chunk's end is still found). A file that cannot be
 * read holds nothing (a log that cannot be read has no line either).
 */
export function fileHolds(file: string, texts: string[], chunk = READ_CHUNK): boolean {
  let fd: number;
  try {
    const f = openRegular(file);
    if (!f) return false;
    fd = f.fd;
  } catch {
    return false;
  }
  try {
    const needles = texts.map((t) => Buffer.from(t));
    const keep = Math.max(0, ...needles.map((n) => n.length - 1));
    const buf = Buffer.allocUnsafe(keep + chunk);
    for (let at = 0, carried = 0; ;) {
      const n = readSync(fd, buf, carried, chunk, at);
      if (n === 0) return false;
      // Read no further than a reader does (readLines): up to a NUL byte, which payctl never writes.
      const nul = buf.subarray(carried, carried + n).indexOf(0);
      const data = buf.subarray(0, nul >= 0 ? carried + nul : carried + n);
      if (needles.some((x) => data.includes(x))) return true;
      if (nul >= 0) return false;
      at += n;
      carried = Math.min(keep, data.length);
      data.copy(buf, 0, data.length - carried);
    }
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * The texts one of which is in any JSON text of an entry accepted with this transaction id: the
 * id as JSON writes it, and the escape (`\u`) that could spell it otherwise. A text with neither
 * holds no such entry (stored.ts readEntry, LogReader.named).
 */
export function transactionTexts(transactionId: string): string[] {
  return [JSON.stringify(transactionId).slice(1, -1), '\\u'];
}

/** One line: the entry's per-payout name and the entry, with its HMAC, as a file would hold it. */
export interface LogLine {
  name: string;
  entry: Record<string, unknown>;
}

interface LogIndex {
  offset: number;
  /** Each entry's latest line; kept only for a full index (a keys-only one serves namedSince: repeat keys, no entry). */
  lines: Map<string, LogLine>;
  full: boolean;
  /** Names of the entries with each fingerprint, repeat key, day and transaction id (`f:<key>`, `r:<key>`, `d:<day>`, `t:<id>`), for look-up markers. */
  keys: Map<string, Set<string>>;
  /** The file read, as it was when last looked at: its inode, size and change time. */
  ino: number;
  size: number;
  ctimeMs: number;
  /** The last whole line read (ending at offset), to know the file still holds it there. */
  last: Buffer;
  /** Why the log was not read past the offset (readLines): what payctl never writes is there. */
  unread?: string;
}

/**
 * Whether the log open on `fd` still holds, just before the offset read to, the line read last
 * there. Compaction only drops lines and keeps their order, and a line names its entry and
 * carries its HMAC: the same line ending at the same offset means no line before it was dropped.
 */
function continues(fd: number, idx: LogIndex): boolean {
  if (idx.offset === 0) return true;
  const n = idx.last.length;
  const buf = Buffer.alloc(n);
  return readSync(fd, buf, 0, n, idx.offset - n) === n && buf.equals(idx.last);
}

/** Bytes of a log read at a time (LogReader #readFrom). */
const READ_CHUNK = 1 << 20;

/** A file's first whole line (without its newline), read a block at a time; undefined when there is none. */
function firstLine(file: string): string | undefined {
  const f = openRegular(file);
  if (!f) return undefined;
  const fd = f.fd;
  try {
    let buf = Buffer.alloc(16 * 1024);
    let got = 0;
    for (;;) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      const end = buf.subarray(got, got + n).indexOf(0x0a);
      if (end >= 0) return buf.toString('utf8', 0, got + end);
      got += n;
      if (n === 0 || got >= MAX_ENTRY_BYTES) return undefined;
      if (got === buf.length) buf = Buffer.concat([buf, Buffer.alloc(buf.length)]);
    }
  } finally {
    closeSync(fd);
  }
}

/** Whether `key` (`<batch id>\n<file>`, LogReader.batchRuns) is of this run (from its file, when it names one). */
function isRun(key: string, run: { id: string; file?: string }): boolean {
  return run.file === undefined ? key.startsWith(`${run.id}\n`) : key === `${run.id}\n${run.file}`;
}

/** What readers know of each log: the latest line of every entry, read incrementally. */
export class LogReader {
  readonly #folder: string;
  readonly #logs = new Map<string, LogIndex>();

  constructor(journalDir: string) {
    this.#folder = join(journalDir, LOG_FOLDER);
  }

  /** Why log `log` was not read to its end, as a sentence's end ("holds a NUL byte at byte 812, …"); undefined when it was. */
  unread(log: string): string | undefined {
    return this.#logs.get(log)?.unread;
  }

  /** Log `log`'s path, to name it (a name payctl never writes is quoted, as the claim gives it). */
  file(log: string): string {
    return LOG_NAME.test(log) ? join(this.#folder, log) : `${JSON.stringify(log.slice(0, 80))} (no log name payctl writes)`;
  }

  /**
   * Where log `log` breaks, as a sentence's end, once it was read: not read to its end (unread),
   * or its last line cut short (a crash or a full disk while it was written: the bytes after its
   * last whole line are no line); "is not there" for a log that is not. Undefined when whole.
   */
  breaks(log: string): string | undefined {
    const idx = this.#logs.get(log);
    if (!idx) return LOG_NAME.test(log) && !existsSync(this.file(log)) ? 'is not there' : undefined;
    if (idx.unread) return idx.unread;
    if (idx.size > idx.offset)
      return `is cut short: its last whole line ends at byte ${idx.offset}, and the ${idx.size - idx.offset} bytes after it (to byte ${idx.size}) are a line cut off (a crash or a full disk while it was written)`;
    return undefined;
  }

  /** The latest line of entry `name` in log `log`, or undefined (a log that is not there: none). */
  line(log: string, name: string): LogLine | undefined {
    return this.#index(log)?.lines.get(name);
  }

  /**
   * The names of the entries in log `log` that a line gives this fingerprint, repeat key or day
   * (unchecked: each is read and verified by the journal; a later line may have changed it);
   * with `transactionId`, only those a line also gives an outcome with that transaction id.
   */
  named(log: string, kind: 'fingerprint' | 'repeat' | 'zero' | 'day', key: string, transactionId?: string): string[] {
    // A log not read yet whose bytes do not hold the transaction id has no line with it: not parsed.
    if (transactionId !== undefined && !this.#logs.get(log)?.full && !this.#holds(log, transactionTexts(transactionId))) return [];
    const keys = this.#index(log)?.keys;
    const names = [...(keys?.get(`${KIND_PREFIX[kind]}:${key}`) ?? [])];
    if (transactionId === undefined) return names;
    const paid = keys?.get(`t:${transactionId}`);
    return paid ? names.filter((n) => paid.has(n)) : [];
  }

  /**
   * The batch runs the logs hold, as `<batch id>\n<file>` (each log is one process's run: the
   * batch of its first whole line), each with the latest time it may have written a line (ms:
   * the later of its logs' modification times and their first entries' creation), read once a
   * process: one short read and a stat a log. `fresh`: logs begun since are read too (a listing
   * of the folder; logs read before are not read again). Unchecked: only says where the
   * journal's entries are worth reading (local.ts findInBatch, findRecentBatchRows). Both
   * times, because a clock set by hand (a test's, faketime's) writes entries the file system's
   * clock does not date.
   */
  batchRuns(fresh = false): Map<string, number> {
    if (this.#runs && !fresh) return this.#runs;
    const runs = (this.#runs ??= new Map<string, number>());
    let logs: string[] = [];
    try {
      logs = readdirSync(this.#folder).filter((f) => LOG_NAME.test(f) && !this.#read.has(f));
    } catch {
      // no log folder: no batch run kept in a log
    }
    for (const log of logs) {
      try {
        const file = join(this.#folder, log);
        const line = firstLine(file);
        // Not a whole line yet (being written): read when asked again.
        if (line === undefined) continue;
        this.#read.add(log);
        const entry = (JSON.parse(line) as LogLine).entry;
        const batch = entry?.batch as { id?: unknown; file?: unknown } | undefined;
        if (typeof batch?.id !== 'string' || typeof batch.file !== 'string') continue;
        const created = typeof entry.createdAt === 'string' ? Date.parse(entry.createdAt) : NaN;
        const at = Math.max(statSync(file).mtimeMs, Number.isNaN(created) ? 0 : created);
        const run = `${batch.id}\n${batch.file}`;
        runs.set(run, Math.max(runs.get(run) ?? 0, at));
        this.#logRuns.set(log, { run, at });
      } catch {
        // a log that cannot be read, or whose first line is not payctl's: no run named by it
      }
    }
    return runs;
  }

  #runs: Map<string, number> | undefined;
  /** The logs whose first line was read (batchRuns). */
  readonly #read = new Set<string>();
  /** Each log of a batch run: its run (`<batch id>\n<file>`) and when it may last have been written. */
  readonly #logRuns = new Map<string, { run: string; at: number }>();

  /**
   * Whether a log holds a run of this batch (from its file, when it names one). That a log's
   * first line names its run holds because a log is one process's (log.ts LogWriter) and a
   * process sends one batch run (payout batch, plan send).
   */
  ran(run: { id: string; file?: string }): boolean {
    const runs = this.batchRuns();
    return run.file === undefined ? [...runs.keys()].some((r) => isRun(r, run)) : runs.has(`${run.id}\n${run.file}`);
  }

  /** The names of every entry a log of batch run `run` holds a line of (unchecked, as `named`): local.ts batchRows. */
  namesOfRun(run: { id: string; file?: string }): string[] {
    this.batchRuns(true);
    return [...this.#logRuns].filter(([, r]) => isRun(r.run, run)).flatMap(([log]) => [...(this.#index(log)?.lines.keys() ?? [])]);
  }

  /** Whether a log of a batch run may have been written at or after `t` (ms). */
  ranSince(t: number): boolean {
    for (const at of this.batchRuns().values()) if (at >= t) return true;
    return false;
  }

  /**
   * The names of the entries given one of these repeat keys (or zero keys) by a line of a log of a batch run
   * other than `except` that may have been written at or after `t` (ms), logs begun since they
   * were last listed included (batchRuns fresh): where the rows another run journaled meanwhile
   * are (local.ts otherBatchRowsSince). Unchecked, as `named`.
   */
  namedSince(t: number, except: { id: string; file?: string }, repeatKeys: string[], zeroKeys: string[] = []): string[] {
    this.batchRuns(true);
    const logs = [...this.#logRuns].filter(([, r]) => r.at >= t && !isRun(r.run, except)).map(([log]) => log);
    return logs.flatMap((log) => {
      // Another run's log: its keys only, not its entries (a 10,000-row log is 50 MB of them, held for the run's length).
      const keys = this.#index(log, false)?.keys;
      return keys ? [...repeatKeys.map((k) => `r:${k}`), ...zeroKeys.map((k) => `z:${k}`)].flatMap((k) => [...(keys.get(k) ?? [])]) : [];
    });
  }

  /**
   * Whether the bytes of log `log` hold any of `texts` (fileHolds): searched, not parsed (a day's
   * log of 3,000 rows, parsed, was most of what payout create's transaction check cost).
   */
  #holds(log: string, texts: string[]): boolean {
    return LOG_NAME.test(log) && fileHolds(join(this.#folder, log), texts);
  }

  /** The log's index, read on from where it was; `full`: with its entries' lines (a keys-only index is read again whole when they are asked for). */
  #index(log: string, full = true): LogIndex | undefined {
    if (!LOG_NAME.test(log)) return undefined;
    const file = join(this.#folder, log);
    let idx = this.#logs.get(log);
    if (idx && full && !idx.full) idx = undefined;
    try {
      const st = statSync(file);
      // Not changed since it was read (the same file, size and change time): nothing to read.
      if (idx && st.ino === idx.ino && st.size === idx.size && st.ctimeMs === idx.ctimeMs) return idx;
    } catch {
      return undefined;
    }
    // Read through one descriptor: a log renamed over (compacted) in between is not read half
    // from one file and half from the other.
    let f: OpenedFile | undefined;
    try {
      f = openRegular(file);
    } catch (err) {
      // A log that is not a regular file (a named pipe there hung every reader in open()): refused, naming it.
      if (err instanceof RefusedFile) throw new ConfigError(`The payout journal log ${file} ${err.why}.`, NOT_ACTED_ON);
      return undefined;
    }
    if (!f) return undefined;
    const { fd, st } = f;
    try {
      // A log compacted since (log.ts compact: a new file, renamed over it) is read again from
      // its start: read on from the old offset, it hid the lines moved before that offset (an
      // outcome, a new entry). A new file, a shorter one, or one whose bytes before the offset
      // are not the line read last there.
      if (!idx || st.ino !== idx.ino || st.size < idx.offset || !continues(fd, idx)) {
        idx = { offset: 0, lines: new Map(), full, keys: new Map(), ino: 0, size: 0, ctimeMs: 0, last: Buffer.alloc(0) };
        this.#logs.set(log, idx);
      }
      Object.assign(idx, { ino: st.ino, size: st.size, ctimeMs: st.ctimeMs });
      if (st.size > idx.offset) this.#readFrom(fd, idx, st.size);
    } finally {
      closeSync(fd);
    }
    return idx;
  }

  /**
   * The whole lines from the index's offset to `size`, a megabyte at a time (regular-file.ts
   * readLines): another run's log of 10,000 rows is 10 MB, and read at once it was held twice
   * over (bytes and text) while parsed. Where the log cannot be what payctl wrote (a NUL byte,
   * a line over MAX_ENTRY_BYTES) it is not read further, and `unread` says why.
   */
  #readFrom(fd: number, idx: LogIndex, size: number): void {
    idx.unread = readLines(fd, idx.offset, size, MAX_ENTRY_BYTES, (lines) => this.#take(idx, lines));
  }

  /** Whole lines read (`data` ends with a newline): indexed, the offset moved past them. */
  #take(idx: LogIndex, data: Buffer): void {
    const end = data.length - 1;
    idx.offset += data.length;
    idx.last = Buffer.from(data.subarray(end > 0 ? data.lastIndexOf(0x0a, end - 1) + 1 : 0));
    for (const raw of data.toString('utf8').split('\n')) {
      if (!raw) continue;
      try {
        const l = JSON.parse(raw) as LogLine;
        if (typeof l.name === 'string' && typeof l.entry === 'object' && l.entry !== null) {
          if (idx.full) idx.lines.set(l.name, l);
          for (const [k, v] of [
            ['f', l.entry.fingerprint],
            ['r', l.entry.repeatKey],
            ['z', typeof l.entry.body === 'string' ? entryZeroKey(l.entry as Pick<JournalEntry, 'zeroKey' | 'body'>) : undefined],
            ['d', typeof l.entry.createdAt === 'string' ? dayOf(l.entry.createdAt) : undefined],
            ['t', transactionOf(l.entry)],
          ] as const) {
            // A keys-only index serves look-ups by repeat and zero key only (namedSince).
            if (typeof v !== 'string' || (!idx.full && k !== 'r' && k !== 'z')) continue;
            const names = idx.keys.get(`${k}:${v}`);
            if (names) names.add(l.name);
            else idx.keys.set(`${k}:${v}`, new Set([l.name]));
          }
        }
      } catch {
        // Not a line payctl wrote whole: passed over (what it claimed is checked where it is read).
      }
    }
  }
}
