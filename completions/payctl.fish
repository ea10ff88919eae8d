# fish completion for payctl
# Generated from payctl's command tree by `payctl completion fish`; do not edit.
# Install: copy it to ~/.config/fish/completions/payctl.fish

# Subcommands of a command path ("payctl", "payctl payout", ...).
function __payctl_commands
    switch $argv[1]
        case 'payctl'
            echo login logout status balances payout payouts history ledger plan keys policy summary webhooks config completion sandbox help
        case 'payctl payout'
            echo create batch get help
        case 'payctl payout batch'
            echo status
        case 'payctl payouts'
            echo list help
        case 'payctl history'
            echo reconcile
        case 'payctl ledger'
            echo status import verify help
        case 'payctl plan'
            echo create show approve merge send help
        case 'payctl keys'
            echo create show help
        case 'payctl policy'
            echo check propose approve show help
        case 'payctl webhooks'
            echo listen help
        case 'payctl config'
            echo list get set unset path help
        case 'payctl sandbox'
            echo start stop status help
    end
end

# True when option $argv[2] at command path $argv[1] takes a value.
function __payctl_takes_value
    switch "$argv[1]:$argv[2]"
        case 'payctl balances:--currency' 'payctl balances:--wallet'
            return 0
        case 'payctl payout create:--wallet' 'payctl payout create:--amount' 'payctl payout create:--currency' 'payctl payout create:--type' 'payctl payout create:--name' 'payctl payout create:--provider' 'payctl payout create:--account' 'payctl payout create:--phone' 'payctl payout create:--note' 'payctl payout create:--metadata' 'payctl payout create:--payout-id' 'payctl payout create:--idempotency-key' 'payctl payout create:--plan-out' 'payctl payout create:--wait-timeout'
            return 0
        case 'payctl payout batch:--batch-id' 'payctl payout batch:--concurrency' 'payctl payout batch:--report'
            return 0
        case 'payctl payout batch status:--concurrency' 'payctl payout batch status:--wait-timeout' 'payctl payout batch status:--failed-out'
            return 0
        case 'payctl payout get:--wait-timeout'
            return 0
        case 'payctl payouts list:--status' 'payctl payouts list:--wallet' 'payctl payouts list:--currency' 'payctl payouts list:--from' 'payctl payouts list:--to' 'payctl payouts list:--limit' 'payctl payouts list:--page'
            return 0
        case 'payctl history:--since' 'payctl history:--until' 'payctl history:--status' 'payctl history:--batch-id'
            return 0
        case 'payctl history reconcile:--payout-id' 'payctl history reconcile:--made-by'
            return 0
        case 'payctl plan create:--batch-id' 'payctl plan create:-o' 'payctl plan create:--out'
            return 0
        case 'payctl plan send:--concurrency' 'payctl plan send:--report'
            return 0
        case 'payctl keys create:--name'
            return 0
        case 'payctl policy check:--batch-id'
            return 0
        case 'payctl summary:--from' 'payctl summary:--to' 'payctl summary:--wallet' 'payctl summary:--currency'
            return 0
        case 'payctl webhooks listen:--port' 'payctl webhooks listen:--host' 'payctl webhooks listen:--path' 'payctl webhooks listen:--secret' 'payctl webhooks listen:--signature-header' 'payctl webhooks listen:--tolerance' 'payctl webhooks listen:--forward-to'
            return 0
        case 'payctl sandbox start:--port' 'payctl sandbox start:--api-key' 'payctl sandbox start:--seed' 'payctl sandbox start:--state' 'payctl sandbox start:--settle-after' 'payctl sandbox start:--webhook-url' 'payctl sandbox start:--webhook-secret' 'payctl sandbox start:--rate-limit' 'payctl sandbox start:--list-shape' 'payctl sandbox start:--error-shape' 'payctl sandbox start:--kyc-status'
            return 0
        case '*:-p' '*:--profile' '*:--base-url' '*:--timeout'
            return 0
    end
    return 1
end

# Prints the command path and the number of operands after it, from the words before
# the cursor (subcommands entered, option values skipped). Cached per command line.
function __payctl_state
    set -l line (commandline -pc | string collect)
    if set -q __payctl_state_line; and test "$__payctl_state_line" = "$line"
        printf '%s\n' $__payctl_state_value
        return
    end
    set -l words (commandline -opc)
    set -e words[1]
    set -l cmdpath payctl
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
            if not string match -q -- '--*=*' $word; and __payctl_takes_value "$cmdpath" $word
                set pending 1
            end
        else if test $npos = 0; and contains -- $word (string split ' ' -- (__payctl_commands "$cmdpath"))
            set cmdpath "$cmdpath $word"
        else
            set npos (math $npos + 1)
        end
    end
    set -g __payctl_state_line $line
    set -g __payctl_state_value $cmdpath $npos
    printf '%s\n' $cmdpath $npos
end

# True at command path $argv[1] and, when $argv[2] is given, after that many operands.
function __payctl_at
    set -l state (__payctl_state)
    test "$state[1]" = "$argv[1]"; or return 1
    set -q argv[2]; and test "$state[2]" != "$argv[2]"; and return 1
    return 0
end

function __payctl_profiles
    command payctl __complete-profiles 2>/dev/null
end

# No file names unless a completion below asks for them (-F).
complete -c payctl -f

# Options accepted everywhere (except where a command has its own with that name)
complete -c payctl -s p -l profile -x -a '(__payctl_profiles)' -d 'profile to use (default: $PAYCTL_PROFILE, else "default")'
complete -c payctl -l base-url -x -d 'base URL for this call, ending in /v2 (overrides the profile)'
complete -c payctl -l json -d 'machine output on stdout; no colour, prompts or spinners'
complete -c payctl -l no-input -d 'never prompt; missing input is a usage error'
complete -c payctl -l no-color -d 'plain text (NO_COLOR and FORCE_COLOR are honoured too)'
complete -c payctl -s v -l verbose -d 'log each request and response on stderr (secrets shown as ***)'
complete -c payctl -l timeout -x -d 'per-request time limit in seconds'

# payctl
complete -c payctl -n "__payctl_at 'payctl' 0" -a login -d 'check an API key, show whose it is, and save it with the base URL in the profile'
complete -c payctl -n "__payctl_at 'payctl' 0" -a logout -d 'remove the API key from the profile'
complete -c payctl -n "__payctl_at 'payctl' 0" -a status -d 'show the profile, base URL and masked key, and check the key live (whose account it is)'
complete -c payctl -n "__payctl_at 'payctl' 0" -a balances -d 'wallet balances'
complete -c payctl -n "__payctl_at 'payctl' 0" -a payout -d 'send and look up single payouts'
complete -c payctl -n "__payctl_at 'payctl' 0" -a payouts -d 'list payouts'
complete -c payctl -n "__payctl_at 'payctl' 0" -a history -d 'the journal as a ledger of what this config folder sent, newest first'
complete -c payctl -n "__payctl_at 'payctl' 0" -a ledger -d 'the payout journal\'s store: local, or a PostgreSQL ledger shared by a team'
complete -c payctl -n "__payctl_at 'payctl' 0" -a plan -d 'four eyes: write payouts down, have them approved, send exactly what was approved'
complete -c payctl -n "__payctl_at 'payctl' 0" -a keys -d 'your signing key for making and approving payout plans'
complete -c payctl -n "__payctl_at 'payctl' 0" -a policy -d 'the team\'s spending policy: what it asks of a batch or a plan, and the team\'s policy in the shared ledger'
complete -c payctl -n "__payctl_at 'payctl' 0" -a summary -d 'the service\'s counts by status and type; with a filter, totals per currency computed by payctl'
complete -c payctl -n "__payctl_at 'payctl' 0" -a webhooks -d 'receive and inspect webhook events'
complete -c payctl -n "__payctl_at 'payctl' 0" -a config -d 'profile settings: base-url, webhook-secret, routes.<name> (secrets are never printed)'
complete -c payctl -n "__payctl_at 'payctl' 0" -a completion -d 'print the shell completion script (also shipped in completions/)'
complete -c payctl -n "__payctl_at 'payctl' 0" -a sandbox -d 'run the documented payout service on localhost, with demo wallets'
complete -c payctl -n "__payctl_at 'payctl' 0" -a help -d 'display help for command'
complete -c payctl -n "__payctl_at 'payctl'" -s V -l version -d 'print the version'
complete -c payctl -n "__payctl_at 'payctl'" -s h -l help -d 'show help'

# payctl login
complete -c payctl -n "__payctl_at 'payctl login'" -l api-key-stdin -d 'read the API key from the first line of standard input'
complete -c payctl -n "__payctl_at 'payctl login'" -l insecure-storage -d 'store the key in the config file (0600) instead of the OS keyring'
complete -c payctl -n "__payctl_at 'payctl login'" -s h -l help -d 'show help'

# payctl logout
complete -c payctl -n "__payctl_at 'payctl logout'" -s h -l help -d 'show help'

# payctl status
complete -c payctl -n "__payctl_at 'payctl status'" -s h -l help -d 'show help'

# payctl balances
complete -c payctl -n "__payctl_at 'payctl balances'" -l currency -x -d 'only wallets in this currency'
complete -c payctl -n "__payctl_at 'payctl balances'" -l wallet -x -d 'only this wallet (exit 1 when the service has no such wallet)'
complete -c payctl -n "__payctl_at 'payctl balances'" -l csv -d 'write CSV with a header row (balances exact, no grouping)'
complete -c payctl -n "__payctl_at 'payctl balances'" -s h -l help -d 'show help'

# payctl payout
complete -c payctl -n "__payctl_at 'payctl payout' 0" -a create -d 'send one payout: validated, confirmed, journaled, and never sent twice'
complete -c payctl -n "__payctl_at 'payctl payout' 0" -a batch -d 'send many payouts from a CSV or JSON-lines file: validated, planned, confirmed, resumable'
complete -c payctl -n "__payctl_at 'payctl payout' 0" -a get -d 'one payout, by transaction id (or a payout id this config folder has a transaction id for)'
complete -c payctl -n "__payctl_at 'payctl payout' 0" -a help -d 'display help for command'
complete -c payctl -n "__payctl_at 'payctl payout'" -s h -l help -d 'show help'

# payctl payout create
complete -c payctl -n "__payctl_at 'payctl payout create'" -l wallet -x -d 'source wallet to debit'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l amount -x -d 'amount as a plain decimal (e.g. 1500.50), at most the currency\'s minor digits'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l currency -x -d 'ISO 4217 currency code of the wallet (e.g. SLE)'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l type -x -a 'bank wallet' -d 'recipient type: bank or wallet'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l name -x -d 'recipient\'s full name'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l provider -x -a 'afrimoney orange_money qmoney opay palmpay ecobank skybank uba rokel_commercial_bank access_bank gtbank zenith_bank' -d 'bank or wallet provider (e.g. orange_money, afrimoney, ecobank)'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l account -x -d 'recipient\'s account number'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l phone -x -d 'phone number (required for wallet recipients)'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l note -x -d 'note or payment reference'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l metadata -x -d 'metadata pair (repeatable)'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l payout-id -x -d 'your id for this payout (default: a new UUID); the same id again reuses its key'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l idempotency-key -x -d 'idempotency key to send (default: a new UUID, journaled)'
complete -c payctl -n "__payctl_at 'payctl payout create'" -s y -l yes -d 'send without asking for confirmation (required without a terminal)'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l dry-run -d 'validate and show what would be sent (with --json the exact request body); send nothing'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l plan-out -r -F -d 'write the payout as a plan for approval (payctl plan) instead of sending it'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l allow-repeat -d 'send even when the same payout (wallet, account, amount, currency) was sent in the last 24 hours (not while its outcome is unknown), or while journal entries are missing (acknowledged for this check only: a daily total needs --acknowledge-missing)'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l acknowledge-missing -d 'under a policy\'s daily total, send although entries of this config folder\'s journal are missing: they are acknowledged (journal.index) and the daily total no longer counts what they paid'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l wait -d 'then wait until the payout is Successful (exit 0) or Failed (exit 1); exit 5 if still Pending at the limit'
complete -c payctl -n "__payctl_at 'payctl payout create'" -l wait-timeout -x -d 'how long --wait waits, in seconds (default: 600, at most 86400)'
complete -c payctl -n "__payctl_at 'payctl payout create'" -s h -l help -d 'show help'

# payctl payout batch
complete -c payctl -n "__payctl_at 'payctl payout batch' 0" -a status -d 'refresh a batch report with each accepted row\'s status: Successful, Failed or Pending'
complete -c payctl -n "__payctl_at 'payctl payout batch' 0" -F -d 'CSV with a header row, or JSON lines'
complete -c payctl -n "__payctl_at 'payctl payout batch'" -l batch-id -x -d 'name of this batch (default: "default"); a new name pays the same rows again as new payouts'
complete -c payctl -n "__payctl_at 'payctl payout batch'" -l concurrency -x -d 'payouts in flight at once'
complete -c payctl -n "__payctl_at 'payctl payout batch'" -l report -r -F -d 'where to write the report (.csv or .jsonl; default: beside the input)'
complete -c payctl -n "__payctl_at 'payctl payout batch'" -l dry-run -d 'check the file and show the plan; send nothing (exit 2 when the file has problems)'
complete -c payctl -n "__payctl_at 'payctl payout batch'" -l allow-duplicates -d 'send identical rows as separate payouts without asking'
complete -c payctl -n "__payctl_at 'payctl payout batch'" -l acknowledge-missing -d 'under a policy\'s daily total, send although entries of this config folder\'s journal are missing: they are acknowledged (journal.index) and the daily total no longer counts what they paid'
complete -c payctl -n "__payctl_at 'payctl payout batch'" -s y -l yes -d 'send without asking for confirmation (required without a terminal)'
complete -c payctl -n "__payctl_at 'payctl payout batch'" -l template -d 'print a header row and an example row (CSV) to start a file from; sends nothing'
complete -c payctl -n "__payctl_at 'payctl payout batch'" -s h -l help -d 'show help'

# payctl payout batch status
complete -c payctl -n "__payctl_at 'payctl payout batch status' 0" -F -d 'the report payout batch wrote (.csv or .jsonl)'
complete -c payctl -n "__payctl_at 'payctl payout batch status'" -l concurrency -x -d 'payouts read at once'
complete -c payctl -n "__payctl_at 'payctl payout batch status'" -l wait -d 'wait until no row is Pending; exit 5 if some still are at --wait-timeout'
complete -c payctl -n "__payctl_at 'payctl payout batch status'" -l wait-timeout -x -d 'how long --wait waits, in seconds (default: 600, at most 86400)'
complete -c payctl -n "__payctl_at 'payctl payout batch status'" -l failed-out -r -F -d 'write the Failed rows as a new batch file (.csv or .jsonl; never overwrites a file)'
complete -c payctl -n "__payctl_at 'payctl payout batch status'" -s h -l help -d 'show help'

# payctl payout get
complete -c payctl -n "__payctl_at 'payctl payout get' 0" -f -d 'transaction id (TXN-BOK-…), or a payout id journaled in this config folder'
complete -c payctl -n "__payctl_at 'payctl payout get'" -l wait -d 'then wait until the payout is Successful (exit 0) or Failed (exit 1); exit 5 if still Pending at the limit'
complete -c payctl -n "__payctl_at 'payctl payout get'" -l wait-timeout -x -d 'how long --wait waits, in seconds (default: 600, at most 86400)'
complete -c payctl -n "__payctl_at 'payctl payout get'" -s h -l help -d 'show help'

# payctl payout help
complete -c payctl -n "__payctl_at 'payctl payout help' 0" -f -a 'create batch get' -d ''

# payctl payouts
complete -c payctl -n "__payctl_at 'payctl payouts' 0" -a list -d 'payouts, newest first'
complete -c payctl -n "__payctl_at 'payctl payouts' 0" -a help -d 'display help for command'
complete -c payctl -n "__payctl_at 'payctl payouts'" -s h -l help -d 'show help'

# payctl payouts list
complete -c payctl -n "__payctl_at 'payctl payouts list'" -l status -x -a 'Pending Successful Failed' -d 'only payouts in this status (Pending, Successful, Failed; any case)'
complete -c payctl -n "__payctl_at 'payctl payouts list'" -l wallet -x -d 'only payouts from this wallet (records that name no wallet never match)'
complete -c payctl -n "__payctl_at 'payctl payouts list'" -l currency -x -d 'only payouts in this currency'
complete -c payctl -n "__payctl_at 'payctl payouts list'" -l from -x -d 'created at or after (2026-11-01 or an ISO timestamp, UTC)'
complete -c payctl -n "__payctl_at 'payctl payouts list'" -l to -x -d 'created at or before (a date means the whole day)'
complete -c payctl -n "__payctl_at 'payctl payouts list'" -l limit -x -d 'payouts to show, 1 to 100 (default 20); with --all, the page size asked of the service (default 100)'
complete -c payctl -n "__payctl_at 'payctl payouts list'" -l page -x -d 'the service\'s page to start from, from 1'
complete -c payctl -n "__payctl_at 'payctl payouts list'" -l all -d 'follow every page (streams; memory stays flat)'
complete -c payctl -n "__payctl_at 'payctl payouts list'" -l csv -d 'write CSV with a header row'
complete -c payctl -n "__payctl_at 'payctl payouts list'" -s h -l help -d 'show help'

# payctl payouts help
complete -c payctl -n "__payctl_at 'payctl payouts help' 0" -f -a 'list' -d ''

# payctl history
complete -c payctl -n "__payctl_at 'payctl history' 0" -a reconcile -d 'resolve payouts whose outcome is unknown: resend them with their journaled idempotency key, or choose'
complete -c payctl -n "__payctl_at 'payctl history'" -l since -x -d 'journaled at or after (2026-11-01 or an ISO timestamp, UTC)'
complete -c payctl -n "__payctl_at 'payctl history'" -l until -x -d 'journaled at or before (a date means the whole day)'
complete -c payctl -n "__payctl_at 'payctl history'" -l status -x -a 'accepted rejected unknown not-made' -d 'only this outcome: accepted, rejected, unknown, not-made'
complete -c payctl -n "__payctl_at 'payctl history'" -l batch-id -x -d 'only the payouts of this batch'
complete -c payctl -n "__payctl_at 'payctl history'" -l csv -d 'write CSV with a header row'
complete -c payctl -n "__payctl_at 'payctl history'" -s h -l help -d 'show help'

# payctl history reconcile
complete -c payctl -n "__payctl_at 'payctl history reconcile'" -l payout-id -x -d 'only this journaled payout'
complete -c payctl -n "__payctl_at 'payctl history reconcile'" -l made-by -x -d 'record the payout as made by this transaction (checked: same amount, currency and account)'
complete -c payctl -n "__payctl_at 'payctl history reconcile'" -l resend -d 'resend the payout with its journaled key and body, even after 24 hours (asks to confirm)'
complete -c payctl -n "__payctl_at 'payctl history reconcile'" -s y -l yes -d 'with --resend, or --made-by of a masked record: do not ask (required without a terminal)'
complete -c payctl -n "__payctl_at 'payctl history reconcile'" -s h -l help -d 'show help'

# payctl ledger
complete -c payctl -n "__payctl_at 'payctl ledger' 0" -a status -d 'show the profile\'s ledger: local or PostgreSQL, reachable, schema version, entries'
complete -c payctl -n "__payctl_at 'payctl ledger' 0" -a import -d 'copy this config folder\'s local journal into the profile\'s PostgreSQL ledger'
complete -c payctl -n "__payctl_at 'payctl ledger' 0" -a verify -d 'check the signature of every row of the profile\'s shared ledger, and list who signed them'
complete -c payctl -n "__payctl_at 'payctl ledger' 0" -a help -d 'display help for command'
complete -c payctl -n "__payctl_at 'payctl ledger'" -s h -l help -d 'show help'

# payctl ledger status
complete -c payctl -n "__payctl_at 'payctl ledger status'" -s h -l help -d 'show help'

# payctl ledger import
complete -c payctl -n "__payctl_at 'payctl ledger import'" -s h -l help -d 'show help'

# payctl ledger verify
complete -c payctl -n "__payctl_at 'payctl ledger verify'" -s h -l help -d 'show help'

# payctl ledger help
complete -c payctl -n "__payctl_at 'payctl ledger help' 0" -f -a 'status import verify' -d ''

# payctl plan
complete -c payctl -n "__payctl_at 'payctl plan' 0" -a create -d 'write a batch file as a plan to approve (nothing is sent)'
complete -c payctl -n "__payctl_at 'payctl plan' 0" -a show -d 'print a plan for review: payouts, totals, balances after, approvals'
complete -c payctl -n "__payctl_at 'payctl plan' 0" -a approve -d 'sign a plan with your key after reviewing it'
complete -c payctl -n "__payctl_at 'payctl plan' 0" -a merge -d 'add the approvals copies of a plan file carry to the plan file'
complete -c payctl -n "__payctl_at 'payctl plan' 0" -a send -d 'send an approved plan: exactly its bodies, under its keys'
complete -c payctl -n "__payctl_at 'payctl plan' 0" -a help -d 'display help for command'
complete -c payctl -n "__payctl_at 'payctl plan'" -s h -l help -d 'show help'

# payctl plan create
complete -c payctl -n "__payctl_at 'payctl plan create' 0" -F -d 'payouts as CSV or JSON lines (the columns of payout batch)'
complete -c payctl -n "__payctl_at 'payctl plan create'" -l batch-id -x -d 'the batch the payouts belong to (their identity; default "default")'
complete -c payctl -n "__payctl_at 'payctl plan create'" -s o -l out -r -F -d 'where to write the plan (default: <file>.plan.json beside the file; never overwritten)'
complete -c payctl -n "__payctl_at 'payctl plan create'" -s h -l help -d 'show help'

# payctl plan show
complete -c payctl -n "__payctl_at 'payctl plan show' 0" -F -d 'a plan file (payctl plan create, payctl payout create --plan-out), or with a shared ledger a plan\'s hash (sha256:..., or 12+ of its hex digits)'
complete -c payctl -n "__payctl_at 'payctl plan show'" -s h -l help -d 'show help'

# payctl plan approve
complete -c payctl -n "__payctl_at 'payctl plan approve' 0" -F -d 'a plan file (payctl plan create, payctl payout create --plan-out), or with a shared ledger a plan\'s hash (sha256:..., or 12+ of its hex digits)'
complete -c payctl -n "__payctl_at 'payctl plan approve'" -s y -l yes -d 'approve without asking (required without a terminal)'
complete -c payctl -n "__payctl_at 'payctl plan approve'" -s h -l help -d 'show help'

# payctl plan merge
complete -c payctl -n "__payctl_at 'payctl plan merge' 0" -F -d 'the plan file to add the approvals to'
complete -c payctl -n "__payctl_at 'payctl plan merge'" -F -d 'copies of the same plan, each signed by an approver (payctl plan approve)'
complete -c payctl -n "__payctl_at 'payctl plan merge'" -s h -l help -d 'show help'

# payctl plan send
complete -c payctl -n "__payctl_at 'payctl plan send' 0" -F -d 'a plan file (payctl plan create, payctl payout create --plan-out), or with a shared ledger a plan\'s hash (sha256:..., or 12+ of its hex digits)'
complete -c payctl -n "__payctl_at 'payctl plan send'" -l concurrency -x -d 'payouts in flight at once (default 4)'
complete -c payctl -n "__payctl_at 'payctl plan send'" -l report -r -F -d 'where to write the per-payout report (default: <plan>.report.jsonl)'
complete -c payctl -n "__payctl_at 'payctl plan send'" -s y -l yes -d 'send without asking (required without a terminal)'
complete -c payctl -n "__payctl_at 'payctl plan send'" -l acknowledge-missing -d 'under a policy\'s daily total, send although entries of this config folder\'s journal are missing: they are acknowledged (journal.index) and the daily total no longer counts what they paid'
complete -c payctl -n "__payctl_at 'payctl plan send'" -s h -l help -d 'show help'

# payctl plan help
complete -c payctl -n "__payctl_at 'payctl plan help' 0" -f -a 'create show approve merge send' -d ''

# payctl keys
complete -c payctl -n "__payctl_at 'payctl keys' 0" -a create -d 'make your Ed25519 signing key (kept in the config folder, never sent)'
complete -c payctl -n "__payctl_at 'payctl keys' 0" -a show -d 'print your public key and its fingerprint'
complete -c payctl -n "__payctl_at 'payctl keys' 0" -a help -d 'display help for command'
complete -c payctl -n "__payctl_at 'payctl keys'" -s h -l help -d 'show help'

# payctl keys create
complete -c payctl -n "__payctl_at 'payctl keys create'" -l name -x -d 'your name, as approvals show it (default: your user name)'
complete -c payctl -n "__payctl_at 'payctl keys create'" -s h -l help -d 'show help'

# payctl keys show
complete -c payctl -n "__payctl_at 'payctl keys show'" -s h -l help -d 'show help'

# payctl keys help
complete -c payctl -n "__payctl_at 'payctl keys help' 0" -f -a 'create show' -d ''

# payctl policy
complete -c payctl -n "__payctl_at 'payctl policy' 0" -a check -d 'say what a batch file or a plan (a file, or sha256:<hash>) needs under the policy, and why'
complete -c payctl -n "__payctl_at 'payctl policy' 0" -a propose -d 'propose a policy file as the team\'s policy in the shared ledger (signed with your key)'
complete -c payctl -n "__payctl_at 'payctl policy' 0" -a approve -d 'approve a proposed change to the team\'s policy; adopted once it has the approvals it needs'
complete -c payctl -n "__payctl_at 'payctl policy' 0" -a show -d 'show the team\'s policy in the shared ledger and the proposals to change it'
complete -c payctl -n "__payctl_at 'payctl policy' 0" -a help -d 'display help for command'
complete -c payctl -n "__payctl_at 'payctl policy'" -s h -l help -d 'show help'

# payctl policy check
complete -c payctl -n "__payctl_at 'payctl policy check' 0" -F -d 'a batch file (CSV or JSON lines), a plan file (payctl plan create), or a plan of the team\'s shared ledger by its hash (sha256:<hex>, or its first 12 digits or more)'
complete -c payctl -n "__payctl_at 'payctl policy check'" -l batch-id -x -d 'the batch id the file would be sent under (default "default")'
complete -c payctl -n "__payctl_at 'payctl policy check'" -s h -l help -d 'show help'

# payctl policy propose
complete -c payctl -n "__payctl_at 'payctl policy propose' 0" -F -d 'a policy file (see payctl config set policy)'
complete -c payctl -n "__payctl_at 'payctl policy propose'" -s h -l help -d 'show help'

# payctl policy approve
complete -c payctl -n "__payctl_at 'payctl policy approve' 0" -f -d 'the proposal\'s hash as policy propose printed it (or its first 12 hex digits or more)'
complete -c payctl -n "__payctl_at 'payctl policy approve'" -s h -l help -d 'show help'

# payctl policy show
complete -c payctl -n "__payctl_at 'payctl policy show'" -s h -l help -d 'show help'

# payctl policy help
complete -c payctl -n "__payctl_at 'payctl policy help' 0" -f -a 'check propose approve show' -d ''

# payctl summary
complete -c payctl -n "__payctl_at 'payctl summary'" -l from -x -d 'created at or after (2026-11-01 or an ISO timestamp, UTC)'
complete -c payctl -n "__payctl_at 'payctl summary'" -l to -x -d 'created at or before (a date means the whole day)'
complete -c payctl -n "__payctl_at 'payctl summary'" -l wallet -x -d 'only payouts from this wallet (records that name no wallet never match)'
complete -c payctl -n "__payctl_at 'payctl summary'" -l currency -x -d 'only payouts in this currency'
complete -c payctl -n "__payctl_at 'payctl summary'" -l csv -d 'write CSV with a header row: the service\'s figures, or one row per currency and status'
complete -c payctl -n "__payctl_at 'payctl summary'" -s h -l help -d 'show help'

# payctl webhooks
complete -c payctl -n "__payctl_at 'payctl webhooks' 0" -a listen -d 'receive webhook events locally: verify, print, and optionally forward them'
complete -c payctl -n "__payctl_at 'payctl webhooks' 0" -a help -d 'display help for command'
complete -c payctl -n "__payctl_at 'payctl webhooks'" -s h -l help -d 'show help'

# payctl webhooks listen
complete -c payctl -n "__payctl_at 'payctl webhooks listen'" -l port -x -d 'port to listen on (0 picks a free one)'
complete -c payctl -n "__payctl_at 'payctl webhooks listen'" -l host -x -d 'address to listen on'
complete -c payctl -n "__payctl_at 'payctl webhooks listen'" -l path -x -d 'path events are posted to'
complete -c payctl -n "__payctl_at 'payctl webhooks listen'" -l secret-stdin -d 'read the webhook secret from the first line of standard input'
complete -c payctl -n "__payctl_at 'payctl webhooks listen'" -l secret -x -d 'webhook secret (visible to other users in ps: prefer --secret-stdin or PAYCTL_WEBHOOK_SECRET)'
complete -c payctl -n "__payctl_at 'payctl webhooks listen'" -l signature-header -x -d 'header that carries the signature (default: the profile\'s webhook-signature-header, else Signature)'
complete -c payctl -n "__payctl_at 'payctl webhooks listen'" -l tolerance -x -d 'how far an event\'s timestamp may be from this machine\'s clock (default 300)'
complete -c payctl -n "__payctl_at 'payctl webhooks listen'" -l forward-to -x -d 'forward each accepted event (verified, with a secret), raw body and headers, to this URL'
complete -c payctl -n "__payctl_at 'payctl webhooks listen'" -s h -l help -d 'show help'

# payctl webhooks help
complete -c payctl -n "__payctl_at 'payctl webhooks help' 0" -f -a 'listen' -d ''

# payctl config
complete -c payctl -n "__payctl_at 'payctl config' 0" -a list -d 'the profile\'s settings, secrets masked'
complete -c payctl -n "__payctl_at 'payctl config' 0" -a get -d 'one setting (exit 1 when not set)'
complete -c payctl -n "__payctl_at 'payctl config' 0" -a set -d 'change a setting (checked before it is saved)'
complete -c payctl -n "__payctl_at 'payctl config' 0" -a unset -d 'remove a setting'
complete -c payctl -n "__payctl_at 'payctl config' 0" -a path -d 'print the path of the config file'
complete -c payctl -n "__payctl_at 'payctl config' 0" -a help -d 'display help for command'
complete -c payctl -n "__payctl_at 'payctl config'" -s h -l help -d 'show help'

# payctl config list
complete -c payctl -n "__payctl_at 'payctl config list'" -s h -l help -d 'show help'

# payctl config get
complete -c payctl -n "__payctl_at 'payctl config get' 0" -f -a 'base-url api-key webhook-secret webhook-signature-header policy ledger routes.authUser routes.balances routes.payoutCreate routes.payoutGet routes.payoutsList routes.payoutsSummary' -d 'base-url, api-key, webhook-secret, webhook-signature-header, policy, ledger or routes.<name> (secrets masked)'
complete -c payctl -n "__payctl_at 'payctl config get'" -s h -l help -d 'show help'

# payctl config set
complete -c payctl -n "__payctl_at 'payctl config set' 0" -f -a 'base-url webhook-secret webhook-signature-header policy ledger routes.authUser routes.balances routes.payoutCreate routes.payoutGet routes.payoutsList routes.payoutsSummary' -d 'base-url, webhook-secret, webhook-signature-header, policy, ledger or routes.<name>'
complete -c payctl -n "__payctl_at 'payctl config set' 1" -f -d 'the new value (or --stdin)'
complete -c payctl -n "__payctl_at 'payctl config set'" -l stdin -d 'read the value from the first line of standard input (keeps a password off the command line)'
complete -c payctl -n "__payctl_at 'payctl config set'" -s h -l help -d 'show help'

# payctl config unset
complete -c payctl -n "__payctl_at 'payctl config unset' 0" -f -a 'base-url webhook-secret webhook-signature-header policy ledger routes.authUser routes.balances routes.payoutCreate routes.payoutGet routes.payoutsList routes.payoutsSummary' -d 'base-url, webhook-secret, webhook-signature-header, policy, ledger or routes.<name>'
complete -c payctl -n "__payctl_at 'payctl config unset'" -s h -l help -d 'show help'

# payctl config path
complete -c payctl -n "__payctl_at 'payctl config path'" -s h -l help -d 'show help'

# payctl config help
complete -c payctl -n "__payctl_at 'payctl config help' 0" -f -a 'list get set unset path' -d ''

# payctl completion
complete -c payctl -n "__payctl_at 'payctl completion' 0" -f -a 'bash zsh fish' -d 'shell to complete in'
complete -c payctl -n "__payctl_at 'payctl completion'" -s h -l help -d 'show help'

# payctl sandbox
complete -c payctl -n "__payctl_at 'payctl sandbox' 0" -a start -d 'start the sandbox (foreground; Ctrl-C stops it) and print its base URL and API key'
complete -c payctl -n "__payctl_at 'payctl sandbox' 0" -a stop -d 'stop the background sandbox'
complete -c payctl -n "__payctl_at 'payctl sandbox' 0" -a status -d 'say whether the background sandbox runs, and where'
complete -c payctl -n "__payctl_at 'payctl sandbox' 0" -a help -d 'display help for command'
complete -c payctl -n "__payctl_at 'payctl sandbox'" -s h -l help -d 'show help'

# payctl sandbox start
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l port -x -d 'port to listen on (0 picks a free one)'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l detach -d 'run in the background; stop it with `payctl sandbox stop`'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l api-key -x -d 'API key the sandbox accepts (default: $PAYCTL_SANDBOX_API_KEY, else a random sk_sandbox_ key)'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l seed -x -d 'seed for the demo data (same seed, same wallets and payouts)'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l state -r -F -d 'keep state in this file across restarts'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l settle-after -x -d 'time before a Pending payout settles'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l webhook-url -x -d 'POST signed payout events to this URL'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l webhook-secret -x -d 'secret for webhook signatures (default: $PAYCTL_SANDBOX_WEBHOOK_SECRET, else whsec_sandbox)'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l rate-limit -x -d 'requests per second before answering 429 (0: no limit)'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l list-shape -x -a 'paginator resource array items' -d 'how GET /payout/list answers: paginator, resource, array, items (default: paginator, Laravel\'s)'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l error-shape -x -a 'laravel envelope error problem' -d 'how errors are written: laravel, envelope, error, problem (default: laravel)'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -l kyc-status -x -d 'the account\'s KYC status in GET /auth/user (default: Verified)'
complete -c payctl -n "__payctl_at 'payctl sandbox start'" -s h -l help -d 'show help'

# payctl sandbox stop
complete -c payctl -n "__payctl_at 'payctl sandbox stop'" -s h -l help -d 'show help'

# payctl sandbox status
complete -c payctl -n "__payctl_at 'payctl sandbox status'" -s h -l help -d 'show help'

# payctl sandbox help
complete -c payctl -n "__payctl_at 'payctl sandbox help' 0" -f -a 'start stop status' -d ''

# payctl help
complete -c payctl -n "__payctl_at 'payctl help' 0" -f -a 'login logout status balances payout payouts history ledger plan keys policy summary webhooks config completion sandbox' -d ''
