/** Quoting for the commands payctl prints (command-line.ts, and the hints that name a file). */

/** POSIX shell quoting: bare when safe, else single quotes. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_\-.,:/@+=%]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
