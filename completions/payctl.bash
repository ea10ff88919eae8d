# bash completion for payctl
# Generated from payctl's command tree by `payctl completion bash`; do not edit.
# Plain bash 4 or later; the bash-completion package is not needed. Install: source this
# file from ~/.bashrc, or copy it to ~/.local/share/bash-completion/completions/payctl.

# Subcommands of a command path ("" is payctl itself).
_payctl_commands() {
  case $1 in
    '') REPLY='login logout status balances payout payouts history ledger plan keys policy summary webhooks config completion sandbox help' ;;
    'payout') REPLY='create batch get help' ;;
    'payout batch') REPLY='status' ;;
    'payouts') REPLY='list help' ;;
    'history') REPLY='reconcile' ;;
    'ledger') REPLY='status import verify help' ;;
    'plan') REPLY='create show approve merge send help' ;;
    'keys') REPLY='create show help' ;;
    'policy') REPLY='check propose approve show help' ;;
    'webhooks') REPLY='listen help' ;;
    'config') REPLY='list get set unset path help' ;;
    'sandbox') REPLY='start stop status help' ;;
    *) REPLY='' ;;
  esac
}

# Options offered at a command path: its own, then the global ones it does not redefine.
_payctl_options() {
  local flag own
  case $1 in
    '') REPLY='-V --version -h --help' ;;
    'login') REPLY='--api-key-stdin --insecure-storage -h --help' ;;
    'logout') REPLY='-h --help' ;;
    'status') REPLY='-h --help' ;;
    'balances') REPLY='--currency --wallet --csv -h --help' ;;
    'payout') REPLY='-h --help' ;;
    'payout create') REPLY='--wallet --amount --currency --type --name --provider --account --phone --note --metadata --payout-id --idempotency-key -y --yes --dry-run --plan-out --allow-repeat --acknowledge-missing --wait --wait-timeout -h --help' ;;
    'payout batch') REPLY='--batch-id --concurrency --report --dry-run --allow-duplicates --acknowledge-missing -y --yes --template -h --help' ;;
    'payout batch status') REPLY='--concurrency --wait --wait-timeout --failed-out -h --help' ;;
    'payout get') REPLY='--wait --wait-timeout -h --help' ;;
    'payouts') REPLY='-h --help' ;;
    'payouts list') REPLY='--status --wallet --currency --from --to --limit --page --all --csv -h --help' ;;
    'history') REPLY='--since --until --status --batch-id --csv -h --help' ;;
    'history reconcile') REPLY='--payout-id --made-by --resend -y --yes -h --help' ;;
    'ledger') REPLY='-h --help' ;;
    'ledger status') REPLY='-h --help' ;;
    'ledger import') REPLY='-h --help' ;;
    'ledger verify') REPLY='-h --help' ;;
    'plan') REPLY='-h --help' ;;
    'plan create') REPLY='--batch-id -o --out -h --help' ;;
    'plan show') REPLY='-h --help' ;;
    'plan approve') REPLY='-y --yes -h --help' ;;
    'plan merge') REPLY='-h --help' ;;
    'plan send') REPLY='--concurrency --report -y --yes --acknowledge-missing -h --help' ;;
    'keys') REPLY='-h --help' ;;
    'keys create') REPLY='--name -h --help' ;;
    'keys show') REPLY='-h --help' ;;
    'policy') REPLY='-h --help' ;;
    'policy check') REPLY='--batch-id -h --help' ;;
    'policy propose') REPLY='-h --help' ;;
    'policy approve') REPLY='-h --help' ;;
    'policy show') REPLY='-h --help' ;;
    'summary') REPLY='--from --to --wallet --currency --csv -h --help' ;;
    'webhooks') REPLY='-h --help' ;;
    'webhooks listen') REPLY='--port --host --path --secret-stdin --secret --signature-header --tolerance --forward-to -h --help' ;;
    'config') REPLY='-h --help' ;;
    'config list') REPLY='-h --help' ;;
    'config get') REPLY='-h --help' ;;
    'config set') REPLY='--stdin -h --help' ;;
    'config unset') REPLY='-h --help' ;;
    'config path') REPLY='-h --help' ;;
    'completion') REPLY='-h --help' ;;
    'sandbox') REPLY='-h --help' ;;
    'sandbox start') REPLY='--port --detach --api-key --seed --state --settle-after --webhook-url --webhook-secret --rate-limit --list-shape --error-shape --kyc-status -h --help' ;;
    'sandbox stop') REPLY='-h --help' ;;
    'sandbox status') REPLY='-h --help' ;;
    *) REPLY='' ;;
  esac
  own=" $REPLY "
  for flag in -p --profile --base-url --json --no-input --no-color -v --verbose --timeout; do
    [[ $own == *" $flag "* ]] || REPLY+=" $flag"
  done
}

# How the value of option $2 at command path $1 is completed: any, files, profiles or
# "words ..."; empty when the option takes no value.
_payctl_option_value() {
  case "$1:$2" in
    'balances:--currency') REPLY='any' ;;
    'balances:--wallet') REPLY='any' ;;
    'payout create:--wallet') REPLY='any' ;;
    'payout create:--amount') REPLY='any' ;;
    'payout create:--currency') REPLY='any' ;;
    'payout create:--type') REPLY='words bank wallet' ;;
    'payout create:--name') REPLY='any' ;;
    'payout create:--provider') REPLY='words afrimoney orange_money qmoney opay palmpay ecobank skybank uba rokel_commercial_bank access_bank gtbank zenith_bank' ;;
    'payout create:--account') REPLY='any' ;;
    'payout create:--phone') REPLY='any' ;;
    'payout create:--note') REPLY='any' ;;
    'payout create:--metadata') REPLY='any' ;;
    'payout create:--payout-id') REPLY='any' ;;
    'payout create:--idempotency-key') REPLY='any' ;;
    'payout create:--plan-out') REPLY='files' ;;
    'payout create:--wait-timeout') REPLY='any' ;;
    'payout batch:--batch-id') REPLY='any' ;;
    'payout batch:--concurrency') REPLY='any' ;;
    'payout batch:--report') REPLY='files' ;;
    'payout batch status:--concurrency') REPLY='any' ;;
    'payout batch status:--wait-timeout') REPLY='any' ;;
    'payout batch status:--failed-out') REPLY='files' ;;
    'payout get:--wait-timeout') REPLY='any' ;;
    'payouts list:--status') REPLY='words Pending Successful Failed' ;;
    'payouts list:--wallet') REPLY='any' ;;
    'payouts list:--currency') REPLY='any' ;;
    'payouts list:--from') REPLY='any' ;;
    'payouts list:--to') REPLY='any' ;;
    'payouts list:--limit') REPLY='any' ;;
    'payouts list:--page') REPLY='any' ;;
    'history:--since') REPLY='any' ;;
    'history:--until') REPLY='any' ;;
    'history:--status') REPLY='words accepted rejected unknown not-made' ;;
    'history:--batch-id') REPLY='any' ;;
    'history reconcile:--payout-id') REPLY='any' ;;
    'history reconcile:--made-by') REPLY='any' ;;
    'plan create:--batch-id') REPLY='any' ;;
    'plan create:-o'|'plan create:--out') REPLY='files' ;;
    'plan send:--concurrency') REPLY='any' ;;
    'plan send:--report') REPLY='files' ;;
    'keys create:--name') REPLY='any' ;;
    'policy check:--batch-id') REPLY='any' ;;
    'summary:--from') REPLY='any' ;;
    'summary:--to') REPLY='any' ;;
    'summary:--wallet') REPLY='any' ;;
    'summary:--currency') REPLY='any' ;;
    'webhooks listen:--port') REPLY='any' ;;
    'webhooks listen:--host') REPLY='any' ;;
    'webhooks listen:--path') REPLY='any' ;;
    'webhooks listen:--secret') REPLY='any' ;;
    'webhooks listen:--signature-header') REPLY='any' ;;
    'webhooks listen:--tolerance') REPLY='any' ;;
    'webhooks listen:--forward-to') REPLY='any' ;;
    'sandbox start:--port') REPLY='any' ;;
    'sandbox start:--api-key') REPLY='any' ;;
    'sandbox start:--seed') REPLY='any' ;;
    'sandbox start:--state') REPLY='files' ;;
    'sandbox start:--settle-after') REPLY='any' ;;
    'sandbox start:--webhook-url') REPLY='any' ;;
    'sandbox start:--webhook-secret') REPLY='any' ;;
    'sandbox start:--rate-limit') REPLY='any' ;;
    'sandbox start:--list-shape') REPLY='words paginator resource array items' ;;
    'sandbox start:--error-shape') REPLY='words laravel envelope error problem' ;;
    'sandbox start:--kyc-status') REPLY='any' ;;
    *':-p'|*':--profile') REPLY='profiles' ;;
    *':--base-url') REPLY='any' ;;
    *':--timeout') REPLY='any' ;;
    *) REPLY='' ;;
  esac
}

# How operand $2 (from 0) at command path $1 is completed; empty when there is none.
_payctl_argument() {
  case "$1:$2" in
    'payout batch:0') REPLY='files' ;;
    'payout batch status:0') REPLY='files' ;;
    'payout get:0') REPLY='any' ;;
    'payout help:0') REPLY='words create batch get' ;;
    'payouts help:0') REPLY='words list' ;;
    'ledger help:0') REPLY='words status import verify' ;;
    'plan create:0') REPLY='files' ;;
    'plan show:0') REPLY='files' ;;
    'plan approve:0') REPLY='files' ;;
    'plan merge:0') REPLY='files' ;;
    'plan merge:'*) REPLY='files' ;;
    'plan send:0') REPLY='files' ;;
    'plan help:0') REPLY='words create show approve merge send' ;;
    'keys help:0') REPLY='words create show' ;;
    'policy check:0') REPLY='files' ;;
    'policy propose:0') REPLY='files' ;;
    'policy approve:0') REPLY='any' ;;
    'policy help:0') REPLY='words check propose approve show' ;;
    'webhooks help:0') REPLY='words listen' ;;
    'config get:0') REPLY='words base-url api-key webhook-secret webhook-signature-header policy ledger routes.authUser routes.balances routes.payoutCreate routes.payoutGet routes.payoutsList routes.payoutsSummary' ;;
    'config set:0') REPLY='words base-url webhook-secret webhook-signature-header policy ledger routes.authUser routes.balances routes.payoutCreate routes.payoutGet routes.payoutsList routes.payoutsSummary' ;;
    'config set:1') REPLY='any' ;;
    'config unset:0') REPLY='words base-url webhook-secret webhook-signature-header policy ledger routes.authUser routes.balances routes.payoutCreate routes.payoutGet routes.payoutsList routes.payoutsSummary' ;;
    'config help:0') REPLY='words list get set unset path' ;;
    'completion:0') REPLY='words bash zsh fish' ;;
    'sandbox help:0') REPLY='words start stop status' ;;
    'help:0') REPLY='words login logout status balances payout payouts history ledger plan keys policy summary webhooks config completion sandbox' ;;
    *) REPLY='' ;;
  esac
}

# Adds to COMPREPLY the values of kind $1 that start with $2, each prefixed with $3.
_payctl_values() {
  local word
  case ${1%% *} in
    words)
      for word in ${1#words}; do
        [[ $word == "$2"* ]] && COMPREPLY+=("$3$word")
      done
      ;;
    profiles)
      while IFS= read -r word; do
        [[ -n $word && $word == "$2"* ]] && COMPREPLY+=("$3$word")
      done < <(command payctl __complete-profiles 2>/dev/null)
      ;;
    files)
      compopt -o filenames 2>/dev/null
      while IFS= read -r word; do
        COMPREPLY+=("$3$word")
      done < <(compgen -f -- "$2")
      ;;
  esac
}

_payctl() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmdpath='' word pending='' ddash='' subs='' REPLY=''
  local -i i npos=0
  COMPREPLY=()
  # Walk the words before the cursor: enter subcommands, skip option values, count operands.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ -n $pending ]]; then
      # bash splits --opt=value into three words at "=" (COMP_WORDBREAKS)
      [[ $word == = ]] || pending=''
    elif [[ -n $ddash ]]; then
      npos+=1
    elif [[ $word == -- ]]; then
      ddash=1
    elif [[ $word == -?* ]]; then
      if [[ $word != --*=* ]]; then
        _payctl_option_value "$cmdpath" "$word"
        pending=$REPLY
      fi
    elif ((npos == 0)) && _payctl_commands "$cmdpath" && [[ " $REPLY " == *" $word "* ]]; then
      cmdpath=${cmdpath:+$cmdpath }$word
    else
      npos+=1
    fi
  done

  if [[ -n $pending ]]; then
    [[ $cur == = ]] && cur=''
    _payctl_values "$pending" "$cur" ''
  elif [[ -z $ddash && $cur == --*=* ]]; then
    _payctl_option_value "$cmdpath" "${cur%%=*}"
    [[ -n $REPLY ]] && _payctl_values "$REPLY" "${cur#*=}" "${cur%%=*}="
  elif [[ -z $ddash && $cur == -* ]]; then
    _payctl_options "$cmdpath"
    _payctl_values "words $REPLY" "$cur" ''
  else
    if ((npos == 0)); then
      _payctl_commands "$cmdpath"
      subs=$REPLY
    fi
    # A command that runs and has verbs (payout batch, payout batch status) offers both.
    [[ -n $subs ]] && _payctl_values "words $subs" "$cur" ''
    REPLY=''
    _payctl_argument "$cmdpath" "$npos"
    [[ -n $REPLY ]] && _payctl_values "$REPLY" "$cur" ''
  fi
  return 0
}

complete -F _payctl payctl
