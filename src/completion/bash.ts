/**
 * The bash script: one function registered with `complete -F`, for plain bash 4 or later
 * (the bash-completion package is not needed). The command tree is written as `case`
 * tables; `_payctl` walks the words before the cursor through them.
 */
import { flagsOf, walk, type CompletionModel, type ValueSource } from './model.js';

/** bash single quotes. */
function q(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A value source as the script's tables hold it: "any", "files", "profiles" or "words w1 w2". */
function spec(v: ValueSource): string {
  return v.kind === 'words' ? `words ${v.words.join(' ')}` : v.kind;
}

export function renderBash(model: CompletionModel): string {
  const fn = `_${model.program}`;
  const commands = walk(model.root);
  const key = (path: string[]) => path.join(' ');

  const subcommandCases = commands.filter((c) => c.commands.length).map((c) => `    ${q(key(c.path))}) REPLY=${q(c.commands.flatMap((s) => s.names).join(' '))} ;;`);

  const optionCases = commands.filter((c) => c.options.length).map((c) => `    ${q(key(c.path))}) REPLY=${q(c.options.flatMap(flagsOf).join(' '))} ;;`);
  const globalFlags = model.globals.flatMap(flagsOf).join(' ');

  const valueCases: string[] = [];
  for (const c of commands) {
    for (const o of c.options) {
      if (!o.value) continue;
      const pats = flagsOf(o).map((f) => q(`${key(c.path)}:${f}`));
      valueCases.push(`    ${pats.join('|')}) REPLY=${q(spec(o.value))} ;;`);
    }
  }
  for (const o of model.globals) {
    if (!o.value) continue;
    const pats = flagsOf(o).map((f) => `*${q(`:${f}`)}`);
    valueCases.push(`    ${pats.join('|')}) REPLY=${q(spec(o.value))} ;;`);
  }

  const argumentCases: string[] = [];
  for (const c of commands) {
    c.arguments.forEach((a, i) => {
      const pat = a.variadic ? `${q(`${key(c.path)}:`)}*` : q(`${key(c.path)}:${i}`);
      argumentCases.push(`    ${pat}) REPLY=${q(spec(a.value))} ;;`);
    });
  }

  return `# bash completion for ${model.program}
# Generated from ${model.program}'s command tree by \`${model.program} completion bash\`; do not edit.
# Plain bash 4 or later; the bash-completion package is not needed. Install: source this
# file from ~/.bashrc, or copy it to ~/.local/share/bash-completion/completions/${model.program}.

# Subcommands of a command path ("" is ${model.program} itself).
${fn}_commands() {
  case $1 in
${subcommandCases.join('\n')}
    *) REPLY='' ;;
  esac
}

# Options offered at a command path: its own, then the global ones it does not redefine.
${fn}_options() {
  local flag own
  case $1 in
${optionCases.join('\n')}
    *) REPLY='' ;;
  esac
  own=" $REPLY "
  for flag in ${globalFlags}; do
    [[ $own == *" $flag "* ]] || REPLY+=" $flag"
  done
}

# How the value of option $2 at command path $1 is completed: any, files, profiles or
# "words ..."; empty when the option takes no value.
${fn}_option_value() {
  case "$1:$2" in
${valueCases.join('\n')}
    *) REPLY='' ;;
  esac
}

# How operand $2 (from 0) at command path $1 is completed; empty when there is none.
${fn}_argument() {
  case "$1:$2" in
${argumentCases.join('\n')}
    *) REPLY='' ;;
  esac
}

# Adds to COMPREPLY the values of kind $1 that start with $2, each prefixed with $3.
${fn}_values() {
  local word
  case \${1%% *} in
    words)
      for word in \${1#words}; do
        [[ $word == "$2"* ]] && COMPREPLY+=("$3$word")
      done
      ;;
    profiles)
      while IFS= read -r word; do
        [[ -n $word && $word == "$2"* ]] && COMPREPLY+=("$3$word")
      done < <(command ${model.program} __complete-profiles 2>/dev/null)
      ;;
    files)
      compopt -o filenames 2>/dev/null
      while IFS= read -r word; do
        COMPREPLY+=("$3$word")
      done < <(compgen -f -- "$2")
      ;;
  esac
}

${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmdpath='' word pending='' ddash='' subs='' REPLY=''
  local -i i npos=0
  COMPREPLY=()
  # Walk the words before the cursor: enter subcommands, skip option values, count operands.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    if [[ -n $pending ]]; then
      # bash splits --opt=value into three words at "=" (COMP_WORDBREAKS)
      [[ $word == = ]] || pending=''
    elif [[ -n $ddash ]]; then
      npos+=1
    elif [[ $word == -- ]]; then
      ddash=1
    elif [[ $word == -?* ]]; then
      if [[ $word != --*=* ]]; then
        ${fn}_option_value "$cmdpath" "$word"
        pending=$REPLY
      fi
    elif ((npos == 0)) && ${fn}_commands "$cmdpath" && [[ " $REPLY " == *" $word "* ]]; then
      cmdpath=\${cmdpath:+$cmdpath }$word
    else
      npos+=1
    fi
  done

  if [[ -n $pending ]]; then
    [[ $cur == = ]] && cur=''
    ${fn}_values "$pending" "$cur" ''
  elif [[ -z $ddash && $cur == --*=* ]]; then
    ${fn}_option_value "$cmdpath" "\${cur%%=*}"
    [[ -n $REPLY ]] && ${fn}_values "$REPLY" "\${cur#*=}" "\${cur%%=*}="
  elif [[ -z $ddash && $cur == -* ]]; then
    ${fn}_options "$cmdpath"
    ${fn}_values "words $REPLY" "$cur" ''
  else
    if ((npos == 0)); then
      ${fn}_commands "$cmdpath"
      subs=$REPLY
    fi
    # A command that runs and has verbs (payout batch, payout batch status) offers both.
    [[ -n $subs ]] && ${fn}_values "words $subs" "$cur" ''
    REPLY=''
    ${fn}_argument "$cmdpath" "$npos"
    [[ -n $REPLY ]] && ${fn}_values "$REPLY" "$cur" ''
  fi
  return 0
}

complete -F ${fn} ${model.program}
`;
}
