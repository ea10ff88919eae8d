/** `payctl config path`: where the config file is. */
import { write, type Deps } from '../../deps.js';

export async function run(_opts: object, deps: Deps): Promise<number> {
  await write(deps.io.stdout, deps.config().path + '\n');
  return 0;
}
