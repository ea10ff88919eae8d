/** `payctl logout`: removes the API key and token from the profile (base URL and settings stay). */
import { write, type Deps } from '../deps.js';

export async function run(_opts: object, deps: Deps): Promise<number> {
  const store = deps.config();
  const name = deps.globals.profile;
  const profile = store.getProfile(name);
  const had = !!(profile?.apiKey || profile?.token);
  if (profile) await store.updateProfile(name, { apiKey: undefined, token: undefined, tokenExpiresAt: undefined });
  if (deps.globals.json) {
    await write(deps.io.stdout, JSON.stringify({ profile: name, logged_out: had }) + '\n');
  } else if (had) {
    deps.log.success(`Logged out of profile "${name}": API key and token removed.`);
  } else {
    deps.log.info(`Profile "${name}" was not logged in.`);
  }
  if (deps.env.PAYCTL_API_KEY || deps.env.PAYCTL_TOKEN) {
    deps.log.warn('PAYCTL_API_KEY or PAYCTL_TOKEN is still set in the environment and will be used.');
  }
  return 0;
}
