/**
 * `payctl history reconcile` run without credentials (the run's profile not logged in: no base
 * URL, no API key; probe 53-H finding 3: an operator who keeps only named profiles, running it
 * without --profile). Reconciling needs the service, but the journal, which needs no login, may
 * hold payouts of unknown outcome sent with other profiles: then they are said (for each base URL,
 * how many and with which profiles they were sent) with the `history reconcile` that resolves them
 * there, exit 4 (OUTCOME_UNKNOWN: outcomes are still unknown), rather than only "Not logged in"
 * (exit 3), which is what is left when the journal has none.
 */
import type { Deps } from '../../deps.js';
import { OutcomeUnknownError, type AuthError, type CliError } from '../../errors.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { maskBaseUrl } from '../../config/mask.js';
import { text } from '../../output/text.js';
import { freeProfileName } from '../../api/session.js';
import { journalBase, type JournalEntry } from '../../payouts/journal.js';
import { ledgerOutcome } from '../../payouts/history-lines.js';
import { invocationFor, profileFor } from '../../payouts/lookup-elsewhere.js';
import { OUTCOME_UNKNOWN } from '../../payouts/lookup.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { notLoggedInWhy, runBaseUrl } from '../payout/get-unlogged.js';
import { capitalized } from '../../words.js';

/**
 * What `history reconcile [--payout-id ID]` says when the run's client could not be made (`err`):
 * the journal's payouts of unknown outcome under other base URLs than the run's (only `payoutId`'s
 * when given), each base URL's with its reconcile command, exit 4; else `err`.
 */
export async function unloggedReconcileError(err: AuthError, payoutId: string | undefined, deps: Deps): Promise<CliError> {
  const ledger = await openLedger(deps);
  const run = runBaseUrl(deps);
  const own = run === undefined ? undefined : journalBase(run);
  const groups = new Map<string, { first: JournalEntry; ids: string[]; profiles: Set<string> }>();
  for await (const it of ledger.scan()) {
    if ('error' in it) continue;
    const e = it.entry;
    const base = journalBase(e.baseUrl);
    // The run's own base URL needs the run's own credentials: nothing else to print for it.
    if (base === own || ledgerOutcome(e) !== 'unknown' || (payoutId !== undefined && e.payoutId !== payoutId)) continue;
    const g = groups.get(base) ?? { first: e, ids: [], profiles: new Set<string>() };
    g.ids.push(e.payoutId);
    if (e.profile !== undefined) g.profiles.add(e.profile);
    groups.set(base, g);
  }
  if (!groups.size) return err;
  const inv = invocationOf(deps.globals, deps.env);
  const config = deps.config();
  const said: string[] = [];
  const hint: string[] = [];
  for (const g of groups.values()) {
    const n = g.ids.length;
    const sentWith = g.profiles.size ? ` (sent with profile ${[...g.profiles].map((p) => text(p)).join(', ')})` : '';
    said.push(`${n === 1 ? `1 payout (${text(g.ids[0]!)})` : `${n} payouts`} for ${text(maskBaseUrl(g.first.baseUrl))}${sentWith}`);
    const found = profileFor(g.first, config);
    // No profile has its base URL now: a profile of its own logged in first, the reconcile after it carrying that one.
    const profile = found ?? freeProfileName(g.first.baseUrl, config);
    if (found === undefined)
      hint.push(
        `No profile of this config folder has ${text(maskBaseUrl(g.first.baseUrl))} now: first log in a profile of its own to it: ${commandLine({ profile, ...(inv.timeout !== undefined ? { timeout: inv.timeout } : {}) }, ['login'], ['--base-url', g.first.baseUrl])}`,
      );
    const more = payoutId !== undefined ? ['--payout-id', payoutId] : [];
    hint.push(`Reconcile ${n === 1 ? 'it' : 'them'} with: ${commandLine(invocationFor(g.first, profile, inv), ['history', 'reconcile'], more)}`);
  }
  const ids = [...groups.values()].flatMap((g) => g.ids);
  return new OutcomeUnknownError(
    `Nothing was reconciled: ${notLoggedInWhy(err)}. ${capitalized(ledger.called)} has payouts of unknown outcome (they may or may not have been made)${own === undefined ? '' : ' under other base URLs'}: ${said.join('; ')}. Nothing was sent.`,
    { payoutId: ids.length === 1 ? ids[0] : undefined, causeCode: OUTCOME_UNKNOWN, hint: hint.join('\n') },
  );
}
