/**
 * The local ledger's record of itself (docs/architecture.md, "The ledger"):
 * `<config>/journal.index`, beside the journal folder (so deleting the folder leaves it), one
 * line per entry made, its name and payout id with an HMAC made with the journal key. Lost
 * entries (journalGaps) are warned of, and stop `payout create` without --payout-id, whose
 * repeat guard cannot see them (repeats.ts blindRepeatGuard), until a payout is sent with
 * --allow-repeat: that acknowledges them for the repeat guard, a line each (`acknowledged`,
 * signed too). Under a policy's daily total they stop every send (plans/limits.ts), until a run
 * with --acknowledge-missing acknowledges them for the daily total (`uncounted` lines, signed):
 * the total then goes on without what they paid. The index is made before the journal key
 * (`ensure`, at the first entry), so a config folder whose journal.key remains while the index
 * and every entry are gone lost its journal (deleted whole): entries of unknown number, said as
 * `journalLost` and kept as a signed `lost` line once the index is made again. So is an index
 * rolled back (journal/ and journal.index restored together from an older backup, journal.key
 * kept): shorter than its high-water mark says, or without the line the mark names
 * (index-mark.ts); the next line appended after it begins with a `lost` line too (ensure).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, writeSync } from 'node:fs';
import { openRegular, readLines, RefusedFile, type OpenedFile } from '../../config/regular-file.js';
import { join } from 'node:path';
import type { JournalGaps } from './ledger.js';
import { IndexMark } from './index-mark.js';
import { placeText, unzeroedLines, zeroedText, type IndexPlace } from './index-tail.js';
import type { JournalMac } from './mac.js';
import { ENTRY_NAME, MAX_ENTRY_BYTES, type EntryNames } from './names.js';

/**
 * The index opened to append a line (0600): never blocking, never through a symlink, and only
 * a regular file (a named pipe there hung payout create in open()). Throws otherwise.
 */
function appendOnly(file: string): number {
  const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0), 0o600);
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new Error(`${file} is not a regular file`);
  }
  return fd;
}

/** What an index line's HMAC covers. */
const signedText = (name: string, payoutId: string) => `payctl-journal-index-v1\n${name}\n${payoutId}`;

/** What the HMAC of a line acknowledging a missing entry for the repeat guard covers (acknowledge). */
const ackText = (name: string, payoutId: string) => `payctl-journal-index-ack-v1\n${name}\n${payoutId}`;

/** What the HMAC of a line acknowledging a missing entry for the daily total covers (acknowledge): another text, so neither line stands for the other. */
const uncountedText = (name: string, payoutId: string) => `payctl-journal-index-uncounted-v1\n${name}\n${payoutId}`;

/** What the HMAC of a line saying the journal was lost whole before it (`lost`, ensure) covers. */
const lostText = (id: string) => `payctl-journal-index-lost-v1\n${id}`;

/** The name an `uncounted` line gives a `lost` line it acknowledges. */
const lostName = (id: string) => `lost:${id}`;

/**
 * What a missing entry is acknowledged for: `repeat`, the repeat guard of payout create (a
 * payout sent with --allow-repeat); `total`, a policy's daily total (--acknowledge-missing).
 */
export type AckKind = 'repeat' | 'total';

/** The index as read (JournalIndex #read): the missing entries by name, and the names acknowledged missing, by kind. */
interface IndexRead {
  missing: Map<string, string>;
  acknowledged: Record<AckKind, Set<string>>;
  /** The `lost` lines' ids (the journal lost whole before each), and `now` when it is lost with its index, or rolled back (no line yet). */
  lost: { ids: string[]; now: boolean };
  recorded: number;
  unverified: number;
  unread?: string;
}

/** Which missing entries count: of one base URL (`nameOf`: the name a payout id has under it), and not acknowledged for `unacknowledged`. */
export interface GapsFilter {
  nameOf?: (payoutId: string) => string;
  unacknowledged?: AckKind;
}

/** A signed `lost` line: the journal was lost whole before it (ensure). */
function lostLine(id: string, mac: JournalMac): string {
  return JSON.stringify({ lost: id, mac: mac.of(lostText(id)) }) + '\n';
}

/** No name acknowledged yet, of either kind. */
function noneAcknowledged(): Record<AckKind, Set<string>> {
  return { repeat: new Set(), total: new Set() };
}

export class JournalIndex {
  readonly #file: string;
  readonly #keyFile: string;
  readonly #names: EntryNames;
  readonly #mac: JournalMac;
  readonly #mark: IndexMark;
  /** Set while a batch's log is in use: the index is then held open between lines, until `close`. */
  holdOpen = false;
  #fd: number | undefined;
  #ensured = false;

  constructor(configDir: string, names: EntryNames, mac: JournalMac) {
    this.#file = join(configDir, 'journal.index');
    this.#keyFile = join(configDir, 'journal.key');
    this.#names = names;
    this.#mac = mac;
    this.#mark = new IndexMark(configDir, mac);
  }

  /**
   * Before an entry is made (and so before the journal key may be): the index made when there is
   * none, so that a journal key never stands without an index. Made in a folder whose journal
   * was lost whole (lostWhole), it begins with a signed `lost` line: the loss is not forgotten by
   * the first entry written after it. So does an index rolled back (its high-water mark ahead of
   * it: #read), before the mark is moved on by the entry's line. Once a process; a failure is
   * passed over (the entry's own write says why the folder cannot be written).
   */
  ensure(): void {
    if (this.#ensured) return;
    this.#ensured = true;
    try {
      if (lstatSync(this.#file, { throwIfNoEntry: false })) {
        if (this.#read({})?.lost.now) this.#append(lostLine(randomUUID(), this.#mac));
        return;
      }
      if (this.#lostWhole() || this.#mark.read().mark) this.#append(lostLine(randomUUID(), this.#mac));
      else closeSync(appendOnly(this.#file));
    } catch {
      // Not made: noted with the entry's line, or not at all.
    }
  }

  /**
   * With no index: whether the journal was lost whole, index and entries, while its key
   * remains (`rm -r journal journal.index`). The index is made before the key (ensure), so a key
   * without one had entries noted in an index since deleted; a folder of a payctl before the
   * index (27 November 2026) whose entries are all there is not lost.
   */
  #lostWhole(): boolean {
    try {
      if (!lstatSync(this.#keyFile, { throwIfNoEntry: false })) return false;
    } catch {
      return false;
    }
    for (const name of this.#present()) if (ENTRY_NAME.test(name)) return false;
    return true;
  }

  /**
   * Notes a new entry. Appended after the entry exists, so a line never names an entry that
   * was not made. A failure to append is passed over: that entry's loss would go unnoticed,
   * nothing more.
   */
  note(name: string, payoutId: string): void {
    // `z`: the entry has its zero marker (zero-marks.ts), signed with the line; a payctl before zero keys writes none.
    this.#append(JSON.stringify({ name, payoutId, z: 1, mac: this.#mac.of(zeroedText(name, payoutId)) }) + '\n');
  }

  /** The entries whose lines from `from` on do not say, signed, that they have their zero marker (index-tail.ts). */
  unzeroed(from: IndexPlace): { place: IndexPlace; names: string[] } | undefined {
    return unzeroedLines(this.#file, this.#mac, from);
  }

  /** The HMAC of a place read to, under the journal key (zeros.complete: index-tail.ts placeText). */
  signPlace(place: IndexPlace): string {
    return this.#mac.of(placeText(place));
  }

  placeHolds(place: IndexPlace, signature: string): boolean {
    return this.#mac.matches(placeText(place), signature);
  }

  /** What tells the index changed (its size, change time and inode); undefined when it cannot be read. */
  stamp(): string | undefined {
    try {
      const st = lstatSync(this.#file, { throwIfNoEntry: false });
      return st ? `${st.size}:${st.ctimeMs}:${st.ino}` : 'none';
    } catch {
      return undefined;
    }
  }

  /**
   * Acknowledges the entries of `filter` missing now, for `kind`: `repeat` (a payout sent with
   * --allow-repeat after the repeat guard said they are gone), so that the guard no longer
   * refuses for them; `total` (a run with --acknowledge-missing), so that a policy's daily total
   * goes on without them. A signed line each (GapsFilter.unacknowledged); they are still missing
   * for everything else. Returns how many were acknowledged.
   */
  acknowledge(filter: GapsFilter, kind: AckKind): number {
    const read = this.#read({ ...filter, unacknowledged: kind });
    if (!read) return 0;
    // A journal lost whole or rolled back: its `lost` line (made now when there is none yet, so
    // that the other kind still sees it), acknowledged.
    const lost = [...read.lost.ids];
    if (read.lost.now) {
      const id = randomUUID();
      this.#append(lostLine(id, this.#mac));
      lost.push(id);
    }
    for (const id of lost)
      this.#append(
        JSON.stringify(
          kind === 'repeat'
            ? { acknowledged: lostName(id), payoutId: '', mac: this.#mac.of(ackText(lostName(id), '')) }
            : { uncounted: lostName(id), payoutId: '', mac: this.#mac.of(uncountedText(lostName(id), '')) },
        ) + '\n',
      );
    for (const [name, payoutId] of read.missing)
      this.#append(
        JSON.stringify(
          kind === 'repeat'
            ? { acknowledged: name, payoutId, mac: this.#mac.of(ackText(name, payoutId)) }
            : { uncounted: name, payoutId, mac: this.#mac.of(uncountedText(name, payoutId)) },
        ) + '\n',
      );
    return read.missing.size + lost.length;
  }

  /**
   * A line appended, and the high-water mark moved on to it (index-mark.ts: at once, or for a
   * batch once for the lines of the moment); a failure is passed over (a loss unnoticed, a loss
   * not acknowledged, a mark left behind).
   */
  #append(line: string): void {
    try {
      const fd = this.#fd ?? appendOnly(this.#file);
      try {
        writeSync(fd, line);
        const { mac } = JSON.parse(line) as { mac: string };
        const size = fstatSync(fd).size;
        if (this.holdOpen) this.#mark.defer(fd, mac, size);
        else this.#mark.now(fd, mac, size);
      } finally {
        if (this.holdOpen) this.#fd = fd;
        else closeSync(fd);
      }
    } catch {
      // Not noted.
    }
  }

  /** The index let go of (a batch's log closed). */
  close(): void {
    this.#mark.settle();
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /**
   * Entries the index names that are gone: deleted, a journal folder replaced by an older
   * backup, or moved. Undefined when none is missing. Only what the index holds is known: a
   * folder whose index is gone too (a new machine, another config folder) has nothing to
   * compare, which is why keys are derived (identity.ts); but when its journal key remains and
   * no entry does, the journal was lost whole (`journalLost`: entries of unknown number, of any
   * base URL, until a `lost` line is acknowledged for the daily total). A line whose entry is
   * counted only when it verifies (others are counted in `unverified`); a line whose entry is
   * there says nothing missing, and is not verified (an HMAC a line: a tenth of a second a
   * daily total with 20,000 entries). With `filter`, only the missing entries it says count.
   */
  gaps(filter: GapsFilter = {}): JournalGaps | undefined {
    const read = this.#read(filter);
    const lost = !!read && (read.lost.now || read.lost.ids.length > 0);
    if (!read || (!read.missing.size && !read.unread && !lost)) return undefined;
    const missing = [...read.missing.values()];
    const { recorded, unverified, unread } = read;
    return { missing: missing.length, recorded, payoutIds: missing.slice(0, 10), unverified, ...(unread ? { unread } : {}), ...(lost ? { journalLost: true } : {}) };
  }

  /**
   * The index read to its end (or where it stops); undefined when there is none (unless the
   * journal was lost whole with it: #lostWhole), or it cannot be read.
   */
  #read(filter: GapsFilter): IndexRead | undefined {
    let f: OpenedFile | undefined;
    const empty = (): IndexRead => ({ missing: new Map(), acknowledged: noneAcknowledged(), lost: { ids: [], now: false }, recorded: 0, unverified: 0 });
    // The high-water mark, read before the index is opened: a mark is written only after its line
    // is in the index, and the index only grows, so the index opened after it holds that line
    // and at least its size. Read after, it could name a line another payctl appended since the
    // open: the index looked rolled back (a false refusal, and a `lost` line written for good).
    const { mark, damaged } = this.#mark.read();
    try {
      f = openRegular(this.#file);
    } catch (err) {
      if (!(err instanceof RefusedFile)) return undefined;
      return { ...empty(), unread: `The payout journal's index ${this.#file} ${err.why}.` };
    }
    // No index: lost whole, or deleted while its high-water mark says it had lines.
    if (!f) return this.#lostWhole() || mark ? { ...empty(), lost: { ids: [], now: true } } : undefined;
    const present = this.#present();
    const out: IndexRead = empty();
    // The index rolled back when it is shorter than the mark says, or lacks the line it names.
    let marked = !mark;
    const seen = new Set<string>();
    const take = (lines: Buffer) => {
      for (const text of lines.toString('utf8').split('\n')) {
        if (!text) continue;
        try {
          const l = JSON.parse(text) as { name?: unknown; acknowledged?: unknown; uncounted?: unknown; lost?: unknown; payoutId?: unknown; z?: unknown; mac?: unknown };
          if (mark && l.mac === mark.line) marked = true;
          if (typeof l.acknowledged === 'string' && typeof l.payoutId === 'string' && typeof l.mac === 'string') {
            if (!this.#mac.matches(ackText(l.acknowledged, l.payoutId), l.mac)) throw new Error('not verified');
            out.acknowledged.repeat.add(l.acknowledged);
            continue;
          }
          if (typeof l.uncounted === 'string' && typeof l.payoutId === 'string' && typeof l.mac === 'string') {
            if (!this.#mac.matches(uncountedText(l.uncounted, l.payoutId), l.mac)) throw new Error('not verified');
            out.acknowledged.total.add(l.uncounted);
            continue;
          }
          if (typeof l.lost === 'string' && typeof l.mac === 'string') {
            if (!this.#mac.matches(lostText(l.lost), l.mac)) throw new Error('not verified');
            out.lost.ids.push(l.lost);
            continue;
          }
          if (typeof l.name !== 'string' || typeof l.payoutId !== 'string' || typeof l.mac !== 'string' || !ENTRY_NAME.test(l.name)) throw new Error('not a line');
          if (!present.has(l.name) && !this.#mac.matches((l.z === 1 ? zeroedText : signedText)(l.name, l.payoutId), l.mac)) throw new Error('not verified');
          if (seen.has(l.name)) continue;
          seen.add(l.name);
          out.recorded++;
          if (!present.has(l.name) && (filter.nameOf === undefined || filter.nameOf(l.payoutId) === l.name)) out.missing.set(l.name, l.payoutId);
        } catch {
          out.unverified++;
        }
      }
    };
    let stopped: string | undefined;
    try {
      // A line at a time, never the whole file (a 1 GiB index was read whole: 1.1 GB), and no
      // further than what payctl never writes (a NUL byte, a line over MAX_ENTRY_BYTES).
      stopped = readLines(f.fd, 0, f.st.size, MAX_ENTRY_BYTES, take);
    } catch {
      return undefined;
    } finally {
      closeSync(f.fd);
    }
    if (stopped) out.unread = `The payout journal's index ${this.#file} ${stopped}.`;
    else if (damaged) out.unread = damaged;
    else if (mark && (f.st.size < mark.size || !marked)) out.lost.now = true;
    if (filter.unacknowledged) for (const name of out.acknowledged[filter.unacknowledged]) out.missing.delete(name);
    const kind = filter.unacknowledged;
    if (kind) out.lost.ids = out.lost.ids.filter((id) => !out.acknowledged[kind].has(lostName(id)));
    return out;
  }

  /** The names in the journal folder (none when it is gone). */
  #present(): Set<string> {
    try {
      return new Set(readdirSync(this.#names.in('')));
    } catch {
      return new Set();
    }
  }
}
