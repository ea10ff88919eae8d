/**
 * A profile a command acts on that must already exist (logout, config get, config unset):
 * one that does not is a usage error naming the profiles there are, never "nothing to do"
 * (a typo in --profile would otherwise look like success).
 */
import { UsageError } from '../errors.js';

/**
 * The error for profile `name`, which is not among `known`: `what` says what could not be
 * done ("nothing to log out of"); `login` is the command that would create it.
 */
export function noSuchProfile(name: string, known: readonly string[], what: string, login: string): UsageError {
  return new UsageError(
    `There is no profile "${name}": ${what}.`,
    [],
    known.length
      ? `Known profiles: ${known.join(', ')}. Pick one with --profile NAME, or run \`${login}\` to create this one.`
      : `There are no profiles yet. Run \`${login}\` to create one.`,
  );
}
