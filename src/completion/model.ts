/**
 * The completion model: what a shell may offer at each point of a payctl command line,
 * read from the commander command tree (commands, options, arguments, argChoices),
 * plus the value hints that the tree cannot express (values.ts). The bash, zsh and fish
 * renderers turn this one model into scripts, so the three shells offer the same things.
 */
import type { Argument, Command, Option } from 'commander';
import { ARGUMENT_HINTS, OPTION_HINTS, type ValueSource } from './values.js';

export type { ValueSource };

export interface OptionSpec {
  /** `-p` */
  short?: string;
  /** `--profile` */
  long?: string;
  description: string;
  /** How its value is completed; undefined when the option takes no value. */
  value?: ValueSource;
  /** What the value is, from the flags: `<type>` -> type. */
  valueName?: string;
}

export interface ArgumentSpec {
  name: string;
  description: string;
  variadic: boolean;
  value: ValueSource;
}

export interface CommandSpec {
  /** Names from the root: [] for payctl itself, ['payout', 'create'] for `payctl payout create`. */
  path: string[];
  name: string;
  /** The name and its aliases, as typed. */
  names: string[];
  description: string;
  /** Options of this command only (with -h/--help, and -V/--version at the root). */
  options: OptionSpec[];
  arguments: ArgumentSpec[];
  /** Visible subcommands (hidden ones are left out), including commander's implicit `help`. */
  commands: CommandSpec[];
}

export interface CompletionModel {
  /** The program name the scripts register for. */
  program: string;
  root: CommandSpec;
  /** Options of the root accepted before or after any command (all but --version and --help). */
  globals: OptionSpec[];
}

/** Words are written into the scripts unquoted, and bash splits words at = and : (COMP_WORDBREAKS). */
const PLAIN_WORD = /^[A-Za-z0-9_.,/@+%-]+$/;

/** Builds the model from a commander program; throws when a value hint names nothing in the tree. */
export function buildModel(program: Command): CompletionModel {
  const used = new Set<string>();
  const root = describeCommand(program, [], used);
  const rootOnly = new Set(['--version', '--help']);
  const globals = root.options.filter((o) => !rootOnly.has(o.long ?? ''));
  root.options = root.options.filter((o) => rootOnly.has(o.long ?? ''));
  const stale = [...Object.keys(OPTION_HINTS), ...Object.keys(ARGUMENT_HINTS)].filter((k) => !used.has(k));
  if (stale.length) {
    throw new Error(`Completion hints match nothing in the command tree: ${stale.join(', ')} (see src/completion/values.ts).`);
  }
  checkWords(root, globals);
  return { program: program.name(), root, globals };
}

/** `helpFor`: for commander's implicit `help [command]`, the names it gives help for. */
function describeCommand(cmd: Command, path: string[], used: Set<string>, helpFor?: string[]): CommandSpec {
  const help = cmd.createHelp();
  const key = path.join(' ');
  const options = help.visibleOptions(cmd).map((o) => describeOption(o, key, used));
  const visible = help.visibleCommands(cmd);
  // The implicit help command is listed by commander's help but is not in cmd.commands.
  const others = visible.filter((c) => cmd.commands.includes(c)).map((c) => c.name());
  const commands = visible.map((c) => describeCommand(c, [...path, c.name()], used, cmd.commands.includes(c) ? undefined : others));
  const args = cmd.registeredArguments.map((a) => describeArgument(a, key, used, helpFor));
  return {
    path,
    name: cmd.name(),
    names: [cmd.name(), ...cmd.aliases()],
    description: firstLine(help.subcommandDescription(cmd)),
    options,
    arguments: args,
    commands,
  };
}

function describeOption(o: Option, commandKey: string, used: Set<string>): OptionSpec {
  const spec: OptionSpec = { description: firstLine(o.description) };
  if (o.short) spec.short = o.short;
  if (o.long) spec.long = o.long;
  if (o.required || o.optional) {
    const name = o.long ?? o.short ?? '';
    const key = commandKey ? `${commandKey} ${name}` : name;
    const hint = OPTION_HINTS[key];
    if (hint) used.add(key);
    spec.value = hint ?? (o.argChoices ? { kind: 'words', words: [...o.argChoices] } : byPlaceholder(o.flags));
    spec.valueName = /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1] ?? 'value';
  }
  return spec;
}

function describeArgument(a: Argument, commandKey: string, used: Set<string>, commandNames?: string[]): ArgumentSpec {
  const key = `${commandKey} <${a.name()}>`.trim();
  const hint = ARGUMENT_HINTS[key];
  if (hint) used.add(key);
  const value: ValueSource =
    hint ??
    (a.argChoices
      ? { kind: 'words', words: [...a.argChoices] }
      : commandNames
        ? { kind: 'words', words: commandNames }
        : a.name() === 'file' || a.name() === 'report' || a.name() === 'plan' || a.name() === 'copy'
          ? { kind: 'files' }
          : { kind: 'any' });
  return { name: a.name(), description: firstLine(a.description), variadic: a.variadic, value };
}

/** `--report <file>`: a file name. Anything else without a hint or choices is free text. */
function byPlaceholder(flags: string): ValueSource {
  return /[<[]file[>\]]/.test(flags) ? { kind: 'files' } : { kind: 'any' };
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

function checkWords(root: CommandSpec, globals: OptionSpec[]): void {
  const check = (word: string, where: string) => {
    if (!PLAIN_WORD.test(word)) throw new Error(`Completion word "${word}" (${where}) has characters a shell would need quoted.`);
  };
  const checkValue = (v: ValueSource | undefined, where: string) => {
    if (v?.kind === 'words') for (const w of v.words) check(w, where);
  };
  for (const o of globals) checkValue(o.value, o.long ?? '');
  for (const c of walk(root)) {
    for (const n of c.names) check(n, c.path.join(' '));
    for (const o of c.options) checkValue(o.value, `${c.path.join(' ')} ${o.long}`);
    for (const a of c.arguments) checkValue(a.value, `${c.path.join(' ')} <${a.name}>`);
  }
}

/** Every command of the tree, the root first, depth first in commander's order. */
export function walk(cmd: CommandSpec): CommandSpec[] {
  return [cmd, ...cmd.commands.flatMap(walk)];
}

/** Flags of an option as typed: `-p`, `--profile`. */
export function flagsOf(o: OptionSpec): string[] {
  return [o.short, o.long].filter((f): f is string => Boolean(f));
}
