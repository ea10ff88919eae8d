/**
 * `payctl config set <key> <value>` (or `--stdin`: the value from the first line of standard
 * input): checked before it is saved. A policy file (README "Four eyes") is read and checked
 * first: a file that cannot be read or is not a valid policy is not set, the message says so
 * and why, and the profile keeps the policy it had. A ledger URL (README "Working as a team")
 * is checked too (a non-TLS sslmode for another machine refused, sslmode=require warned of:
 * config/ledger-tls.ts), shown only masked, and one with a password given on the command line
 * is saved with a warning: shell history and other users' process lists keep what was typed. So
 * is a webhook secret given on the command line (a blank one is refused, exit 2), as
 * `webhooks listen --secret` warns: `--stdin` keeps it off the command line.
 */
import { write, type Deps } from '../../deps.js';
import { ConfigError, InterruptedError, UsageError } from '../../errors.js';
import { readFirstLine } from '../../output/stdin-line.js';
import { applySetting, checkKey } from '../../config/settings.js';
import { hasPassword, ledgerTlsWarning, maskLedgerUrl } from '../../config/ledger-setting.js';
import { checkKeyStays } from '../../config/resolve.js';
import { refuseBaseUrlFlag } from './base-url-flag.js';
import { examinePolicy } from '../../plans/policy.js';
import { commandLine, fileOperand, invocationOf, type Invocation } from '../../config/command-line.js';

export interface ConfigSetOptions {
  key: string;
  value?: string;
  stdin?: boolean;
}

/** The value to set: the operand, or standard input's first line with --stdin (never both, never empty). */
async function valueOf(opts: ConfigSetOptions, deps: Deps, inv: Invocation): Promise<string> {
  if (opts.stdin) {
    const piped = `printf '%s\\n' "$VALUE" | ${commandLine(inv, ['config', 'set'], [opts.key, '--stdin'])}`;
    if (opts.value !== undefined) throw new UsageError('Give the value or --stdin, not both.', [], `For example: ${piped}`);
    // Typed at a terminal, a line read from stdin is echoed (and stays in the scrollback): asked
    // for with a prompt that shows nothing instead, where prompts may be shown.
    if (deps.io.stdinIsTTY) {
      if (!deps.io.interactive)
        throw new UsageError(`--stdin reads ${opts.key} from a pipe, not a terminal, where it would be shown as typed.`, [], `Pipe it in: ${piped}`);
      return (await (await deps.prompter()).password({ message: `${opts.key}:` })).trim() || emptyStdin(opts.key, piped);
    }
    // Ended at once by Ctrl-C or SIGTERM, also while a pipe held open sends nothing.
    const nothing = () => new InterruptedError(`Interrupted while reading ${opts.key} from standard input. Nothing was saved.`);
    const value = (await readFirstLine(deps.io.stdin, deps.signal, nothing)).trim();
    return value || emptyStdin(opts.key, piped);
  }
  return opts.value ?? '';
}

function emptyStdin(key: string, piped: string): never {
  throw new UsageError(`No value for ${key} on standard input.`, [], `Pipe it in: ${piped}`);
}

export async function run(opts: ConfigSetOptions, deps: Deps): Promise<number> {
  const store = deps.config();
  const name = deps.globals.profile;
  const inv = invocationOf(deps.globals, deps.env);
  // The setting and the profile are checked before the value is read: a secret is not asked for
  // (or piped) only to be refused, and the pipe printed for an empty stdin works as printed.
  checkKey(opts.key, 'write', inv, opts.value !== undefined);
  refuseBaseUrlFlag('set', opts.key, { flag: deps.globals.baseUrl, env: deps.env, profileChosen: deps.globals.profileChosen }, opts.value, inv, () => deps.config());
  const before = store.getProfile(name, { readSecrets: false });
  const value = await valueOf(opts, deps, inv);
  const commands = { login: commandLine(inv, ['login']), logout: commandLine(inv, ['logout']) };
  const patch = applySetting(store.getProfile(name) ?? {}, opts.key, value, inv);
  // A policy that cannot be read or met is refused now, not at the first payout.
  if (patch.policy !== undefined) {
    const checked = examinePolicy(patch.policy);
    if (!checked.policy) {
      const kept = before?.policy ? `it keeps its policy ${before.policy}` : 'it still has no policy';
      const why =
        checked.unreadable !== undefined
          ? `cannot read ${patch.policy}: ${checked.unreadable}`
          : `${patch.policy} is not a valid policy:\n  ${checked.problems.join('\n  ')}`;
      throw new ConfigError(
        `The policy was not set in profile "${name}" (${kept}): ${why}`,
        `Fix the file and run again: ${commandLine(inv, ['config', 'set', 'policy'], [fileOperand(patch.policy)])}`,
      );
    }
  }
  // Made again from the profile as it is when it is written: a route set meanwhile by another payctl stays.
  await store.updateProfile(name, (current) => {
    // Read under the file's lock: a key a login stored meanwhile is not handed to the new base URL.
    if (patch.baseUrl !== undefined) {
      const moving = { login: commandLine({ ...inv, baseUrl: patch.baseUrl }, ['login']), logout: commands.logout };
      checkKeyStays(name, store.getProfile(name, { readSecrets: false, mayBeNew: true }), patch.baseUrl, moving);
    }
    return applySetting(current, opts.key, value, inv);
  });
  if (patch.ledger !== undefined && !opts.stdin && hasPassword(patch.ledger)) passwordWarning(deps, inv);
  // Saved, but said (stderr: --json's stdout stays the result): sslmode=require checks no certificate.
  const unchecked = patch.ledger !== undefined ? ledgerTlsWarning(patch.ledger) : undefined;
  if (unchecked) deps.log.warn(unchecked);
  if (patch.webhookSecret !== undefined && !opts.stdin) webhookSecretWarning(deps, inv);
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify({ profile: name, key: opts.key, set: true }) + '\n');
  else deps.log.success(`Set ${opts.key} in profile "${name}"${patch.ledger !== undefined ? `: ${maskLedgerUrl(patch.ledger)}` : ''}.`);
  return 0;
}

/** Saved, but said: a password typed on the command line stays in the shell's history and was in `ps`. */
function passwordWarning(deps: Deps, inv: Invocation): void {
  deps.log.warn(
    "The ledger URL's password was given on the command line, where your shell history keeps it and other users " +
      'of this machine may have seen it (ps). It is saved (in the config file, mode 0600). To keep it off the command line, ' +
      `pipe the URL in with \`${commandLine(inv, ['config', 'set', 'ledger'], ['--stdin'])}\`, or leave the password out of ` +
      "the URL and give it with PGPASSWORD or ~/.pgpass (libpq's password file, mode 0600).",
  );
}

/** Saved, but said: a webhook secret typed on the command line stays in the shell's history and was in `ps`. */
function webhookSecretWarning(deps: Deps, inv: Invocation): void {
  deps.log.warn(
    'The webhook secret was given on the command line, where your shell history keeps it and other users ' +
      'of this machine may have seen it (ps). It is saved (in the config file, mode 0600). To keep it off the command line, ' +
      `pipe it in with \`printf '%s\\n' "$SECRET" | ${commandLine(inv, ['config', 'set', 'webhook-secret'], ['--stdin'])}\`.`,
  );
}
