/**
 * The payout journal (docs/architecture.md, "Idempotency journal"): before a payout request leaves, its payout
 * id, Idempotency-Key and exact body are written and fsynced under <config>/journal/
 * (0600 in a 0700 folder): a file per payout for single payouts; for batch runs, a line
 * in the run's log (journal-log.ts: group commit, one fsync for the lines of the same
 * moment), the payout's name then being a claim on that log. A rerun finds the entry and
 * sends the same key with the identical body, so a crash, time-out or lost connection can
 * never pay twice. The outcome is recorded when one arrives.
 *
 * Guarded against the machine as much as the network: the folder is refused when it is
 * a symlink, another user's or writable by others; every entry carries an HMAC made with
 * a key that only this user can read (<config>/journal.key), so an entry planted or edited
 * outside payctl is reported as damaged instead of, say, making a batch skip a row that
 * was never paid; entries are created exclusively and temp files left by a crash are
 * cleaned up.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { link, mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { checkFolder } from '../config/paths.js';
import { claimOf, fsyncFolder, LogReader, LogWriter } from './journal-log.js';
import { isDeepStrictEqual, promisify } from 'node:util';
import { ConfigError } from '../errors.js';
import { derivedIdempotencyKey, sha256 } from './identity.js';

export type Outcome =
  | {
      kind: 'accepted';
      status: number;
      transactionId: string | undefined;
      fee: string | undefined;
      replayed: boolean;
      at: string;
      /** Found by looking the payout up (history reconcile, the 24-hour rule), not by sending it. */
      lookedUp?: true;
      /** The payout's status at the service when it was looked up (Pending, Successful, ...). */
      payoutStatus?: string;
      /**
       * "Already made": the service refused it because the payout id was used before (a 422
       * DUPLICATE_PAYOUT_ID), so a payout with this id exists, made by an earlier attempt under
       * another key (a lost journal, an earlier payctl). Kept as accepted so that everything that
       * must not send it again, and daily_total, treats it as paid; no transaction id is known.
       */
      alreadyMade?: { code: string; message: string };
    }
  | { kind: 'rejected'; status: number; code: string | undefined; message: string; at: string }
  | { kind: 'unknown'; reason: string; at: string }
  /** Looked up after an unknown outcome: the service has no payout with this id (404 NOT_FOUND). */
  | { kind: 'not-made'; at: string };

export interface JournalEntry {
  /** 2: with an HMAC (`mac` on disk). 1: written by payctl 0.1, adopted when the key was made. */
  version: 1 | 2;
  payoutId: string;
  baseUrl: string;
  idempotencyKey: string;
  /** The exact request body, byte for byte. */
  body: string;
  /** When it was journaled: just before its first attempt left. */
  createdAt: string;
  /**
   * The profile of the run that journaled it. Absent in entries written before payctl
   * recorded it (they still verify: the HMAC covers the fields an entry has).
   */
  profile?: string;
  /** The batch run that sent it: its id, the file (absolute path) and the row. */
  batch?: { id: string; file: string; row: number };
  /** What it pays, without its id (identity.ts): finds the same payout under other ids. */
  fingerprint?: string;
  /** Same wallet, account, amount and currency (identity.ts): finds a payout typed twice. */
  repeatKey?: string;
  outcome?: Outcome;
}

/** Entries this config folder journaled that are gone (Journal.journalGaps). */
export interface JournalGaps {
  /** How many entries the index names that are not in the journal folder. */
  missing: number;
  /** How many entries the index names in all. */
  recorded: number;
  /** The payout ids of the first missing ones (at most 10). */
  payoutIds: string[];
  /** Index lines that did not verify (planted, damaged, or made with another journal key): passed over. */
  unverified: number;
}

/** What a new entry may say about where it came from (indexed for look-ups by content). */
export interface EntryOrigin {
  batch?: { id: string; file: string; row: number };
  fingerprint?: string;
  repeatKey?: string;
}

export class Journal {
  readonly dir: string;
  readonly #keyFile: string;
  readonly #indexFile: string;
  #key: Buffer | undefined;
  #checked = false;
  /** This process's log (batch runs: begin with `log`), made on first use. */
  #log: LogWriter | undefined;
  /** Names of the entries this process claimed in its log: their outcomes are appended there. */
  readonly #logged = new Set<string>();
  readonly #logs: LogReader;

  constructor(configDir: string) {
    this.dir = join(configDir, 'journal');
    this.#keyFile = join(configDir, 'journal.key');
    this.#indexFile = join(configDir, 'journal.index');
    this.#logs = new LogReader(this.dir);
  }

  /**
   * A path in the journal folder. By concatenation: `name` is a plain name (or `index/<hash>`)
   * and the folder is normalized, so path.join would give the same, allocating several times
   * as much (a batch asks for a few paths a row).
   */
  #in(name: string): string {
    return `${this.dir}${sep}${name}`;
  }

  #name(baseUrl: string, payoutId: string): string {
    // A batch asks for each row's name when it plans, journals and records it: made once.
    return remembered(this.#names, `${baseUrl}\n${payoutId}`, (key) => `${sha256(key).slice(0, 32)}.json`);
  }

  readonly #names = new Map<string, string>();

  /** An entry's file name: entries are filed under the normalized base URL (journalBase). */
  #entryName(baseUrl: string, payoutId: string): string {
    return this.#name(journalBase(baseUrl), payoutId);
  }

  #file(baseUrl: string, payoutId: string): string {
    return this.#in(this.#entryName(baseUrl, payoutId));
  }

  get(baseUrl: string, payoutId: string): JournalEntry | undefined {
    this.#checkDir();
    const entry = this.#read(this.#file(baseUrl, payoutId), payoutId);
    if (entry || journalBase(baseUrl) === baseUrl) return entry;
    // Filed by payctl 0.1 under the base URL exactly as written.
    const legacy = this.#name(baseUrl, payoutId);
    if (!this.#legacyNames().has(legacy)) return undefined;
    return this.#read(this.#in(legacy), payoutId);
  }

  #legacy: Set<string> | undefined;

  /**
   * The names in the journal folder, listed once per process: all that a look-up under a
   * base URL as written (not normalized) can find. Such names are payctl 0.1's entries,
   * given their HMAC when the key was made; nothing is filed under them since (every entry
   * is filed under the normalized base URL, and a base URL that is not normalized is never
   * what normalizing gives; adopting them rewrites them in place). So a batch of 10,000
   * rows asks the folder once, not 10,000 times more.
   */
  #legacyNames(): Set<string> {
    if (this.#legacy) return this.#legacy;
    const names = new Set<string>();
    try {
      for (const name of readdirSync(this.dir)) if (ENTRY_NAME.test(name)) names.add(name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError(`Cannot read the payout journal ${this.dir}: ${(err as Error).message}`);
    }
    this.#legacy = names;
    return names;
  }

  /** The journal folder, refused when it is a symlink, another user's or writable by others. */
  #checkDir(): void {
    if (this.#checked) return;
    checkFolder(this.dir, 'payout journal folder');
    this.#checked = true;
  }

  /**
   * The HMAC key, made (0600, exclusively) on first use. Entries journaled before it
   * existed (payctl 0.1) are adopted then: given their HMAC once, as they are.
   */
  #macKey(): Buffer {
    if (this.#key) return this.#key;
    try {
      this.#key = Buffer.from(readFileSync(this.#keyFile, 'utf8').trim(), 'hex');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError(`Cannot read the journal key ${this.#keyFile}: ${(err as Error).message}`);
      mkdirSync(dirname(this.#keyFile), { recursive: true, mode: 0o700 });
      const key = randomBytes(32);
      // Written whole to a temp file, then linked into place: a second payctl starting at the
      // same moment finds either no key or the complete one, never an empty file.
      const tmp = `${this.#keyFile}.${randomUUID()}.tmp`;
      try {
        writeFileSync(tmp, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
        linkSync(tmp, this.#keyFile);
        this.#key = key;
        this.#adoptLegacy();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new ConfigError(`Cannot write the journal key ${this.#keyFile}: ${(e as Error).message}`);
        this.#key = Buffer.from(readFileSync(this.#keyFile, 'utf8').trim(), 'hex');
      } finally {
        try {
          unlinkSync(tmp);
        } catch {
          // Not written.
        }
      }
    }
    if (this.#key.length !== 32)
      throw new ConfigError(`The journal key ${this.#keyFile} is damaged.`, 'Move it away only if the journal folder is empty: every entry is checked with it.');
    return this.#key;
  }

  #adoptLegacy(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!ENTRY_NAME.test(name)) continue;
      const file = join(this.dir, name);
      try {
        const e = JSON.parse(readFileSync(file, 'utf8')) as JournalEntry & { mac?: string };
        if (e && typeof e === 'object' && e.mac === undefined && e.version === 1) writeFileSync(file, this.#serialize(e), { mode: 0o600 });
      } catch {
        // A damaged one stays as it is, and is reported when it is read.
      }
    }
  }

  #mac(entry: JournalEntry): string {
    return this.#macOf(JSON.stringify(withoutMac(entry)));
  }

  #macOf(json: string): string {
    return createHmac('sha256', this.#macKey()).update(json).digest('hex');
  }

  /** The entry as it is stored: its fields and their HMAC. */
  #signed(entry: JournalEntry): Record<string, unknown> {
    const rest = withoutMac(entry);
    return { ...rest, mac: this.#macOf(JSON.stringify(rest)) };
  }

  /**
   * The stored entry as JSON text: `JSON.stringify(this.#signed(entry))`, made with one
   * serialization instead of two (the text the HMAC covers, with `"mac"` added as its last field).
   */
  #signedJson(entry: JournalEntry): string {
    // An entry made in this run has no mac (JSON leaves an undefined field out): serialized as
    // it is, without a copy; one read from disk, without its mac.
    const json = (entry as JournalEntry & { mac?: string }).mac === undefined ? JSON.stringify(entry) : JSON.stringify(withoutMac(entry));
    return `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"mac":"${this.#macOf(json)}"}`;
  }

  #serialize(entry: JournalEntry): string {
    return JSON.stringify(this.#signed(entry), null, 2) + '\n';
  }

  #read(file: string, payoutId?: string): JournalEntry | undefined {
    // Most look-ups of a new batch find nothing: no exception for each of them.
    if (!existsSync(file)) return undefined;
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new ConfigError(`Cannot read the payout journal entry ${file}: ${(err as Error).message}`);
    }
    let entry: JournalEntry & { mac?: unknown };
    try {
      const stored = JSON.parse(raw) as unknown;
      // A name that claims an entry kept in a log (journal-log.ts): the entry is its latest line there.
      const claim = claimOf(stored);
      if (claim === 'changed') {
        throw new ChangedClaim();
      } else if (claim) {
        const line = this.#logs.line(claim.log, basename(file));
        if (!line) throw new Error(`it names the log ${claim.log}, which holds no entry for it`);
        entry = line.entry as unknown as JournalEntry & { mac?: unknown };
      } else entry = stored as JournalEntry & { mac?: unknown };
      if (
        (payoutId !== undefined && entry.payoutId !== payoutId) ||
        typeof entry.payoutId !== 'string' ||
        typeof entry.idempotencyKey !== 'string' ||
        typeof entry.body !== 'string'
      ) {
        throw new Error('unexpected content');
      }
    } catch (err) {
      if (err instanceof ChangedClaim) {
        throw new ConfigError(
          `The payout journal entry ${file} was not written by payctl on this machine or was changed since (its claim on a log holds other fields).`,
          'payctl will not act on it. If you did not put it there, someone else can write to your config folder: check it before going on.',
        );
      }
      throw new ConfigError(
        `The payout journal entry ${file} is damaged (${(err as Error).message}).`,
        'It holds the idempotency key of an earlier payout; inspect it before removing it.',
      );
    }
    const want = Buffer.from(this.#mac(entry), 'hex');
    const got = typeof entry.mac === 'string' && /^[0-9a-f]{64}$/.test(entry.mac) ? Buffer.from(entry.mac, 'hex') : undefined;
    if (!got || !timingSafeEqual(got, want)) {
      throw new ConfigError(
        `The payout journal entry ${file} (payout ${entry.payoutId}) was not written by payctl on this machine or was changed since (${got ? 'its checksum does not match' : 'it has no checksum'}).`,
        'payctl will not act on it. If you did not put it there, someone else can write to your config folder: check it before going on.',
      );
    }
    const { mac: _mac, ...clean } = entry;
    return clean;
  }

  /**
   * Every entry of the journal, one file read at a time, in no particular order (a listing
   * of 1,000 entries never holds them all). `name` reads the entry again (`byName`); an
   * entry that cannot be read or does not verify comes as its error, so a listing can say
   * so and go on.
   */
  *scan(): Generator<{ name: string; entry: JournalEntry } | { name: string; error: Error }> {
    this.#checkDir();
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new ConfigError(`Cannot read the payout journal ${this.dir}: ${(err as Error).message}`);
    }
    for (const name of names) {
      if (!ENTRY_NAME.test(name)) continue;
      try {
        const entry = this.#read(join(this.dir, name));
        if (entry) yield { name, entry };
      } catch (err) {
        yield { name, error: err as Error };
      }
    }
  }

  /** The transaction id recorded for a payout id (its accepted outcome), if the journal has one. */
  transactionIdOf(baseUrl: string, payoutId: string): string | undefined {
    const o = this.get(baseUrl, payoutId)?.outcome;
    return o?.kind === 'accepted' ? o.transactionId : undefined;
  }

  /**
   * The entry of this base URL whose accepted outcome has this transaction id (the service has
   * no look-up by payout id, so this is how a transaction is known to be a journaled payout).
   * A scan of the journal: entries that cannot be read or verified are passed over.
   */
  byTransactionId(baseUrl: string, transactionId: string): JournalEntry | undefined {
    const base = journalBase(baseUrl);
    for (const it of this.scan()) {
      if ('error' in it) continue;
      const o = it.entry.outcome;
      if (o?.kind === 'accepted' && o.transactionId === transactionId && journalBase(it.entry.baseUrl) === base) return it.entry;
    }
    return undefined;
  }

  /** One entry by its file name (from `scan`); undefined when it is gone since. */
  byName(name: string): JournalEntry | undefined {
    if (!ENTRY_NAME.test(name)) return undefined;
    return this.#read(join(this.dir, name));
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
   * added to. Whatever a marker says is only a lead: every entry found is read and verified
   * (its HMAC) and checked to have the key.
   */
  #marker(baseUrl: string, kind: 'fingerprint' | 'repeat', key: string): string {
    // A batch asks for each row's marker when it plans and when it journals the row: made once.
    return remembered(this.#markers, `${journalBase(baseUrl)}\n${kind}\n${key}`, (of) => this.#in(`index${sep}${sha256(of).slice(0, 32)}`));
  }

  readonly #markers = new Map<string, string>();

  /** The entry names a look-up key's markers lead to (unchecked). */
  #marked(marker: string, kind: 'fingerprint' | 'repeat', key: string): string[] {
    try {
      const st = lstatSync(marker, { throwIfNoEntry: false });
      if (!st) return [];
      if (st.isDirectory()) return readdirSync(marker);
      const more = lstatSync(`${marker}.more`, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(`${marker}.more`) : [];
      if (!st.isFile() || st.size > MAX_MARKER_BYTES) return more;
      let first: unknown;
      try {
        first = JSON.parse(readFileSync(marker, 'utf8'));
      } catch {
        return more; // not a marker payctl made: nothing it leads to
      }
      const claim = claimOf(first);
      if (claim === 'changed') return more;
      if (claim) return [...this.#logs.named(claim.log, kind, key), ...more];
      const e = first as Partial<JournalEntry>;
      if (typeof e?.baseUrl !== 'string' || typeof e.payoutId !== 'string') return more;
      return [this.#entryName(e.baseUrl, e.payoutId), ...more];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new ConfigError(`Cannot read the payout journal index: ${(err as Error).message}`);
    }
  }

  /**
   * Entries of this base URL with the given fingerprint or repeat key, oldest first.
   * Markers whose entry is gone, or that name another payout, are passed over.
   */
  find(baseUrl: string, kind: 'fingerprint' | 'repeat', key: string): JournalEntry[] {
    this.#checkDir();
    const out: JournalEntry[] = [];
    for (const name of new Set(this.#marked(this.#marker(baseUrl, kind, key), kind, key))) {
      if (!ENTRY_NAME.test(name)) continue;
      const e = this.#read(this.#in(name));
      if (!e || journalBase(e.baseUrl) !== journalBase(baseUrl)) continue;
      if ((kind === 'fingerprint' ? e.fingerprint : e.repeatKey) !== key) continue;
      out.push(e);
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * The look-up markers of a new entry (`name`: its file name), hard links of `target` (the
   * log's claim file, or the entry's file as first written), one per look-up key, made
   * before the entry itself: one whose entry never got written is passed over by find().
   * Synchronous: a link is microseconds in the kernel, less than a hand-off to the thread
   * pool and back. Made again by a later attempt, a marker changes nothing find() returns.
   */
  #mark(entry: JournalEntry, name: string, target: string): void {
    for (const [kind, key] of [
      ['fingerprint', entry.fingerprint],
      ['repeat', entry.repeatKey],
    ] as const) {
      if (!key) continue;
      const marker = this.#marker(entry.baseUrl, kind, key);
      if (tryLink(target, marker)) continue;
      // Taken: a folder, as journals written before hold it, or the first entry's marker.
      const folder = lstatSync(marker, { throwIfNoEntry: false })?.isDirectory() ? marker : `${marker}.more`;
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      tryLink(target, `${folder}${sep}${name}`);
    }
  }

  /**
   * Writes the entry durably: temp file, fsync, rename, fsync of the folder. Asynchronous,
   * so the fsyncs of a batch's rows overlap instead of stalling every request in flight.
   */
  async put(entry: JournalEntry): Promise<void> {
    const file = this.#file(entry.baseUrl, entry.payoutId);
    const tmp = await this.#temp(entry);
    await rename(tmp, file);
    await this.#syncDir();
  }

  /** The entry in a new temp file beside its place, fsynced (created exclusively, 0600). */
  async #temp(entry: JournalEntry): Promise<string> {
    await this.#ensureDir();
    const tmp = `${this.#file(entry.baseUrl, entry.payoutId)}.${randomUUID()}.tmp`;
    const fh = await open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(this.#serialize(entry));
      await fh.sync();
    } finally {
      await fh.close();
    }
    return tmp;
  }

  #made: Promise<void> | undefined;

  /** The folder, made 0700 and checked once; temp files a crash left behind are removed. */
  #ensureDir(): Promise<void> {
    this.#made ??= (async () => {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      this.#checked = false;
      this.#checkDir();
      this.#cleanTemp();
    })();
    return this.#made;
  }

  /** Temp files older than a minute: a payctl killed between writing and renaming. */
  #cleanTemp(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    const old = Date.now() - 60_000;
    for (const name of names) {
      if (!name.endsWith('.tmp')) continue;
      try {
        const file = join(this.dir, name);
        if (statSync(file).mtimeMs < old) unlinkSync(file);
      } catch {
        // Gone already, or not ours to remove.
      }
    }
  }

  #dirSyncQueued: Promise<void> | undefined;
  #dirSyncRunning: Promise<void> | undefined;

  /**
   * An fsync of the folder that starts after this call: what was linked or renamed into it
   * before the call is durable when it resolves. Group commit: callers that come while one
   * fsync runs share the next one, so rows journaled in the same moment pay for one fsync.
   */
  #syncDir(): Promise<void> {
    if (this.#dirSyncQueued) return this.#dirSyncQueued;
    const previous = this.#dirSyncRunning ?? Promise.resolve();
    const next = previous
      .catch(() => {})
      .then(() => {
        // Started: a caller from now on needs the one after it.
        this.#dirSyncQueued = undefined;
        const run = this.#fsyncDir();
        this.#dirSyncRunning = run;
        run.then(
          () => (this.#dirSyncRunning === run ? (this.#dirSyncRunning = undefined) : undefined),
          () => (this.#dirSyncRunning === run ? (this.#dirSyncRunning = undefined) : undefined),
        );
        return run;
      });
    this.#dirSyncQueued = next;
    return next;
  }

  /** The journal folder held open while a batch's log is in use (closeLog closes it): one fsync per group, no open and close. */
  #dirFd: number | undefined;

  async #fsyncDir(): Promise<void> {
    if (this.#log) {
      this.#dirFd ??= openSync(this.dir, 'r');
      return fsyncFd(this.#dirFd);
    }
    return fsyncFolder(this.dir);
  }

  /**
   * Creates the entry only if none exists for its payout id (a hard link of the written
   * temp file, which fails when the name is taken): of two processes starting the same
   * payout at once, exactly one chooses the key. Returns false when another was first.
   */
  async #create(entry: JournalEntry): Promise<boolean> {
    const tmp = await this.#temp(entry);
    try {
      this.#mark(entry, this.#entryName(entry.baseUrl, entry.payoutId), tmp);
      await link(tmp, this.#file(entry.baseUrl, entry.payoutId));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      await unlink(tmp).catch(() => {});
    }
  }

  /** Why `body` (and `idempotencyKey`, if given) cannot be sent under an existing entry; undefined when it can. */
  conflict(existing: JournalEntry, body: string, idempotencyKey?: string): JournalConflict | undefined {
    if (!sameBody(existing.body, body)) return new JournalConflict('details', existing);
    if (idempotencyKey && idempotencyKey.toLowerCase() !== existing.idempotencyKey.toLowerCase()) {
      return new JournalConflict('key', existing);
    }
    return undefined;
  }

  /**
   * The entry to send: the journaled one when this payout id was seen before (its key
   * and body reused), else a new one written before returning. Throws `Conflict` when
   * the same payout id was journaled with other details or another key.
   */
  async begin(opts: {
    baseUrl: string;
    payoutId: string;
    body: string;
    idempotencyKey?: string;
    now: Date;
    origin?: EntryOrigin;
    /** The profile of the run, shown by `payctl history`. */
    profile?: string;
    /** Keep it in this process's log (group commit: batch runs) instead of a file of its own. */
    log?: boolean;
    /**
     * A payout whose id was made up for this one request (a plain `payout create`): a random key.
     * Otherwise, without `idempotencyKey`, the key is derived from the base URL, the payout id
     * and the body (identity.ts derivedIdempotencyKey), the same wherever it is journaled.
     */
    randomKey?: boolean;
    /**
     * The caller looked this payout id up a moment ago and found no entry: not looked up
     * again. (One made since by another process is still found: the claim fails, and that
     * entry is the one sent.)
     */
    absent?: boolean;
  }): Promise<JournalEntry> {
    const reuse = (existing: JournalEntry) => {
      const conflict = this.conflict(existing, opts.body, opts.idempotencyKey);
      if (conflict) throw conflict;
      return existing;
    };
    const existing = opts.absent ? undefined : this.get(opts.baseUrl, opts.payoutId);
    if (existing) return reuse(existing);
    // Fields not given are undefined, which JSON leaves out: the stored text is as if they
    // were never set, and every entry has one object shape (see withOutcome).
    const entry: JournalEntry = {
      version: 2,
      payoutId: opts.payoutId,
      baseUrl: opts.baseUrl,
      idempotencyKey: opts.idempotencyKey ?? (opts.randomKey ? randomUUID() : derivedIdempotencyKey(journalBase(opts.baseUrl), opts.payoutId, opts.body)),
      body: opts.body,
      createdAt: opts.now.toISOString(),
      profile: opts.profile,
      batch: opts.origin?.batch || undefined,
      fingerprint: opts.origin?.fingerprint || undefined,
      repeatKey: opts.origin?.repeatKey || undefined,
      outcome: undefined,
    };
    let created: boolean;
    try {
      created = opts.log ? await this.#createLogged(entry) : await this.#create(entry);
      if (created && !opts.log) await this.#syncDir();
    } catch (err) {
      throw this.#writeError(err, `Nothing was sent for payout ${opts.payoutId}.`);
    }
    if (created) {
      this.#noteIndex(this.#entryName(entry.baseUrl, entry.payoutId), entry.payoutId);
      return entry;
    }
    // Another payctl journaled this payout id a moment ago: send under its key.
    const first = this.get(opts.baseUrl, opts.payoutId);
    if (!first) throw new ConfigError(`The payout journal entry of ${opts.payoutId} vanished while it was being written.`);
    return reuse(first);
  }

  /**
   * A failure to write the journal as a person reads it (exit 2, never "a bug"): the cause
   * named (no space left on device, a read-only file system, no permission). Other errors
   * go on as they are.
   */
  #writeError(err: unknown, after: string): unknown {
    const code = (err as NodeJS.ErrnoException)?.code;
    if (!code || !JOURNAL_WRITE_FAULTS.has(code)) return err;
    return new ConfigError(
      `Cannot write the payout journal ${this.dir}: ${fsFault(err)}. ${after}`,
      code === 'ENOSPC' || code === 'EDQUOT'
        ? 'Free some space on that disk and run the same command again.'
        : 'payctl journals every payout before sending it: make the config folder writable (or choose another with PAYCTL_CONFIG_DIR), then run the same command again.',
    );
  }

  // ---- the per-folder index: entries this folder journaled, so lost ones are noticed ----

  /** The index's descriptor while a batch's log is in use (closeLog closes it). */
  #indexFd: number | undefined;

  /**
   * Notes a new entry in `<config>/journal.index` (beside the journal folder, so deleting the
   * folder leaves it): one line per entry, its name and payout id with an HMAC made with the
   * journal key. Appended after the entry exists, so a line never names an entry that was not
   * made. A failure to append is passed over: the index only warns of lost entries (journalGaps),
   * it decides nothing about sending.
   */
  #noteIndex(name: string, payoutId: string): void {
    try {
      const line = JSON.stringify({ name, payoutId, mac: this.#macOf(`payctl-journal-index-v1\n${name}\n${payoutId}`) }) + '\n';
      const fd = this.#indexFd ?? openSync(this.#indexFile, 'a', 0o600);
      try {
        writeSync(fd, line);
      } finally {
        if (this.#log) this.#indexFd = fd;
        else closeSync(fd);
      }
    } catch {
      // Not noted: this entry's loss would go unnoticed, nothing more.
    }
  }

  /**
   * Entries this config folder journaled (its index) that are gone: deleted, a journal folder
   * replaced by an older backup, or moved. Undefined when none is missing. Only what the index
   * holds is known: a folder whose index is gone too (a new machine, another config folder) has
   * nothing to compare, which is why keys are derived (identity.ts). Lines that do not verify
   * are passed over (counted in `unverified`).
   */
  journalGaps(): JournalGaps | undefined {
    let raw: string;
    try {
      raw = readFileSync(this.#indexFile, 'utf8');
    } catch {
      return undefined;
    }
    const seen = new Map<string, string>();
    let unverified = 0;
    for (const text of raw.split('\n')) {
      if (!text) continue;
      try {
        const l = JSON.parse(text) as { name?: unknown; payoutId?: unknown; mac?: unknown };
        if (typeof l.name !== 'string' || typeof l.payoutId !== 'string' || typeof l.mac !== 'string' || !ENTRY_NAME.test(l.name)) throw new Error('not a line');
        const want = Buffer.from(this.#macOf(`payctl-journal-index-v1\n${l.name}\n${l.payoutId}`), 'hex');
        const got = Buffer.from(l.mac, 'hex');
        if (got.length !== want.length || !timingSafeEqual(got, want)) throw new Error('not verified');
        seen.set(l.name, l.payoutId);
      } catch {
        unverified++;
      }
    }
    const missing: string[] = [];
    for (const [name, payoutId] of seen) if (!existsSync(this.#in(name))) missing.push(payoutId);
    if (!missing.length) return undefined;
    return { missing: missing.length, recorded: seen.size, payoutIds: missing.slice(0, 10), unverified };
  }

  // ---- transaction ids already recorded, for answers that resolve an unknown outcome ----

  /** Normalized base URL -> transaction id -> payout id: read once per process (a scan), kept up to date by record(). */
  #owners: Map<string, Map<string, string>> | undefined;

  /**
   * The payout id the journal has recorded transaction `transactionId` for under this base URL
   * (an accepted outcome), if any. The first call scans the journal; later ones, and outcomes this
   * process records, use what it read. For answers that resolve an unknown outcome (a replay, a
   * reconcile): a transaction id already given to another payout means the answer is not this one's.
   */
  transactionOwner(baseUrl: string, transactionId: string): string | undefined {
    if (!this.#owners) {
      this.#owners = new Map();
      for (const it of this.scan()) {
        if ('error' in it) continue;
        const o = it.entry.outcome;
        if (o?.kind === 'accepted' && o.transactionId) this.#own(it.entry.baseUrl, o.transactionId, it.entry.payoutId);
      }
    }
    return this.#owners.get(journalBase(baseUrl))?.get(transactionId);
  }

  #own(baseUrl: string, transactionId: string, payoutId: string): void {
    const base = journalBase(baseUrl);
    let m = this.#owners!.get(base);
    if (!m) this.#owners!.set(base, (m = new Map<string, string>()));
    if (!m.has(transactionId)) m.set(transactionId, payoutId);
  }

  /**
   * Records an outcome. An accepted outcome already on disk (another payctl sending the
   * same payout under the same key) is never overwritten by a weaker one.
   */
  async record(entry: JournalEntry, outcome: Outcome): Promise<JournalEntry> {
    if (outcome.kind !== 'accepted') {
      const current = this.get(entry.baseUrl, entry.payoutId);
      if (current?.outcome?.kind === 'accepted' && current.idempotencyKey === entry.idempotencyKey) return current;
    }
    const next = withOutcome(entry, outcome);
    const name = this.#entryName(entry.baseUrl, entry.payoutId);
    if (this.#owners && outcome.kind === 'accepted' && outcome.transactionId) this.#own(entry.baseUrl, outcome.transactionId, entry.payoutId);
    // In the log: written at once, durable with the log's next fsync (LogWriter.appendNow).
    if (this.#log && this.#logged.has(name)) await this.#log.appendNow(name, this.#signedJson(next));
    else await this.put(next);
    return next;
  }

  /**
   * Creates the entry in this process's log if none exists for its payout id: its line
   * appended and durable (shared with the lines of the same moment), then the exclusive
   * claim, a hard link of the log's claim file under the entry's name (and the markers,
   * links too), then the folder synced, shared likewise. Returns false when another was
   * first: its entry is the one to send (this one's line is never read).
   */
  async #createLogged(entry: JournalEntry): Promise<boolean> {
    const creating = this.#claimLogged(entry);
    this.#creating.add(creating);
    try {
      return await creating;
    } finally {
      this.#creating.delete(creating);
    }
  }

  /** Entries being created in the log now: compaction waits for them (a claim may follow its line). */
  readonly #creating = new Set<Promise<boolean>>();

  async #claimLogged(entry: JournalEntry): Promise<boolean> {
    await this.#ensureDir();
    this.#log ??= new LogWriter(this.dir);
    const name = this.#entryName(entry.baseUrl, entry.payoutId);
    // The claim file is made (the first time) while the line is written: both are durable before a name links to it.
    const claimed = this.#log.claimFile(1 + (entry.fingerprint ? 1 : 0) + (entry.repeatKey ? 1 : 0));
    claimed.catch(() => {}); // awaited below
    await this.#log.append(name, this.#signedJson(entry));
    const claim = await claimed;
    this.#mark(entry, name, claim);
    try {
      linkSync(claim, this.#in(name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    this.#logged.add(name);
    await this.#syncDir();
    return true;
  }

  /**
   * At the end of a batch run: the log rewritten with the latest line of each entry this
   * process claimed (compacted), after every append. A failure leaves the log as it was:
   * still whole, only longer.
   */
  async closeLog(): Promise<void> {
    const log = this.#log;
    if (!log) return;
    await Promise.allSettled([...this.#creating]);
    try {
      await log.compact(this.#logged);
    } finally {
      await this.#dirSyncRunning?.catch(() => {});
      if (this.#dirFd !== undefined) closeSync(this.#dirFd);
      this.#dirFd = undefined;
      if (this.#indexFd !== undefined) closeSync(this.#indexFd);
      this.#indexFd = undefined;
    }
  }
}

/** Kept at most this many: a name or marker a batch asks for again, made once. */
const REMEMBERED = 100_000;

/** `make(key)`, made once per key while the map holds it (emptied when full). */
function remembered(map: Map<string, string>, key: string, make: (key: string) => string): string {
  let value = map.get(key);
  if (value === undefined) {
    value = make(key);
    if (map.size >= REMEMBERED) map.clear();
    map.set(key, value);
  }
  return value;
}

/** The entry's fields without its mac. */
function withoutMac(entry: JournalEntry): Omit<JournalEntry, 'mac'> {
  const { mac: _mac, ...rest } = entry as JournalEntry & { mac?: string };
  return rest;
}

/** The file name of an entry (or of its claim): 32 hex digits of a SHA-256, `.json`. */
const ENTRY_NAME = /^[0-9a-f]{32}\.json$/;

const ENTRY_FIELDS = new Set(['version', 'payoutId', 'baseUrl', 'idempotencyKey', 'body', 'createdAt', 'profile', 'batch', 'fingerprint', 'repeatKey', 'outcome']);

/**
 * The entry with its outcome set. One object literal, not `{ ...entry, outcome }`: in Node
 * 20's V8 every object a spread followed by more properties makes has a hidden class of its
 * own (a batch made one per row, and slowed every read of them). An entry with fields this
 * payctl does not know (written by a newer one) keeps them, through the spread.
 */
function withOutcome(e: JournalEntry, outcome: Outcome): JournalEntry {
  for (const k in e) if (!ENTRY_FIELDS.has(k)) return { ...e, outcome };
  return {
    version: e.version,
    payoutId: e.payoutId,
    baseUrl: e.baseUrl,
    idempotencyKey: e.idempotencyKey,
    body: e.body,
    createdAt: e.createdAt,
    profile: e.profile,
    batch: e.batch,
    fingerprint: e.fingerprint,
    repeatKey: e.repeatKey,
    outcome,
  };
}

/**
 * The journal's view of a base URL: scheme and host lowercased, no default port, no
 * trailing slash, and the loopback names (localhost, 127.0.0.1, [::1]) as one, so one
 * service under two spellings keeps one entry per payout.
 */
export function journalBase(baseUrl: string): string {
  let base = journalBases.get(baseUrl);
  if (base === undefined) {
    base = normalizedBase(baseUrl);
    // A process talks to one or two services: the few answers are kept (each look-up asks).
    if (journalBases.size > 64) journalBases.clear();
    journalBases.set(baseUrl, base);
  }
  return base;
}

const journalBases = new Map<string, string>();

function normalizedBase(baseUrl: string): string {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return baseUrl;
  }
  const host = u.hostname.toLowerCase();
  const name = host === 'localhost' || host === '127.0.0.1' || host === '[::1]' ? 'localhost' : host;
  return `${u.protocol}//${name}${u.port ? `:${u.port}` : ''}${u.pathname.replace(/\/+$/, '')}`;
}

const fsyncFd = promisify(fsync);

/** A marker's content is read only up to this size: a claim or an entry as first written (a payout's body with its metadata), never more. */
const MAX_MARKER_BYTES = 4 * 1024 * 1024;

/** A marker: a hard link of `target` at `path`; false when the path is taken. The folder it goes in is made when missing. */
function tryLink(target: string, path: string): boolean {
  for (let attempt = 0; ; attempt++) {
    try {
      linkSync(target, path);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'ENOENT' || attempt > 0) throw err;
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    }
  }
}

/** File-system errors at the journal's write paths that are a machine's state, not a bug. */
const JOURNAL_WRITE_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'ENOTDIR', 'EISDIR']);

/** A file-system error in words, its code kept: "no space left on device (ENOSPC)". */
export function fsFault(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  const words: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EDQUOT: 'the disk quota is exceeded',
    EROFS: 'the file system is read-only',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ENOTDIR: 'a file is where a folder is expected',
    EISDIR: 'a folder is where a file is expected',
  };
  return code && words[code] ? `${words[code]} (${code})` : ((err as Error)?.message ?? String(err));
}

/** A per-payout name that says it is a claim but is not one as payctl writes them. */
class ChangedClaim extends Error {}

export class JournalConflict extends Error {
  constructor(
    readonly what: 'details' | 'key',
    readonly existing: JournalEntry,
  ) {
    super(what === 'details' ? 'payout id journaled with other details' : 'payout id journaled with another key');
  }
}

/** Same payout: equal as parsed JSON, and every number literal equal as written (JSON.parse rounds long ones). */
function sameBody(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return isDeepStrictEqual(JSON.parse(a), JSON.parse(b)) && numberLiterals(a) === numberLiterals(b);
  } catch {
    return false;
  }
}

/** The number literals of a JSON text, outside strings, in order. */
function numberLiterals(json: string): string {
  return (json.match(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []).filter((t) => !t.startsWith('"')).join(',');
}
