/**
 * What `payctl sandbox start` says, in the foreground, as the detached child and as its parent:
 * the base URL, API key and webhook secret on stdout (one JSON object with --json), how to use
 * profile "sandbox" on stderr, and the refusal when this config folder's sandbox already runs.
 */
import { UsageError } from '../../errors.js';
import { write, type Deps } from '../../deps.js';
import { checkBaseUrl } from '../../config/resolve.js';
import { DEFAULT_PROFILE } from '../../config/known-profiles.js';
import { SANDBOX_PROFILE, defaultFollowsSandbox } from '../../config/sandbox-profile.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import type { SandboxRecord } from '../../sandbox/record.js';

export interface Shown {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  port: number;
  pid: number;
}

/** A value of the sandbox's own that `show` writes whole (see writeOwn). */
interface Own {
  own: string;
}

/**
 * Writes `parts` in order, each `Own` one in two writes of its own. The run's streams mask every
 * secret payctl knows (src/output/secrets.ts), the profile's key and webhook secret among them, and
 * the default profile may already be this very sandbox's (a second start, a pinned key): a chunk
 * holding half a secret is not masked, so the key and secret `sandbox start` exists to print
 * arrive whole. Everything else written, and every other secret, is masked as ever.
 */
async function writeOwn(stream: NodeJS.WritableStream, parts: Array<string | Own>): Promise<void> {
  for (const part of parts) {
    if (typeof part === 'string') await write(stream, part);
    else {
      const half = Math.ceil(part.own.length / 2);
      await write(stream, part.own.slice(0, half));
      await write(stream, part.own.slice(half));
    }
  }
}

/** The sandbox's base URL, API key and webhook secret on stdout (the key and secret unmasked: writeOwn). */
export async function show(deps: Deps, s: Shown): Promise<void> {
  if (deps.globals.json) {
    await writeOwn(deps.io.stdout, [
      `{"base_url":${JSON.stringify(s.baseUrl)},"api_key":`,
      { own: JSON.stringify(s.apiKey) },
      ',"webhook_secret":',
      { own: JSON.stringify(s.webhookSecret) },
      `,"port":${s.port},"pid":${s.pid}}\n`,
    ]);
    return;
  }
  await writeOwn(deps.io.stdout, [`Sandbox running at ${s.baseUrl}\nAPI key: `, { own: s.apiKey }, '\nWebhook secret: ', { own: s.webhookSecret }, '\n']);
}

/** The refusal (exit 2) when this config folder's sandbox runs already, with how to stop it. */
export function alreadyRunning(record: SandboxRecord): UsageError {
  return new UsageError(`A sandbox is already running at ${record.baseUrl} (pid ${record.pid}).`, [], 'Stop it first with: payctl sandbox stop');
}

function sameUrl(a: string, b: string): boolean {
  try {
    return checkBaseUrl(a) === checkBaseUrl(b);
  } catch {
    return false;
  }
}

/**
 * How to use profile "sandbox", said once it is saved: each command as it runs in this
 * shell (with the run's --timeout; never a base URL, the profile has its own), bare when
 * the default profile follows the sandbox and PAYCTL_PROFILE does not choose another one.
 * Variables of this shell that would send the commands elsewhere are named.
 */
export function sayHowToUse(deps: Deps, s: { baseUrl: string; apiKey: string }): void {
  const { timeout } = invocationOf(deps.globals, deps.env);
  const inForce = timeout !== undefined ? { timeout } : {};
  const byName = commandLine({ ...inForce, profile: SANDBOX_PROFILE }, ['balances']);
  const forShell = `export PAYCTL_PROFILE=${SANDBOX_PROFILE}`;
  const chosen = deps.env.PAYCTL_PROFILE;
  const bare = defaultFollowsSandbox(deps.config()) && (!chosen || chosen === DEFAULT_PROFILE || chosen === SANDBOX_PROFILE);
  if (bare) {
    deps.log.info(
      `Profile "${SANDBOX_PROFILE}" saved, and the default profile points at this sandbox too (until \`${commandLine(inForce, ['login'])}\` sets up your account). Try: ${commandLine(inForce, ['balances'])}`,
    );
    deps.log.info(`By name: ${byName}; or for this shell: ${forShell}`);
  } else {
    deps.log.info(`Profile "${SANDBOX_PROFILE}" saved. Try: ${byName}`);
    deps.log.info(`Or for this shell, so that commands need no --profile: ${forShell}`);
  }
  if (deps.env.PAYCTL_BASE_URL && !sameUrl(deps.env.PAYCTL_BASE_URL, s.baseUrl)) {
    deps.log.warn("PAYCTL_BASE_URL is set in this shell and overrides the profile's base URL: unset it to reach the sandbox.");
  }
  if (deps.env.PAYCTL_API_KEY && deps.env.PAYCTL_API_KEY !== s.apiKey) {
    deps.log.warn("PAYCTL_API_KEY is set in this shell and is sent instead of the sandbox's key, which the sandbox refuses: unset it to use the sandbox.");
  }
}
