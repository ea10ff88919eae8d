/**
 * What a command is, without running it: the static spec that sits beside each verb
 * (`balances-spec.ts` beside `balances.ts`). The program (program.ts) adds every spec to
 * the command tree; help, the completion scripts and the labels in messages come from
 * that tree. The verb's own module is imported only when it runs (`load`).
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { Deps } from '../deps.js';

/** A command module's run: the parsed options (with the positional arguments) and Deps. */
export type Action<O> = (opts: O, deps: Deps) => Promise<number | void>;

/** Runs the command whose action fired: loads its module and hands it the options (cli.ts). */
export type Runner = <O>(cmd: Command, load: () => Promise<{ run: Action<O> }>, args?: Record<string, unknown>) => Promise<void>;

/** A positional argument, as commander takes it: `<file>`; the run gets it under its name (`file`). */
export interface ArgumentSpec {
  name: string;
  description: string;
  /** The only values accepted (commander refuses any other). */
  choices?: readonly string[];
  /**
   * A required argument that may be left out when this option is given (`--template`, which
   * needs no file): shown as optional (`[file]`), and missing otherwise as commander says it.
   */
  unless?: string;
}

export interface OptionSpec {
  /** As commander takes them: `-y, --yes`, `--limit <n>`. */
  flags: string;
  description: string;
  /** Turns the text into the value (e.g. intOption), refusing bad input as a usage error. */
  parse?: (value: string) => unknown;
  default?: string | number | boolean;
  /** May be given again: the values are collected in a list (default: an empty one). */
  repeatable?: true;
}

export interface CommandSpec {
  name: string;
  /** One line: commander's description, shown in the help of the command and of its parent. */
  summary: string;
  arguments?: readonly ArgumentSpec[];
  options?: readonly OptionSpec[];
  /** Shown after the options, before the examples. */
  help?: string;
  /** Command lines shown under "Examples:", without the `$ `. */
  examples?: readonly string[];
  /**
   * A problem with the options taken together (`--wait-timeout` without `--wait`), or
   * undefined: refused as a usage error before the command's module is loaded.
   */
  check?: (opts: Record<string, unknown>) => string | undefined;
  /** Left out of help and completion (used by the completion scripts themselves). */
  hidden?: true;
  /** The run also gets `tree`: the command tree built afresh (the completion scripts are made from it). */
  tree?: true;
  /** The module whose run gets the options: imported only when the command runs. */
  load: () => Promise<{ run: Action<never> }>;
  /** Verbs below a command that also runs by itself (`history`, `history reconcile`). */
  commands?: readonly CommandSpec[];
}

/** A command that only groups others (`payout`, `config`): its summary, examples and verbs. */
export interface GroupSpec {
  name: string;
  summary: string;
  examples?: readonly string[];
  commands: readonly CommandSpec[];
}

/** The "Examples:" block of a command's help. */
export const EXAMPLES = (lines: readonly string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

/** What a spec shows after its options: its help text, then its examples. */
export function helpAfter(spec: { help?: string; examples?: readonly string[] }): string | undefined {
  if (spec.help === undefined && spec.examples === undefined) return undefined;
  return (spec.help === undefined ? '' : `\n${spec.help}\n`) + (spec.examples === undefined ? '' : EXAMPLES(spec.examples));
}

/**
 * A whole number from `min` to `max` (no upper bound when `max` is not given), for an
 * option named `name` (`--port`). Any bad value is told the rule in words a person reads:
 * "--page must be a whole number of at least 1."
 */
export function intOption(name: string, min = 0, max?: number) {
  const rule =
    max !== undefined
      ? `${name} must be a whole number from ${min} to ${max}.`
      : min > 0
        ? `${name} must be a whole number of at least ${min}.`
        : `${name} must be a whole number (0 or more).`;
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(rule);
    const n = Number(value);
    // Beyond 2^53 a number is no longer exact: too large for any of these options.
    if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(max !== undefined ? rule : `${name} is too large.`);
    if (n < min || (max !== undefined && n > max)) throw new InvalidArgumentError(rule);
    return n;
  };
}

/**
 * A value that must not be empty (`--base-url`, `--forward-to`, `--report`, ...): `--base-url=`
 * or `--base-url "$U"` with `$U` unset was taken as not given, and the run went to the default
 * profile's service (probe R58b: a payout was sent there). Refused, naming the flag.
 */
export function nonEmpty(name: string) {
  return (value: string): string => {
    if (value.trim() === '') throw new InvalidArgumentError(`${name} must not be empty: give a value, or leave the option out.`);
    return value;
  };
}

/**
 * A number of seconds, whole or decimal (`30`, `2.5`, `.5`), for an option named `name`:
 * at least `min` when given (else more than 0), at most `max`.
 */
export function secondsOption(name: string, opts: { min?: number; max: number; maxLabel?: string }) {
  return (value: string): number => {
    const n = Number(value);
    const least = opts.min === undefined ? 'more than 0' : `at least ${opts.min}`;
    // `1e9`, `30s`, `1,5`: the form is what is wrong, said with the range it must be in.
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value)) {
      throw new InvalidArgumentError(`${name} must be a plain number of seconds (digits and at most one ".", e.g. 30 or 2.5), ${least} and at most ${opts.max}.`);
    }
    if (opts.min === undefined ? n <= 0 : n < opts.min) throw new InvalidArgumentError(`${name} must be a number of seconds, ${least}.`);
    if (n > opts.max) throw new InvalidArgumentError(`${name} must be at most ${opts.max} seconds${opts.maxLabel ? ` (${opts.maxLabel})` : ''}.`);
    return n;
  };
}
