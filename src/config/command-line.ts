/**
 * Commands printed for a person to run (docs/architecture.md, "Printed commands"): a resume, a safe retry, a
 * "check it with", a "run payctl login". Each carries the options that chose the
 * environment of the run it came from (profile, base URL, time limit), so pasted as
 * printed it talks to the same service with the same credentials. Never a secret: keys
 * and tokens only ever come from the profile or the environment.
 */
import { givenBaseUrl, profileChoice } from './resolve.js';
import { DEFAULT_TIMEOUT_S } from './globals.js';
import { shellQuote } from './shell.js';
import { maskBaseUrl } from './mask.js';

/** The global options that choose the environment of a run (Deps' GlobalOptions has them). */
export interface RunOptions {
  profile: string;
  /** Set when --base-url was given on the command line. */
  baseUrl: string | undefined;
  timeoutMs: number;
}

/** The options of a run that a printed command must repeat. */
export interface Invocation {
  /** Set when the profile is not the one a bare command would use. */
  profile?: string;
  /** Set when the base URL came from --base-url or PAYCTL_BASE_URL. */
  baseUrl?: string;
  /** Seconds, set when --timeout was not the default. */
  timeout?: string;
}

export function invocationOf(globals: RunOptions, env: NodeJS.ProcessEnv): Invocation {
  const inv: Invocation = {};
  // A profile chosen by flag or by PAYCTL_PROFILE: the terminal the command is pasted into may lack either.
  if (globals.profile !== 'default' || profileChoice(undefined, env).source === 'env') inv.profile = globals.profile;
  const baseUrl = givenBaseUrl(globals, env).value;
  if (baseUrl) inv.baseUrl = baseUrl;
  const timeout = timeoutOption(globals.timeoutMs);
  if (timeout !== undefined) inv.timeout = timeout;
  return inv;
}

/** The --timeout a printed command carries for a run's time limit: its seconds, when not the default. */
export function timeoutOption(timeoutMs: number | undefined): string | undefined {
  return timeoutMs === undefined || timeoutMs === DEFAULT_TIMEOUT_S * 1000 ? undefined : String(timeoutMs / 1000);
}

/** Shell quoting (shell.ts: sh, bash, zsh and fish read it alike), for every caller that prints a command. */
export { shellQuote };

/**
 * A file named on the command line as a printed command's operand: as the person gave it, but
 * `./-f2.csv` for `-f2.csv`, which pasted back would be read as an option (and which
 * commandLine would take for the first option).
 */
export function fileOperand(path: string): string {
  return path.startsWith('-') ? `./${path}` : path;
}

/**
 * `payctl <words> <operands> [--profile P] [--base-url U] [--timeout S] <options>` (no --base-url
 * for `config set`/`unset`, which refuse it),
 * every value quoted for the shells (shell.ts). `words` are the command's names (`payout get`),
 * `args` its operands (a file the person named: through fileOperand), then its options, as
 * plain strings.
 */
export function commandLine(inv: Invocation, words: string[], args: string[] = []): string {
  // Operands (a file, an id) right after the command's names, then the options.
  const operands = args.findIndex((a) => a.startsWith('-'));
  const lead = operands === -1 ? args.length : operands;
  const out = ['payctl', ...words, ...args.slice(0, lead).map(shellQuote)];
  args = args.slice(lead);
  if (inv.profile !== undefined && inv.profile !== '') out.push('--profile', shellQuote(inv.profile));
  // A user name and password in it are never printed (payctl refuses such a base URL anyway).
  // `config set`/`unset` change the profile, which --base-url does not choose: they refuse it (commands/config/base-url-flag.ts).
  if (inv.baseUrl && !changesProfile(words)) out.push('--base-url', shellQuote(maskBaseUrl(inv.baseUrl)));
  if (inv.timeout) out.push('--timeout', shellQuote(inv.timeout));
  for (const a of args) out.push(shellQuote(a));
  return out.join(' ');
}

/** `config set` and `config unset`: they take no --base-url (a profile's settings, chosen by --profile). */
function changesProfile(words: string[]): boolean {
  return words[0] === 'config' && (words[1] === 'set' || words[1] === 'unset');
}

/**
 * commandLine with a value a person puts in (`<path>`, `NAME`), printed as it is right after the
 * command's names, unquoted: `payctl config set policy <path> --profile ops`. Pasted with the
 * value put in, it changes the run's profile, not the default one.
 */
export function commandTemplate(inv: Invocation, words: string[], placeholder: string, args: string[] = []): string {
  const head = ['payctl', ...words].join(' ');
  return `${head} ${placeholder}${commandLine(inv, words, args).slice(head.length)}`;
}

/**
 * `payctl login --profile P [--timeout S] <extra>`: the login a hint offers for profile `profile`
 * (its key to be kept again, or the profile made), with the run's time limit (`timeout`:
 * Invocation's, set when --timeout was not the default), as every printed command carries it.
 */
export function loginCommand(profile: string, timeout: string | undefined, extra: string[] = []): string {
  return commandLine({ profile, ...(timeout !== undefined ? { timeout } : {}) }, ['login'], extra);
}

/** After a local fault (cli.ts): where the payouts sent are (`payctl history`, with the run's profile), or that nothing was sent and `then`. */
export function faultHint(sentPayout: boolean, run: { globals: RunOptions; env: NodeJS.ProcessEnv } | undefined, then: string): string {
  if (!sentPayout) return `Nothing was sent. ${then}`;
  // A payout is sent by a command that ran, so its run is there; the command carries its profile.
  const history = run ? commandLine(invocationOf(run.globals, run.env), ['history']) : 'payctl history';
  return `Payouts were sent and are journaled: \`${history}\` shows each with its outcome; the same command run again sends none of them twice.`;
}

/**
 * What a second Ctrl-C (or SIGTERM) says as it ends a run that sent payouts, without waiting for
 * those in flight (cli.ts): that they may or may not be made, and how to find out (text, or the
 * error object of `--json`).
 */
export function secondInterruptNote(run: { globals: RunOptions; env: NodeJS.ProcessEnv }, json: boolean): string {
  const message = 'Stopped at once (a second interrupt): a payout in flight may or may not have been made.';
  const hint = `To find out, and to finish without paying anything twice: ${commandLine(invocationOf(run.globals, run.env), ['history', 'reconcile'])}`;
  return json ? `${JSON.stringify({ error: { message, code: 'INTERRUPTED', hint } })}\n` : `${message}\n${hint}\n`;
}
