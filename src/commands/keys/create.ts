/** `payctl keys create`: makes this person's signing key and prints its public half. */
import { write, type Deps } from '../../deps.js';
import { configDir } from '../../config/paths.js';
import { createSigningKey } from '../../plans/keys.js';
import { keyCard } from './show.js';

export interface KeysCreateOptions {
  name?: string;
}

export async function run(opts: KeysCreateOptions, deps: Deps): Promise<number> {
  const dir = configDir(deps.env);
  const name = opts.name ?? deps.env.USER ?? deps.env.LOGNAME ?? 'payctl user';
  const key = createSigningKey(dir, name, deps.env, deps.clock.now());
  await write(deps.io.stdout, keyCard(key, deps.globals.json));
  if (!deps.globals.json) deps.log.success(`Signing key made for ${key.name}; the private half stays in ${dir} (mode 0600).`);
  return 0;
}
