/** `payctl config set <key> <value>`: checked before it is saved. */
import { write, type Deps } from '../../deps.js';
import { applySetting } from '../../config/keys.js';

export async function run(opts: { key: string; value: string }, deps: Deps): Promise<number> {
  const store = deps.config();
  const name = deps.globals.profile;
  const patch = applySetting(store.getProfile(name) ?? {}, opts.key, opts.value);
  await store.updateProfile(name, patch);
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify({ profile: name, key: opts.key, set: true }) + '\n');
  else deps.log.success(`Set ${opts.key} in profile "${name}".`);
  return 0;
}
