/**
 * The local ledger's signatures (docs/architecture.md, "The ledger"): every entry carries an
 * HMAC made with a key only this user can read (`<config>/journal.key`, 0600), so an entry
 * planted or edited outside payctl is reported as damaged instead of, say, making a batch skip
 * a row that was never paid. The key is made on first use; entries journaled before it existed
 * (payctl 0.1) are adopted then: given their HMAC once, as they are. A key gone while entries
 * signed with it are there is never made again: that is refused, saying how to recover.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from '../../errors.js';
import { shellQuote } from '../../config/shell.js';
import { readPrivateKeyFile } from '../../plans/keys.js';
import type { JournalEntry } from './ledger.js';
import { ENTRY_NAME, NOT_ACTED_ON } from './names.js';
import { claimOf } from './log-reader.js';
import { entryText } from './entry-file.js';

/** An entry as stored: its fields and, when signed, their HMAC. */
export type StoredEntry = JournalEntry & { mac?: unknown };

/** The entry's fields without its mac. */
function withoutMac(entry: JournalEntry): Omit<JournalEntry, 'mac'> {
  const { mac: _mac, ...rest } = entry as StoredEntry;
  return rest;
}

export class JournalMac {
  readonly #keyFile: string;
  readonly #dir: string;
  #key: Buffer | undefined;

  /** The key of `<configDir>/journal.key`, for the entries of the journal folder `dir`. */
  constructor(configDir: string, dir: string) {
    this.#keyFile = join(configDir, 'journal.key');
    this.#dir = dir;
  }

  /** The HMAC key, made (0600, exclusively) on first use, when the entries of payctl 0.1 are adopted; refused when lost (#lostKey). */
  #macKey(): Buffer {
    if (this.#key) return this.#key;
    this.#key = this.#readKey();
    if (!this.#key) {
      const signed = this.#signedWith();
      this.#key = signed ? this.#lostKey(signed) : this.#makeKey();
    }
    if (this.#key.length !== 32)
      throw new ConfigError(`The journal key ${this.#keyFile} is damaged.`, 'Move it away only if the journal folder is empty: every entry is checked with it.');
    return this.#key;
  }

  /**
   * The key in its file; undefined when there is none. Refused, as the signing key is, when the
   * file is a symlink, another user's, or readable or writable by others (plans/keys.ts
   * readPrivateKeyFile, with the chmod that makes it private): whoever reads it can sign entries.
   */
  #readKey(): Buffer | undefined {
    let text: string | undefined;
    try {
      text = readPrivateKeyFile(this.#keyFile, {
        label: 'journal key',
        misuse: 'write payout journal entries that payctl takes for its own (a payout marked as paid is never sent)',
      });
    } catch (err) {
      // Read before any payout is journaled, so before any is sent: said so, as for a lost key.
      if (err instanceof ConfigError) throw new ConfigError(`${err.message} Nothing was sent.`, err.hint);
      throw err;
    }
    return text === undefined ? undefined : Buffer.from(text.trim(), 'hex');
  }

  /**
   * How many entries of the journal folder were signed with a key (payctl 0.1's, which were not,
   * are adopted by a new one): with none, a missing key is made; with some, a new key would
   * report every one of them as changed outside payctl.
   */
  #signedWith(): number {
    let names: string[];
    try {
      names = readdirSync(this.#dir).filter((n) => ENTRY_NAME.test(n));
    } catch {
      return 0;
    }
    let signed = 0;
    for (const name of names) {
      try {
        const e = JSON.parse(entryText(join(this.#dir, name)) ?? 'null') as Record<string, unknown> | null;
        if (e && typeof e === 'object' && (e.mac !== undefined || claimOf(e))) signed++;
      } catch {
        // Not an entry: it says nothing of the key.
      }
    }
    return signed;
  }

  /**
   * The key, when another payctl made it a moment ago (its entries were counted); else a
   * ConfigError: the key the journal's entries were signed with is gone, and is not replaced.
   */
  #lostKey(signed: number): Buffer {
    const made = this.#readKey();
    if (made) return made;
    let aside = `${this.#dir}.old`;
    for (let n = 2; existsSync(aside); n++) aside = `${this.#dir}.old-${n}`;
    throw new ConfigError(
      `The journal key ${this.#keyFile} is missing, but the payout journal ${this.#dir} holds ${signed === 1 ? '1 entry' : `${signed} entries`} signed with it: with a new key, every one of them would be reported as changed outside payctl. Nothing was sent.`,
      `Restore journal.key from a backup of this config folder (0600), then run the command again.\n` +
        `Without that key, you can start a new journal, but payctl then no longer knows what the old one sent: a payout in it could be sent again. To do that, move the old journal aside with:\n` +
        `  mv ${shellQuote(this.#dir)} ${shellQuote(aside)}`,
    );
  }

  #makeKey(): Buffer {
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
      return key;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new ConfigError(`Cannot write the journal key ${this.#keyFile}: ${(e as Error).message}`);
      // Another payctl made it a moment ago: its key, checked as any.
      const made = this.#readKey();
      if (!made) throw new ConfigError(`Cannot read the journal key ${this.#keyFile}: it was removed while it was being made.`);
      return made;
    } finally {
      try {
        unlinkSync(tmp);
      } catch {
        // Not written.
      }
    }
  }

  #adoptLegacy(): void {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!ENTRY_NAME.test(name)) continue;
      const file = join(this.#dir, name);
      try {
        // Never through a symlink, never a huge file (entry-file.ts): written back in place.
        const e = JSON.parse(entryText(file) ?? 'null') as (JournalEntry & { mac?: string }) | null;
        if (e && typeof e === 'object' && e.mac === undefined && e.version === 1) writeFileSync(file, this.serialize(e), { mode: 0o600 });
      } catch {
        // A damaged one stays as it is, and is reported when it is read.
      }
    }
  }

  /**
   * The key, made now if there is none: called before an entry is read, so that payctl 0.1's
   * entries are adopted (given their HMAC on disk) before the first of them is read, not after.
   */
  ready(): void {
    this.#macKey();
  }

  /** The HMAC of a text, in hex. */
  of(text: string): string {
    return createHmac('sha256', this.#macKey()).update(text).digest('hex');
  }

  /** Whether `mac` (hex, as stored) is the HMAC of `text`. */
  matches(text: string, mac: string): boolean {
    const want = Buffer.from(this.of(text), 'hex');
    const got = Buffer.from(mac, 'hex');
    return got.length === want.length && timingSafeEqual(got, want);
  }

  /** The entry as it is stored: its fields and their HMAC. */
  #signed(entry: JournalEntry): Record<string, unknown> {
    const rest = withoutMac(entry);
    return { ...rest, mac: this.of(JSON.stringify(rest)) };
  }

  /**
   * The stored entry as JSON text: `JSON.stringify(this.#signed(entry))`, made with one
   * serialization instead of two (the text the HMAC covers, with `"mac"` added as its last field).
   */
  signedJson(entry: JournalEntry): string {
    // An entry made in this run has no mac (JSON leaves an undefined field out): serialized as
    // it is, without a copy; one read from disk, without its mac.
    const json = (entry as StoredEntry).mac === undefined ? JSON.stringify(entry) : JSON.stringify(withoutMac(entry));
    return `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"mac":"${this.of(json)}"}`;
  }

  /** The entry as a file of its own holds it: signed, indented, with a final newline. */
  serialize(entry: JournalEntry): string {
    return JSON.stringify(this.#signed(entry), null, 2) + '\n';
  }

  /**
   * The stored entry without its mac, once its HMAC is checked; throws when it does not verify,
   * naming `file` and the payout asked for (`payoutId`), never what the file says: it is no entry.
   */
  verified(entry: StoredEntry, file: string, payoutId?: string): JournalEntry {
    const want = Buffer.from(this.of(JSON.stringify(withoutMac(entry))), 'hex');
    const got = typeof entry.mac === 'string' && /^[0-9a-f]{64}$/.test(entry.mac) ? Buffer.from(entry.mac, 'hex') : undefined;
    if (!got || !timingSafeEqual(got, want)) {
      throw new ConfigError(
        `The payout journal entry ${file}${payoutId === undefined ? '' : ` (payout ${payoutId})`} was not written by payctl in this config folder or was changed since (${got ? 'its checksum does not match' : 'it has no checksum'}).`,
        NOT_ACTED_ON,
      );
    }
    const { mac: _mac, ...clean } = entry;
    return clean;
  }
}
