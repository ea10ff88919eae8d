/**
 * A folder of payctl's that cannot be written (the config folder, its lock folder, the folder
 * of the config file, the sandbox's record, the signing key): one error for every command that
 * writes there, naming the folder (never a temp file made in it), the real cause and what would
 * help, exit 2. And `makeFolders`, a `mkdir -p` that names the real cause and the folder that
 * refused: Node's recursive mkdir says ENOENT ("its folder does not exist") for a folder it
 * cannot make in a parent that is there but on a read-only file system (EROFS).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../errors.js';
import { diskFull, fsFault } from './fs-fault.js';
import { shellQuote } from './shell.js';

/** Whether `err` is a file-system error (a Node system error with a code such as EACCES). */
export function isFsError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && /^E[A-Z0-9]+$/.test(String((err as NodeJS.ErrnoException).code ?? ''));
}

/**
 * What would help, for the cause: the chmod that makes the folder writable (never for the root
 * folder, which no user should open to writing: the hint names PAYCTL_CONFIG_DIR alone), a
 * remount, some space.
 */
function fix(folder: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  const other = 'choose another config folder with PAYCTL_CONFIG_DIR.';
  // EPERM is the file system's no (sysfs, an immutable folder): a chmod does not change it.
  if (code === 'EPERM') return `Its file system does not allow it: ${other}`;
  if (code === 'EACCES' && dirname(folder) !== folder) return `Make it writable:\n  chmod u+w ${shellQuote(folder)}\nor ${other}`;
  if (code === 'EROFS') return `Its file system is mounted read-only (findmnt -T ${shellQuote(folder)} names the mount): remount it read-write, or ${other}`;
  if (diskFull(err)) return `Free some space on that disk (or raise the limit), or ${other}`;
  return other.charAt(0).toUpperCase() + other.slice(1);
}

/**
 * "Cannot <doing>: payctl cannot write to <folder> (<cause>)<after>", exit 2, with what would
 * help. `after` follows the cause: ". Nothing was changed." unless told.
 */
export function folderFault(folder: string, err: unknown, doing: string, after = '. Nothing was changed.'): ConfigError {
  const code = (err as NodeJS.ErrnoException)?.code;
  const why = code === 'EEXIST' ? 'something that is not a folder is there (EEXIST)' : fsFault(err);
  return new ConfigError(`Cannot ${doing}: payctl cannot write to ${folder} (${why})${after}`, fix(folder, err));
}

/**
 * `path` made with its parents (0700), or a folderFault naming the folder that refused (the
 * parent of the first one that could not be made) and the real cause. A folder made meanwhile
 * by another payctl is taken as made.
 */
export function makeFolders(path: string, doing: string, after?: string): void {
  // The folders not there yet, from the top, made one by one: each failure is its own. Never
  // mkdirSync's recursive mode: on a file system that refuses new folders while it has their parent
  // (/proc), Node's retries it for ever, at full CPU, deaf to SIGTERM (probe E54, 1).
  const missing: string[] = [];
  for (let p = path; !existsSync(p) && dirname(p) !== p; p = dirname(p)) missing.unshift(p);
  for (const p of missing) {
    try {
      mkdirSync(p, { mode: 0o700 });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      // Its parent is there and still "no such folder" (/proc): a file system that takes no new folder.
      if (code === 'ENOENT' && existsSync(dirname(p)))
        throw new ConfigError(
          `Cannot ${doing}: ${dirname(p)} takes no new folder (its file system refuses one: ENOENT)${after ?? '. Nothing was changed.'}`,
          'Choose another config folder with PAYCTL_CONFIG_DIR.',
        );
      throw folderFault(dirname(p), err, doing, after);
    }
  }
}
