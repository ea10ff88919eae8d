/**
 * The local ledger's names (docs/architecture.md, "The ledger"): an entry is the file
 * `<journal>/<32 hex digits of the SHA-256 of its base URL and payout id>.json`, under the
 * normalized base URL (journalBase); payctl 0.1 filed entries under the base URL as written,
 * and those legacy names are still found.
 */
import { readdirSync } from 'node:fs';
import { sep } from 'node:path';
import { ConfigError } from '../../errors.js';
import { sha256Hex } from '../identity.js';
import { journalBase } from './base-url.js';

/** The file name of an entry (or of its claim): 32 hex digits of a SHA-256, `.json`. */
export const ENTRY_NAME = /^[0-9a-f]{32}\.json$/;

/**
 * The most an entry's file, a marker or a log's line may hold: an entry with its body and
 * metadata (a thousand keys at most) is far smaller. A file named like an entry that is larger
 * is not read (stored.ts).
 */
export const MAX_ENTRY_BYTES = 4 * 1024 * 1024;

/** What to do about a file in the journal that payctl did not write (planted, changed, a link): the hint of every such refusal. */
export const PLANTED_HINT = 'If you did not put it there, someone else can write to your config folder: check it before going on.';
/** The hint of a journal file payctl refuses to act on. */
export const NOT_ACTED_ON = `payctl will not act on it. ${PLANTED_HINT}`;

/** Kept at most this many: a name or marker a batch asks for again, made once. */
const REMEMBERED = 100_000;

/**
 * Values made once per (scope, key) while the cache holds them (emptied when full). Keyed in
 * two levels, a base URL and then the caller's own string (a payout id, a look-up key), which
 * the rows asking already hold: a batch remembers a name a row without making a key string
 * for each (a 10,000-row batch kept 4 MB of such keys).
 */
export class Remembered {
  readonly #scopes = new Map<string, Map<string, string>>();
  #size = 0;

  get(scope: string, key: string, make: () => string): string {
    let values = this.#scopes.get(scope);
    let value = values?.get(key);
    if (value !== undefined) return value;
    value = make();
    if (this.#size >= REMEMBERED) {
      this.#scopes.clear();
      this.#size = 0;
      values = undefined;
    }
    if (!values) this.#scopes.set(scope, (values = new Map<string, string>()));
    values.set(key, value);
    this.#size++;
    return value;
  }
}

/** The names of the entries of one journal folder, and their paths. */
export class EntryNames {
  readonly #dir: string;
  readonly #names = new Remembered();
  #legacy: Set<string> | undefined;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /**
   * A path in the journal folder. By concatenation: `name` is a plain name (or `index/<hash>`)
   * and the folder is normalized, so path.join would give the same, allocating several times
   * as much (a batch asks for a few paths a row).
   */
  in(name: string): string {
    return `${this.#dir}${sep}${name}`;
  }

  /** The name under `baseUrl` exactly as given (payctl 0.1's, when it is not normalized). */
  asWritten(baseUrl: string, payoutId: string): string {
    // A batch asks for each row's name when it plans, journals and records it: made once.
    return this.#names.get(baseUrl, payoutId, () => `${sha256Hex(`${baseUrl}\n${payoutId}`, 16)}.json`);
  }

  /** An entry's file name: entries are filed under the normalized base URL (journalBase). */
  of(baseUrl: string, payoutId: string): string {
    return this.asWritten(journalBase(baseUrl), payoutId);
  }

  /** An entry's path. */
  file(baseUrl: string, payoutId: string): string {
    return this.in(this.of(baseUrl, payoutId));
  }

  /**
   * The names in the journal folder, listed once per process: all that a look-up under a
   * base URL as written (not normalized) can find. Such names are payctl 0.1's entries,
   * given their HMAC when the key was made; nothing is filed under them since (every entry
   * is filed under the normalized base URL, and a base URL that is not normalized is never
   * what normalizing gives; adopting them rewrites them in place; a name is dropped from the
   * set when its payout is written under the normalized name and the old file removed). So a
   * batch of 10,000 rows asks the folder once, not 10,000 times more.
   */
  legacy(): Set<string> {
    if (this.#legacy) return this.#legacy;
    const names = new Set<string>();
    try {
      for (const name of readdirSync(this.#dir)) if (ENTRY_NAME.test(name)) names.add(name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError(`Cannot read the payout journal ${this.#dir}: ${(err as Error).message}`);
    }
    this.#legacy = names;
    return names;
  }
}
