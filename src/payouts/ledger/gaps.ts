/**
 * The local ledger's record of itself (docs/architecture.md, "The ledger"):
 * `<config>/journal.index`, beside the journal folder (so deleting the folder leaves it), one
 * line per entry made, its name and payout id with an HMAC made with the journal key. Lost
 * entries (journalGaps) are warned of, and stop `payout create` without --payout-id, whose
 * repeat guard cannot see them (repeats.ts blindRepeatGuard), until a payout is sent with
 * --allow-repeat: that acknowledges them for the repeat guard, a line each (`acknowledged`,
 * signed too). Under a policy's daily total they stop every send (plans/limits.ts), until a run
 * with --acknowledge-missing acknowledges them for the daily total (`uncounted` lines, signed):
 * the total then goes on without what they paid.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, writeSync } from 'node:fs';
import { openRegular, readLines, RefusedFile, type OpenedFile } from '../../config/regular-file.js';
import { join } from 'node:path';
import type { JournalGaps } from './ledger.js';
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

/**
 * What a missing entry is acknowledged for: `repeat`, the repeat guard of payout create (a
 * payout sent with --allow-repeat); `total`, a policy's daily total (--acknowledge-missing).
 */
export type AckKind = 'repeat' | 'total';

/** The index as read (JournalIndex #read): the missing entries by name, and the names acknowledged missing, by kind. */
interface IndexRead {
  missing: Map<string, string>;
  acknowledged: Record<AckKind, Set<string>>;
  recorded: number;
  unverified: number;
  unread?: string;
}

/** Which missing entries count: of one base URL (`nameOf`: the name a payout id has under it), and not acknowledged for `unacknowledged`. */
export interface GapsFilter {
  nameOf?: (payoutId: string) => string;
  unacknowledged?: AckKind;
}

/** No name acknowledged yet, of either kind. */
function noneAcknowledged(): Record<AckKind, Set<string>> {
  return { repeat: new Set(), total: new Set() };
}

export class JournalIndex {
  readonly #file: string;
  readonly #names: EntryNames;
  readonly #mac: JournalMac;
  /** Set while a batch's log is in use: the index is then held open between lines, until `close`. */
  holdOpen = false;
  #fd: number | undefined;

  constructor(configDir: string, names: EntryNames, mac: JournalMac) {
    this.#file = join(configDir, 'journal.index');
    this.#names = names;
    this.#mac = mac;
  }

  /**
   * Notes a new entry. Appended after the entry exists, so a line never names an entry that
   * was not made. A failure to append is passed over: that entry's loss would go unnoticed,
   * nothing more.
   */
  note(name: string, payoutId: string): void {
    this.#append(JSON.stringify({ name, payoutId, mac: this.#mac.of(signedText(name, payoutId)) }) + '\n');
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
    for (const [name, payoutId] of read.missing)
      this.#append(
        JSON.stringify(
          kind === 'repeat'
            ? { acknowledged: name, payoutId, mac: this.#mac.of(ackText(name, payoutId)) }
            : { uncounted: name, payoutId, mac: this.#mac.of(uncountedText(name, payoutId)) },
        ) + '\n',
      );
    return read.missing.size;
  }

  /** A line appended; a failure to append is passed over (a loss unnoticed, a loss not acknowledged). */
  #append(line: string): void {
    try {
      const fd = this.#fd ?? appendOnly(this.#file);
      try {
        writeSync(fd, line);
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
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /**
   * Entries the index names that are gone: deleted, a journal folder replaced by an older
   * backup, or moved. Undefined when none is missing. Only what the index holds is known: a
   * folder whose index is gone too (a new machine, another config folder) has nothing to
   * compare, which is why keys are derived (identity.ts). A line whose entry is missing is
   * counted only when it verifies (others are counted in `unverified`); a line whose entry is
   * there says nothing missing, and is not verified (an HMAC a line: a tenth of a second a
   * daily total with 20,000 entries). With `filter`, only the missing entries it says count.
   */
  gaps(filter: GapsFilter = {}): JournalGaps | undefined {
    const read = this.#read(filter);
    if (!read || (!read.missing.size && !read.unread)) return undefined;
    const missing = [...read.missing.values()];
    const { recorded, unverified, unread } = read;
    return { missing: missing.length, recorded, payoutIds: missing.slice(0, 10), unverified, ...(unread ? { unread } : {}) };
  }

  /** The index read to its end (or where it stops); undefined when there is none, or it cannot be read. */
  #read(filter: GapsFilter): IndexRead | undefined {
    let f: OpenedFile | undefined;
    try {
      f = openRegular(this.#file);
    } catch (err) {
      if (!(err instanceof RefusedFile)) return undefined;
      return { missing: new Map(), acknowledged: noneAcknowledged(), recorded: 0, unverified: 0, unread: `The payout journal's index ${this.#file} ${err.why}.` };
    }
    if (!f) return undefined;
    const present = this.#present();
    const out: IndexRead = { missing: new Map(), acknowledged: noneAcknowledged(), recorded: 0, unverified: 0 };
    const seen = new Set<string>();
    const take = (lines: Buffer) => {
      for (const text of lines.toString('utf8').split('\n')) {
        if (!text) continue;
        try {
          const l = JSON.parse(text) as { name?: unknown; acknowledged?: unknown; uncounted?: unknown; payoutId?: unknown; mac?: unknown };
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
          if (typeof l.name !== 'string' || typeof l.payoutId !== 'string' || typeof l.mac !== 'string' || !ENTRY_NAME.test(l.name)) throw new Error('not a line');
          if (!present.has(l.name) && !this.#mac.matches(signedText(l.name, l.payoutId), l.mac)) throw new Error('not verified');
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
    if (filter.unacknowledged) for (const name of out.acknowledged[filter.unacknowledged]) out.missing.delete(name);
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
