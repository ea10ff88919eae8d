/**
 * The entry: builds Deps from the process, runs the command tree (program.ts), and turns
 * errors into exit codes. Command modules are imported only when their command runs.
 */
import { CommanderError, type Command } from 'commander';
import { CliError, ExitCode, OutputError, exitCodeOf } from './errors.js';
import { allCommands, buildProgram, globalsFrom, splitShortFlags, version, type Action, type Runner } from './program.js';
import type { Deps, GlobalOptions, IO } from './deps.js';
import { fstatSync, writeSync } from 'node:fs';
import { flushed, ioFrom } from './output/io.js';
import { logOf } from './output/log.js';
import { certainlyNotTerminal, directStdout } from './output/direct-stdout.js';
import type { ConfigStore } from './config/store.js';
import type { ApiClient } from './api/client.js';
import type { Prompter } from './output/prompter.js';
import { maskedStream, SecretMask, withoutOptionValues } from './output/secrets.js';
import { systemClock, type Clock } from './clock.js';
import type { Host } from './host.js';
import type { Style } from './output/style.js';
import { runningAs } from './config/paths.js';
import { ledgerSecrets } from './config/ledger-setting.js';

export interface Process {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  on(event: 'SIGINT' | 'SIGTERM', fn: () => void): unknown;
  off(event: 'SIGINT' | 'SIGTERM', fn: () => void): unknown;
  exit(code: number): never;
  pid: number;
  execPath: string;
  getuid?: () => number;
  kill(pid: number, signal: NodeJS.Signals | 0): unknown;
}

/** A lazy getter that makes its value on first use (a throw is not kept: the next call tries again). */
function once<T>(make: () => T): () => T {
  let box: { value: T } | undefined;
  return () => (box ??= { value: make() }).value;
}

/** What a test may swap in (the in-process tier): the clock and the prompter; and what bin says of the run. */
export interface Seams {
  clock?: Clock;
  prompter?: () => Promise<Prompter>;
  /**
   * The caller ends the process as soon as main resolves (bin/payctl.js): the API clients'
   * keep-alive connections are left to the exit instead of closed one by one first (undici's
   * graceful close held `balances --json` about 2 ms, for sockets the exit closes anyway).
   */
  exits?: boolean;
}

/** Runs payctl with the given process; returns the exit code (only bin calls exit). */
export async function main(proc: Process, seams: Seams = {}): Promise<number> {
  const clock = seams.clock ?? systemClock;
  const host: Host = { pid: proc.pid, uid: proc.getuid?.(), execPath: proc.execPath, kill: (pid, sig) => void proc.kill(pid, sig) };
  runningAs(host.uid);
  const controller = new AbortController();
  let interrupts = 0;
  let sentPayout: (() => boolean) | undefined;
  // Said when a second signal ends the run at once after a payout left (made at the first signal).
  let stopNote: string | undefined;
  let deps: Deps | undefined;
  const argv = proc.argv.slice(2);
  const jsonRequested = argv.includes('--json');
  const onSignal = () => {
    interrupts += 1;
    if (interrupts > 1) {
      // The first lets requests in flight finish and says what they left; this one does not wait:
      // a payout in flight may or may not be made, and nothing said so (it exited silently).
      if (stopNote && sentPayout?.()) proc.stderr.write(stopNote);
      proc.exit(ExitCode.interrupted);
    }
    const run = deps;
    if (run && sentPayout?.()) void import('./config/command-line.js').then((m) => (stopNote = m.secondInterruptNote(run, jsonRequested)));
    controller.abort();
  };
  proc.on('SIGINT', onSignal);
  proc.on('SIGTERM', onSignal);

  const { wantsColor, makeStyle, loadColor } = await import('./output/style.js');
  const mask = new SecretMask();
  let close: (() => Promise<unknown>) | undefined;
  let release: (() => Promise<unknown>) | undefined;
  let exitCode = 0;
  const { stdout, written } = watchedStdout(proc);
  const outputWritten = () => written(sentPayout?.() ?? false, deps);

  const run: Runner = async <O>(cmd: Command, load: () => Promise<{ run: Action<O> }>, args: Record<string, unknown> = {}): Promise<void> => {
    const globals = globalsFrom(cmd, proc.env);
    const colorFlag = cmd.optsWithGlobals<{ color?: boolean }>().color !== false;
    mask.add(proc.env.PAYCTL_API_KEY, proc.env.PAYCTL_TOKEN, proc.env.PAYCTL_WEBHOOK_SECRET, proc.env.PGPASSWORD, ...ledgerSecrets(proc.env.PAYCTL_LEDGER_URL));
    const io = await processIO(proc, stdout, globals, (isTTY) => wantsColor({ flag: colorFlag, json: globals.json, isTTY, env: proc.env }), mask);
    if (io.color || io.stderrColor) await loadColor();
    // Loaded here, not at start-up: --version and --help never pay for conf.
    const { openConfigStore } = await import('./config/store.js');
    const built = buildDeps(proc, io, globals, argv, controller.signal, makeStyle(io.stderrColor), openConfigStore, mask, clock, host, seams.prompter);
    ({ deps, close, release, sentPayout } = built);
    const mod = await load();
    const code = await mod.run({ ...cmd.opts(), ...args } as O, deps);
    exitCode = typeof code === 'number' ? code : 0;
  };

  // Only the commands these words can reach (program.ts, reachOf).
  const program = buildProgram(run, argv);
  program.exitOverride();
  const usage = { said: '', after: '' }; // commander's usage error and the line after it (--json: output/parse-error.ts)
  // commander's own answers, asked only where they would not make process.stdout for nothing:
  // a descriptor that is no terminal has no width, and colours only by the environment.
  const defaults = program.configureOutput();
  const colorEnv = proc.env.NO_COLOR || proc.env.FORCE_COLOR !== undefined || proc.env.CLICOLOR_FORCE !== undefined;
  program.configureOutput({
    // (Typed as a number; commander's own answers undefined off a terminal, as this does.)
    getOutHelpWidth: () => (stdout.isTTY ? defaults.getOutHelpWidth?.() : undefined) as number,
    getOutHasColors: () => (stdout.isTTY || colorEnv ? (defaults.getOutHasColors?.() ?? false) : false),
    writeOut: (s) => void stdout.write(s),
    writeErr: (s) => void (jsonRequested ? (usage.after += s) : proc.stderr.write(s)),
    outputError: (raw) => {
      const s = withoutOptionValues(raw);
      usage.said = s.replace(/^error: /, '').trim();
      if (!jsonRequested) proc.stderr.write(s);
    },
  });
  for (const sub of allCommands(program)) sub.exitOverride().configureOutput(program.configureOutput());

  try {
    await program.parseAsync(splitShortFlags(program, argv), { from: 'user' });
    await outputWritten();
    return exitCode;
  } catch (err) {
    const report = (e: unknown) => reportError(e, proc, { deps, mask, makeStyle, jsonRequested, usage });
    const code = await report(await systemFault(err, sentPayout?.() ?? false, deps));
    // Help and the version are answers too: written in full, or said to be incomplete.
    return code === ExitCode.ok ? outputWritten().then(() => code, report) : code;
  } finally {
    proc.off('SIGINT', onSignal);
    proc.off('SIGTERM', onSignal);
    // Closed even when the process exits next: a shared ledger's connections end with a goodbye, not a dropped socket.
    await release?.();
    if (!seams.exits) await close?.();
  }
}

/**
 * The run's streams (output/io.ts): every known secret masked in everything written, in every
 * mode (output/secrets.ts). Whether stdin and stderr are terminals is read without node:tty
 * where fstat already says (isTerminal).
 */
async function processIO(proc: Process, stdout: Process['stdout'], globals: GlobalOptions, wantsColor: (isTTY: boolean) => boolean, mask: SecretMask): Promise<IO> {
  return ioFrom(
    // Node makes process.stdin (and loads its stream modules) when it is first read, a few
    // ms that most commands never need: the terminal check does not make it. The same for
    // process.stderr (a pipe's stream is a socket), which `balances --json` never writes, and
    // for process.stdout (processStdout).
    proc === process
      ? {
          get stdin() {
            return proc.stdin;
          },
          stdinIsTTY: await isTerminal(0),
          stdout,
          get stderr() {
            return proc.stderr;
          },
          stderrIsTTY: await isTerminal(2),
        }
      : proc,
    globals,
    wantsColor,
    (s) => maskedStream(s, mask),
  );
}

/**
 * isatty(fd), without node:tty where fstat already says the descriptor is no terminal (a pipe,
 * a file, /dev/null): node:tty brings node:net, 3-4 ms that `balances --json | jq` need not pay.
 */
async function isTerminal(fd: number): Promise<boolean> {
  if (knownNoTerminal(fd)) return false;
  const { isatty } = await import('node:tty');
  return isatty(fd);
}

/** Whether fstat says the descriptor is no terminal; false when it may be one, or cannot be read (isatty then says). */
function knownNoTerminal(fd: number): boolean {
  try {
    return certainlyNotTerminal(fstatSync(fd), process.platform);
  } catch {
    return false;
  }
}

/**
 * The run's stdout, and `written`: resolves once stdout has taken what was written, or throws
 * an OutputError when it refused any of it (a full disk, an I/O error). A reader that went away
 * (EPIPE) is no error: bin/payctl.js ends that run quietly, as in any pipeline.
 */
function watchedStdout(proc: Process): { stdout: Process['stdout']; written: (sentPayout: boolean, deps: Deps | undefined) => Promise<void> } {
  let fault: NodeJS.ErrnoException | undefined;
  const note = (err: NodeJS.ErrnoException): void => {
    if (err.code !== 'EPIPE') fault ??= err;
  };
  // Written straight to the descriptor only, stdout has nothing pending and nothing to report
  // (a refused direct write makes the stream, which reports it): no wait at the end of the run.
  let streamed = proc !== process;
  const stdout = proc === process ? processStdout(note, () => (streamed = true)) : proc.stdout;
  if (proc !== process) proc.stdout.on('error', note);
  const written = async (sentPayout: boolean, deps: Deps | undefined): Promise<void> => {
    // What a write met reaches `note` by the stream's error event.
    if (streamed) await flushed(stdout);
    if (!fault) return;
    const { fsFault } = await import('./config/fs-fault.js');
    throw new OutputError(`The output could not be written: ${fsFault(fault)}; what was printed is incomplete.`, {
      sentPayouts: sentPayout,
      hint: await faultHint(sentPayout, deps, 'Free the space, or write the output elsewhere, and run the same command again.'),
    });
  };
  return { stdout, written };
}

/** After a local fault: where the payouts sent are, or that nothing was sent and `then` (command-line.ts). */
async function faultHint(sentPayout: boolean, deps: Deps | undefined, then: string): Promise<string> {
  return (await import('./config/command-line.js')).faultHint(sentPayout, deps, then);
}

/** What a system call failed to do, in words: "write", "make the folder", "list". */
const SYSCALL_WORDS: Record<string, string> = {
  scandir: 'list',
  lstat: 'look at',
  stat: 'look at',
  fstat: 'look at',
  unlink: 'remove',
  mkdir: 'make the folder',
  rmdir: 'remove',
  fsync: 'write',
  realpath: 'find',
};

/**
 * A file-system error no command put in words (a folder removed while a command ran, a file
 * made read-only): said as what it is ("Cannot open /x/y: permission denied (EACCES)"), never
 * as a bug in payctl. As for output stdout refused: exit 4 when the run sent a payout (how it
 * ended was not seen), else 1. Anything else is returned as it is.
 */
async function systemFault(err: unknown, sentPayout: boolean, deps: Deps | undefined): Promise<unknown> {
  const e = err as NodeJS.ErrnoException;
  if (err instanceof CliError || !(err instanceof Error) || typeof e.syscall !== 'string' || !/^E[A-Z0-9]+$/.test(e.code ?? '')) return err;
  const { fsFault } = await import('./config/fs-fault.js');
  const what = `${SYSCALL_WORDS[e.syscall] ?? e.syscall}${e.path ? ` ${e.path}` : ''}`;
  return new OutputError(`Cannot ${what}: ${fsFault(err)}.`, {
    sentPayouts: sentPayout,
    hint: await faultHint(sentPayout, deps, 'Fix that, and run the same command again.'),
  });
}

/**
 * The process's stdout, written directly to descriptor 1 for its first kilobytes when that is
 * certainly no terminal, its stream made only when needed (output/direct-stdout.ts). Not on
 * Windows, where Node's pipes are synchronous already.
 */
function processStdout(onError: (err: NodeJS.ErrnoException) => void, onStream: () => void): Process['stdout'] {
  return directStdout({
    onError,
    // A closed stdout is not written directly: the stream reports it, as before.
    direct: process.platform !== 'win32' && knownNoTerminal(1),
    writeSync: (buf, offset, length) => writeSync(1, buf, offset, length),
    stream: () => {
      onStream();
      return process.stdout;
    },
    defer: (fn) => process.nextTick(fn),
  });
}

/**
 * A run's error, written for a person (or as JSON with --json) on stderr, secrets masked; the
 * exit code. commander's own usage errors were already printed by commander (unless --json).
 * The renderers are loaded here, not at start-up: a run that succeeds renders no error.
 */
async function reportError(
  err: unknown,
  proc: Process,
  o: { deps: Deps | undefined; mask: SecretMask; makeStyle: (color: boolean) => Style; jsonRequested: boolean; usage: { said: string; after: string } },
): Promise<number> {
  const { renderErrorJson, renderErrorText, parseUsageError } = await import('./output/error-report.js');
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
      return ExitCode.ok;
    }
    if (err.code === 'commander.executeSubCommandAsync') return ExitCode.failed;
    if (o.jsonRequested) proc.stderr.write(renderErrorJson(parseUsageError(o.usage.said || err.message, o.usage.after)));
    return ExitCode.usage;
  }
  const style = o.makeStyle(o.deps?.io.stderrColor ?? false);
  const json = o.deps?.globals.json ?? o.jsonRequested;
  proc.stderr.write(o.mask.apply(json ? renderErrorJson(err) : renderErrorText(err, style, o.deps?.globals.verbose ?? false)));
  return exitCodeOf(err);
}

function buildDeps(
  proc: Process,
  io: IO,
  globals: GlobalOptions,
  argv: readonly string[],
  signal: AbortSignal,
  style: Style,
  openConfigStore: (env: NodeJS.ProcessEnv, opts: { host: Host; timeoutMs: number }) => ConfigStore,
  mask: SecretMask,
  clock: Clock,
  host: Host,
  prompter?: () => Promise<Prompter>,
): { deps: Deps; close: () => Promise<unknown>; release: () => Promise<unknown>; sentPayout: () => boolean } {
  const log = logOf(io, globals, style);
  const clients: ApiClient[] = [];
  const owned: Array<{ close(): Promise<void> }> = [];
  const session = {
    globals,
    env: proc.env,
    signal,
    clock,
    verbose: globals.verbose ? (line: string) => log.verbose(line) : undefined,
    userAgent: `payctl/${version()} node/${process.versions.node}`,
    onSecret: (secret: string) => mask.add(secret),
    warn: (line: string) => log.warn(line),
  };
  const deps: Deps = {
    io,
    env: proc.env,
    globals,
    argv,
    clock,
    host,
    signal,
    log,
    config: once((): ConfigStore => {
      const store = openConfigStore(proc.env, { host, timeoutMs: globals.timeoutMs });
      // Every profile's secrets the config file holds, read with it (the others' keys in the
      // keyring are not: a round trip each); then the run's profile, its key from the keyring too.
      for (const name of store.profileNames()) {
        const p = store.getProfile(name, { readSecrets: false });
        mask.add(p?.apiKey, p?.webhookSecret, ...ledgerSecrets(p?.ledger));
      }
      try {
        const p = store.getProfile(globals.profile);
        mask.add(p?.apiKey, p?.webhookSecret, ...ledgerSecrets(p?.ledger));
      } catch {
        // A keyring that cannot be reached now: commands that need the secrets say so when
        // they read them; the others (config set, sandbox start) go on.
      }
      return store;
    }),
    api: once(async (): Promise<ApiClient> => {
      const { createApiClient } = await import('./api/session.js');
      const client = createApiClient({ ...session, store: deps.config() });
      clients.push(client);
      return client;
    }),
    apiWith: async (target) => {
      const { createKeyClient } = await import('./api/session.js');
      const client = createKeyClient(session, target);
      clients.push(client);
      return client;
    },
    resources: { closeAtEnd: (resource) => void owned.push(resource) },
    prompter: once(async (): Promise<Prompter> => {
      if (prompter) return prompter();
      const { createPrompter } = await import('./output/prompter.js');
      // Prompts talk to the terminal itself (inquirer's readline needs the real stream); they echo no secret.
      return createPrompter({ ...io, stdout: proc.stdout }, signal);
    }),
  };
  return {
    deps,
    close: () => Promise.all(clients.map((c) => c.close())),
    sentPayout: () => clients.some((c) => c.sentPayout),
    // Last opened, first closed; a close that fails changes nothing of the run's outcome.
    release: () =>
      Promise.allSettled(
        owned
          .splice(0)
          .reverse()
          .map((r) => r.close()),
      ),
  };
}
