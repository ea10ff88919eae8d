/**
 * `payctl sandbox start [--port N] [--detach] …`: runs the sandbox (the documented service
 * on localhost, docs/service.md) in the foreground
 * until Ctrl-C (or SIGTERM; exit 130), or with --detach in a background process recorded in the
 * config folder. Either way it writes profile `sandbox` (and makes it the default profile
 * on a machine with no other: config/sandbox-profile.ts), prints the base URL, the API key
 * and the webhook secret on stdout (one JSON object with --json), and says on stderr how to
 * use the profile: by name, for the shell (PAYCTL_PROFILE), and bare when it is the default.
 *
 * The API key and webhook secret come from --api-key / --webhook-secret (with a
 * warning: they show in `ps`), else PAYCTL_SANDBOX_API_KEY / PAYCTL_SANDBOX_WEBHOOK_SECRET,
 * else a random key / whsec_sandbox. The detached child gets them through its
 * environment, never on its command line, and gets only the variables it needs (not
 * PAYCTL_API_KEY, proxies or anything else of the shell that started it).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExitCode, LocalError, UsageError } from '../../errors.js';
import { untilAborted, write, type Deps } from '../../deps.js';
import { configDir, ensureConfigDir } from '../../config/paths.js';
import { checkBaseUrl } from '../../config/resolve.js';
import { DEFAULT_PROFILE } from '../../config/known-profiles.js';
import { SANDBOX_PROFILE, defaultFollowsSandbox, saveSandboxProfile } from '../../config/sandbox-profile.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import type { ErrorShape, ListShape } from '../../sandbox/shapes.js';
import {
  API_KEY_ENV,
  DETACHED_ENV,
  WEBHOOK_SECRET_ENV,
  logPath,
  readRecord,
  recordedSandboxRuns,
  removeRecord,
  writeRecord,
  type SandboxRecord,
} from '../../sandbox/record.js';

export interface StartOptions {
  port?: number;
  detach?: boolean;
  apiKey?: string;
  seed?: number;
  state?: string;
  settleAfter?: number;
  listShape?: ListShape;
  errorShape?: ErrorShape;
  kycStatus?: string;
  webhookUrl?: string;
  webhookSecret?: string;
  rateLimit?: number;
}

const READY_TIMEOUT_MS = 10_000;

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
  return opts.detach ? startDetached(resolved, deps) : startForeground(resolved, deps);
}

interface Shown {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  port: number;
  pid: number;
}

async function show(deps: Deps, s: Shown): Promise<void> {
  if (deps.globals.json) {
    await write(deps.io.stdout, JSON.stringify({ base_url: s.baseUrl, api_key: s.apiKey, webhook_secret: s.webhookSecret, port: s.port, pid: s.pid }) + '\n');
    return;
  }
  await write(deps.io.stdout, `Sandbox running at ${s.baseUrl}\nAPI key: ${s.apiKey}\nWebhook secret: ${s.webhookSecret}\n`);
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
function sayHowToUse(deps: Deps, s: { baseUrl: string; apiKey: string }): void {
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

async function startForeground(opts: StartOptions, deps: Deps): Promise<number> {
  const detachedChild = deps.env[DETACHED_ENV] === '1';
  const { startSandbox } = await import('../../sandbox/server.js');
  const { StateFileError } = await import('../../sandbox/persist.js');
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      pid: deps.host.pid,
      port: opts.port ?? 0,
      seed: opts.seed ?? 1,
      settleAfterMs: opts.settleAfter ?? 3000,
      rateLimit: opts.rateLimit ?? 0,
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
    if (err instanceof StateFileError || err instanceof RangeError) throw new UsageError(err.message);
    throw err;
  }

  try {
    await saveSandboxProfile(deps.config(), { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, webhookSecret: sandbox.webhookSecret });
    const pid = deps.host.pid;
    if (detachedChild) {
      await writeRecord(deps.env, {
        pid,
        port: sandbox.port,
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.apiKey,
        webhookSecret: sandbox.webhookSecret,
        startedAt: deps.clock.now().toISOString(),
      });
    }
    await show(deps, { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, webhookSecret: sandbox.webhookSecret, port: sandbox.port, pid });
    sayHowToUse(deps, sandbox);
    if (!detachedChild) deps.log.info('Press Ctrl-C to stop.');
    await untilAborted(deps.signal);
  } finally {
    await sandbox.close();
    if (detachedChild) await removeRecord(deps.env, deps.host.pid);
  }
  deps.log.info('Sandbox stopped.');
  // In the foreground, Ctrl-C is an interruption (130) like any other; the detached child
  // ends normally (0) when `sandbox stop` asks it to.
  return detachedChild ? 0 : ExitCode.interrupted;
}

/** bin/payctl.js of this package: found upwards from this module (a dist chunk, or src/… under tests). */
function binPath(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'bin', 'payctl.js');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error('cannot find bin/payctl.js above ' + fileURLToPath(import.meta.url));
  }
}

/** The child's command line: no secret (see childEnv). */
function childArgs(opts: StartOptions): string[] {
  const args = ['sandbox', 'start', '--port', String(opts.port ?? 0)];
  if (opts.seed !== undefined) args.push('--seed', String(opts.seed));
  if (opts.settleAfter !== undefined) args.push('--settle-after', String(opts.settleAfter));
  if (opts.rateLimit !== undefined) args.push('--rate-limit', String(opts.rateLimit));
  if (opts.listShape !== undefined) args.push('--list-shape', opts.listShape);
  if (opts.errorShape !== undefined) args.push('--error-shape', opts.errorShape);
  if (opts.kycStatus !== undefined) args.push('--kyc-status', opts.kycStatus);
  if (opts.state !== undefined) args.push('--state', opts.state);
  if (opts.webhookUrl !== undefined) args.push('--webhook-url', opts.webhookUrl);
  return args;
}

/**
 * What the detached child keeps of this environment: finding node and the user (PATH,
 * HOME, USER), the config folder and the code cache, the OS keyring's session (the
 * sandbox profile may keep its key there), temp files, locale and time zone, and Windows'
 * own. Nothing else: the child outlives the shell, and PAYCTL_API_KEY, tokens and proxies
 * have no business in a process that anyone who can read its environment may read.
 */
const CHILD_ENV = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'TMP',
  'TEMP',
  'TZ',
  'LANG',
  'LANGUAGE',
  'PAYCTL_CONFIG_DIR',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
  'DBUS_SESSION_BUS_ADDRESS',
  'SYSTEMROOT',
  'WINDIR',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'COMSPEC',
  'PATHEXT',
]);

/** The child's environment: only CHILD_ENV and LC_* of ours, and the secrets (readable only by this user). */
function childEnv(opts: StartOptions, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    // Windows names its variables in any case (Path, SystemRoot).
    if (v !== undefined && (CHILD_ENV.has(k.toUpperCase()) || k.startsWith('LC_'))) out[k] = v;
  }
  out[DETACHED_ENV] = '1';
  out.NO_COLOR = '1';
  if (opts.apiKey !== undefined) out[API_KEY_ENV] = opts.apiKey;
  if (opts.webhookSecret !== undefined) out[WEBHOOK_SECRET_ENV] = opts.webhookSecret;
  return out;
}

function logTail(file: string): string {
  try {
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    return lines.slice(-8).join('\n');
  } catch {
    return '';
  }
}

async function startDetached(opts: StartOptions, deps: Deps): Promise<number> {
  const existing = await readRecord(deps.env);
  if (existing) {
    if (await recordedSandboxRuns(existing, deps.host)) {
      throw new UsageError(`A sandbox is already running at ${existing.baseUrl} (pid ${existing.pid}).`, [], 'Stop it first with: payctl sandbox stop');
    }
    await removeRecord(deps.env, existing.pid);
  }
  ensureConfigDir(configDir(deps.env));
  const log = logPath(deps.env);
  const fd = openSync(log, 'w', 0o600);
  let child;
  try {
    child = spawn(deps.host.execPath, [binPath(), ...childArgs(opts)], {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: childEnv(opts, deps.env),
    });
  } finally {
    closeSync(fd);
  }
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  child.on('exit', (code, signal) => (exited = { code, signal }));
  child.on('error', (err) => (spawnError = err));
  child.unref();

  const deadline = Date.now() + READY_TIMEOUT_MS;
  let record: SandboxRecord | undefined;
  while (!record) {
    if (spawnError) throw new LocalError(`Could not start the background sandbox: ${spawnError.message}`);
    if (exited) {
      const tail = logTail(log);
      throw new LocalError(
        `The background sandbox exited before it was ready (${exited.signal ?? `exit code ${exited.code}`}).` + (tail ? `\n${tail}` : ''),
        `Its log is in ${log}.`,
      );
    }
    if (deps.signal.aborted || Date.now() > deadline) {
      if (child.pid) {
        try {
          deps.host.kill(child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      if (deps.signal.aborted) throw new UsageError('Interrupted before the sandbox was ready; it was stopped.');
      throw new LocalError(`The background sandbox did not report ready within ${READY_TIMEOUT_MS / 1000} s; it was stopped.`, `Its log is in ${log}.`);
    }
    await new Promise((r) => setTimeout(r, 50));
    const r = await readRecord(deps.env);
    if (r && r.pid === child.pid) record = r;
  }
  await show(deps, { baseUrl: record.baseUrl, apiKey: record.apiKey, webhookSecret: record.webhookSecret, port: record.port, pid: record.pid });
  // The child saved the profiles before it wrote its record.
  sayHowToUse(deps, record);
  deps.log.info(`Running in the background (pid ${record.pid}). Stop it with: payctl sandbox stop`);
  return 0;
}
