/**
 * The command tree (commander): every command's flags, help and examples, and which
 * lazily loaded module runs it. Built by the entry (cli.ts) and by `payctl completion`,
 * which generates the shell scripts from it.
 */
import { Argument, Command, InvalidArgumentError } from 'commander';
import { createRequire } from 'node:module';
import type { Deps } from './deps.js';
import type { GlobalOptions } from './config/globals.js';
import { UsageError } from './errors.js';
import { profileChoice } from './config/resolve.js';
import { FIELD_FLAGS } from './commands/payout/fields.js';

export type Action<O> = (opts: O, deps: Deps) => Promise<number | void>;

const EXAMPLES = (lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

export function intOption(name: string, min = 0, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be a whole number.`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}.`);
    return n;
  };
}

/** The longest --timeout: a day (Node's timers cannot hold more than 24.8 days; beyond, they fire at once). */
const MAX_TIMEOUT_S = 86_400;

/** --timeout: at least 0.1 s (a smaller value would round to no time limit at all), at most a day. */
function secondsOption(value: string): number {
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value) || Number(value) < 0.1) {
    throw new InvalidArgumentError('--timeout must be a number of seconds, at least 0.1.');
  }
  if (Number(value) > MAX_TIMEOUT_S) throw new InvalidArgumentError(`--timeout must be at most ${MAX_TIMEOUT_S} seconds (a day).`);
  return Number(value);
}

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

export function version(): string {
  const require = createRequire(import.meta.url);
  return (require('../package.json') as { version: string }).version;
}

export type Runner = <O>(cmd: Command, load: () => Promise<{ run: Action<O> }>, args?: Record<string, unknown>) => Promise<void>;

export function buildProgram(run: Runner): Command {
  const program = new Command('payctl')
    .description('Send payouts and check wallet balances from the terminal.')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('-p, --profile <name>', 'profile to use (default: $PAYCTL_PROFILE, else "default")')
    .option('--base-url <url>', 'base URL for this call, ending in /v2 (overrides the profile)')
    .option('--json', 'machine output on stdout; no colour, prompts or spinners')
    .option('--no-input', 'never prompt; missing input is a usage error')
    .option('--no-color', 'plain text (NO_COLOR and FORCE_COLOR are honoured too)')
    .option('-v, --verbose', 'log each request and response on stderr (secrets shown as ***)')
    .option('--timeout <seconds>', 'per-request time limit in seconds', secondsOption, 30)
    .showSuggestionAfterError(true)
    .showHelpAfterError('(run `payctl --help` for usage)')
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true })
    .addHelpText('after', EXAMPLES(['payctl sandbox start --detach', 'payctl balances --profile sandbox', 'payctl payouts list --status Pending --json']));

  // --- auth ----------------------------------------------------------------
  program
    .command('login')
    .description('verify an API key and save it, with the base URL and a token, in the profile')
    .option('--api-key-stdin', 'read the API key from the first line of standard input')
    .option('--insecure-storage', 'store the key and token in the config file (0600) instead of the OS keyring')
    .addHelpText(
      'after',
      '\nThe key comes from --api-key-stdin, else PAYCTL_API_KEY, else a hidden prompt. The base URL from\n' +
        '--base-url, else PAYCTL_BASE_URL, else the profile, else a prompt. Nothing is saved unless the key works.\n' +
        'The key and token go to the OS keyring; when none can be reached, to the config file (with a notice).\n' +
        EXAMPLES([
          'payctl login --base-url https://api.example.com/v2',
          'printf %s "$API_KEY" | payctl login --api-key-stdin --base-url https://api.example.com/v2',
          'payctl login --profile staging',
        ]),
    )
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/login.js')));
  program
    .command('logout')
    .description('remove the API key and token from the profile')
    .addHelpText('after', EXAMPLES(['payctl logout', 'payctl logout --profile staging']))
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/logout.js')));
  program
    .command('status')
    .description('show the profile, base URL, masked key and token expiry, and check the credentials live')
    .addHelpText(
      'after',
      '\nExits 0 when the credentials work, 3 when they do not, 4 when the service cannot be reached.\n' +
        EXAMPLES(['payctl status', 'payctl status --profile sandbox --json']),
    )
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/status.js')));

  // --- reads ---------------------------------------------------------------
  program
    .command('balances')
    .description('wallet balances')
    .option('--currency <code>', 'only wallets in this currency')
    .option('--wallet <id>', 'only this wallet')
    .addHelpText('after', EXAMPLES(['payctl balances', 'payctl balances --currency SLE', 'payctl balances --json | jq -r ".data[].wallet_id"']))
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/balances.js')));

  const payout = program.command('payout').description('send and look up single payouts');
  const create = payout.command('create').description('send one payout: validated, confirmed, journaled, and never sent twice');
  // The payout's fields: one table (fields.ts) for these flags, labels and retry commands.
  for (const f of FIELD_FLAGS) {
    if (f.field === 'metadata') create.option(f.flags, f.help, (v: string, prev: string[]) => [...prev, v], [] as string[]);
    else create.option(f.flags, f.help);
  }
  create
    .option('--idempotency-key <uuid>', 'idempotency key to send (default: a new UUID, journaled)')
    .option('-y, --yes', 'send without asking for confirmation (required without a terminal)')
    .option('--allow-repeat', 'send even when the same payout (wallet, account, amount, currency) was sent in the last 24 hours')
    .addHelpText(
      'after',
      '\nMissing fields are asked for at a terminal. The payout id and its idempotency key are journaled\n' +
        'before the request leaves: running the same command again with the same --payout-id never pays twice.\n' +
        'Without --payout-id, a payout that repeats one sent from this machine in the last 24 hours (same wallet,\n' +
        'account, amount and currency) is shown and asked about at a terminal, and refused without one\n' +
        'unless --allow-repeat is given.\n' +
        'Exit codes: 0 sent, 1 refused by the service, 2 bad input (nothing sent), 3 not logged in, 4 outcome unknown.\n' +
        EXAMPLES([
          'payctl payout create --wallet wal_8f2a61c0 --amount 1500.50 --currency SLE --type wallet \\\n      --name "Aminata Kamara" --provider orange_money --account 076123456 --phone +23276123456 \\\n      --note "October stipend" --metadata batch=oct-stipends --payout-id stipend-2026-10-017 --yes',
          'payctl payout create --wallet wal_3c9e0b7d --amount 250000 --currency NGN --type bank --name "Chinedu Okafor" --provider ecobank --account 0123456789 --yes --json',
          'payctl payout create          # asks for everything at a terminal',
        ]),
    )
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/payout/create.js')));
  payout
    .command('batch')
    .description('send many payouts from a CSV or JSON-lines file: validated, planned, confirmed, resumable')
    .argument('<file>', 'CSV with a header row, or JSON lines')
    .option('--batch-id <name>', 'name of this batch (default: "default"); a new name pays the same rows again as new payouts')
    .option('--concurrency <n>', 'payouts in flight at once', intOption('--concurrency', 1, 64), 4)
    .option('--report <file>', 'where to write the report (.csv or .jsonl; default: beside the input)')
    .option('--dry-run', 'check the file and show the plan; send nothing (exit 2 when the file has problems)')
    .option('--allow-duplicates', 'send identical rows as separate payouts without asking')
    .option('-y, --yes', 'send without asking for confirmation (required without a terminal)')
    .addHelpText(
      'after',
      '\nColumns: payout_id, wallet_id, amount, currency, type, name, provider, account_number, phone_number,\n' +
        'note, and metadata.<key>. A row without payout_id gets an id made from what it pays and the batch id,\n' +
        'never from the file name or the row number: a sorted, copied or re-saved file pays nobody twice.\n' +
        'Every row is checked first (wallets and currencies too); nothing is sent if any row is bad. Running the\n' +
        'file again resumes: rows already accepted are skipped, unknown ones are retried with their journaled keys.\n' +
        'Identical rows are sent only after a confirmation at a terminal, or with --allow-duplicates.\n' +
        'Exit codes: 0 every row accepted, 1 some rejected, 2 bad file (nothing sent), 4 some outcomes unknown.\n' +
        EXAMPLES([
          'payctl payout batch stipends.csv --dry-run',
          'payctl payout batch stipends.csv --batch-id 2026-11-stipends --concurrency 8 --yes',
          'payctl payout batch suppliers.jsonl --report suppliers-report.jsonl --yes',
        ]),
    )
    .action((file: string, _o, cmd: Command) => run(cmd, () => import('./commands/payout/batch.js'), { file }));
  payout
    .command('get')
    .description('one payout, by payout id or transaction id')
    .argument('<id>', 'payout id or transaction id')
    .addHelpText('after', EXAMPLES(['payctl payout get 0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e', 'payctl payout get TRX4F1C2B9A0D3E5F6A7B8C --json']))
    .action((id: string, _o, cmd: Command) => run(cmd, () => import('./commands/payout/get.js'), { id }));

  const payouts = program.command('payouts').description('list payouts');
  payouts
    .command('list')
    .description('payouts, newest first')
    .option('--status <status>', 'only payouts in this status (Pending, Successful, Failed)')
    .option('--wallet <id>', 'only payouts from this wallet')
    .option('--currency <code>', 'only payouts in this currency')
    .option('--from <time>', 'created at or after (2026-11-01 or an ISO timestamp, UTC)')
    .option('--to <time>', 'created at or before (a date means the whole day)')
    .option('--limit <n>', 'payouts per page, 1 to 100 (default 20; 100 with --all)', intOption('--limit', 1, 100))
    .option('--page <n>', 'page to show, from 1', intOption('--page', 1))
    .option('--all', 'follow every page (streams; memory stays flat)')
    .option('--csv', 'write CSV with a header row')
    .addHelpText(
      'after',
      EXAMPLES([
        'payctl payouts list --status Pending',
        'payctl payouts list --from 2026-11-01 --to 2026-11-30 --all --csv > november.csv',
        'payctl payouts list --all --json | jq ".data | length"',
      ]),
    )
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/payouts/list.js')));

  program
    .command('summary')
    .description('totals per currency and status, with a bar chart of amounts')
    .option('--from <time>', 'created at or after (2026-11-01 or an ISO timestamp, UTC)')
    .option('--to <time>', 'created at or before (a date means the whole day)')
    .option('--wallet <id>', 'only payouts from this wallet')
    .option('--currency <code>', 'only payouts in this currency')
    .addHelpText('after', EXAMPLES(['payctl summary', 'payctl summary --from 2026-11-01 --currency SLE', 'payctl summary --json']))
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/summary.js')));

  // --- webhooks ------------------------------------------------------------
  const webhooks = program.command('webhooks').description('receive and inspect webhook events');
  webhooks
    .command('listen')
    .description('receive webhook events locally: verify, print, and optionally forward them')
    .option('--port <n>', 'port to listen on (0 picks a free one)', intOption('--port', 0, 65535), 4242)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--path <path>', 'path events are posted to', '/webhooks')
    .option('--secret-stdin', 'read the webhook secret from the first line of standard input')
    .option('--secret <secret>', 'webhook secret (visible to other users in ps: prefer --secret-stdin or PAYCTL_WEBHOOK_SECRET)')
    .option('--forward-to <url>', 'forward each verified event, raw body and headers, to this URL')
    .addHelpText(
      'after',
      "\nThe secret comes from --secret-stdin (or --secret), else PAYCTL_WEBHOOK_SECRET, else the profile's\n" +
        'webhook-secret. A bad or stale signature (more than 300 s off) is answered 400 and never forwarded.\n' +
        "Duplicate event ids are marked. With --forward-to, your app's status is passed back to the sender.\n" +
        'Requests must be for localhost, 127.x.y.z, [::1] or the --host address, with a JSON body. Ctrl-C stops.\n' +
        EXAMPLES([
          'printf %s "$WEBHOOK_SECRET" | payctl webhooks listen --secret-stdin',
          'payctl webhooks listen --port 4242 --forward-to http://localhost:3000/webhooks',
          'payctl sandbox start --webhook-url http://127.0.0.1:4242/webhooks   # in another terminal',
        ]),
    )
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/webhooks/listen.js')));

  // --- config --------------------------------------------------------------
  const config = program
    .command('config')
    .description('profile settings: base-url, webhook-secret, routes.<name> (secrets are never printed)')
    .addHelpText(
      'after',
      EXAMPLES(['payctl config list', 'payctl config set base-url https://api.example.com/v2', 'payctl config set routes.payoutGet /payout/{id}', 'payctl config path']),
    );
  config
    .command('list')
    .description("the profile's settings, secrets masked")
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/config/list.js')));
  config
    .command('get')
    .description('one setting (exit 1 when not set)')
    .argument('<key>', 'base-url, webhook-secret or routes.<name>')
    .action((key: string, _o, cmd: Command) => run(cmd, () => import('./commands/config/get.js'), { key }));
  config
    .command('set')
    .description('change a setting (checked before it is saved)')
    .argument('<key>', 'base-url, webhook-secret or routes.<name>')
    .argument('<value>', 'the new value')
    .action((key: string, value: string, _o, cmd: Command) => run(cmd, () => import('./commands/config/set.js'), { key, value }));
  config
    .command('unset')
    .description('remove a setting')
    .argument('<key>', 'base-url, webhook-secret or routes.<name>')
    .action((key: string, _o, cmd: Command) => run(cmd, () => import('./commands/config/unset.js'), { key }));
  config
    .command('path')
    .description('print the path of the config file')
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/config/path.js')));

  // --- completion ----------------------------------------------------------
  program
    .command('completion')
    .description('print the shell completion script (also shipped in completions/)')
    .addArgument(new Argument('<shell>', 'shell to complete in').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      EXAMPLES([
        'payctl completion bash > ~/.local/share/bash-completion/completions/payctl',
        'payctl completion zsh > "${fpath[1]}/_payctl"',
        'payctl completion fish > ~/.config/fish/completions/payctl.fish',
      ]),
    )
    // The tree is built afresh for the script (never from this run's argv), and handed in:
    // the completion command needs no import of this module.
    .action((shell: string, _o, cmd: Command) => run(cmd, () => import('./commands/completion.js'), { shell, tree: () => buildProgram(async () => {}) }));
  // Used by the completion scripts to offer profile names.
  program
    .command('__complete-profiles', { hidden: true })
    .action((_o, cmd: Command) => run(cmd, async () => ({ run: (await import('./commands/completion.js')).runProfiles })));

  // --- sandbox -----------------------------------------------------------
  const sandbox = program
    .command('sandbox')
    .description('run a local server that implements the payout service, with demo wallets')
    .addHelpText('after', EXAMPLES(['payctl sandbox start', 'payctl sandbox start --detach --port 4010', 'payctl sandbox status', 'payctl sandbox stop']));
  sandbox
    .command('start')
    .description('start the sandbox (foreground; Ctrl-C stops it) and print its base URL and API key')
    .option('--port <n>', 'port to listen on (0 picks a free one)', intOption('--port', 0, 65535), 0)
    .option('--detach', 'run in the background; stop it with `payctl sandbox stop`')
    .option('--api-key <key>', 'API key the sandbox accepts (default: $PAYCTL_SANDBOX_API_KEY, else a random sk_sandbox_ key)')
    .option('--seed <n>', 'seed for the demo data (same seed, same wallets and payouts)', intOption('--seed'), 1)
    .option('--state <file>', 'keep state in this file across restarts')
    .option('--token-ttl <seconds>', 'lifetime of issued tokens', intOption('--token-ttl', 1), 3600)
    .option('--settle-after <ms>', 'time before a Pending payout settles', intOption('--settle-after'), 3000)
    .option('--webhook-url <url>', 'POST signed payout events to this URL')
    .option('--webhook-secret <secret>', 'secret for webhook signatures (default: $PAYCTL_SANDBOX_WEBHOOK_SECRET, else whsec_sandbox)')
    .option('--rate-limit <n>', 'requests per second before answering 429 (0: no limit)', intOption('--rate-limit'), 0)
    .addHelpText(
      'after',
      '\n--api-key and --webhook-secret are visible to other users of this machine (ps); PAYCTL_SANDBOX_API_KEY\n' +
        'and PAYCTL_SANDBOX_WEBHOOK_SECRET are not. The sandbox answers only requests for a loopback host.\n' +
        EXAMPLES([
          'payctl sandbox start',
          'payctl sandbox start --detach --seed 7 --state ./sandbox-state.json',
          'payctl sandbox start --webhook-url http://127.0.0.1:4242/webhooks --settle-after 1000',
        ]),
    )
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/sandbox/start.js')));
  sandbox
    .command('stop')
    .description('stop the background sandbox')
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/sandbox/stop.js')));
  sandbox
    .command('status')
    .description('say whether the background sandbox runs, and where')
    .action((_o, cmd: Command) => run(cmd, () => import('./commands/sandbox/status.js')));

  return program;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

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
  const profile = profileChoice(o.profile, env).value;
  // A profile name is a key of the config file and a word in printed commands: kept plain.
  if (!PROFILE_NAME.test(profile) || profile === '__proto__' || profile === 'constructor' || profile === 'prototype') {
    throw new UsageError(
      `"${profile.replace(/[^\x20-\x7e]/g, '?')}" is not a valid profile name${o.profile === undefined ? ' (from PAYCTL_PROFILE)' : ''}.`,
      [],
      'A profile name has letters, digits, _ . - (at most 64, starting with a letter or digit), e.g. --profile staging.',
    );
  }
  return {
    profile,
    baseUrl: o.baseUrl,
    json: o.json === true,
    noInput: o.input === false,
    verbose: o.verbose === true,
    timeoutMs: Math.round((o.timeout ?? 30) * 1000),
  };
}

/** Every command of the tree, nested ones included. */
export function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}
