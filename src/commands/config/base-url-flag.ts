/**
 * `config set` and `config unset` change a profile's settings, and `--base-url` chooses no profile
 * (probe 56-K finding 6: `config set policy FILE --base-url URL` ignored the flag without a word
 * and made a `default` profile holding only the policy). Several profiles may have one base URL
 * (the keys of two accounts), so none is picked by it: the flag is refused (exit 2, nothing
 * saved), with `--profile` to use instead and the profiles of that base URL. PAYCTL_BASE_URL is
 * not refused (it is the environment of every run, not typed for this one); printed `config
 * set`/`unset` commands leave --base-url out (config/command-line.ts).
 */
import { UsageError } from '../../errors.js';
import { commandLine, commandTemplate, type Invocation } from '../../config/command-line.js';
import type { ConfigStore } from '../../config/store.js';
import { journalBase } from '../../payouts/journal.js';
import { text } from '../../output/text.js';

/** Refuses --base-url given to `config <verb> <key>` (`baseUrl`: the flag's value, undefined when not given). */
export function refuseBaseUrlFlag(verb: 'set' | 'unset', key: string, baseUrl: string | undefined, inv: Invocation, store: () => ConfigStore): void {
  if (baseUrl === undefined) return;
  const at = profilesAt(baseUrl, store);
  const timeout = inv.timeout !== undefined ? { timeout: inv.timeout } : {};
  const typed =
    verb === 'set'
      ? commandTemplate(timeout, ['config', 'set', key], key === 'policy' ? '<path>' : key === 'base-url' ? 'URL' : '<value>', ['--profile', 'NAME'])
      : commandLine(timeout, ['config', 'unset'], [key, '--profile', 'NAME']);
  const hint = [
    `Name the profile with --profile instead: ${typed}`,
    at.length ? `Profiles with that base URL: ${at.map((n) => text(n)).join(', ')}.` : '',
    key !== 'base-url' && verb === 'set' ? "To change a profile's base URL itself: payctl config set base-url URL --profile NAME" : '',
  ].filter(Boolean);
  throw new UsageError(
    `config ${verb} changes a profile's settings, and --base-url chooses no profile (several profiles may have one base URL): it is not taken. Nothing was saved.`,
    [{ field: '--base-url', message: 'not taken by config ' + verb, text: `--base-url is not taken by config ${verb}` }],
    hint.join('\n'),
  );
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
