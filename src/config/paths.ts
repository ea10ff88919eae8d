import { chmodSync, mkdirSync, statSync } from 'node:fs';
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

/** Ensures the config folder exists with mode 0700 (created that way; tightened if it is ours and looser). */
export function ensureConfigDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const st = statSync(dir);
    if ((st.mode & 0o077) !== 0 && typeof process.getuid === 'function' && st.uid === process.getuid()) {
      chmodSync(dir, 0o700);
    }
  } catch {
    // The folder is there; a failed tightening is not fatal.
  }
}
