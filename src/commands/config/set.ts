/**
 * `payctl config set <key> <value>`: checked before it is saved. A policy file (README "Four
 * eyes") is read and checked first: a file that cannot be read or is not a valid policy is
 * not set, the message says so and why, and the profile keeps the policy it had.
 */
import { write, type Deps } from '../../deps.js';
import { ConfigError } from '../../errors.js';
import { applySetting } from '../../config/settings.js';
import { examinePolicy } from '../../plans/policy.js';
import { commandLine, invocationOf } from '../../config/command-line.js';

export async function run(opts: { key: string; value: string }, deps: Deps): Promise<number> {
  const store = deps.config();
  const name = deps.globals.profile;
  const inv = invocationOf(deps.globals, deps.env);
  const before = store.getProfile(name, { readSecrets: false });
  const patch = applySetting(store.getProfile(name) ?? {}, opts.key, opts.value, { login: commandLine(inv, ['login']), logout: commandLine(inv, ['logout']) });
  // A policy that cannot be read or met is refused now, not at the first payout.
  if (patch.policy !== undefined) {
    const checked = examinePolicy(patch.policy);
    if (!checked.policy) {
      const kept = before?.policy ? `it keeps its policy ${before.policy}` : 'it still has no policy';
      const why =
        checked.unreadable !== undefined
          ? `cannot read ${patch.policy}: ${checked.unreadable}`
          : `${patch.policy} is not a valid policy:\n  ${checked.problems.join('\n  ')}`;
      throw new ConfigError(
        `The policy was not set in profile "${name}" (${kept}): ${why}`,
        `Fix the file and run again: ${commandLine(inv, ['config', 'set', 'policy'], [patch.policy])}`,
      );
    }
  }
  await store.updateProfile(name, patch);
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify({ profile: name, key: opts.key, set: true }) + '\n');
  else deps.log.success(`Set ${opts.key} in profile "${name}".`);
  return 0;
}
