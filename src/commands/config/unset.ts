/** `payctl config unset <key>`. */
import { write, type Deps } from '../../deps.js';
import { removeSetting } from '../../config/keys.js';

export async function run(opts: { key: string }, deps: Deps): Promise<number> {
  const store = deps.config();
  const name = deps.globals.profile;
  const profile = store.getProfile(name);
  const patch = removeSetting(profile ?? {}, opts.key);
  if (profile) await store.updateProfile(name, patch);
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify({ profile: name, key: opts.key, set: false }) + '\n');
  else deps.log.success(`Unset ${opts.key} in profile "${name}".`);
  return 0;
}
