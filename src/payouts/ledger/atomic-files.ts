/**
 * The local ledger's files (docs/architecture.md, "The ledger"): the journal folder (0700,
 * refused when it is a symlink, another user's or writable by others), entries written whole
 * (a temp file, fsynced, then renamed or linked into place: created exclusively, 0600), the
 * folder's fsyncs shared by the writes of the same moment (group commit), temp files left by a
 * crash cleaned up, and write failures said in words.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fsync, linkSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { link, mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { checkFolder } from '../../config/paths.js';
import { ConfigError } from '../../errors.js';
import { diskFull, fsFault } from '../../config/fs-fault.js';

/** The journal's own folders (markers.ts: look-up and day markers; log-reader.ts LOG_FOLDER: batch logs). */
const JOURNAL_SUBFOLDERS = ['index', 'days', 'log'];

const fsyncFd = promisify(fsync);

/** An fsync of a folder: the names made in it are durable when it resolves. */
export async function fsyncFolder(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * A folder made with its parents (0700): `mkdir -p`, whose failure names the real cause. Node's
 * recursive mkdir says ENOENT for a folder it cannot make in a parent that is there but
 * read-only (EROFS) or closed (EACCES): a batch on a read-only journal was "not journaled:
 * ENOENT ... mkdir journal/log", exit 1. Made again on its own, the folder's real error is thrown.
 */
export async function makeFolder(path: string): Promise<string | undefined> {
  try {
    return await mkdir(path, { recursive: true, mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    try {
      await mkdir(path, { mode: 0o700 });
      return path;
    } catch (again) {
      const code = (again as NodeJS.ErrnoException).code;
      // Made meanwhile by another payctl: there. Its parent not there either: the first answer stands.
      if (code === 'EEXIST') return undefined;
      if (code !== 'ENOENT') throw again;
    }
    throw err;
  }
}

/** A marker: a hard link of `target` at `path`; false when the path is taken. The folder it goes in is made when missing. */
export function tryLink(target: string, path: string): boolean {
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

/** The journal folder: checked, made, written into durably. */
export class JournalFolder {
  readonly dir: string;
  /**
   * Set while a batch's log is in use: the folder is then held open between its fsyncs (one
   * fsync per group, no open and close) until `release`.
   */
  holdOpen = false;
  #checked = false;
  #made: Promise<void> | undefined;
  #dirSyncQueued: Promise<void> | undefined;
  #dirSyncRunning: Promise<void> | undefined;
  #dirFd: number | undefined;

  /** Called once the folder is made by this process (a new journal), before anything is written in it. */
  readonly #onMade: (() => void) | undefined;

  constructor(dir: string, made?: () => void) {
    this.dir = dir;
    this.#onMade = made;
  }

  /**
   * The journal folder and its folders of markers and logs, each refused when it is a symlink,
   * another user's or writable by others: `index`, `days` or `log` linked to a folder elsewhere
   * had payout create write hard links of its entries there.
   */
  check(): void {
    if (this.#checked) return;
    checkFolder(this.dir, 'payout journal folder');
    for (const sub of JOURNAL_SUBFOLDERS) checkFolder(join(this.dir, sub), `payout journal ${sub} folder`);
    this.#checked = true;
  }

  /** The folder, made 0700 and checked once; temp files a crash left behind are removed. */
  ensure(): Promise<void> {
    this.#made ??= (async () => {
      const made = await makeFolder(this.dir);
      this.#checked = false;
      this.check();
      if (made !== undefined) this.#onMade?.();
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

  /**
   * `text()` in a new temp file beside `file`, fsynced (created exclusively, 0600); its path.
   * The text is made once the folder is (signing it may make the journal key).
   */
  async temp(file: string, text: () => string): Promise<string> {
    await this.ensure();
    const tmp = `${file}.${randomUUID()}.tmp`;
    const fh = await open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(text());
      await fh.sync();
    } catch (err) {
      // Not written whole (a full disk, a file-size limit): removed, not left to pile up, one a failure.
      await fh.close().catch(() => {});
      await unlink(tmp).catch(() => {});
      throw err;
    }
    await fh.close();
    return tmp;
  }

  /**
   * `file` written durably: temp file, fsync, rename, fsync of the folder. Asynchronous, so
   * the fsyncs of a batch's rows overlap instead of stalling every request in flight.
   */
  async replace(file: string, text: () => string): Promise<void> {
    const tmp = await this.temp(file, text);
    await rename(tmp, file);
    await this.sync();
  }

  /**
   * `file` created only if it does not exist (a hard link of the written temp file, which
   * fails when the name is taken): of two processes creating it at once, exactly one does.
   * `beforeLink` is given the temp file first (to link markers to). False when another was
   * first. Not yet durable: `sync` makes it so.
   */
  async createExclusive(file: string, text: () => string, beforeLink: (tmp: string) => void): Promise<boolean> {
    const tmp = await this.temp(file, text);
    try {
      beforeLink(tmp);
      await link(tmp, file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      await unlink(tmp).catch(() => {});
    }
  }

  /**
   * An fsync of the folder that starts after this call: what was linked or renamed into it
   * before the call is durable when it resolves. Group commit: callers that come while one
   * fsync runs share the next one, so rows journaled in the same moment pay for one fsync.
   */
  sync(): Promise<void> {
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

  async #fsyncDir(): Promise<void> {
    if (this.holdOpen) {
      this.#dirFd ??= openSync(this.dir, 'r');
      return fsyncFd(this.#dirFd);
    }
    return fsyncFolder(this.dir);
  }

  /** The folder let go of after the fsync under way (a batch's log closed). */
  async release(): Promise<void> {
    await this.#dirSyncRunning?.catch(() => {});
    if (this.#dirFd !== undefined) closeSync(this.#dirFd);
    this.#dirFd = undefined;
  }
}

/** File-system errors at the journal's write paths that are a machine's state, not a bug. */
const JOURNAL_WRITE_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO', 'EROFS', 'EACCES', 'EPERM', 'ENOTDIR', 'EISDIR']);

/**
 * A failure to write the journal `dir` as a person reads it (exit 2, never "a bug"): the
 * cause named (no space left on device, a read-only file system, no permission), then
 * `after`. Other errors go on as they are.
 */
export function writeError(err: unknown, dir: string, after: string): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (!code || !JOURNAL_WRITE_FAULTS.has(code)) return err;
  return new ConfigError(
    `Cannot write the payout journal ${dir}: ${fsFault(err)}. ${after}`,
    diskFull(err)
      ? `${(err as NodeJS.ErrnoException).code === 'EFBIG' ? 'Raise the file-size limit (ulimit -f) or free' : 'Free'} some space on that disk and run the same command again.`
      : 'payctl journals every payout before sending it: make the config folder writable (or choose another with PAYCTL_CONFIG_DIR), then run the same command again.',
  );
}
