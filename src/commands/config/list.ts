/** `payctl config list`: the profile's settings, secrets masked. */
import { write, type Deps } from '../../deps.js';
import { visibleSettings } from '../../config/settings.js';
import { renderCard } from '../../output/text.js';
import { makeStyle } from '../../output/style.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { commandLine, invocationOf } from '../../config/command-line.js';

export async function run(_opts: object, deps: Deps): Promise<number> {
  const store = deps.config();
  const name = deps.globals.profile;
  const settings = visibleSettings(store.getProfile(name) ?? {});
  if (deps.globals.json) {
    await write(deps.io.stdout, JSON.stringify({ profile: name, profiles: store.profileNames(), settings: Object.fromEntries(settings) }) + '\n');
    return 0;
  }
  const style = makeStyle(deps.io.color);
  if (settings.length === 0) deps.log.info(`Profile "${name}" has no settings. Run \`${commandLine(invocationOf(deps.globals, deps.env), ['login'])}\` to set it up.`);
  else
    await write(
      deps.io.stdout,
      renderCard(
        settings.map(([k, v]) => [k, sanitizeInline(v)]),
        style,
      ),
    );
  const others = store.profileNames().filter((p) => p !== name);
  if (others.length) deps.log.info(style.dim(`Profile "${name}". Other profiles: ${others.join(', ')} (use --profile NAME).`));
  return 0;
}
