/**
 * The fish script: `complete -c payctl` lines, each guarded by `__payctl_at PATH [N]`,
 * which is true when the words before the cursor lead to that command path (after N
 * operands). The path is computed by `__payctl_state` from the same tree: it enters
 * subcommands and skips the values of options that take one.
 */
import { flagsOf, walk, type CompletionModel, type OptionSpec, type ValueSource } from './model.js';

/** fish single quotes (backslash escapes only \\ and \'). */
function q(s: string): string {
  return `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

export function renderFish(model: CompletionModel): string {
  const p = model.program;
  const commands = walk(model.root);
  const pathOf = (path: string[]) => [p, ...path].join(' ');
  // Command names are plain words (model.ts checks), so double quotes hold the condition.
  const at = (path: string[], operands?: number) => `-n "__${p}_at ${q(pathOf(path))}${operands === undefined ? '' : ` ${operands}`}"`;

  const subcommandCases = commands
    .filter((c) => c.commands.length)
    .flatMap((c) => [`        case ${q(pathOf(c.path))}`, `            echo ${c.commands.flatMap((s) => s.names).join(' ')}`]);

  // One `case` per command, then the global options at any path.
  const valuedCases = commands
    .map((c) => c.options.filter((o) => o.value).flatMap((o) => flagsOf(o).map((f) => q(`${pathOf(c.path)}:${f}`))))
    .concat([model.globals.filter((o) => o.value).flatMap((o) => flagsOf(o).map((f) => q(`*:${f}`)))])
    .filter((pats) => pats.length)
    .flatMap((pats) => [`        case ${pats.join(' ')}`, '            return 0']);

  /** `-a`, `-F` or nothing, with -r/-x, for an option's value or an operand. */
  const values = (v: ValueSource | undefined, option: boolean): string => {
    const r = option ? '-r ' : '';
    if (!v) return '';
    switch (v.kind) {
      case 'words':
        return ` ${option ? '-x' : '-f'} -a ${q(v.words.join(' '))}`;
      case 'profiles':
        return ` ${option ? '-x' : '-f'} -a ${q(`(__${p}_profiles)`)}`;
      case 'files':
        return ` ${r}-F`;
      case 'any':
        return option ? ' -x' : ' -f';
    }
  };
  const optionLine = (o: OptionSpec, cond: string) => {
    const flags = [o.short ? `-s ${o.short.slice(1)}` : '', o.long ? `-l ${o.long.slice(2)}` : ''].filter(Boolean).join(' ');
    return `complete -c ${p}${cond} ${flags}${values(o.value, true)} -d ${q(o.description)}`;
  };

  const lines: string[] = [];
  lines.push('# Options accepted everywhere (except where a command has its own with that name)');
  for (const o of model.globals) {
    const redefined = commands.filter((c) => c.options.some((own) => flagsOf(own).some((f) => flagsOf(o).includes(f))));
    const cond = redefined.map((c) => `not __${p}_at ${q(pathOf(c.path))}`).join('; and ');
    lines.push(optionLine(o, cond ? ` -n "${cond}"` : ''));
  }
  for (const c of commands) {
    lines.push('', `# ${pathOf(c.path)}`);
    for (const s of c.commands) {
      for (const n of s.names) lines.push(`complete -c ${p} ${at(c.path, 0)} -a ${n} -d ${q(s.description)}`);
    }
    c.arguments.forEach((a, i) => {
      lines.push(`complete -c ${p} ${at(c.path, a.variadic ? undefined : i)}${values(a.value, false)} -d ${q(a.description)}`);
    });
    for (const o of c.options) lines.push(optionLine(o, ` ${at(c.path)}`));
  }

  return `# fish completion for ${p}
# Generated from ${p}'s command tree by \`${p} completion fish\`; do not edit.
# Install: copy it to ~/.config/fish/completions/${p}.fish

# Subcommands of a command path ("${p}", "${p} payout", ...).
function __${p}_commands
    switch $argv[1]
${subcommandCases.join('\n')}
    end
end

# True when option $argv[2] at command path $argv[1] takes a value.
function __${p}_takes_value
    switch "$argv[1]:$argv[2]"
${valuedCases.join('\n')}
    end
    return 1
end

# Prints the command path and the number of operands after it, from the words before
# the cursor (subcommands entered, option values skipped). Cached per command line.
function __${p}_state
    set -l line (commandline -pc | string collect)
    if set -q __${p}_state_line; and test "$__${p}_state_line" = "$line"
        printf '%s\\n' $__${p}_state_value
        return
    end
    set -l words (commandline -opc)
    set -e words[1]
    set -l cmdpath ${p}
    set -l npos 0
    set -l pending 0
    set -l ddash 0
    for word in $words
        if test $pending = 1
            set pending 0
        else if test $ddash = 1
            set npos (math $npos + 1)
        else if test "$word" = --
            set ddash 1
        else if string match -q -- '-?*' $word
            if not string match -q -- '--*=*' $word; and __${p}_takes_value "$cmdpath" $word
                set pending 1
            end
        else if test $npos = 0; and contains -- $word (string split ' ' -- (__${p}_commands "$cmdpath"))
            set cmdpath "$cmdpath $word"
        else
            set npos (math $npos + 1)
        end
    end
    set -g __${p}_state_line $line
    set -g __${p}_state_value $cmdpath $npos
    printf '%s\\n' $cmdpath $npos
end

# True at command path $argv[1] and, when $argv[2] is given, after that many operands.
function __${p}_at
    set -l state (__${p}_state)
    test "$state[1]" = "$argv[1]"; or return 1
    set -q argv[2]; and test "$state[2]" != "$argv[2]"; and return 1
    return 0
end

function __${p}_profiles
    command ${p} __complete-profiles 2>/dev/null
end

# No file names unless a completion below asks for them (-F).
complete -c ${p} -f

${lines.join('\n')}
`;
}
