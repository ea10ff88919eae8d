/**
 * The API key `payctl login` sends, and where it came from (a refused key's hint depends on it,
 * api/refused-key.ts; `--json` says it): standard input (--api-key-stdin), PAYCTL_API_KEY, or a
 * hidden prompt at a terminal.
 *
 * --api-key-stdin at a terminal asks with the hidden prompt instead, as `config set --stdin`
 * does: a line read from a terminal is echoed as typed. PAYCTL_API_KEY is never taken
 * silently: a key exported for another service or account would be sent to this base URL and
 * stored in this profile. At a terminal login asks whether to use it (default no: then the key
 * is asked for); elsewhere it says on stderr which key it uses (masked) before sending it.
 */
import type { Deps } from '../deps.js';
import { InterruptedError, UsageError } from '../errors.js';
import { apiKeyLengthProblem, apiKeyProblem, checkApiKey } from '../config/api-key.js';
import { maskSecret } from '../config/mask.js';
import { commandLine, invocationOf } from '../config/command-line.js';
import { readFirstLine } from '../output/stdin-line.js';
import type { KeyTarget } from '../api/session.js';

export type KeySource = NonNullable<KeyTarget['keySource']>;

/** How refusals name where the key came from. */
const KEY_SOURCE_NAMES: Record<KeySource, string> = { stdin: 'standard input', env: 'PAYCTL_API_KEY', given: 'prompt' };

/** How `login --json` names it (`api_key_source`). */
export const KEY_SOURCE_JSON: Record<KeySource, string> = { stdin: 'stdin', env: 'PAYCTL_API_KEY', given: 'prompt' };

/** What the prompt says of a typed key: true when it can be sent, else what is wrong with it (asked again). */
function checkTypedKey(value: string): true | string {
  const key = value.trim();
  if (!key) return 'The API key cannot be empty.';
  const long = apiKeyLengthProblem(key);
  if (long) return `The API key is ${long}.`;
  const problem = apiKeyProblem(key);
  return problem === undefined ? true : `The API key contains ${problem}: an API key is visible ASCII characters only.`;
}

async function promptedKey(deps: Deps): Promise<string> {
  const prompter = await deps.prompter();
  return (await prompter.password({ message: 'API key:', validate: checkTypedKey })).trim();
}

/** Trimmed, never empty, and refused (exit 2, nothing sent) with a control character or white space in it. */
function checked(raw: string, keySource: KeySource): { apiKey: string; keySource: KeySource } {
  const apiKey = raw.trim();
  const from = KEY_SOURCE_NAMES[keySource];
  if (!apiKey) throw new UsageError(`The API key from ${from} is empty.`);
  checkApiKey(apiKey, `the API key from ${from}`, 'Give the key alone, as the service issued it (white space around it is ignored).');
  return { apiKey, keySource };
}

/**
 * --api-key-stdin: the first line of a pipe; at a terminal the hidden prompt (refused where none
 * may be shown, with the pipe: its login keeps `kept`, the run's --insecure-storage, and --json).
 */
async function stdinKey(deps: Deps, kept: string[]): Promise<{ apiKey: string; keySource: KeySource }> {
  const { io } = deps;
  if (io.stdinIsTTY) {
    if (!io.interactive) {
      const piped = `printf '%s\\n' "$API_KEY" | ${commandLine(invocationOf(deps.globals, deps.env), ['login'], ['--api-key-stdin', ...kept, ...(deps.globals.json ? ['--json'] : [])])}`;
      throw new UsageError('--api-key-stdin reads the API key from a pipe, not a terminal, where it would be shown as typed.', [], `Pipe it in: ${piped}`);
    }
    return checked(await promptedKey(deps), 'given');
  }
  const nothing = () => new InterruptedError('Interrupted while reading the API key from standard input. Nothing was sent or saved.');
  return checked(await readFirstLine(io.stdin, deps.signal, nothing), 'stdin');
}

/** PAYCTL_API_KEY, said before it is sent; at a terminal only when the user says yes to it. */
async function envKey(deps: Deps, baseUrl: string, value: string): Promise<{ apiKey: string; keySource: KeySource }> {
  const got = checked(value, 'env');
  const named = `the API key from PAYCTL_API_KEY (${maskSecret(got.apiKey)})`;
  if (!deps.io.interactive) {
    deps.log.info(`Using ${named}.`);
    return got;
  }
  const prompter = await deps.prompter();
  if (await prompter.confirm({ message: `Log in to ${baseUrl} with ${named}?`, default: false })) return got;
  return checked(await promptedKey(deps), 'given');
}

/** The key to log in to `baseUrl` with, and where it came from; `kept`: the options every login printed keeps. */
export async function readApiKey(apiKeyStdin: boolean, deps: Deps, baseUrl: string, kept: string[] = []): Promise<{ apiKey: string; keySource: KeySource }> {
  const { env, io } = deps;
  if (apiKeyStdin) return stdinKey(deps, kept);
  if (env.PAYCTL_API_KEY) return envKey(deps, baseUrl, env.PAYCTL_API_KEY);
  if (io.interactive) return checked(await promptedKey(deps), 'given');
  throw new UsageError('No API key given.', [], 'Pipe it in with --api-key-stdin, or set PAYCTL_API_KEY.');
}
