/** `payctl config set <key> <value>`: checked before it is saved. */
import { write, type Deps } from '../../deps.js';
import { applySetting } from '../../config/keys.js';
import { loadPolicy } from '../../plans/policy.js';
import { commandLine, invocationOf } from '../../output/command-line.js';

export async function run(opts: { key: string; value: string }, deps: Deps): Promise<number> {
  const store = deps.config();
  const name = deps.globals.profile;
  const inv = invocationOf(deps.globals, deps.env);
  const patch = applySetting(store.getProfile(name) ?? {}, opts.key, opts.value, { login: commandLine(inv, ['login']), logout: commandLine(inv, ['logout']) });
  // A policy that cannot be read or met is refused now, not at the first payout.
  if (patch.policy !== undefined) loadPolicy(patch.policy);
  await store.updateProfile(name, patch);
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify({ profile: name, key: opts.key, set: true }) + '\n');
  else deps.log.success(`Set ${opts.key} in profile "${name}".`);
  return 0;
}
