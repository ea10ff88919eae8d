/**
 * Profiles by name: a name that is no profile is a usage error (exit 2) naming the profiles
 * there are and the closest of them, never "nothing to do" or "not logged in" (a typo in
 * --profile or PAYCTL_PROFILE would otherwise look like success, or send people to log in
 * under the typo). The store raises `unknownProfile` when a profile is read by such a name
 * (store.ts, getProfile), which is every command that reads one. Login, which makes profiles,
 * reads with `mayBeNew`; logout (and config get and unset of a default profile not made yet)
 * say what they could not do with `noSuchProfile`; a command that needs no login (plan approve)
 * says so instead of offering one, `unknownProfileNoLogin`.
 */
import { UsageError } from '../errors.js';
import { loginCommand } from './command-line.js';
import { closestWords, visibleWord } from '../words.js';

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Names of JavaScript's object machinery, not data: never a key of the config file's profiles. */
export const RESERVED_PROFILE_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
export const PROFILE_NAME_RULE = 'A profile name has letters, digits, _ . - (at most 64, starting with a letter or digit; not __proto__, constructor or prototype)';

/** A name --profile and login take (the rule above): one a config file edited by hand may not keep. */
export function isProfileName(name: string): boolean {
  return PROFILE_NAME.test(name) && !RESERVED_PROFILE_NAMES.has(name);
}

/**
 * Profile names read from the config file as printed: a name no --profile takes (an escape
 * sequence or an invisible character edited into the file) with them written out
 * (`x\u001b]0;…`, visibleWord), never sent raw to the terminal, nor cut to another name.
 */
export function shownProfiles(names: readonly string[]): string {
  return names.map(visibleWord).join(', ');
}

/**
 * The names of `names` --profile takes, as offered to choose from ("Known profiles: ..."): a name
 * it refuses (`has space`, `-flag`, edited into config.json) is not a choice; see unusableProfiles.
 */
export function usableProfiles(names: readonly string[]): string[] {
  return names.filter(isProfileName);
}

/**
 * " Not usable until renamed in config.json (--profile refuses these names): -flag, has space."
 * for the names of `names` --profile refuses (written out as shownProfiles does), else ''.
 */
export function unusableProfiles(names: readonly string[]): string {
  const bad = names.filter((n) => !isProfileName(n));
  return bad.length ? ` Not usable until renamed in config.json (--profile refuses these names): ${shownProfiles(bad)}.` : '';
}

/** "Known profiles: a, b." with the unusable ones apart; `none` when --profile takes none of them. */
function knownList(known: readonly string[]): string {
  const usable = usableProfiles(known);
  return `Known profiles: ${usable.length ? shownProfiles(usable) : 'none that --profile takes'}.${unusableProfiles(known)}`;
}

/** The profile a bare command uses: read before it exists (not logged in yet), never unknown. */
export const DEFAULT_PROFILE = 'default';

/**
 * The known names `name` is most likely a slip for (a letter missed, added, changed or two
 * swapped; letter case ignored), by commander's rule (words.ts). Empty when none is close.
 */
export function closestProfiles(name: string, known: readonly string[]): string[] {
  // Only names --profile takes: a suggestion is run as printed.
  return closestWords(name.toLowerCase(), known.filter(isProfileName), (k) => k.toLowerCase());
}

function orList(names: readonly string[]): string {
  const shown = names.map(visibleWord);
  return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)!}`;
}

/** " Did you mean sandbox?" when a known name is close, else ''. */
function didYouMean(name: string, known: readonly string[]): string {
  const close = closestProfiles(name, known);
  return close.length ? ` Did you mean ${orList(close)}?` : '';
}

/** A profile chosen by name that does not exist (exit 2). */
export class UnknownProfile extends UsageError {
  readonly profile: string;
  readonly known: readonly string[];
  /** The name is PAYCTL_PROFILE's. */
  readonly fromEnv: boolean;
  constructor(message: string, hint: string, profile: string, known: readonly string[], fromEnv = false) {
    // Named by --profile: --json names the flag (field); PAYCTL_PROFILE's is of no flag.
    super(message, [], hint, fromEnv ? undefined : { field: '--profile', message, text: message });
    this.profile = profile;
    this.known = known;
    this.fromEnv = fromEnv;
  }
}

/**
 * The error for reading profile `name`, which is not among `known` (the names in the config
 * file). `fromEnv`: the name is PAYCTL_PROFILE's, which the hint then says how to change.
 * Creating the profile (`payctl login --profile NAME`, the only command that makes one) is
 * offered only when no known name is close: a typo is not something to log in as. It carries
 * the run's --timeout (`timeout`: set when not the default), as every printed command does.
 */
export function unknownProfile(name: string, known: readonly string[], fromEnv: boolean, timeout?: string): UnknownProfile {
  const create = loginCommand(name, timeout);
  if (!known.length) {
    return new UnknownProfile(
      `No profile "${name}": there are no profiles yet.`,
      `Create it by logging in: ${create}` + (fromEnv ? ` (it comes from PAYCTL_PROFILE; unset it to use the default profile).` : ''),
      name,
      known,
      fromEnv,
    );
  }
  const close = closestProfiles(name, known);
  const message = `No profile "${name}". ${knownList(known)}${didYouMean(name, known)}`;
  const pick = fromEnv
    ? `PAYCTL_PROFILE is "${name}" in this environment: ${close.length ? `export PAYCTL_PROFILE=${close[0]!}` : 'set it to one of them'}, or unset it to use the default profile.`
    : close.length
      ? `Run it again with --profile ${close[0]!}.`
      : 'Pick one with --profile NAME.';
  const hint = close.length ? pick : `${pick} To create profile "${name}", log in to it: ${create}`;
  return new UnknownProfile(message, hint, name, known, fromEnv);
}

/**
 * The same error for a command that needs no login (`plan approve`: a signing key signs, and
 * the profile only brings a policy and a ledger), whose hint never sends the person to log in:
 * that asks for an API key an approver may not have, to make a profile signing does not need.
 * `why` says what the command needs instead.
 */
export function unknownProfileNoLogin(err: UnknownProfile, why: string): UnknownProfile {
  const close = closestProfiles(err.profile, err.known);
  const hint = err.fromEnv
    ? `PAYCTL_PROFILE is "${err.profile}" in this environment: unset it${close.length ? ` (or export PAYCTL_PROFILE=${close[0]!})` : ''}. ${why}`
    : `Run it again without --profile${close.length ? ` (or with --profile ${close[0]!})` : ''}. ${why}`;
  return new UnknownProfile(err.message, hint, err.profile, err.known, err.fromEnv);
}

/**
 * The error of a command that acts on an existing profile (logout): `what` says what could
 * not be done ("nothing to log out of"); `login` is the command that would create it.
 */
export function noSuchProfile(name: string, known: readonly string[], what: string, login: string): UsageError {
  const close = closestProfiles(name, known);
  return new UsageError(
    `There is no profile "${name}": ${what}.`,
    [],
    known.length
      ? `${knownList(known)}${didYouMean(name, known)} Pick one with --profile NAME${close.length ? '.' : `, or run \`${login}\` to create this one.`}`
      : `There are no profiles yet. Run \`${login}\` to create one.`,
  );
}
