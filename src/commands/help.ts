/**
 * What payctl says to a person who asks for help or types a command it does not have
 * (program.ts builds the tree from PayctlCommand):
 * - `payctl help <command> [<sub>]` shows that command's own help, the same text as
 *   `payctl <command> [<sub>] --help`; an unknown command there is a usage error (exit 2);
 * - an unknown command gets suggestions from the whole tree, across the noun forms and the
 *   words people type for them (`payout list` -> `payouts list`, `wallets` -> `balances`), and
 *   a verb typed without its group (`create` -> `payout create`, `ls` -> `payouts list`); a
 *   command that takes no arguments given a word close to one of its verbs (`history
 *   reconsile`) is refused as an unknown command with it, not as "too many arguments" (nor for
 *   an option of that verb given after it);
 * - every usage error ends by pointing at the help of the command that was typed
 *   ("(run `payctl payouts list --help` for usage)"), even when the problem is with a
 *   global option given after it, or with an option it does not know, whose value is not
 *   taken for the command (`--profle sandbox balances`: balances); a mistyped option gets
 *   the same suggestion typed with `=` (`--profle=sandbox`: --profile);
 * - help is text: under `--json` it is refused (exit 2), and so is a group typed without its
 *   command, whose USAGE_ERROR names its commands (without --json: its help on stderr, exit 0);
 * - help fits the terminal: commander wraps its own lists at the terminal's width (80 in a
 *   pipe), and the text added after them (a spec's help and examples) is wrapped at the same
 *   width, words whole (help-text.ts fitHelpText).
 */
import { Command, type AddHelpTextContext, type AddHelpTextPosition, type ErrorOptions, type Help, type HelpContext, type Option, type ParseOptions } from 'commander';
import { sanitizeInline } from '../output/sanitize.js';
import { fitHelpText } from './help-text.js';
import { closestWords, DASHES, ODD_SPACES, OPENING_QUOTES, CLOSING_QUOTES } from '../words.js';

/** Words people type for a command that has another name here. */
const SYNONYMS: Readonly<Record<string, string>> = { ls: 'list', show: 'get', wallet: 'balances', wallets: 'balances' };

/** The help's width off a terminal (commander's own default). */
const PIPE_HELP_WIDTH = 80;
/** Descriptions in commander's lists are wrapped when at least this much room is left for them (commander: 40). */
const MIN_WIDTH_TO_WRAP = 16;

export class PayctlCommand extends Command {
  /** Only verbs below it and no run of its own (the program, `payout`, `config`): see asGroup. */
  group = false;
  /** The words typed after `payctl`, kept by the program while it parses them. */
  private typed: readonly string[] = [];

  override createCommand(name?: string): PayctlCommand {
    return new PayctlCommand(name);
  }

  /** commander's help, its descriptions wrapped even beside long option names on a narrow terminal. */
  override createHelp(): Help {
    const help = super.createHelp();
    help.minWidthToWrap = MIN_WIDTH_TO_WRAP;
    return help;
  }

  /**
   * Text added to the help (a spec's help and examples, written once for any width) is
   * wrapped when it is shown, at the width commander wraps the rest of the help at: the
   * terminal's, else 80 (fitHelpText).
   */
  override addHelpText(position: AddHelpTextPosition, text: string | ((context: AddHelpTextContext) => string)): this {
    return super.addHelpText(position, (context) => {
      const s = typeof text === 'function' ? text(context) : text;
      return s && fitHelpText(s, this.helpWidth(context.error));
    });
  }

  /** The width help is wrapped at: as commander finds it (configureHelp, else the output's terminal), else 80. */
  helpWidth(error = false): number {
    const out = this.configureOutput();
    const width = this.configureHelp().helpWidth ?? (error ? out.getErrHelpWidth?.() : out.getOutHelpWidth?.());
    return width !== undefined && width > 0 ? width : PIPE_HELP_WIDTH;
  }

  /**
   * Marks a command that only groups verbs: it has commander's `help [command]`, and a
   * word below it that names no verb is refused with suggestions from the whole tree.
   */
  asGroup(): this {
    this.group = true;
    // commander's documented hook for an unknown command (it then checks nothing itself).
    this.on('command:*', (operands: string[]) => unknownCommand(this, operands[0]!));
    return this;
  }

  /** Whether `--json` was typed (before any `--`): help and versions are then refused or said as JSON. */
  jsonTyped(): boolean {
    const root = programOf(this);
    const typed = root instanceof PayctlCommand ? root.typed : [];
    const end = typed.indexOf('--');
    return (end < 0 ? typed : typed.slice(0, end)).includes('--json');
  }

  /**
   * Help is text for people: under `--json` it is refused (exit 2, a USAGE_ERROR document), as
   * a group typed without its command is (`payctl payout --json`), which printed nothing and
   * exited 0 (commander showed the help on stderr, which --json kept out). Without --json a
   * group alone shows its help on stderr, exit 0, as before.
   */
  override outputHelp(context?: HelpContext): void;
  override outputHelp(cb: (str: string) => string): void;
  override outputHelp(context?: HelpContext | ((str: string) => string)): void {
    if (this.jsonTyped()) {
      if (typeof context === 'object' && context.error) {
        const verbs = this.createHelp()
          .visibleCommands(this)
          .map((c) => c.name())
          .filter((n) => n !== 'help');
        this.error(`error: ${fullName(this)} needs a command.\nIts commands: ${verbs.join(', ')}.`, { code: 'payctl.missingCommand', exitCode: 2 });
      }
      this.error('error: --json cannot be used with help: help is text for people.\nLeave out --json to read it.', { code: 'payctl.jsonRefused', exitCode: 2 });
    }
    super.outputHelp(context as HelpContext);
  }

  override async parseAsync(argv?: readonly string[], options?: ParseOptions): Promise<this> {
    this.start(argv, options);
    return super.parseAsync(argv, options);
  }

  override parse(argv?: readonly string[], options?: ParseOptions): this {
    this.start(argv, options);
    return super.parse(argv, options);
  }

  /**
   * Every usage error ends with the help of the command that was typed. A word that is a word
   * of the command line only because a chat app or word processor changed it (`—wallet` for
   * `--wallet`, `‘Un Known’` in two words) is named, with what to type.
   */
  override error(message: string, errorOptions?: ErrorOptions): never {
    if (errorOptions?.code === 'commander.unknownOption') message = this.suggestedWithValue(message);
    if (errorOptions?.code === 'commander.excessArguments' || errorOptions?.code === 'commander.unknownOption') this.verbTyped();
    this.showHelpAfterError(`(run \`${fullName(this.typedCommand())} --help\` for usage)`);
    const root = programOf(this);
    const changed = root instanceof PayctlCommand ? changedWord(root.typed, message) : undefined;
    return super.error(changed ? `${message}\n${changed}` : message, errorOptions);
  }

  /**
   * An unknown `--flag=value` with no suggestion (commander compares the whole word, value and
   * all): the suggestion commander gives for `--flag` alone, as for the spaced form
   * (`--profle=sandbox`: "Did you mean --profile?"). The word is kept as typed (its value is
   * masked where it is printed: output/secrets.ts withoutOptionValues).
   */
  private suggestedWithValue(message: string): string {
    const m = /^error: unknown option '(--[^=\n]+)(=[^\n]*)'$/.exec(message);
    if (!m) return message;
    // commander's unknownOption (not in its typings) raises its error through error(): caught here.
    const said = new Error();
    const probe = Object.create(this) as { error(m: string): never; unknownOption(flag: string): void };
    probe.error = (m2: string): never => {
      said.message = m2;
      throw said;
    };
    try {
      probe.unknownOption(m[1]!);
    } catch (err) {
      if (err !== said) throw err;
    }
    const suggestion = /\n\(Did you mean [^\n]*\)$/.exec(said.message)?.[0];
    return suggestion ? `${message}${suggestion}` : message;
  }

  /**
   * Keeps the words (only `{ from: 'user' }` is read: payctl's entry parses that way) and
   * answers `help ...` itself: commander's help command looks at its first word only.
   */
  private start(argv: readonly string[] | undefined, options: ParseOptions | undefined): void {
    this.typed = options?.from === 'user' ? (argv ?? []) : [];
    const named = walk(this, this.typed);
    if (!named.help) return;
    if (named.unknown !== undefined) unknownCommand(named.cmd, named.unknown);
    named.cmd.help();
  }

  /**
   * Too many arguments, or an option it does not know, for a command that takes no arguments
   * and has verbs (`history reconsile`, `history reconcil --payout-id x`): when the first word
   * after it is close to one of its verbs, refused as an unknown command with that verb.
   */
  private verbTyped(): void {
    if (this.registeredArguments.length || !this.commands.length) return;
    const root = programOf(this);
    const named = root instanceof PayctlCommand ? walk(root, root.typed) : undefined;
    if (named?.cmd === this && named.unknown !== undefined && suggestions(this, named.unknown).length) unknownCommand(this, named.unknown);
  }

  /** The deepest command the words name, when it is this one or below it; else this one. */
  private typedCommand(): Command {
    const root = programOf(this);
    const typed = root instanceof PayctlCommand ? walk(root, root.typed).cmd : this;
    for (let c: Command | null = typed; c; c = c.parent) if (c === this) return typed;
    return this;
  }
}

/** A word that starts with dashes that are not the hyphen-minus a shell and commander read. */
const DASH = new RegExp(`^-?[${DASHES}][-${DASHES}]?[A-Za-z]`);
/** A word that opens with a curly quote, or closes with one: a straight quote changed; the shell kept it and split at its spaces. */
const OPENS = new RegExp(`^[${OPENING_QUOTES}]`);
const CLOSES = new RegExp(`[${CLOSING_QUOTES}]$`);

const ODD_SPACE = new RegExp(`[${ODD_SPACES}]`);
const ODD_SPACE_ALL = new RegExp(ODD_SPACE.source, 'g');

/**
 * What to say of the first word a chat app or word processor changed, if any. A word with an
 * odd space is named only when the error names it (`unknown command 'balances --json'`): a
 * name may hold a no-break space on purpose.
 */
function changedWord(words: readonly string[], message: string): string | undefined {
  for (const w of words) {
    const space = message.includes(w) ? ODD_SPACE.exec(w) : null;
    if (space) {
      const cp = `U+${space[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      return `"${sanitizeInline(w.replace(ODD_SPACE_ALL, ' '))}" is one word to the shell: it holds a no-break or typographic space (${cp}) where a space was meant (a chat app or word processor changed it): retype the spaces.`;
    }
    if (DASH.test(w)) {
      const typed = sanitizeInline(w.replace(/^[^A-Za-z]+/, ''));
      return `"${sanitizeInline(w)}" starts with a dash character, not hyphens (a chat app or word processor changed them): type ${typed.length === 1 ? '-' : '--'}${typed}.`;
    }
    // Quoted at one end only: the other end is in another word.
    if (OPENS.test(w) !== CLOSES.test(w))
      return `"${sanitizeInline(w)}" has curly quotes, which a shell does not treat as quotes (a chat app or word processor changed them): type straight quotes ' or ".`;
  }
  return undefined;
}

/** The program a command belongs to. */
function programOf(cmd: Command): Command {
  return cmd.parent ? programOf(cmd.parent) : cmd;
}

/** `payctl payouts list`: the command as a person types it. */
export function fullName(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

interface Named {
  /** The deepest command named. */
  cmd: Command;
  /** `help` was typed where a group takes it (`payctl help payout`, `payctl payout help create`). */
  help: boolean;
  /** The first word after `cmd` that names no command below it (an argument, or a typo). */
  unknown?: string;
}

/**
 * The command the words name, as commander reads them: options (and their values) skipped. An
 * option no command has may take a value too (`--profle sandbox balances`): the word after it is
 * taken for its value when the word after that names a command below, else for a command.
 */
function walk(program: Command, words: readonly string[]): Named {
  let cmd = program;
  let help = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') break;
    if (word.startsWith('-') && word !== '-') {
      if (word.includes('=')) continue;
      const o = optionOf(cmd, word);
      if (o ? o.required || o.optional : unknownValue(cmd, words[i + 1], words[i + 2])) i++;
      continue;
    }
    if (word === 'help' && cmd instanceof PayctlCommand && cmd.group) {
      help = true;
      continue;
    }
    const sub = subcommand(cmd, word);
    if (!sub) return { cmd, help, unknown: word };
    cmd = sub;
  }
  return { cmd, help };
}

/** Whether `value`, after an option no command has, is its value: a word, not `help`, followed by a command below `cmd`. */
function unknownValue(cmd: Command, value: string | undefined, next: string | undefined): boolean {
  return value !== undefined && !value.startsWith('-') && value !== 'help' && subcommand(cmd, next) !== undefined;
}

/** The command below `cmd` that `word` names (by name or alias), if any. */
function subcommand(cmd: Command, word: string | undefined): Command | undefined {
  return word === undefined ? undefined : cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/** The option `flag` of `cmd` or of a command above it, if any. */
function optionOf(cmd: Command, flag: string): Option | undefined {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag || x.short === flag);
    if (o) return o;
  }
  return undefined;
}

/** Refuses `word`, typed where a command below `cmd` was expected, with what it may have meant. */
export function unknownCommand(cmd: Command, word: string): never {
  const found = suggestions(cmd, word);
  const hint = found.length === 0 ? '' : `\n(Did you mean ${found.length === 1 ? found[0] : `one of ${found.join(', ')}`}?)`;
  return cmd.error(`error: unknown command '${word}'${hint}`, { code: 'commander.unknownCommand' });
}

/**
 * The commands (as typed after `payctl`) that `word`, typed below `cmd`, may have meant,
 * best first. The command's own words may be in either noun form (`payout`, `payouts`);
 * `word` may be a synonym (`ls`), another noun form or a prefix of a command, or a few
 * edits away from one (only the closest are kept, as commander does for options). When no
 * command beside where it was typed is such, the verbs further down (`create` typed without
 * its group: `payout create`, `plan create`, `keys create`).
 */
export function suggestions(cmd: Command, word: string): string[] {
  const parents = pathOf(cmd);
  const paths = visible(programOf(cmd))
    .map(pathOf)
    .filter((p) => p.length > parents.length && parents.every((w, i) => sameNoun(w, p[i]!)));
  const beside = namedBy(
    word,
    paths.filter((p) => p.length === parents.length + 1),
  );
  return (beside.length ? beside : namedBy(word, paths)).map((p) => p.join(' '));
}

/** The command paths whose last name `word` may have meant, by the rules of suggestions(). */
function namedBy(word: string, candidates: string[][]): string[][] {
  const last = SYNONYMS[word] ?? word;
  // The word itself first (`show`: plan show), then what it stands for (payout get).
  const same = [...new Set([word, last].flatMap((w) => candidates.filter((p) => sameNoun(p.at(-1)!, w))))];
  if (same.length) return same;
  const prefixed = candidates.filter((p) => last.length >= 2 && p.at(-1)!.startsWith(last));
  const close = closestWords(
    last,
    candidates.filter((p) => !prefixed.includes(p)),
    (p) => p.at(-1)!,
  );
  return [...prefixed, ...close];
}

/** `payout` and `payouts`, `balance` and `balances`: one noun. */
function sameNoun(a: string, b: string): boolean {
  return a === b || a.replace(/s$/, '') === b.replace(/s$/, '');
}

/** The names below the program: ['payouts', 'list']. */
function pathOf(cmd: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
}

/** Every command a person may be offered (not the hidden ones, not commander's `help`). */
function visible(cmd: Command): Command[] {
  return cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => cmd.commands.includes(c))
    .flatMap((c) => [c, ...visible(c)]);
}
