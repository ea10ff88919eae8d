/**
 * Reading a file payctl keeps in its config folder (a key, the config file, a lock, the journal's
 * index, logs and entries) without blocking and without reading past a bound: opened with
 * O_NONBLOCK (a named pipe planted where a file is expected blocked open() for good, deaf to
 * Ctrl-C and SIGTERM) and O_NOFOLLOW (none of these is ever a symlink); then fstat on that very
 * descriptor, and anything but a regular file refused, saying what it is. Callers put the
 * reason (RefusedFile.why) in their own message, naming the file.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** A file payctl does not read: `why` finishes a sentence naming it ("is a named pipe (FIFO), not a regular file"). */
export class RefusedFile extends Error {
  constructor(
    readonly why: string,
    /** A symbolic link (the file itself would do), anything but a regular file, or one too large. */
    readonly kind: 'symlink' | 'special' | 'large',
  ) {
    super(why);
  }
}

/** What a file that is not a regular one is, in words. */
export function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/** A byte count in words: "64 KiB", "4 MiB"; one that is neither a whole KiB nor MiB in bytes ("100 bytes", "1,500,000 bytes"). */
export function sizeWords(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString('en-US')} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

export interface OpenedFile {
  fd: number;
  st: Stats;
}

export interface ReadOptions {
  /** What payctl keeps in such a file, for the message of one too large ("entry", "key file"). */
  what?: string;
  /** Told the open file's stat before it is read; throws to refuse it. */
  check?: (st: Stats) => void;
  /** A file the user names (a policy file): a symlink to one is followed; a pipe or device at its end is still refused. */
  follow?: boolean;
}

/**
 * `file` opened for reading, never blocking: undefined when it is not there. A symlink (unless
 * `follow`: a file the user names) or anything but a regular file is a RefusedFile; other errors (EACCES) are thrown as they are. The caller
 * closes the descriptor.
 */
export function openRegular(file: string, follow = false): OpenedFile | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (follow ? 0 : (constants.O_NOFOLLOW ?? 0)));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new RefusedFile('is a symbolic link: payctl does not follow it', 'symlink');
    throw err;
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new RefusedFile(`is ${kindOf(st)}, not a regular file`, 'special');
  }
  return { fd, st };
}

/**
 * The bytes of `file`, read through one descriptor (openRegular) and never past `max`: a file
 * larger is a RefusedFile, not read (one growing meanwhile is read to one byte past the size
 * its stat gave). Undefined when
 * it is not there. `check`: told the file's stat before anything is read (its owner, its mode).
 */
export function readRegular(file: string, max: number, opts: ReadOptions = {}): Buffer | undefined {
  const f = openRegular(file, opts.follow);
  if (!f) return undefined;
  try {
    opts.check?.(f.st);
    const tooLarge = () => new RefusedFile(`is larger than ${sizeWords(max)}, far more than any ${opts.what ?? 'such file'} payctl writes: it was not read`, 'large');
    if (f.st.size > max) throw tooLarge();
    // One byte past the size seen: a file at the bound that grew since the stat is refused too.
    const buf = Buffer.alloc(f.st.size + 1);
    let got = 0;
    for (let n = 1; n > 0 && got < buf.length; got += n) n = readSync(f.fd, buf, got, buf.length - got, got);
    if (got > max) throw tooLarge();
    return buf.subarray(0, got);
  } finally {
    closeSync(f.fd);
  }
}

/** Bytes read at a time by readLines. */
const LINE_CHUNK = 1 << 20;

/**
 * The whole lines of the open file `fd` from byte `from` to byte `to`, a megabyte at a time,
 * given to `take` in blocks of whole lines (each block ends with a newline; a last line with no
 * newline yet, being written or cut by a crash, is left). Stops where the file cannot be what
 * payctl wrote, and says why (a sentence's end naming the byte): a NUL byte (JSON lines never
 * hold one; 200 MiB of them appended to a log made `history` take 50 s and 870 MB), or a line
 * longer than `maxLine` (waiting for its newline held it whole). Undefined when read to `to`.
 */
export function readLines(fd: number, from: number, to: number, maxLine: number, take: (lines: Buffer) => void): string | undefined {
  let pending = Buffer.alloc(0);
  for (let at = from; at < to;) {
    const chunk = Buffer.allocUnsafe(Math.min(LINE_CHUNK, to - at));
    const n = readSync(fd, chunk, 0, chunk.length, at);
    if (n === 0) break;
    const got = chunk.subarray(0, n);
    const nul = got.indexOf(0);
    const fresh = nul >= 0 ? got.subarray(0, nul) : got;
    const data = pending.length ? Buffer.concat([pending, fresh]) : fresh;
    const start = at - pending.length;
    // The lines up to the first one too long (or the end, when none is): taken; past it, not read.
    let ok = 0;
    for (let nl = data.indexOf(0x0a); nl >= 0 && nl - ok <= maxLine; nl = data.indexOf(0x0a, ok)) ok = nl + 1;
    if (ok > 0) take(data.subarray(0, ok));
    if (data.indexOf(0x0a, ok) >= 0 || data.length - ok > maxLine) return tooLong(maxLine, start + ok);
    pending = Buffer.from(data.subarray(ok));
    if (nul >= 0) return `holds a NUL byte at byte ${at + nul}, which payctl never writes: it was not read past it`;
    at += n;
  }
  return undefined;
}

function tooLong(maxLine: number, from: number): string {
  return `holds a line longer than ${sizeWords(maxLine)} from byte ${from}, far more than payctl writes: it was not read past it`;
}
