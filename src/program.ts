/**
 * The command tree (commander), assembled from the specs beside the verbs (the `*-spec.ts`
 * files under src/commands): the global options, then every command under its group, each
 * running its lazily loaded module. Built by the entry (cli.ts) and by `payctl completion`,
 * which generates the shell scripts from it.
 */
import { Argument, Command, CommanderError, Help, Option } from 'commander';
import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { DEFAULT_TIMEOUT_S, type GlobalOptions } from './config/globals.js';
import { RefusedError, UsageError } from './errors.js';
import { profileChoice } from './config/resolve.js';
import { isProfileName, PROFILE_NAME_RULE, RESERVED_PROFILE_NAMES } from './config/known-profiles.js';
import { visibleWord } from './words.js';
import { EXAMPLES, helpAfter, nonEmpty, secondsOption, type CommandSpec, type Runner } from './commands/spec.js';
import { fullName, PayctlCommand } from './commands/help.js';
import { TREE } from './commands/tree.js';

export type { Action, Runner } from './commands/spec.js';

/** The longest --timeout: a day (Node's timers cannot hold more than 24.8 days; beyond, they fire at once). */
const MAX_TIMEOUT_S = 86_400;

/** --timeout: at least 0.1 s (a smaller value would round to no time limit at all), at most a day. */
const timeoutOption = secondsOption('--timeout', { min: 0.1, max: MAX_TIMEOUT_S, maxLabel: 'a day' });

/**
 * `-yv` as `-y -v`: commander gives a group of short flags to the subcommand, which does
 * not know the global ones (`-vy` worked, `-yv` did not). Groups made only of flags that
 * take no value are split; anything after `--` is left alone.
 */
export function splitShortFlags(program: Command, args: readonly string[]): string[] {
  const bare = new Set<string>();
  for (const c of [program, ...allCommands(program)]) {
    for (const o of c.options) if (o.short && !o.required && !o.optional) bare.add(o.short.slice(1));
  }
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return [...out, ...args.slice(i)];
    if (/^-[A-Za-z]{2,}$/.test(a) && [...a.slice(1)].every((ch) => bare.has(ch))) out.push(...[...a.slice(1)].map((ch) => `-${ch}`));
    else out.push(a);
  }
  return out;
}

/** The version the build wrote in (scripts/build.mjs, esbuild's define); undefined when run from the sources (tests). */
declare const __PAYCTL_VERSION__: string | undefined;

/** package.json's version: written into the bundle by the build, read from the file only when run from the sources. */
export function version(): string {
  if (typeof __PAYCTL_VERSION__ === 'string') return __PAYCTL_VERSION__;
  const require = createRequire(import.meta.url);
  return (require('../package.json') as { version: string }).version;
}

/** The program's options that take no value, and those that take one (as `--profile x` or `--profile=x`). */
const ROOT_FLAGS = new Set(['--json', '--no-input', '--no-color', '-v', '--verbose']);
const ROOT_VALUES = new Set(['-p', '--profile', '--base-url', '--timeout']);

/**
 * How much of the tree the words typed after `payctl` can reach, so that a run builds only
 * that (building every command, option and verb is most of --help's own time):
 * - `only`: the words name a top-level command that is no group (`balances`, `history`),
 *   after nothing but the program's own options: that command is the only one commander
 *   can dispatch to, and no group's suggestions can be asked for;
 * - `shallow`: the program's help and nothing else (`payctl --help`): every top-level
 *   command with its options and arguments (its line in the list), without the verbs of
 *   the groups, which that help does not show.
 * Anything else (a group, `help`, an unknown word or option, a group of short flags, which
 * splitShortFlags reads against the whole tree) builds the whole tree, as does no argv.
 */
export function reachOf(argv: readonly string[] | undefined): { only?: string; shallow?: boolean } {
  if (argv === undefined) return {};
  const end = argv.indexOf('--');
  if ((end < 0 ? argv : argv.slice(0, end)).some((a) => /^-[A-Za-z]{2,}$/.test(a))) return {};
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (ROOT_FLAGS.has(word) || [...ROOT_VALUES].some((f) => f.startsWith('--') && word.startsWith(`${f}=`))) continue;
    if (ROOT_VALUES.has(word)) {
      i++;
      continue;
    }
    if (word === '-h' || word === '--help') {
      help = true;
      continue;
    }
    const spec = TREE.find((s) => s.name === word);
    return !help && spec !== undefined && 'load' in spec ? { only: word } : {};
  }
  return help ? { shallow: true } : {};
}

/** The command tree; with `argv`, only the part those words can reach (reachOf). */
export function buildProgram(run: Runner, argv?: readonly string[]): Command {
  const reach = reachOf(argv);
  const program = new PayctlCommand('payctl')
    .asGroup()
    .description('Send payouts and check wallet balances from the terminal.')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('-p, --profile <name>', 'profile to use (default: $PAYCTL_PROFILE, else "default")', nonEmpty('--profile'))
    .option('--base-url <url>', 'base URL for this call, ending in /v2 (overrides the profile)', nonEmpty('--base-url'))
    .option('--json', 'machine output on stdout; no colour, prompts or spinners')
    .option('--no-input', 'never prompt; missing input is a usage error')
    .option('--no-color', 'plain text (NO_COLOR and FORCE_COLOR are honoured too)')
    .option('-v, --verbose', 'log each request and response on stderr (secrets shown as ***)')
    .option('--timeout <seconds>', 'per-request time limit in seconds', timeoutOption, DEFAULT_TIMEOUT_S)
    // Usage errors end with "(run `payctl <command> --help` for usage)" (commands/help.ts).
    .showSuggestionAfterError(true)
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true })
    .addHelpText('after', EXAMPLES(['payctl sandbox start --detach', 'payctl balances --profile sandbox', 'payctl payouts list --status Pending --json']));

  // `--version --json`: the version as a JSON document (bin/payctl.js answers a bare --version itself).
  // (commander's Command is an EventEmitter; its typings say only `on`.)
  (program as unknown as EventEmitter).removeAllListeners('option:version');
  program.on('option:version', () => {
    const v = version();
    program.configureOutput().writeOut?.(program.jsonTyped() ? `${JSON.stringify({ version: v })}\n` : `${v}\n`);
    throw new CommanderError(0, 'commander.version', v);
  });

  for (const spec of TREE) {
    if (reach.only !== undefined && spec.name !== reach.only) continue;
    // A group has verbs and no run of its own; a command may have both (history).
    if (!('load' in spec)) {
      const group = program.command(spec.name).asGroup().description(spec.summary);
      const after = helpAfter(spec);
      if (after !== undefined) group.addHelpText('after', after);
      if (!reach.shallow) for (const verb of spec.commands) addSpec(group, verb, run);
    } else addSpec(program, spec, run, reach.shallow);
  }
  return program;
}

/** One verb under its parent: its arguments, options and help, and an action that runs its module (`shallow`: without its verbs). */
function addSpec(parent: Command, spec: CommandSpec, run: Runner, shallow = false): void {
  const cmd = parent.command(spec.name, spec.hidden && { hidden: true }).description(spec.summary);
  for (const a of spec.arguments ?? []) {
    if (a.choices) cmd.addArgument(new Argument(a.name, a.description).choices(a.choices));
    else if (a.unless) cmd.addArgument(new Argument(a.name, a.description).argOptional());
    else cmd.argument(a.name, a.description);
  }
  for (const o of spec.options ?? []) {
    const option = new Option(o.flags, o.description).default(o.default);
    if (o.repeatable) option.argParser((v: string, prev: string[]) => [...prev, v]);
    else if (o.parse) option.argParser(o.parse);
    cmd.addOption(option);
    // A repeatable option starts as an empty list, set as a default the help does not show ("(default: [])").
    if (o.repeatable) cmd.setOptionValueWithSource(option.attributeName(), [], 'default');
  }
  const after = helpAfter(spec);
  if (after !== undefined) cmd.addHelpText('after', after);
  // commander calls the action with the positional arguments first: the run gets them by name.
  cmd.action((...values: unknown[]) => {
    const args: Record<string, unknown> = {};
    cmd.registeredArguments.forEach((a, i) => (args[a.name()] = values[i]));
    // Required unless its option is given: missing as commander says it of any required argument.
    for (const a of spec.arguments ?? []) {
      const name = a.name.slice(1, -1);
      if (a.unless && args[name] === undefined && !cmd.getOptionValue(new Option(a.unless).attributeName())) {
        cmd.error(`error: missing required argument '${name}'`, { code: 'commander.missingArgument' });
      }
    }
    const problem = spec.check?.(cmd.opts());
    if (problem !== undefined) cmd.error(`error: ${problem}`, { code: 'payctl.invalidOptions', exitCode: 2 });
    if (spec.tree) args.tree = () => buildProgram(async () => {});
    // A usage error found by the command itself ends, like commander's own, by pointing at the
    // help of the command typed (README "Commands"), unless it says what to do already.
    return run(cmd, spec.load, args).catch((err: unknown) => {
      if (err instanceof UsageError && !(err instanceof RefusedError) && err.hint === undefined) err.hint = `(run \`${fullName(cmd)} --help\` for usage)`;
      throw err;
    });
  });
  // Its options are not the verbs': `history reconcile --status x` is refused, not ignored.
  // An option the verb declares too is the verb's: commander reads the parent's options
  // wherever they stand, so `payout batch status r.csv --concurrency 8` is handed to status.
  if (spec.commands?.length) {
    cmd.hook('preSubcommand', (self, sub) => {
      // Given on the command line (a default, such as batch's --concurrency 4, is not given).
      const given = self.options.filter((o) => {
        const source = self.getOptionValueSource(o.attributeName());
        return self.getOptionValue(o.attributeName()) !== undefined && source !== undefined && source !== 'default';
      });
      for (const o of [...given]) {
        const mine = sub.options.find((s) => s.long === o.long);
        if (!mine) continue;
        sub.setOptionValueWithSource(mine.attributeName(), self.getOptionValue(o.attributeName()), 'cli');
        given.splice(given.indexOf(o), 1);
      }
      if (given.length)
        self.error(`error: ${given[0]!.long} is an option of '${self.name()}', not of '${self.name()} ${sub.name()}'`, { code: 'commander.unknownOption' });
    });
  }
  for (const sub of shallow ? [] : (spec.commands ?? [])) {
    addSpec(cmd, sub, run);
    // Its help lists the program's options as global, not this command's own (refused there).
    const own = new Set(cmd.options);
    const child = cmd.commands.at(-1)!;
    child.configureHelp({
      ...child.configureHelp(),
      visibleGlobalOptions(this: Help, c: Command) {
        return Help.prototype.visibleGlobalOptions.call(this, c).filter((o) => !own.has(o));
      },
    });
  }
}

/** Global options from the command line and environment (flag > env > default). */
export function globalsFrom(cmd: Command, env: NodeJS.ProcessEnv): GlobalOptions {
  const o = cmd.optsWithGlobals<{
    profile?: string;
    baseUrl?: string;
    json?: boolean;
    input?: boolean;
    verbose?: boolean;
    timeout?: number;
  }>();
  const choice = profileChoice(o.profile, env);
  const profile = choice.value;
  // A profile name is a key of the config file and a word in printed commands: kept plain.
  const from = o.profile === undefined ? ' (from PAYCTL_PROFILE)' : '';
  if (RESERVED_PROFILE_NAMES.has(profile)) {
    throw new UsageError(`"${profile}" is a reserved name: no profile may have it${from}.`, [], `${PROFILE_NAME_RULE}: choose another, e.g. --profile staging.`);
  }
  if (!isProfileName(profile)) {
    // Written with visible escapes ("\u00fcn\u00ef"), never "?n?", which reads as typed question marks.
    throw new UsageError(`"${visibleWord(profile)}" is not a valid profile name${from}.`, [], `${PROFILE_NAME_RULE}, e.g. --profile staging.`);
  }
  return {
    profile,
    profileChosen: choice.source !== 'default',
    baseUrl: o.baseUrl,
    json: o.json === true,
    noInput: o.input === false,
    verbose: o.verbose === true,
    timeoutMs: Math.round((o.timeout ?? DEFAULT_TIMEOUT_S) * 1000),
  };
}

/** Every command of the tree, nested ones included. */
export function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}
