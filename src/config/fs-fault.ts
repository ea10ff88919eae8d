/**
 * File-system errors in words (the journal's, a lock file's, the config file's): what a person
 * can act on, with the code kept for a search.
 */

/** A file-system error in words, its code kept: "no space left on device (ENOSPC)". */
export function fsFault(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  const words: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EDQUOT: 'the disk quota is exceeded',
    EFBIG: 'the file is larger than may be written here (a file-size limit: ulimit -f, a quota or the file system)',
    EROFS: 'the file system is read-only',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ENOTDIR: 'a file is where a folder is expected',
    EISDIR: 'a folder is where a file is expected',
    ENOENT: 'its folder does not exist',
  };
  return code && words[code] ? `${words[code]} (${code})` : ((err as Error)?.message ?? String(err));
}

/** Whether a file-system error is a full disk, quota or file-size limit: what to do is free some space (or raise the limit). */
export function diskFull(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG';
}
