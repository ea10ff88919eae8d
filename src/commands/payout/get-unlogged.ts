/**
 * `payctl payout get <id>` run without credentials (the run's profile not logged in: no base URL,
 * no API key; probe 53-H finding 3: an operator who keeps only named profiles). The journal is
 * local and needs no login, so it is read before "Not logged in" is said: a payout id it has
 * without a transaction id under the run's base URL is answered as a logged-in run answers it
 * (lookup.ts notLookedUpError: exit 4 when its outcome is unknown); one it has under other base
 * URLs as lookup-elsewhere.ts says it (exit 4 when unknown there, 2 when accepted, with the
 * commands of the profile that sent it). What needs the service (a transaction id, a payout
 * accepted here) stays the AuthError (exit 3), naming the profile the journal says sent it.
 */
import type { Deps } from '../../deps.js';
import type { AuthError, CliError } from '../../errors.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { checkBaseUrl, resolveSettings } from '../../config/resolve.js';
import { text } from '../../output/text.js';
import { freeProfileName } from '../../api/session.js';
import { isTransactionId } from '../../service/schemas.js';
import { capitalized, copiedId } from '../../words.js';
import type { JournalEntry, Ledger } from '../../payouts/journal.js';
import { notLookedUpError } from '../../payouts/lookup.js';
import { elsewhereError, invocationFor, journaledElsewhere, ownProfileLogin, profileFor, where } from '../../payouts/lookup-elsewhere.js';
import { openLedger } from '../../payouts/open-ledger.js';

/** The run's base URL as its settings give it (flag, environment, profile), checked; undefined when there is none or it is not one. */
export function runBaseUrl(deps: Deps): string | undefined {
  try {
    const s = resolveSettings(deps.globals, deps.env, deps.config().getProfile(deps.globals.profile, { readSecrets: false, mayBeNew: true }));
    return s.baseUrl.value ? checkBaseUrl(s.baseUrl.value) : undefined;
  } catch {
    return undefined;
  }
}

/** Why a run was not asked of the service, from the AuthError of its client: "this run is not logged in (profile "default" has no base URL)". */
export function notLoggedInWhy(err: AuthError): string {
  return `this run is not logged in (${text(err.message.replace(/^Not logged in: /, '').replace(/\.$/, ''))})`;
}

/**
 * What `payout get <id>` says when the run's client could not be made (`err`, not logged in): the
 * journal's answer when it has one that needs no service, else `err`, its hint naming the
 * profile that sent a transaction the journal knows.
 */
export async function unloggedGetError(err: AuthError, id: string, deps: Deps): Promise<CliError> {
  const ledger = await openLedger(deps);
  const inv = invocationOf(deps.globals, deps.env);
  const baseUrl = runBaseUrl(deps);
  const bare = copiedId(id);
  for (const candidate of bare === undefined ? [id] : [id, bare]) {
    const own = baseUrl === undefined ? undefined : await ledger.get(baseUrl, candidate);
    // Journaled here without a transaction id: what the journal knows needs no service.
    if (own && !(own.outcome?.kind === 'accepted' && own.outcome.transactionId)) return notLookedUpError(own, inv, ledger, deps.config());
    if (own) break;
    const elsewhere = await journaledElsewhere(ledger, baseUrl, candidate);
    if (elsewhere.length) return elsewhereError(elsewhere, { baseUrl, notLoggedIn: notLoggedInWhy(err), typed: id, inv, ledger, config: deps.config() });
  }
  const txn = (bare ?? id).toUpperCase();
  if (isTransactionId(txn)) {
    const sent = await sentTransaction(ledger, txn);
    if (sent) err.hint = [err.hint, sentHint(sent, txn, ledger.called, deps)].filter(Boolean).join('\n');
  }
  return err;
}

/** The journal's entry accepted with transaction `txn`, under any base URL (every entry read: the error path only). */
async function sentTransaction(ledger: Ledger, txn: string): Promise<JournalEntry | undefined> {
  for await (const it of ledger.scan()) {
    if (!('error' in it) && it.entry.outcome?.kind === 'accepted' && it.entry.outcome.transactionId?.toUpperCase() === txn) return it.entry;
  }
  return undefined;
}

/** Where transaction `txn` was sent from, and the `payout get` that looks it up there (after a login of its own when no profile has its base URL now). */
function sentHint(entry: JournalEntry, txn: string, called: string, deps: Deps): string {
  const inv = invocationOf(deps.globals, deps.env);
  const config = deps.config();
  const found = profileFor(entry, config);
  const profile = found ?? freeProfileName(entry.baseUrl, config);
  const login = found === undefined ? `${ownProfileLogin(entry.baseUrl, profile, inv.timeout)}\n` : '';
  return `${login}${capitalized(called)} has transaction ${text(txn)} as payout ${text(entry.payoutId)} ${where(entry)}; look it up with: ${commandLine(invocationFor(entry, profile, inv), ['payout', 'get'], [txn])}`;
}
