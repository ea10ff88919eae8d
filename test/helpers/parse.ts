/**
 * The parser tier (docs/architecture.md, "Tests": argv -> options), after gh's `NewCmdX(f, runF)` tests:
 * the real command tree from `buildProgram`, with a Runner that records what the command
 * module would have been given (`{ ...cmd.opts(), ...args }`, as cli.ts's runner builds it)
 * instead of loading and running it. Commander is set up as main does it (exitOverride and
 * configureOutput on every command), so a usage error comes back as the CommanderError
 * plus exactly what a user would have seen on stderr.
 */
import { CommanderError, type Command } from 'commander';
import { allCommands, buildProgram, globalsFrom, splitShortFlags, type Action, type Runner } from '../../src/program.js';
import type { GlobalOptions } from '../../src/config/globals.js';

/** One run the tree asked for: the leaf command, its options merged with its arguments. */
export interface Parsed {
  /** 'payout create', 'config set', ... (the command's names below the program). */
  path: string;
  cmd: Command;
  /** What the command module's run(opts, deps) would get. */
  opts: Record<string, unknown>;
  /** The extra arguments the action handed to the runner (positionals, completion's tree). */
  args: Record<string, unknown>;
  /** The loader the action gave the runner (not called here). */
  load: () => Promise<{ run: Action<unknown> }>;
  /** The global options as main reads them (explicit env, never the test process's). */
  globals(env?: NodeJS.ProcessEnv): GlobalOptions;
  /** Every option value of the command and its ancestors (--no-color lands here as color). */
  withGlobals: Record<string, unknown>;
}

/** A parse commander refused (or answered itself: help, version). */
export interface Refused {
  error: CommanderError;
  /** commander's code, e.g. 'commander.unknownOption'. */
  code: string;
  /** Everything written to stderr: the message and the help hint, as a user sees them. */
  stderr: string;
  /** Everything written to stdout (help and version go there). */
  stdout: string;
  /** The error line alone, without commander's 'error: ' prefix (what main keeps for --json). */
  message: string;
}

/** Names of a command below the program: 'payout create'. */
export function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Every command path of the tree, nested and hidden ones included. */
export function commandPaths(): string[] {
  return allCommands(buildProgram(async () => {})).map(pathOf);
}

/** Commands whose run was captured by `parse` in this test file (for the coverage check). */
export const covered = new Set<string>();

interface Outcome {
  runs: Parsed[];
  stdout: string;
  stderr: string;
  message: string;
  error?: unknown;
}

/** `partial`: the tree built as main builds it, only what argv can reach (program.ts reachOf); else the whole tree. */
async function attempt(argv: string[], partial = false): Promise<Outcome> {
  const runs: Parsed[] = [];
  const runner: Runner = async <O>(cmd: Command, load: () => Promise<{ run: Action<O> }>, args: Record<string, unknown> = {}) => {
    runs.push({
      path: pathOf(cmd),
      cmd,
      opts: { ...cmd.opts(), ...args },
      args,
      load: load as unknown as Parsed['load'],
      globals: (env = {}) => globalsFrom(cmd, env),
      withGlobals: cmd.optsWithGlobals(),
    });
  };
  const out = { stdout: '', stderr: '', message: '' };
  const program = buildProgram(runner, partial ? argv : undefined);
  // As main (src/cli.ts) sets it up.
  program.exitOverride();
  program.configureOutput({
    writeOut: (s) => void (out.stdout += s),
    writeErr: (s) => void (out.stderr += s),
    outputError: (s) => {
      out.message = s.replace(/^error: /, '').trim();
      out.stderr += s;
    },
  });
  for (const sub of allCommands(program)) sub.exitOverride().configureOutput(program.configureOutput());
  try {
    await program.parseAsync(splitShortFlags(program, argv), { from: 'user' });
    return { runs, ...out };
  } catch (error) {
    return { runs, ...out, error };
  }
}

/** What a parse came to, comparably: output, error code and message, and the runs asked for (path and options). */
export async function outcomeOf(argv: string[], partial: boolean): Promise<Record<string, unknown>> {
  const o = await attempt(argv, partial);
  return {
    stdout: o.stdout,
    stderr: o.stderr,
    message: o.message,
    code: o.error instanceof CommanderError ? o.error.code : o.error === undefined ? undefined : o.error instanceof Error ? o.error.message : JSON.stringify(o.error),
    // The completion's tree (a function building the whole tree afresh) compared by the command paths it gives.
    runs: o.runs.map((r) => ({
      path: r.path,
      opts: typeof r.opts.tree === 'function' ? { ...r.opts, tree: allCommands((r.opts.tree as () => Command)()).map(pathOf) } : r.opts,
      withGlobals: r.withGlobals,
    })),
  };
}

/** Parses argv (as typed after `payctl`) and returns the one run it asked for; fails otherwise. */
export async function parse(...argv: string[]): Promise<Parsed> {
  const o = await attempt(argv);
  if (o.error !== undefined) {
    throw new Error(`payctl ${argv.join(' ')} was refused: ${o.error instanceof Error ? o.error.message : JSON.stringify(o.error)}\n${o.stderr}`);
  }
  if (o.runs.length !== 1) throw new Error(`payctl ${argv.join(' ')} ran ${o.runs.length} commands, expected 1`);
  if (o.stdout !== '' || o.stderr !== '') throw new Error(`payctl ${argv.join(' ')} wrote while parsing:\n${o.stdout}${o.stderr}`);
  const run = o.runs[0]!;
  covered.add(run.path);
  return run;
}

/** Parses argv expecting commander to refuse it (or to answer it itself); nothing must run. */
export async function refuse(...argv: string[]): Promise<Refused> {
  const o = await attempt(argv);
  if (!(o.error instanceof CommanderError)) {
    throw new Error(
      o.error === undefined
        ? `payctl ${argv.join(' ')} was accepted (ran ${o.runs.map((r) => r.path).join(', ') || 'nothing'})`
        : `payctl ${argv.join(' ')} threw a non-commander error: ${JSON.stringify(o.error)}`,
    );
  }
  if (o.runs.length !== 0) throw new Error(`payctl ${argv.join(' ')} ran ${o.runs[0]!.path} before failing`);
  return { error: o.error, code: o.error.code, stderr: o.stderr, stdout: o.stdout, message: o.message };
}

/** The hint commander prints after every usage error (program.showHelpAfterError). */
export const HELP_HINT = '(run `payctl --help` for usage)';
