/**
 * `payctl status`: profile, base URL, key (masked), token expiry, and a live check of
 * the credentials. Exit 3 when not authenticated, 4 when the service cannot be reached.
 */
import { write, type Deps } from '../deps.js';
import { CliError } from '../errors.js';
import { callCredentials, resolveSettings, type Setting } from '../config/resolve.js';
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
  // What the client will use (config/resolve.ts), not merely what the profile holds.
  const c = callCredentials(s, profile, s.baseUrl.value);
  const style = makeStyle(deps.io.color);

  let live: { ok: true; wallets: number } | { ok: false; error: unknown };
  try {
    const api = await deps.api();
    live = { ok: true, wallets: (await api.wallets()).wallets.length };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    live = { ok: false, error };
  }
  // A token may have been renewed by the live check (and saved, when it belongs to the profile).
  const after = deps.config().getProfile(globals.profile);
  const profileToken = c.token.source === 'profile' || c.saveTokens;
  const expiry = profileToken ? after?.tokenExpiresAt : undefined;
  const tokenSource = c.token.source === 'env' ? 'env' : profileToken && after?.token ? 'profile' : 'none';

  if (globals.json) {
    await write(
      deps.io.stdout,
      JSON.stringify({
        profile: globals.profile,
        base_url: s.baseUrl.value ?? null,
        api_key: c.apiKey.value ? maskSecret(c.apiKey.value) : null,
        api_key_source: c.apiKey.source,
        token_source: tokenSource,
        token_expires_at: expiry ?? null,
        authenticated: live.ok,
      }) + '\n',
    );
  } else {
    const pairs: Array<[string, string]> = [
      ['Profile', globals.profile],
      ['Base URL', (s.baseUrl.value ?? style.dim('not set')) + from(s.baseUrl)],
      [
        'API key',
        c.apiKey.value ? maskSecret(c.apiKey.value) + from(c.apiKey) : c.withheld ? style.dim("the profile's is not sent to this base URL") : style.dim('not set'),
      ],
      [
        'Token',
        tokenSource === 'env' ? 'PAYCTL_TOKEN (used as is)' : tokenSource === 'none' ? style.dim('none') : expiry ? `valid until ${utcTime(expiry)}` : 'no expiry given',
      ],
      ['Credentials', live.ok ? style.green(`valid (${live.wallets} wallet${live.wallets === 1 ? '' : 's'})`) : style.red('not valid')],
    ];
    await write(deps.io.stdout, renderCard(pairs, style));
  }
  if (!live.ok) throw live.error;
  return 0;
}
