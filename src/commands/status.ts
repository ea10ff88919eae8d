/**
 * `payctl status`: profile, base URL, key (masked), token expiry, and a live check of
 * the credentials. Exit 3 when not authenticated, 4 when the service cannot be reached.
 */
import { write, type Deps } from '../deps.js';
import { CliError } from '../errors.js';
import { resolveSettings, type Setting } from '../config/resolve.js';
import { maskSecret } from '../config/mask.js';
import { renderCard, utcTime } from '../output/text.js';
import { makeStyle } from '../output/style.js';

function from(s: Setting<string>): string {
  return s.source === 'flag' ? ' (from --base-url)' : s.source === 'env' ? ' (from the environment)' : '';
}

export async function run(_opts: object, deps: Deps): Promise<number> {
  const { globals, env } = deps;
  const profile = deps.config().getProfile(globals.profile);
  const s = resolveSettings(globals, env, profile);
  const style = makeStyle(deps.io.color);

  let live: { ok: true; wallets: number } | { ok: false; error: unknown };
  try {
    const api = await deps.api();
    live = { ok: true, wallets: (await api.wallets()).wallets.length };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    live = { ok: false, error };
  }
  // A token may have been renewed by the live check.
  const after = deps.config().getProfile(globals.profile);
  const expiry = s.token.source === 'env' ? undefined : after?.tokenExpiresAt;

  if (globals.json) {
    await write(
      deps.io.stdout,
      JSON.stringify({
        profile: globals.profile,
        base_url: s.baseUrl.value ?? null,
        api_key: s.apiKey.value ? maskSecret(s.apiKey.value) : null,
        api_key_source: s.apiKey.source,
        token_source: s.token.source === 'none' && after?.token ? 'profile' : s.token.source,
        token_expires_at: expiry ?? null,
        authenticated: live.ok,
      }) + '\n',
    );
  } else {
    const pairs: Array<[string, string]> = [
      ['Profile', globals.profile],
      ['Base URL', (s.baseUrl.value ?? style.dim('not set')) + from(s.baseUrl)],
      ['API key', s.apiKey.value ? maskSecret(s.apiKey.value) + from(s.apiKey) : style.dim('not set')],
      ['Token', s.token.source === 'env' ? 'PAYCTL_TOKEN (used as is)' : expiry ? `valid until ${utcTime(expiry)}` : after?.token ? 'no expiry given' : style.dim('none')],
      ['Credentials', live.ok ? style.green(`valid (${live.wallets} wallet${live.wallets === 1 ? '' : 's'})`) : style.red('not valid')],
    ];
    await write(deps.io.stdout, renderCard(pairs, style));
  }
  if (!live.ok) throw live.error;
  return 0;
}
