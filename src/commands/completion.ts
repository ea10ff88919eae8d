/**
 * `payctl completion <shell>`: prints the completion script generated from the command
 * tree (the same bytes as completions/). `payctl __complete-profiles` (hidden): the
 * profile names, one a line, for the scripts to offer after -p/--profile.
 */
import type { Command } from 'commander';
import { write, type Deps } from '../deps.js';
import { fieldProblem, UsageError } from '../errors.js';
import { visibleWord } from '../words.js';
import { isProfileName } from '../config/known-profiles.js';
import { SHELLS, generateCompletion, isShell } from '../completion/index.js';

export interface CompletionOptions {
  shell: string;
  /** The command tree, built afresh by the program (so the script never depends on argv). */
  tree: () => Command;
}

export async function run(opts: CompletionOptions, deps: Deps): Promise<number> {
  // A script for a shell, never JSON: refused, not printed as text under --json (probe C53, 7).
  if (deps.globals.json) {
    throw new UsageError(
      'Cannot use --json with completion: a completion script is shell code, not JSON.',
      [fieldProblem('--json', 'cannot be used with completion: it prints a shell script')],
      'Leave out --json; `payctl completion --help` shows where to put the script.',
    );
  }
  if (!isShell(opts.shell)) throw new UsageError(`Unknown shell "${visibleWord(opts.shell)}".`, [], `Shells: ${SHELLS.join(', ')}.`);
  await write(deps.io.stdout, generateCompletion(opts.shell, opts.tree()));
  return 0;
}

/**
 * Called on every Tab after --profile: quiet and never failing (nothing when the store
 * cannot be read). Only names --profile takes: one edited into the config file with an escape
 * sequence or a line break in it would reach the terminal, or the shell's list, as it is.
 */
export async function runProfiles(_opts: object, deps: Deps): Promise<number> {
  let names: string[];
  try {
    names = deps.config().profileNames().filter(isProfileName);
  } catch {
    return 0;
  }
  if (names.length) await write(deps.io.stdout, names.map((n) => `${n}\n`).join(''));
  return 0;
}
