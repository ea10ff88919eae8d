/**
 * Quoting for the commands payctl prints (command-line.ts, and the hints that name a file): read
 * back to the same words by a POSIX shell (sh, bash, zsh) and by fish.
 */

/** Left bare: characters no shell reads specially, never first a `=` (zsh's `=cmd` is a path) or `%` (fish's `%self` is a pid). */
const BARE = /^[A-Za-z0-9_\-.,:/@+][A-Za-z0-9_\-.,:/@+=%]*$/;

/**
 * Bare when safe, else single quotes (a quote in it as `'\''`). A backslash is left outside the
 * quotes, escaped (`\\`): inside single quotes fish reads `\\` and `\'` as escapes where a POSIX
 * shell reads them as typed, and outside quotes every one of them reads `\\` as one backslash.
 */
export function shellQuote(value: string): string {
  if (BARE.test(value)) return value;
  const quoted = (part: string) => `'${part.replace(/'/g, `'\\''`)}'`;
  if (!value.includes('\\')) return quoted(value);
  return value
    .split('\\')
    .map((part) => (part === '' ? '' : quoted(part)))
    .join('\\\\');
}
