/**
 * `payctl config unset <key>`: removes a setting. A key that was not set is said to be (no
 * tick: nothing changed, exit 0); a profile that does not exist is an error naming those
 * there are (exit 2). The base URL of a profile that holds a key is not removed (exit 2): the
 * key stays with its base URL until `payctl logout` removes it.
 */
import { write, type Deps } from '../../deps.js';
import { removeSetting, visibleSetting } from '../../config/settings.js';
import { noSuchProfile } from '../../config/known-profiles.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { checkKeyKeepsBaseUrl } from '../../config/resolve.js';
import { refuseBaseUrlFlag } from './base-url-flag.js';

export async function run(opts: { key: string }, deps: Deps): Promise<number> {
  const inv = invocationOf(deps.globals, deps.env);
  refuseBaseUrlFlag('unset', opts.key, { flag: deps.globals.baseUrl, env: deps.env, profileChosen: deps.globals.profileChosen }, undefined, inv, () => deps.config());
  const store = deps.config();
  const name = deps.globals.profile;
  const profile = store.getProfile(name);
  // The key first: `config unset api-key` says what removes it, whatever the profile.
  removeSetting(profile ?? {}, opts.key, inv);
  if (!profile) throw noSuchProfile(name, store.profileNames(), 'no settings to remove', commandLine(inv, ['login']));
  const wasSet = visibleSetting(profile, opts.key) !== undefined;
  // Made from the profile as it is when it is written: another route set meanwhile stays.
  // Read under the file's lock: a key a login stored meanwhile is not left without its base URL.
  if (wasSet)
    await store.updateProfile(name, (current) => {
      if (opts.key === 'base-url') checkKeyKeepsBaseUrl(name, store.getProfile(name, { readSecrets: false }), commandLine(inv, ['logout']));
      return removeSetting(current, opts.key, inv);
    });
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify({ profile: name, key: opts.key, set: false, was_set: wasSet }) + '\n');
  else if (wasSet) deps.log.success(`Unset ${opts.key} in profile "${name}".`);
  else deps.log.info(`${opts.key} was not set in profile "${name}": nothing changed.`);
  return 0;
}
