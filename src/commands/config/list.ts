/**
 * `payctl config list`: the profile's settings, secrets masked. A profile that does not exist is
 * an error naming those there are (exit 2), as for `config get`; but where there is no profile
 * at all (before the first login) it says so and how to log in (exit 0), as `gh config list`
 * works on a fresh install. While PAYCTL_API_KEY is set, api-key is that key (the one every
 * command sends), marked so, with the profile's stored key beside it. Other profiles' names are
 * printed visibly escaped, and names no --profile takes (edited into the file) are warned of.
 */
import { write, type Deps } from '../../deps.js';
import { envKeyShown, profileToShow, visibleSettings } from '../../config/settings.js';
import { renderCard } from '../../output/text.js';
import { makeStyle } from '../../output/style.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { isProfileName, noSuchProfile, PROFILE_NAME_RULE, shownProfiles, usableProfiles } from '../../config/known-profiles.js';

export async function run(_opts: object, deps: Deps): Promise<number> {
  const name = deps.globals.profile;
  const { store, profile, keyUnreachable } = profileToShow(() => deps.config(), name);
  const login = commandLine(invocationOf(deps.globals, deps.env), ['login']);
  if (!profile) {
    const known = store.profileNames();
    if (known.length) throw noSuchProfile(name, known, 'no settings to list', login);
    if (deps.globals.json) await write(deps.io.stdout, JSON.stringify({ profile: name, profiles: [], settings: {} }) + '\n');
    else deps.log.info(`There are no profiles yet. Run \`${login}\` to set one up.`);
    return 0;
  }
  const settings = visibleSettings(profile);
  // The key kept in a keyring that cannot be reached: every other setting still shown, and why not the key.
  const unreachable = keyUnreachable?.said;
  // While PAYCTL_API_KEY is set, every command sends it: shown as the api-key, marked, with the stored one beside it.
  const fromEnv = envKeyShown(deps.env, profile, keyUnreachable?.said);
  const keyAt = settings.findIndex(([k]) => k === 'api-key');
  if (fromEnv)
    settings.splice(keyAt >= 0 ? keyAt : settings[0]?.[0] === 'base-url' ? 1 : 0, keyAt >= 0 ? 1 : 0, ['api-key', deps.globals.json ? fromEnv.value : fromEnv.text]);
  if (deps.globals.json) {
    const extra = {
      ...(unreachable ? { api_key_unreachable: keyUnreachable.reason } : {}),
      ...(fromEnv ? { api_key_source: 'env', api_key_stored: fromEnv.stored ?? null } : {}),
    };
    await write(deps.io.stdout, JSON.stringify({ profile: name, profiles: store.profileNames(), settings: Object.fromEntries(settings), ...extra }) + '\n');
    return 0;
  }
  if (unreachable && !fromEnv) settings.splice(settings[0]?.[0] === 'base-url' ? 1 : 0, 0, ['api-key', unreachable]);
  const style = makeStyle(deps.io.color);
  if (settings.length === 0) deps.log.info(`Profile "${name}" has no settings. Run \`${login}\` to set it up.`);
  else
    await write(
      deps.io.stdout,
      renderCard(
        settings.map(([k, v]) => [k, sanitizeInline(v)]),
        style,
      ),
    );
  const others = store.profileNames().filter((p) => p !== name);
  // Only names --profile takes are offered; the others are warned of below, to be renamed.
  const usable = usableProfiles(others);
  if (usable.length) deps.log.info(style.dim(`Profile "${name}". Other profiles: ${shownProfiles(usable)} (use --profile NAME).`));
  const invalid = others.filter((p) => !isProfileName(p));
  if (invalid.length) {
    deps.log.warn(`The config file ${store.path} has profile names no --profile takes: ${shownProfiles(invalid)}. ${PROFILE_NAME_RULE}: rename or remove them there.`);
  }
  if (keyUnreachable?.hint) deps.log.info(keyUnreachable.hint);
  return 0;
}
