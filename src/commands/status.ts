/**
 * `payctl status`: profile, base URL, key (masked), and a live check with GET /auth/user that
 * shows whose the key is. The check tells the service apart from the key: unreachable (exit 4)
 * is not refused (exit 3), and neither is a service that failed (exit 1) or no key at all
 * (exit 3, "not logged in"). A profile whose payouts are journaled in a team's PostgreSQL ledger
 * gets a line for it, its password masked, without connecting (`payctl ledger status` checks it).
 */
import { write, type Deps } from '../deps.js';
import { ApiError, AuthError, CliError, InterruptedError, NetworkError } from '../errors.js';
import { callCredentials, resolveSettings, type Setting } from '../config/resolve.js';
import type { AuthUser } from '../service/schemas.js';
import { accountJson, accountPairs, kycWarning } from '../output/account.js';
import { maskBaseUrl, maskSecret } from '../config/mask.js';
import { renderCard } from '../output/text.js';
import type { Style } from '../output/style.js';
import { makeStyle } from '../output/style.js';
import { ledgerSource, resolveLedger } from '../config/ledger-setting.js';
import { text } from '../output/text.js';

function from(s: Setting<string>): string {
  return s.source === 'flag' ? ' (from --base-url)' : s.source === 'env' ? ' (from the environment)' : '';
}

/** What the live check found out: about the service, and about the credentials. */
type Service = 'reachable' | 'unreachable' | 'failed' | 'not_checked';
type Credentials = 'valid' | 'refused' | 'missing' | 'not_checked';
interface Live {
  service: Service;
  credentials: Credentials;
  user?: AuthUser;
  error?: CliError;
}

/**
 * Sorts a failed live check: no credentials, refused credentials, no answer, or a failing
 * service. `sendable`: there was a base URL and a key to send.
 */
function liveFailure(error: CliError, sendable: boolean): Live {
  if (error instanceof NetworkError) return { service: 'unreachable', credentials: 'not_checked', error };
  if (error instanceof AuthError) {
    // Nothing to send (no base URL, no key, or the profile's withheld): nothing was asked of the service.
    if (!sendable) return { service: 'not_checked', credentials: 'missing', error };
    return { service: 'reachable', credentials: 'refused', error };
  }
  if (error instanceof ApiError) return { service: 'failed', credentials: 'not_checked', error };
  return { service: 'not_checked', credentials: 'not_checked', error };
}

export async function run(_opts: object, deps: Deps): Promise<number> {
  const { globals, env } = deps;
  const profile = deps.config().getProfile(globals.profile);
  const s = resolveSettings(globals, env, profile);
  // What the client will use (config/resolve.ts), not merely what the profile holds. A key that
  // cannot be sent is shown (masked) before the client refuses it, exit 2: nothing is sent.
  const c = callCredentials(s, profile, s.baseUrl.value, { check: false });
  const style = makeStyle(deps.io.color);
  const ledger = sharedLedger(env, profile, style);

  let live: Live;
  try {
    const api = await deps.api();
    live = { service: 'reachable', credentials: 'valid', user: (await api.authUser()).user };
  } catch (error) {
    if (!(error instanceof CliError) || error instanceof InterruptedError) throw error;
    live = liveFailure(error, !!s.baseUrl.value && !!c.apiKey.value);
  }

  if (globals.json) {
    await write(
      deps.io.stdout,
      JSON.stringify({
        profile: globals.profile,
        base_url: s.baseUrl.value === undefined ? null : maskBaseUrl(s.baseUrl.value),
        api_key: c.apiKey.value ? maskSecret(c.apiKey.value) : null,
        api_key_source: c.apiKey.source,
        service: live.service,
        credentials: live.credentials,
        // Unknown (null) when the check could not tell: an unreachable or failing service says nothing about the key.
        authenticated: live.credentials === 'valid' ? true : live.credentials === 'not_checked' ? null : false,
        account: live.user ? accountJson(live.user) : null,
        ...(ledger ? { ledger: ledger.json } : {}),
      }) + '\n',
    );
  } else {
    const pairs: Array<[string, string]> = [
      ['Profile', globals.profile],
      ['Base URL', (s.baseUrl.value === undefined ? style.dim('not set') : maskBaseUrl(s.baseUrl.value)) + from(s.baseUrl)],
      [
        'API key',
        c.apiKey.value ? maskSecret(c.apiKey.value) + from(c.apiKey) : c.withheld ? style.dim("the profile's is not sent to this base URL") : style.dim('not set'),
      ],
      ['Service', serviceLine(live, style)],
      ['Credentials', credentialsLine(live, style, c.withheld ? withheldFrom(profile?.baseUrl) : undefined)],
      ...(live.user ? accountPairs(live.user, style) : []),
      ...(ledger ? [['Ledger', ledger.line] as [string, string]] : []),
    ];
    await write(deps.io.stdout, renderCard(pairs, style));
  }
  const kyc = live.user && kycWarning(live.user);
  if (kyc) deps.log.warn(kyc);
  if (live.error) throw live.error;
  return 0;
}

/** The profile's shared ledger as status shows it (never connected to here); undefined for the local one. */
function sharedLedger(env: NodeJS.ProcessEnv, profile: { ledger?: string } | undefined, style: Style): { line: string; json: object } | undefined {
  try {
    const s = resolveLedger(env, profile);
    if (s.backend === 'local') return undefined;
    return {
      line: `${text(s.masked)}${ledgerSource(s)} ${style.dim('(PostgreSQL, not checked here: payctl ledger status)')}`,
      json: { backend: 'postgresql', url: s.masked, source: s.source },
    };
  } catch (err) {
    // A ledger setting that is no ledger: said here, refused by the commands that journal.
    const message = (err as Error).message;
    return { line: style.red(text(message)), json: { backend: null, error: message } };
  }
}

function serviceLine(live: Live, style: Style): string {
  switch (live.service) {
    case 'reachable':
      return style.green('reachable');
    case 'unreachable':
      return style.red('unreachable');
    case 'failed': {
      const status = live.error instanceof ApiError && live.error.status !== undefined ? ` (HTTP ${live.error.status})` : '';
      return style.red(`answered with an error${status}`);
    }
    default:
      return style.dim('not checked');
  }
}

/** Why the profile's key was not sent to this base URL: the one it is for (masked), or none. */
function withheldFrom(profileBaseUrl: string | undefined): string {
  return profileBaseUrl ? `the profile's key is for ${maskBaseUrl(profileBaseUrl)}, not this base URL` : "the profile's key was saved without a base URL";
}

/** The Credentials line; `withheld`: why the profile's key was not sent here (session.ts refuses the call, its hint the login that works). */
function credentialsLine(live: Live, style: Style, withheld: string | undefined): string {
  switch (live.credentials) {
    case 'valid':
      return style.green('valid');
    case 'refused':
      // A 403 is not a wrong key but one the service does not allow this: said so, not "unauthorized".
      return style.red(live.error instanceof AuthError && live.error.status === 403 ? 'not allowed for this key (HTTP 403 forbidden)' : 'refused by the service');
    case 'missing':
      // A profile logged in to another base URL is not "not logged in": its key is kept from this one.
      return style.red(withheld ? `not sent: ${withheld}` : 'none (not logged in)');
    default:
      return style.dim(live.service === 'unreachable' ? 'not checked: the service could not be reached' : 'not checked');
  }
}
