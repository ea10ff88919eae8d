/**
 * The local ledger's look-up markers (docs/architecture.md, "The ledger"): how entries are
 * found by fingerprint or repeat key without reading them all. A marker is a hard link, never
 * a new file; whatever it says is only a lead (every entry found is read, verified and checked
 * to have the key).
 */
import { lstatSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { readRegular } from '../../config/regular-file.js';
import { basename, dirname, sep } from 'node:path';
import { ConfigError } from '../../errors.js';
import { sha256Hex } from '../identity.js';
import { zeroMarked, ZeroMarks, type EntryReads, type ZeroIndex } from './zero-marks.js';
import { tryLink } from './atomic-files.js';
import { journalBase } from './base-url.js';
import type { JournalEntry, LookupKind, ScanItem } from './ledger.js';
import { claimOf, dayOf, type LogReader } from './log-reader.js';
import { MAX_ENTRY_BYTES, PLANTED_HINT, Remembered, type EntryNames } from './names.js';

/** What markers find entries by: the look-up keys, and the UTC day an entry was journaled (its day marker). */
type MarkerKind = LookupKind | 'day';

/**
 * The file whose presence says every entry has its day marker (made by `daysFrom` after marking
 * the entries of a journal written before day markers): without it, a day's markers may miss
 * entries, and a day's listing reads every entry instead.
 */
const DAYS_COMPLETE = 'complete';

/** The names of a log's claim files (log.ts claimFile). */
const CLAIM_SUFFIX = '.claim';

/** A claim-named marker that is no claim as payctl writes them. */
class DamagedMarker extends Error {}

export class Markers {
  readonly #names: EntryNames;
  readonly #logs: LogReader;
  readonly #markers = new Remembered();
  #indexChecked = false;
  /** The index could not be made again: every look-up reads every entry (slower, never wrong). */
  #readAll = false;

  /** Zero markers of entries an older payctl journaled (zero-marks.ts). */
  readonly #zeros: ZeroMarks;
  readonly #index: ZeroIndex | undefined;

  constructor(names: EntryNames, logs: LogReader, index?: ZeroIndex) {
    this.#names = names;
    this.#logs = logs;
    this.#index = index;
    this.#zeros = new ZeroMarks(names, index, (e, name, target) => this.mark(e, name, target, ['zero']));
  }

  /** The zero markers of entries an older payctl journaled made, before a look-up by zero key (zero-marks.ts). */
  ensureZeros(reads: EntryReads): void {
    this.#zeros.ensure(reads);
  }

  /**
   * Where the markers of one look-up key are: `index/<hash>`. The first entry with the key
   * is marked by a hard link there: of the log's claim file for an entry kept in a batch's
   * log (the entries of that log with the key are then found in it), else of the entry's
   * file as first written (its content names the payout). A link is a name only: no inode
   * is made (on a file system short of free inodes, making one can take half a millisecond),
   * and a batch makes one per row. Each further entry with the key is marked in the folder
   * `index/<hash>.more` by a link named after the entry. Journals written before hold a
   * folder at `index/<hash>` itself, one marker per entry named after it: still read, and
   * added to.
   */
  #marker(baseUrl: string, kind: MarkerKind, key: string): string {
    // A day's markers, `days/<base hash>/<day>`, are listed by day (daysFrom).
    if (kind === 'day') return this.#names.in(`days${sep}${this.#dayFolder(baseUrl)}${sep}${key}`);
    // A batch asks for each row's marker when it plans and when it journals the row: made once.
    const scope = `${journalBase(baseUrl)}\n${kind}`;
    return this.#names.in(`index${sep}${this.#markers.get(scope, key, () => sha256Hex(`${scope}\n${key}`, 16))}`);
  }

  /**
   * Markers known not to be there (expect): leads() answers [] for them without a file look-up.
   * Forgotten at the next expect and at any marking by this process (mark).
   */
  readonly #absent = new Set<string>();
  /** No marker at all when last listed (expect): every look-up key is absent. */
  #none = false;
  /** `index/` as last listed (expect), with its change time then: listed again once it changed. */
  #listing: { changed: bigint; names: ReadonlySet<string> } | undefined;

  /**
   * A batch's plan asks for several keys a row (before zero keys, up to ~50: every form of an
   * account's leading zeros), and an lstat a key was the largest part of a 10,000-row plan (1.2 s
   * of 7.5 s of CPU). Lists `index/` once (again only when it has changed since: a marker made
   * then changes it) and keeps the markers of these keys that are not there. What was there is
   * read as before. Point in time as the look-ups themselves: the plan is made before anything
   * is sent, and the PostgreSQL store's answers ahead are the same (Ledger.prefetch).
   */
  expect(baseUrl: string, keys: Partial<Record<MarkerKind, readonly string[]>>, reads: EntryReads): void {
    if (keys.zero?.length) this.ensureZeros(reads);
    this.#absent.clear();
    this.#none = false;
    if (this.#readAll) return;
    const dir = this.#names.in('index');
    let names: ReadonlySet<string>;
    try {
      const st = statSync(dir, { bigint: true, throwIfNoEntry: false });
      // No marker at all (a journal's first batch): nothing to find, and no marker name to make.
      if (st === undefined) return void (this.#none = true);
      else if (!st.isDirectory()) return;
      else {
        if (this.#listing?.changed !== st.mtimeNs) this.#listing = { changed: st.mtimeNs, names: new Set(readdirSync(dir)) };
        names = this.#listing.names;
        if (names.size === 0) return void (this.#none = true);
      }
    } catch {
      return; // cannot be listed: each look-up asks the file system, and says what it finds
    }
    // A look-up by zero key reads the key's repeat markers too (leadsOf).
    const asked = [
      ...(['fingerprint', 'repeat', 'zero'] as const).flatMap((kind) => (keys[kind] ?? []).map((key) => [kind, key] as const)),
      ...(keys.zero ?? []).map((key) => ['repeat', key] as const),
    ];
    for (const [kind, key] of asked) {
      const marker = this.#marker(baseUrl, kind, key);
      if (!names.has(basename(marker))) this.#absent.add(marker);
    }
  }

  /**
   * The entry names a look-up key's markers lead to (unchecked, maybe repeated), or `damaged`
   * when its first marker is there but says nothing payctl wrote (emptied, cut, edited): the
   * entry it stood for can then only be found by reading every entry (local.ts #find). Read
   * as "no entry", it let the repeat guard pass a payout typed twice. With `transactionId`, as
   * daysFrom.
   */
  leads(baseUrl: string, kind: MarkerKind, key: string, transactionId?: string): string[] | 'damaged' {
    if (this.#readAll || (kind === 'zero' && this.#zeros.unmarked)) return 'damaged';
    if (this.#none && kind !== 'day') return [];
    const marker = this.#marker(baseUrl, kind, key);
    if (this.#absent.has(marker)) return [];
    try {
      const st = lstatSync(marker, { throwIfNoEntry: false });
      if (!st) return [];
      if (st.isDirectory()) return readdirSync(marker);
      if (!st.isFile() || st.size > MAX_ENTRY_BYTES) return 'damaged';
      const more = lstatSync(`${marker}.more`, { throwIfNoEntry: false })?.isDirectory() ? this.#more(`${marker}.more`, kind, key, transactionId) : [];
      let first: unknown;
      try {
        first = JSON.parse(readRegular(marker, MAX_ENTRY_BYTES)?.toString('utf8') ?? '');
      } catch {
        return 'damaged';
      }
      const claim = claimOf(first);
      if (claim === 'changed') return 'damaged';
      if (claim) return [...this.#logs.named(claim.log, kind, key, transactionId), ...more];
      const e = first as Partial<JournalEntry>;
      if (typeof e?.baseUrl !== 'string' || typeof e.payoutId !== 'string') return 'damaged';
      return [this.#names.of(e.baseUrl, e.payoutId), ...more];
    } catch (err) {
      if (err instanceof DamagedMarker) return 'damaged';
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new ConfigError(`Cannot read the payout journal index: ${(err as Error).message}`);
    }
  }

  /**
   * The entry names a look-up key leads to, each once, with the kind of marker that led there (as
   * `leads`). By zero key: its zero markers (ensureZeros first) and its repeat markers (zero-marks.ts zeroMarked).
   */
  leadsOf(baseUrl: string, kind: LookupKind, key: string, reads: EntryReads): Map<string, LookupKind> | 'damaged' {
    if (kind === 'zero') this.ensureZeros(reads);
    const out = new Map<string, LookupKind>();
    for (const k of kind === 'zero' ? (['zero', 'repeat'] as const) : [kind]) {
      const leads = this.leads(baseUrl, k, key);
      if (leads === 'damaged') return 'damaged';
      for (const name of leads) if (!out.has(name)) out.set(name, k);
    }
    return out;
  }

  /**
   * The marker that holds entry `name` as first written, when that entry was kept in a file of
   * its own (a single payout: its markers are hard links of that file, and outlive it): the
   * first marker of the key when its content is that entry, else the one named after it in the
   * key's further markers. Undefined for an entry kept in a batch's log (its markers are the
   * log's claim file) or when none is there. A lead only: the caller reads and verifies it.
   */
  firstWritten(baseUrl: string, kind: LookupKind, key: string, name: string): string | undefined {
    const marker = this.#marker(baseUrl, kind, key);
    try {
      const st = lstatSync(marker, { throwIfNoEntry: false });
      if (!st) return undefined;
      if (st.isFile() && st.size <= MAX_ENTRY_BYTES) {
        const first = JSON.parse(readRegular(marker, MAX_ENTRY_BYTES)?.toString('utf8') ?? 'null') as Partial<JournalEntry> | null;
        if (typeof first?.baseUrl === 'string' && typeof first.payoutId === 'string' && this.#names.of(first.baseUrl, first.payoutId) === name) return marker;
      }
      const folder = st.isDirectory() ? marker : `${marker}.more`;
      const file = `${folder}${sep}${name}`;
      return lstatSync(file, { throwIfNoEntry: false })?.isFile() ? file : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The index made again from the entries when its folder is gone while entries are there
   * (deleted by hand, or left out of a copy of the config folder): a missing marker then says
   * nothing, and the repeat guard, finding no entry, passed a payout typed twice. Markers are
   * made before their entry, so entries without an index folder never happen otherwise (or
   * come from payctl 0.1, which kept none). Checked once a process (one lstat); each entry is
   * then marked as when it was written. Where that cannot be written, every look-up of this
   * process reads every entry instead. A single marker deleted by hand is not noticed.
   */
  ensureIndex(entries: () => Iterable<ScanItem>): void {
    if (this.#indexChecked) return;
    this.#indexChecked = true;
    try {
      if (lstatSync(this.#names.in('index'), { throwIfNoEntry: false })) return;
      const read = this.#index?.unzeroed({ end: 0 });
      for (const it of entries()) if ('entry' in it) this.mark(it.entry, it.name, this.#names.in(it.name));
      // Made again with the zero markers: said so (ensureZeros then reads on from there).
      if (read && lstatSync(this.#names.in(''), { throwIfNoEntry: false })) this.#zeros.said(read.place);
    } catch {
      this.#readAll = true;
    }
  }

  /**
   * The look-up markers of a new entry (`name`: its file name), hard links of `target` (the
   * log's claim file, or the entry's file as first written), one per look-up key, made
   * before the entry itself: one whose entry never got written is passed over by find().
   * Synchronous: a link is microseconds in the kernel, less than a hand-off to the thread
   * pool and back. Made again by a later attempt, a marker changes nothing find() returns.
   * Besides the look-up keys, the entry's day (`kinds`: which to make).
   */
  mark(entry: JournalEntry, name: string, target: string, kinds: readonly MarkerKind[] = ['fingerprint', 'repeat', 'zero', 'day']): void {
    this.#absent.clear();
    this.#none = false;
    this.#listing = undefined;
    const keys = { fingerprint: entry.fingerprint, repeat: entry.repeatKey, zero: zeroMarked(entry), day: dayOf(entry.createdAt) };
    for (const kind of kinds) {
      const key = keys[kind];
      if (!key) continue;
      const marker = this.#marker(entry.baseUrl, kind, key);
      this.#linkable(dirname(marker));
      // A day's entries kept in a batch's log are marked once a claim file (leads() reads the
      // log's entries of that day through it), not once a row: a link each is a tenth of a
      // second of a 10,000-row batch.
      const claim = kind === 'day' && target.endsWith(CLAIM_SUFFIX) ? basename(target) : undefined;
      if (claim !== undefined && this.#claimed.has(`${marker}\n${claim}`)) continue;
      // A folder this process already marked into: no first link to try again.
      const known = this.#folders.get(marker);
      if (known) tryLink(target, `${known}${sep}${claim ?? name}`);
      else if (!tryLink(target, marker)) {
        // Taken: a folder, as journals written before hold it, or the first entry's marker.
        const folder = lstatSync(marker, { throwIfNoEntry: false })?.isDirectory() ? marker : `${marker}.more`;
        this.#linkable(folder);
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        tryLink(target, `${folder}${sep}${claim ?? name}`);
        this.#folders.set(marker, folder);
      }
      if (claim !== undefined) this.#claimed.add(`${marker}\n${claim}`);
    }
  }

  /** Folders this process has found safe to link into (#linkable). */
  readonly #linkableFolders = new Set<string>();

  /**
   * Refuses (exit 2) a folder markers are linked into that is a symbolic link or no folder (one
   * planted at days/<base>/ had every new entry linked into its target, outside the config
   * folder); a folder not there yet is made by the link. Checked once a process.
   */
  #linkable(folder: string): void {
    if (this.#linkableFolders.has(folder)) return;
    const st = lstatSync(folder, { throwIfNoEntry: false });
    if (st && (st.isSymbolicLink() || !st.isDirectory()))
      throw new ConfigError(
        `Refusing to use the payout journal's folder ${folder}: it is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}, and payctl does not write through it. Nothing was sent.`,
        `payctl never makes one. ${PLANTED_HINT}`,
      );
    this.#linkableFolders.add(folder);
  }

  /** Marker -> the folder its further entries are marked in, once this process has marked one there. */
  readonly #folders = new Map<string, string>();
  /** Day markers made for a claim file by this process (`<marker>\n<claim file name>`). */
  readonly #claimed = new Set<string>();

  /**
   * The entry names a `.more` folder leads to: its links named after entries, and (day markers)
   * those named after a log's claim file, each read for the log's entries of that day.
   */
  #more(folder: string, kind: MarkerKind, key: string, transactionId?: string): string[] {
    const out: string[] = [];
    for (const n of readdirSync(folder)) {
      if (!n.endsWith(CLAIM_SUFFIX)) {
        out.push(n);
        continue;
      }
      let claim: ReturnType<typeof claimOf>;
      try {
        // Never blocking, never large (regular-file.ts): a named pipe or a huge file here is no claim.
        claim = claimOf(JSON.parse(readRegular(`${folder}${sep}${n}`, MAX_ENTRY_BYTES)?.toString('utf8') ?? 'null'));
      } catch {
        claim = 'changed';
      }
      if (!claim || claim === 'changed') throw new DamagedMarker();
      out.push(...this.#logs.named(claim.log, kind, key, transactionId));
    }
    return out;
  }

  /** A journal just made: every entry it gets has its day and zero markers. */
  journalMade(): void {
    this.daysComplete();
    this.#zeros.said({ end: 0 });
  }

  /**
   * Says every entry of the journal has its day marker (a journal just made, or one marked from
   * its entries). Where it cannot be written, it is left unsaid: the first daily total then
   * marks the entries itself.
   */
  daysComplete(): void {
    try {
      mkdirSync(this.#names.in('days'), { recursive: true, mode: 0o700 });
      writeFileSync(this.#names.in(`days${sep}${DAYS_COMPLETE}`), '', { mode: 0o600 });
    } catch {
      // left unsaid
    }
  }

  /** A base URL's folder of day markers. */
  #dayFolder(baseUrl: string): string {
    return this.#markers.get(`${journalBase(baseUrl)}\nday`, '', () => sha256Hex(`${journalBase(baseUrl)}\nday`, 16));
  }

  /**
   * The names of the entries of this base URL journaled on `since`'s UTC day or a later one
   * (leads, unchecked, maybe repeated: each is read and checked by the caller), from the day
   * markers; `unindexed` when a day's markers may miss entries (a journal written before them,
   * marked now from `entries` where the folder can be written; a marker not as payctl writes
   * it): the caller then reads every entry. With `transactionId`, a batch's log leads only to
   * its entries a line gives that transaction id (LogReader.named): the others are not read.
   */
  daysFrom(baseUrl: string, since: Date, entries: () => Iterable<ScanItem>, transactionId?: string): string[] | 'unindexed' {
    if (this.#readAll) return 'unindexed';
    const folder = this.#names.in(`days${sep}${this.#dayFolder(baseUrl)}`);
    const complete = this.#names.in(`days${sep}${DAYS_COMPLETE}`);
    try {
      // No journal yet: no entry, and nothing to make.
      if (!lstatSync(this.#names.in(''), { throwIfNoEntry: false })) return [];
      if (!lstatSync(complete, { throwIfNoEntry: false })) {
        for (const it of entries()) if ('entry' in it) this.mark(it.entry, it.name, this.#names.in(it.name), ['day']);
        this.daysComplete();
      }
      const from = since.toISOString().slice(0, 10);
      const days = (lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(folder) : []).filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d) && d >= from);
      const out: string[] = [];
      for (const day of days) {
        const leads = this.leads(baseUrl, 'day', day, transactionId);
        if (leads === 'damaged') return 'unindexed';
        out.push(...leads);
      }
      return out;
    } catch {
      return 'unindexed';
    }
  }
}
