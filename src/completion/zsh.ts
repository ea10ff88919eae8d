/**
 * The zsh script: a `#compdef` file that works autoloaded from $fpath and when sourced
 * after compinit. The command tree is written as `case` tables (with descriptions, which
 * zsh shows); `_payctl` walks the words before the cursor and hands what is possible to
 * compsys (_describe, _wanted/compadd, _files, _message).
 */
import { flagsOf, walk, type CompletionModel, type ValueSource } from './model.js';

/** zsh single quotes. */
function q(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** An item for _describe: `name:description`, colons in the name escaped. */
function item(name: string, description: string): string {
  return q(`${name.replace(/:/g, '\\:')}:${description}`);
}

/** A value source as the tables hold it: `kind label [words...]`. */
function spec(v: ValueSource, label: string): string {
  const words = v.kind === 'words' ? ` ${v.words.join(' ')}` : '';
  return q(`${v.kind} ${label.replace(/\s+/g, '-')}${words}`);
}

function array(items: string[], indent: string): string {
  if (!items.length) return '()';
  return `(\n${items.map((i) => `${indent}  ${i}`).join('\n')}\n${indent})`;
}

export function renderZsh(model: CompletionModel): string {
  const fn = `_${model.program}`;
  const commands = walk(model.root);
  const key = (path: string[]) => path.join(' ');

  const subcommandCases = commands
    .filter((c) => c.commands.length)
    .map((c) => {
      const items = c.commands.flatMap((s) => s.names.map((n) => item(n, s.description)));
      return `    (${q(key(c.path))}) reply=${array(items, '    ')} ;;`;
    });

  const optionCases = commands
    .filter((c) => c.options.length)
    .map((c) => {
      const items = c.options.flatMap((o) => flagsOf(o).map((f) => item(f, o.description)));
      return `    (${q(key(c.path))}) reply=${array(items, '    ')} ;;`;
    });
  const globalItems = model.globals.flatMap((o) => flagsOf(o).map((f) => item(f, o.description)));

  const valueCases: string[] = [];
  for (const c of commands) {
    for (const o of c.options) {
      if (!o.value) continue;
      const pats = flagsOf(o).map((f) => q(`${key(c.path)}:${f}`));
      valueCases.push(`    (${pats.join('|')}) REPLY=${spec(o.value, o.valueName ?? 'value')} ;;`);
    }
  }
  for (const o of model.globals) {
    if (!o.value) continue;
    const pats = flagsOf(o).map((f) => `*${q(`:${f}`)}`);
    valueCases.push(`    (${pats.join('|')}) REPLY=${spec(o.value, o.valueName ?? 'value')} ;;`);
  }

  const argumentCases: string[] = [];
  for (const c of commands) {
    c.arguments.forEach((a, i) => {
      const pat = a.variadic ? `${q(`${key(c.path)}:`)}*` : q(`${key(c.path)}:${i}`);
      argumentCases.push(`    (${pat}) REPLY=${spec(a.value, a.name)} ;;`);
    });
  }

  return `#compdef ${model.program}
# zsh completion for ${model.program}
# Generated from ${model.program}'s command tree by \`${model.program} completion zsh\`; do not edit.
# Install: save it as _${model.program} in a folder of $fpath before compinit runs, or
# source it after compinit.

# Subcommands of a command path ("" is ${model.program} itself), as name:description.
${fn}_commands() {
  case $1 in
${subcommandCases.join('\n')}
    (*) reply=() ;;
  esac
}

# Options offered at a command path: its own, then the global ones it does not redefine.
${fn}_options() {
  local item
  local -a globals=${array(globalItems, '  ')}
  case $1 in
${optionCases.join('\n')}
    (*) reply=() ;;
  esac
  for item in "\${globals[@]}"; do
    (( \${reply[(I)\${(b)item%%:*}:*]} )) || reply+=("$item")
  done
}

# How the value of option $2 at command path $1 is completed: "kind label [words]" with
# kind any, files, profiles or words; empty when the option takes no value.
${fn}_option_value() {
  case "$1:$2" in
${valueCases.join('\n')}
    (*) REPLY='' ;;
  esac
}

# How operand $2 (from 0) at command path $1 is completed; empty when there is none.
${fn}_argument() {
  case "$1:$2" in
${argumentCases.join('\n')}
    (*) REPLY='' ;;
  esac
}

# Offers the values of a "kind label [words]" description.
${fn}_values() {
  local kind=$1 label=$2 expl
  shift 2
  local -a values
  case $kind in
    (words)
      values=("$@")
      _wanted values expl "$label" compadd -a values
      ;;
    (profiles)
      values=(\${(f)"$(command ${model.program} __complete-profiles 2>/dev/null)"})
      _wanted profiles expl 'profile' compadd -a values
      ;;
    (files) _files ;;
    (*) _message "$label" ;;
  esac
}

${fn}() {
  local cmdpath='' word pending='' ddash='' REPLY=''
  local -a reply subs
  integer i npos=0
  # Walk the words before the cursor: enter subcommands, skip option values, count operands.
  for (( i = 2; i < CURRENT; i++ )); do
    word=\${(Q)words[i]}
    if [[ -n $pending ]]; then
      pending=''
    elif [[ -n $ddash ]]; then
      (( npos++ ))
    elif [[ $word == -- ]]; then
      ddash=1
    elif [[ $word == -?* ]]; then
      if [[ $word != --*=* ]]; then
        ${fn}_option_value "$cmdpath" "$word"
        pending=$REPLY
      fi
    elif (( npos == 0 )) && ${fn}_commands "$cmdpath" && (( \${reply[(I)\${(b)word}:*]} )); then
      cmdpath=\${cmdpath:+$cmdpath }$word
    else
      (( npos++ ))
    fi
  done

  if [[ -z $pending && -z $ddash && $PREFIX == --*=* ]]; then
    ${fn}_option_value "$cmdpath" "\${PREFIX%%=*}"
    if [[ -n $REPLY ]]; then
      pending=$REPLY
      compset -P '*='
    fi
  fi
  if [[ -n $pending ]]; then
    ${fn}_values \${=pending}
  elif [[ -z $ddash && $PREFIX == -* ]]; then
    ${fn}_options "$cmdpath"
    _describe -t options 'option' reply
  else
    if (( npos == 0 )); then
      ${fn}_commands "$cmdpath"
      subs=("\${reply[@]}")
    fi
    # A command that runs and has verbs (payout batch, payout batch status) offers both.
    (( $#subs )) && _describe -t commands '${model.program} command' subs
    REPLY=''
    ${fn}_argument "$cmdpath" "$npos"
    [[ -n $REPLY ]] && ${fn}_values \${=REPLY}
  fi
}

# Autoloaded from $fpath, this file is the body of ${fn}: run it. Sourced or eval'd
# (after compinit): register it.
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${model.program}
fi
`;
}
