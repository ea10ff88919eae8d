import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The config folder: PAYCTL_CONFIG_DIR, else $XDG_CONFIG_HOME/payctl, else ~/.config/payctl.
 * The profile store, the payout journal and the detached sandbox's record live here.
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.PAYCTL_CONFIG_DIR) return env.PAYCTL_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'payctl');
  return join(env.HOME || homedir(), '.config', 'payctl');
}
