/**
 * What payctl says to a person who asks for help or types a command it does not have
 * (program.ts builds the tree from PayctlCommand):
 * - `payctl help <command> [<sub>]` shows that command's own help, the same text as
 *   `payctl <command> [<sub>] --help`; an unknown command there is a usage error (exit 2);
 * - an unknown command gets suggestions from the whole tree, across the noun forms and the
 *   words people type for them (`payout list` -> `payouts list`, `wallets` -> `balances`);
 * - every usage error ends by pointing at the help of the command that was typed
 *   ("(run `payctl payouts list --help` for usage)"), even when the problem is with a
 *   global option given after it.
 */
import { Command, type ErrorOptions, type ParseOptions } from 'commander';

/** Words people type for a command that has another name here. */
const SYNONYMS: Readonly<Record<string, string>> = { ls: 'list', show: 'get', wallet: 'balances', wallets: 'balances' };

/** Suggestions at most this many edits away (as commander's own, for options). */
const MAX_DISTANCE = 3;

export class PayctlCommand extends Command {
  /** Only verbs below it and no run of its own (the program, `payout`, `config`): see asGroup. */
  group = false;
  /** The words typed after `payctl`, kept by the program while it parses them. */
  private typed: readonly string[] = [];

  override createCommand(name?: string): PayctlCommand {
    return new PayctlCommand(name);
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

  override async parseAsync(argv?: readonly string[], options?: ParseOptions): Promise<this> {
    this.start(argv, options);
    return super.parseAsync(argv, options);
  }

  override parse(argv?: readonly string[], options?: ParseOptions): this {
    this.start(argv, options);
    return super.parse(argv, options);
  }

  /** Every usage error ends with the help of the command that was typed. */
  override error(message: string, errorOptions?: ErrorOptions): never {
    this.showHelpAfterError(`(run \`${fullName(this.typedCommand())} --help\` for usage)`);
    return super.error(message, errorOptions);
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

  /** The deepest command the words name, when it is this one or below it; else this one. */
  private typedCommand(): Command {
    const root = programOf(this);
    const typed = root instanceof PayctlCommand ? walk(root, root.typed).cmd : this;
    for (let c: Command | null = typed; c; c = c.parent) if (c === this) return typed;
    return this;
  }
}

/** The program a command belongs to. */
function programOf(cmd: Command): Command {
  return cmd.parent ? programOf(cmd.parent) : cmd;
}

/** `payctl payouts list`: the command as a person types it. */
function fullName(cmd: Command): string {
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

/** The command the words name, as commander reads them: options (and their values) skipped. */
function walk(program: Command, words: readonly string[]): Named {
  let cmd = program;
  let help = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') break;
    if (word.startsWith('-') && word !== '-') {
      if (!word.includes('=') && takesValue(cmd, word)) i++;
      continue;
    }
    if (word === 'help' && cmd instanceof PayctlCommand && cmd.group) {
      help = true;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) return { cmd, help, unknown: word };
    cmd = sub;
  }
  return { cmd, help };
}

/** Whether `flag` is an option of `cmd` or of a command above it that takes a value. */
function takesValue(cmd: Command, flag: string): boolean {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag || x.short === flag);
    if (o) return o.required || o.optional;
  }
  return false;
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
 * edits away from one (only the closest are kept, as commander does for options).
 */
export function suggestions(cmd: Command, word: string): string[] {
  const root = programOf(cmd);
  const typed = [...pathOf(cmd), SYNONYMS[word] ?? word];
  const last = typed.at(-1)!;
  const candidates = visible(root)
    .map(pathOf)
    .filter((p) => p.length === typed.length && p.slice(0, -1).every((w, i) => sameNoun(w, typed[i]!)));
  const line = (p: string[]) => p.join(' ');
  const same = candidates.filter((p) => sameNoun(p.at(-1)!, last));
  if (same.length) return same.map(line);
  const prefixed = candidates.filter((p) => last.length >= 2 && p.at(-1)!.startsWith(last));
  let best = MAX_DISTANCE;
  let close: string[][] = [];
  for (const p of candidates) {
    if (prefixed.includes(p)) continue;
    const name = p.at(-1)!;
    const d = editDistance(last, name);
    const length = Math.max(last.length, name.length);
    if ((length - d) / length <= 0.4 || d > best) continue;
    if (d < best) close = [];
    best = d;
    close.push(p);
  }
  return [...prefixed, ...close].map(line);
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

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits), as commander's. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > MAX_DISTANCE) return Math.max(a.length, b.length);
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d[i] = [i];
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let j = 1; j <= b.length; j++) {
    for (let i = 1; i <= a.length; i++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
