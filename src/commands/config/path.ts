/** `payctl config path`: where the config file is. */
import { write, type Deps } from '../../deps.js';

export async function run(_opts: object, deps: Deps): Promise<number> {
  const path = deps.config().path;
  await write(deps.io.stdout, deps.globals.json ? JSON.stringify({ path }) + '\n' : path + '\n');
  return 0;
}
