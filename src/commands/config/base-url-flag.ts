/**
 * `config set` and `config unset` change a profile's settings, and `--base-url` chooses no profile
 * (probe 56-K finding 6: `config set policy FILE --base-url URL` ignored the flag without a word
 * and made a `default` profile holding only the policy). Several profiles may have one base URL
 * (the keys of two accounts), so none is picked by it: the flag is refused (exit 2, nothing
 * saved), with `--profile` to use instead, one command per profile of that base URL (none there:
 * one per profile, and the login that makes one there, each runnable: noProfileAt). So is
 * PAYCTL_BASE_URL when no profile is chosen, without PAYCTL_API_KEY, and `default` does not exist or is at another base URL (probe K57
 * finding 5); printed `config set`/`unset` commands leave --base-url out (config/command-line.ts).
 */
import { UsageError } from '../../errors.js';
import { commandLine, commandTemplate, fileOperand, type Invocation } from '../../config/command-line.js';
import { DEFAULT_PROFILE, isProfileName } from '../../config/known-profiles.js';
import { checkBaseUrl } from '../../config/resolve.js';
import { freeProfileName } from '../../api/session.js';
import { trimKey } from '../../config/api-key.js';
import { maskBaseUrl } from '../../config/mask.js';
import type { ConfigStore } from '../../config/store.js';
import { journalBase } from '../../payouts/journal.js';
import { text } from '../../output/text.js';

/** Where the run's base URL came from, and whether it chose its profile (--profile, PAYCTL_PROFILE). */
export interface BaseUrlGiven {
  /** The --base-url flag's value, undefined when not given. */
  flag: string | undefined;
  env: NodeJS.ProcessEnv;
  profileChosen: boolean;
}

/**
 * Refuses --base-url given to `config <verb> <key>`; and PAYCTL_BASE_URL when no profile was
 * chosen, no PAYCTL_API_KEY is set, and `default` does not exist or is at another base URL (probe K57 finding 5: the change went into a new
 * `default` profile, exit 0). `value`: the value typed (set), printed back for a policy's path or a
 * base URL, never for a setting that may be secret.
 */
export function refuseBaseUrlFlag(verb: 'set' | 'unset', key: string, given: BaseUrlGiven, value: string | undefined, inv: Invocation, store: () => ConfigStore): void {
  const fromEnv = given.flag === undefined;
  const baseUrl = given.flag ?? given.env.PAYCTL_BASE_URL?.trim();
  // With PAYCTL_API_KEY too, a run without --profile goes by `default` (its policy, its routes): a change there is the one it reads.
  if (!baseUrl || (fromEnv && (given.profileChosen || trimKey(given.env.PAYCTL_API_KEY) || defaultAt(baseUrl, store)))) return;
  const at = profilesAt(baseUrl, store);
  const timeout = inv.timeout !== undefined ? { timeout: inv.timeout } : {};
  const shown = value !== undefined && key === 'policy' ? fileOperand(value) : value !== undefined && key === 'base-url' ? value : undefined;
  const typed = (profile: string) =>
    verb === 'unset'
      ? commandLine(timeout, ['config', 'unset'], [key, '--profile', profile])
      : shown !== undefined
        ? commandLine(timeout, ['config', 'set', key], [shown, '--profile', profile])
        : commandTemplate(timeout, ['config', 'set', key], key === 'policy' ? '<path>' : key === 'base-url' ? 'URL' : '<value>', ['--profile', profile]);
  const hint = [
    at.length
      ? `Name the profile with --profile instead; the profiles with that base URL:\n${at.map((n) => `  ${typed(n)}`).join('\n')}`
      : noProfileAt(baseUrl, typed, inv, store),
    key !== 'base-url' && verb === 'set' ? "To change a profile's base URL itself, run config set base-url with the new URL and that profile's --profile." : '',
  ].filter(Boolean);
  const what = fromEnv ? `PAYCTL_BASE_URL (${text(maskBaseUrl(baseUrl))})` : '--base-url';
  const where = fromEnv ? `; without --profile this run would change profile "default", which does not exist or is at another base URL` : ': it is not taken';
  throw new UsageError(
    `config ${verb} changes a profile's settings, and ${what} chooses no profile (several profiles may have one base URL)${where}. Nothing was saved.`,
    [
      {
        field: fromEnv ? '' : '--base-url',
        message: `not taken by config ${verb}`,
        text: `${fromEnv ? 'PAYCTL_BASE_URL' : '--base-url'} is not taken by config ${verb}`,
      },
    ],
    hint.join('\n'),
  );
}

/**
 * Where no profile has `baseUrl` (probe R58a finding 5: "--profile NAME" was printed as if it
 * ran): each existing profile's command, and the login that makes one at that URL under a free
 * name (api/session.ts freeProfileName), then its command; each runs as printed.
 */
function noProfileAt(baseUrl: string, typed: (profile: string) => string, inv: Invocation, store: () => ConfigStore): string {
  let names: string[] = [];
  let free: string | undefined;
  try {
    const s = store();
    names = s.profileNames().filter(isProfileName);
    free = freeProfileName(checkBaseUrl(baseUrl), s);
  } catch {
    // The config unread, or a base URL that does not parse: said in prose.
  }
  const others = names.length
    ? `No profile has that base URL. Name a profile with --profile instead; the profiles there are (at other base URLs):\n${names.map((n) => `  ${typed(n)}`).join('\n')}\n`
    : '';
  const login = free === undefined ? undefined : commandLine({ profile: free, baseUrl, ...(inv.timeout !== undefined ? { timeout: inv.timeout } : {}) }, ['login']);
  return login
    ? `${others}To make a profile with that base URL, log one in, then name it:\n  ${login}\n  ${typed(free!)}`
    : `${others}To make a profile with that base URL, log one in with payctl login, its --base-url and a --profile name of your choosing, then name that profile with --profile.`;
}

/** Whether profile `default` exists, at `baseUrl` or at none (then PAYCTL_BASE_URL agrees with the profile a run without --profile changes). */
function defaultAt(baseUrl: string, store: () => ConfigStore): boolean {
  try {
    const s = store();
    if (!s.profileNames().includes(DEFAULT_PROFILE)) return false;
    const url = s.getProfile(DEFAULT_PROFILE, { readSecrets: false })?.baseUrl;
    return url === undefined || journalBase(url) === journalBase(baseUrl);
  } catch {
    return false;
  }
}

/** The profiles whose base URL is `baseUrl` (none when the config cannot be read). */
function profilesAt(baseUrl: string, store: () => ConfigStore): string[] {
  try {
    const s = store();
    return s.profileNames().filter((n) => {
      const url = s.getProfile(n, { readSecrets: false })?.baseUrl;
      return url !== undefined && journalBase(url) === journalBase(baseUrl);
    });
  } catch {
    return [];
  }
}
