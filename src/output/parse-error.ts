/**
 * A usage error commander raised while it read the command line (an unknown command or
 * option, an option's value refused by its parser, a value missing, a spec's own check:
 * program.ts), as the UsageError `--json` reports (README "Output, scripting and exit codes").
 * Its text, as commander printed it for people, is read back: `message` is its first line; the
 * problem is one entry of `errors`, `field` the flag it names ('' when it names none: an unknown
 * command, too many arguments) and `message` what is wrong without the flag; the lines said
 * after it for people ("(Did you mean payouts list?)", a word a chat app changed, "(run `payctl
 * payouts list --help` for usage)") are the hint, as sentences, never part of the message.
 */
import { problemOf, UsageError, type Problem } from '../errors.js';

/** `(Did you mean --limit?)`, `(run `payctl x --help` for usage)`: an aside for people, as a sentence. */
export function asSentence(line: string): string {
  const m = /^\(([^()]*(?:\([^()]*\)[^()]*)*)\)$/.exec(line.trim());
  if (!m) return line.trim();
  const s = m[1]!.trim();
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.?!]$/.test(s) ? '' : '.'}`;
}

/** The long flag of commander's `flags` (`-p, --profile <name>` -> `--profile`), else its first word. */
function flagOf(flags: string): string {
  const words = flags.split(/[ ,|]+/);
  return words.find((w) => w.startsWith('--')) ?? words[0] ?? '';
}

/** The problem commander's first line says, with the flag it names. */
function problemOfLine(line: string, command: string | undefined): Problem {
  const invalid = /^option '([^']+)' argument '(.*)' is invalid\.(?: (.*))?$/s.exec(line);
  if (invalid) {
    const field = flagOf(invalid[1]!);
    const why = invalid[3] === undefined ? undefined : problemOf(invalid[3]);
    // "--limit must be a whole number ...": said without the flag; another reason as it is.
    const reason = why === undefined ? '' : `: ${why.field === field ? why.message : why.text}`;
    return { field, message: `"${invalid[2]!}" is invalid${reason}`, text: line };
  }
  const missing = /^option '([^']+)' argument missing$/.exec(line);
  if (missing) return { field: flagOf(missing[1]!), message: `needs a value (${missing[1]!})`, text: line };
  const required = /^required option '([^']+)' not specified$/.exec(line);
  if (required) return { field: flagOf(required[1]!), message: 'is required', text: line };
  const unknown = /^unknown option '(.*)'$/.exec(line);
  // `--api-key=…`: the flag, without what stood for its value.
  if (unknown) return { field: unknown[1]!.replace(/=.*$/s, ''), message: `is not an option of ${command ?? 'this command'}`, text: line };
  return problemOf(line);
}

/**
 * `said`: commander's error as printed (without "error: "; option values that may be secrets
 * already taken out, output/secrets.ts withoutOptionValues), `after`: what it printed after it
 * (the line that points at the help).
 */
export function parseUsageError(said: string, after: string): UsageError {
  const [first = '', ...rest] = said.trim().split('\n');
  const help = after.trim();
  const command = /^\(run `(.+) --help` for usage\)$/.exec(help)?.[1];
  const hint = [...rest, help]
    .filter((l) => l.trim() !== '')
    .map(asSentence)
    .join(' ');
  return new UsageError(first, [problemOfLine(first, command)], hint || undefined);
}
