/** `payctl config get <key>`: one setting (secrets masked); exit 1 when it is not set. */
import { write, type Deps } from '../../deps.js';
import { visibleSetting } from '../../config/keys.js';

export async function run(opts: { key: string }, deps: Deps): Promise<number> {
  const value = visibleSetting(deps.config().getProfile(deps.globals.profile) ?? {}, opts.key);
  if (deps.globals.json) {
    await write(deps.io.stdout, JSON.stringify({ key: opts.key, value: value ?? null }) + '\n');
  } else if (value !== undefined) {
    await write(deps.io.stdout, value + '\n');
  } else {
    deps.log.info(`${opts.key} is not set in profile "${deps.globals.profile}".`);
  }
  return value === undefined ? 1 : 0;
}
