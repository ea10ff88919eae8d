/**
 * `payctl history reconcile` run without credentials (the run's profile not logged in: no base
 * URL, no API key; probe 53-H finding 3: an operator who keeps only named profiles, running it
 * without --profile). Reconciling needs the service, but the journal, which needs no login, may
 * hold payouts of unknown outcome sent with other profiles: then they are said (how many, for each
 * base URL as journaled and each profile that sent them) with the `history reconcile` that
 * resolves them with that profile, exit 4 (OUTCOME_UNKNOWN: outcomes are still unknown), rather
 * than only "Not logged in" (exit 3), which is what is left when the journal has none.
 */
import type { Deps } from '../../deps.js';
import { OutcomeUnknownError, type AuthError, type CliError } from '../../errors.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { maskBaseUrl } from '../../config/mask.js';
import { text } from '../../output/text.js';
import { freeProfileName } from '../../api/session.js';
import { journalBase, type JournalEntry } from '../../payouts/journal.js';
import { ledgerOutcome } from '../../payouts/history-lines.js';
import { invocationFor, ownProfileLogin, profileFor } from '../../payouts/lookup-elsewhere.js';
import { OUTCOME_UNKNOWN } from '../../payouts/lookup.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { notLoggedInWhy, runBaseUrl } from '../payout/get-unlogged.js';
import { checkBaseUrl } from '../../config/resolve.js';
import { capitalized } from '../../words.js';
import { isProfileName } from '../../config/known-profiles.js';
import { goneLogin, senderOf } from '../../payouts/sender-profile.js';

/**
 * What `history reconcile [--payout-id ID]` says when the run's client could not be made (`err`):
 * the journal's payouts of unknown outcome under other base URLs than the run's (only `payoutId`'s
 * when given), each base URL's with its reconcile command, exit 4; else `err`.
 */
export async function unloggedReconcileError(err: AuthError, payoutId: string | undefined, deps: Deps): Promise<CliError> {
  const ledger = await openLedger(deps);
  const run = runBaseUrl(deps);
  const own = run === undefined ? undefined : journalBase(run);
  // One group per base URL as journaled (127.0.0.1 and localhost apart: each is printed as sent)
  // and per profile that sent it: reconcile acts on a payout only with that profile (reconcile-sender.ts).
  const groups = new Map<string, { first: JournalEntry; ids: string[] }>();
  for await (const it of ledger.scan()) {
    if ('error' in it) continue;
    const e = it.entry;
    // The run's own payouts of its own base URL need the run's own credentials: nothing else to print for them.
    const mine = journalBase(e.baseUrl) === own && (e.profile === undefined || e.profile === deps.globals.profile);
    if (mine || ledgerOutcome(e) !== 'unknown' || (payoutId !== undefined && e.payoutId !== payoutId)) continue;
    const key = `${shownBase(e.baseUrl)}\n${e.profile ?? ''}`;
    const g = groups.get(key) ?? { first: e, ids: [] };
    g.ids.push(e.payoutId);
    groups.set(key, g);
  }
  if (!groups.size) return err;
  const inv = invocationOf(deps.globals, deps.env);
  const config = deps.config();
  const said: string[] = [];
  const hint: string[] = [];
  for (const g of groups.values()) {
    const n = g.ids.length;
    const sender = g.first.profile;
    const sentWith = sender !== undefined ? ` (sent with profile ${text(sender)})` : ' (journaled without the profile that sent it)';
    said.push(`${n === 1 ? `1 payout (${text(g.ids[0]!)})` : `${n} payouts`} for ${text(maskBaseUrl(g.first.baseUrl))}${sentWith}`);
    const found = profileFor(g.first, config);
    // The profile that sent it, when journaled, and no other (another's key may be another account's, probe 55-R finding 5).
    const profile = sender !== undefined && isProfileName(sender) ? sender : (found ?? freeProfileName(g.first.baseUrl, config));
    const gone = profile === sender && senderOf(g.first, inv, config).kind === 'gone';
    if (gone)
      hint.push(
        `Profile ${text(sender)}, which sent it, is gone from the config or now has another base URL: log it in again with the API key it had: ${goneLogin(profile, g.first.baseUrl, inv.timeout)}`,
      );
    else if (profile !== sender && found === undefined) hint.push(ownProfileLogin(g.first.baseUrl, profile, inv.timeout));
    const to = invocationFor(g.first, profile, inv);
    // A run over every payout leaves one whose sender cannot be told (no profile journaled, or it has another base URL now) alone: each is named.
    const runs = found !== sender || payoutId !== undefined ? g.ids.map((id) => ['--payout-id', id]) : [[]];
    for (const more of runs) hint.push(`Reconcile ${n === 1 || more.length ? 'it' : 'them'} with: ${commandLine(to, ['history', 'reconcile'], more)}`);
  }
  const ids = [...groups.values()].flatMap((g) => g.ids);
  return new OutcomeUnknownError(
    `Nothing was reconciled: ${notLoggedInWhy(err)}. ${capitalized(ledger.called)} has payouts of unknown outcome (they may or may not have been made)${own === undefined ? '' : ' under other base URLs'}: ${said.join('; ')}. Nothing was sent.`,
    { payoutId: ids.length === 1 ? ids[0] : undefined, causeCode: OUTCOME_UNKNOWN, hint: hint.join('\n') },
  );
}

/** A journaled base URL as a person reads it: as checked when it was sent (host in lower case, no trailing slash). */
export function shownBase(baseUrl: string): string {
  try {
    return checkBaseUrl(baseUrl);
  } catch {
    return baseUrl;
  }
}
