/**
 * An entry's file read safely (ledger/local.ts keeps one file per entry): never through a
 * symbolic link, never past MAX_ENTRY_BYTES, nothing but a regular file; read by stored.ts for
 * every entry and by mac.ts when it counts or adopts entries.
 */
import { ConfigError } from '../../errors.js';
import { readRegular, RefusedFile } from '../../config/regular-file.js';
import { MAX_ENTRY_BYTES, NOT_ACTED_ON } from './names.js';

/**
 * The text of an entry's file; undefined when it is gone. Read through one descriptor, never
 * through a symbolic link (one to journal.key printed the start of the HMAC key in a warning)
 * and never past MAX_ENTRY_BYTES (a 3 GB file named like an entry was read whole). Anything
 * but a regular file of that size is a ConfigError naming the file, quoting none of it.
 */
export function entryText(file: string): string | undefined {
  try {
    return readRegular(file, MAX_ENTRY_BYTES, { what: 'entry' })?.toString('utf8');
  } catch (err) {
    if (err instanceof RefusedFile && err.kind === 'symlink') throw notAnEntry(file, 'is a symbolic link, not an entry: payctl does not follow it');
    if (err instanceof RefusedFile && err.kind === 'large') throw notAnEntry(file, err.why);
    if (err instanceof RefusedFile) throw new ConfigError(`Cannot read the payout journal entry ${file}: it ${err.why}.`);
    throw new ConfigError(`Cannot read the payout journal entry ${file}: ${(err as Error).message}`);
  }
}

/** A file named like an entry that cannot be one: payctl will not act on it. */
function notAnEntry(file: string, what: string): ConfigError {
  return new ConfigError(`The payout journal file ${file} ${what}.`, NOT_ACTED_ON);
}
