/**
 * `payctl sandbox start [--port N] [--detach] …`: runs the sandbox (the documented service
 * on localhost, docs/service.md) in the foreground
 * until Ctrl-C (or SIGTERM; exit 130), or with --detach in a background process recorded in the
 * config folder (the parent is detach.ts). Either way it writes profile `sandbox` (and makes it
 * the default profile on a machine with no other: config/sandbox-profile.ts), prints the base
 * URL, the API key and the webhook secret on stdout (one JSON object with --json), and says on
 * stderr how to use the profile (announce.ts).
 *
 * The API key and webhook secret come from --api-key / --webhook-secret (with a
 * warning: they show in `ps`), else PAYCTL_SANDBOX_API_KEY / PAYCTL_SANDBOX_WEBHOOK_SECRET,
 * else a random key / whsec_sandbox. A key that cannot be a bearer token (a space, a control
 * character, anything but visible ASCII) is refused before anything starts.
 */
import { ExitCode, LocalError, RefusedError, UsageError } from '../../errors.js';
import { untilAborted, type Deps } from '../../deps.js';
import { apiKeyProblem } from '../../config/api-key.js';
import { saveSandboxProfile } from '../../config/sandbox-profile.js';
import type { Sandbox } from '../../sandbox/server.js';
import {
  API_KEY_ENV,
  DETACHED_ENV,
  WEBHOOK_SECRET_ENV,
  claimRecord,
  findRecord,
  newInstance,
  recordedSandboxRuns,
  removeRecord,
  writeRecord,
  type SandboxRecord,
} from '../../sandbox/record.js';
import { alreadyRunning, sayHowToUse, show } from './announce.js';
import { damagedRecord } from './damaged-record.js';
import { NOT_STARTED, startDetached, type StartOptions } from './detach.js';

export type { StartOptions } from './detach.js';

/** Flags that carry a secret, and the variable that carries it without showing in `ps`. */
const SECRET_FLAGS = [
  { key: 'apiKey', flag: '--api-key', env: API_KEY_ENV },
  { key: 'webhookSecret', flag: '--webhook-secret', env: WEBHOOK_SECRET_ENV },
] as const;

export async function run(opts: StartOptions, deps: Deps): Promise<number> {
  const resolved: StartOptions = { ...opts };
  for (const { key, flag, env } of SECRET_FLAGS) {
    if (opts[key] !== undefined) {
      deps.log.warn(`${flag} puts a secret on the command line, where other users of this machine can see it (ps). Set ${env} instead.`);
    } else {
      resolved[key] = deps.env[env] || undefined;
    }
  }
  if (resolved.apiKey !== undefined) resolved.apiKey = checkedKey(resolved.apiKey, opts.apiKey !== undefined ? '--api-key' : API_KEY_ENV);
  return opts.detach ? startDetached(resolved, deps) : startForeground(resolved, deps);
}

/**
 * The sandbox's API key without the white space around it (as payctl reads every key), refused
 * (exit 2, nothing started) when it cannot be a bearer token: the sandbox would refuse it, the
 * profile could not be used (src/config/api-key.ts), and a control character would reach the
 * terminal. The message names the character, never shows the key.
 */
function checkedKey(given: string, from: string): string {
  const key = given.trim();
  const problem = key === '' ? 'nothing but white space' : apiKeyProblem(key);
  if (problem === undefined) return key;
  throw new UsageError(
    `${from} contains ${problem}: the sandbox's API key is the bearer token, visible ASCII characters only. The sandbox was not started.`,
    [],
    `Give another key, or leave ${API_KEY_ENV} unset for a random one.`,
  );
}

/** Starts the server with the run's options; a port in use, a bad state file or option is a usage error (exit 2). */
async function listen(opts: StartOptions, deps: Deps, instance: string | undefined): Promise<Sandbox> {
  const { startSandbox } = await import('../../sandbox/server.js');
  const { StateFileError } = await import('../../sandbox/persist.js');
  try {
    return await startSandbox({
      pid: deps.host.pid,
      port: opts.port ?? 0,
      seed: opts.seed ?? 1,
      settleAfterMs: opts.settleAfter ?? 3000,
      rateLimit: opts.rateLimit ?? 0,
      // A state file that cannot be written is said on stderr (the detached child's: its log).
      warn: (message) => deps.log.warn(message),
      ...(instance !== undefined && { instance }),
      ...(opts.apiKey !== undefined && { apiKey: opts.apiKey }),
      ...(opts.state !== undefined && { stateFile: opts.state }),
      ...(opts.webhookUrl !== undefined && { webhookUrl: opts.webhookUrl }),
      ...(opts.webhookSecret !== undefined && { webhookSecret: opts.webhookSecret }),
      ...(opts.listShape !== undefined && { listShape: opts.listShape }),
      ...(opts.errorShape !== undefined && { errorShape: opts.errorShape }),
      ...(opts.kycStatus !== undefined && { kycStatus: opts.kycStatus }),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new UsageError(`Port ${opts.port} is already in use.`, [], 'Pick another with --port N, or --port 0 for a free one.');
    }
    if (code === 'EACCES') throw new UsageError(`Not allowed to listen on port ${opts.port}.`, [], 'Use a port above 1023.');
    // A state file that cannot be loaded is refused as it is, not as a mistyped command (no pointer to --help).
    if (err instanceof StateFileError) throw new RefusedError(err.message);
    if (err instanceof RangeError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * The detached child claims the config folder's record, exclusively: when another start's
 * sandbox holds it and runs, this one refuses (exit 2, before it saves any profile; the caller
 * closes it, so nothing is left running). A stale record (its process gone, or not that
 * sandbox) is removed without touching its process, and the claim tried again; a damaged one
 * is refused like a running one (its sandbox may run).
 */
async function claimFolder(deps: Deps, record: SandboxRecord): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = await claimRecord(deps.env, record);
    if (claim.claimed) return;
    if ('damaged' in claim.holder) throw damagedRecord(deps.env, claim.holder, NOT_STARTED);
    const holder = claim.holder.record;
    if (await recordedSandboxRuns(holder, deps.host, deps.env)) throw alreadyRunning(holder);
    await removeRecord(deps.env, { pid: holder.pid, instance: holder.instance });
  }
  throw new LocalError('Could not claim the sandbox record of this config folder: other starts keep taking it.', 'Try again, or see: payctl sandbox status');
}

/** The sandbox in this process until Ctrl-C; as the detached child (DETACHED_ENV), with its record. */
async function startForeground(opts: StartOptions, deps: Deps): Promise<number> {
  const detachedChild = deps.env[DETACHED_ENV] === '1';
  // One sandbox a config folder: one in the foreground beside a detached one took over both
  // profiles, and when it stopped they pointed at nothing (the detached one's left unreachable).
  // A damaged record: its sandbox may run, holding the port and the profiles (damaged-record.ts).
  const found = detachedChild ? undefined : await findRecord(deps.env);
  if (found && 'damaged' in found) throw damagedRecord(deps.env, found, NOT_STARTED);
  const running = found?.record;
  if (running && (await recordedSandboxRuns(running, deps.host, deps.env))) throw alreadyRunning(running);
  const instance = detachedChild ? newInstance() : undefined;
  const sandbox = await listen(opts, deps, instance);
  const pid = deps.host.pid;
  let claimed = false;
  try {
    const shown = { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, webhookSecret: sandbox.webhookSecret, port: sandbox.port, pid };
    const record: SandboxRecord | undefined = instance === undefined ? undefined : { ...shown, startedAt: deps.clock.now().toISOString(), instance, starting: true };
    if (record) {
      await claimFolder(deps, record);
      claimed = true;
    }
    await saveSandboxProfile(deps.config(), shown);
    // Finished: the parent waits for this one, and then reads the profile saved above.
    if (record) await writeRecord(deps.env, { ...record, starting: false });
    await show(deps, shown);
    sayHowToUse(deps, sandbox);
    if (!detachedChild) deps.log.info('Press Ctrl-C to stop.');
    await untilAborted(deps.signal);
  } finally {
    await sandbox.close();
    if (claimed) await removeRecord(deps.env, { pid, instance: instance! });
  }
  deps.log.info('Sandbox stopped.');
  // In the foreground, Ctrl-C is an interruption (130) like any other; the detached child
  // ends normally (0) when `sandbox stop` asks it to.
  return detachedChild ? 0 : ExitCode.interrupted;
}
