/**
 * `payout get <payout id>` of a payout the journal has under another base URL than the run's
 * (the profile that sent it not chosen): never "no payout", which invites sending it again.
 * What the journal knows of it is said as for the run's own base URL (lookup.ts
 * notLookedUpError: exit 4 when its outcome is unknown), with the base URL and profile it was
 * sent under, and the commands that look it up or reconcile it carrying a profile of that base
 * URL, so that pasted as printed they work.
 */
import { isProfileName } from '../config/known-profiles.js';
import { OutcomeUnknownError, RefusedError, type CliError } from '../errors.js';
import { commandLine, loginCommand, type Invocation } from '../config/command-line.js';
import type { ConfigStore } from '../config/store.js';
import { maskBaseUrl } from '../config/mask.js';
import { text } from '../output/text.js';
import { capitalized } from '../words.js';
import { freeProfileName } from '../api/session.js';
import { journalBase, type JournalEntry, type Ledger } from './journal.js';
import { isUnresolved, notLookedUpError, OUTCOME_UNKNOWN } from './lookup.js';
import { senderOf, type Profiles } from './sender-profile.js';
import { earlierRead, type EarlierRead, type SettledStatus } from './settle.js';

/**
 * The entries of `payoutId` the ledger has under base URLs other than `baseUrl` (every entry read:
 * the error path only); with no `baseUrl` (a run not logged in), under every base URL.
 */
export async function journaledElsewhere(ledger: Ledger, baseUrl: string | undefined, payoutId: string): Promise<JournalEntry[]> {
  const base = baseUrl === undefined ? undefined : journalBase(baseUrl);
  const out: JournalEntry[] = [];
  for await (const it of ledger.scan()) {
    if ('error' in it || it.entry.payoutId !== payoutId || journalBase(it.entry.baseUrl) === base) continue;
    out.push(it.entry);
  }
  return out;
}

/**
 * The entry whose accepted outcome has transaction `transactionId` under a base URL other than
 * `baseUrl` (another front of the same service: transaction ids are the service's), holding a
 * settled status other than `status`: a lead, not the run's own entry (asked only of a read that
 * settled and that the run's base URL does not journal: payout/read-held.ts). Only the entries
 * accepted with that transaction id are read (Ledger.scan's `only`: the local journal parses no
 * other, the shared ledger sends no other); before, every entry was, on every such read.
 */
export async function settledElsewhere(ledger: Ledger, baseUrl: string, transactionId: string, status: SettledStatus): Promise<EarlierRead | undefined> {
  const base = journalBase(baseUrl);
  for await (const it of ledger.scan({ transactionId })) {
    if ('error' in it || journalBase(it.entry.baseUrl) === base) continue;
    const o = it.entry.outcome;
    const earlier = o?.kind === 'accepted' && o.transactionId === transactionId ? earlierRead(it.entry, status) : undefined;
    if (earlier) return earlier;
  }
  return undefined;
}

/**
 * The profile a printed command for `entry` carries: the one that sent it when it still has the
 * entry's base URL, else another profile of that base URL (sorted by name); undefined when no
 * profile of the config folder has it now.
 */
export function profileFor(entry: JournalEntry, config: Pick<ConfigStore, 'profileNames' | 'getProfile'>): string | undefined {
  const base = journalBase(entry.baseUrl);
  // Only a name --profile takes: one edited into the file may not be (known-profiles.ts isProfileName).
  const names = config.profileNames().filter(isProfileName);
  const hasBase = (name: string): boolean => {
    const url = config.getProfile(name, { readSecrets: false, mayBeNew: true })?.baseUrl;
    return url !== undefined && journalBase(url) === base;
  };
  if (entry.profile !== undefined && names.includes(entry.profile) && hasBase(entry.profile)) return entry.profile;
  return [...names].sort().find(hasBase);
}

/** What the run's commands must carry to reach `entry`'s base URL: its profile, and its base URL when the run's came from --base-url or PAYCTL_BASE_URL (which would win over the profile's). */
export function invocationFor(entry: JournalEntry, profile: string | undefined, inv: Invocation): Invocation {
  return {
    ...(profile !== undefined ? { profile } : {}),
    ...(profile === undefined || inv.baseUrl !== undefined ? { baseUrl: entry.baseUrl } : {}),
    ...(inv.timeout !== undefined ? { timeout: inv.timeout } : {}),
  };
}

/** "for <base URL> (sent with profile P)", as a person reads where an entry is. */
/**
 * When no profile of the config folder has `baseUrl` now: the login of a profile of its own
 * (`profile`, a free name) to it, said so, with the run's time limit (`timeout`), as printed by
 * payout get and history reconcile for a payout journaled there.
 */
export function ownProfileLogin(baseUrl: string, profile: string, timeout: string | undefined): string {
  return `No profile of this config folder has ${text(maskBaseUrl(baseUrl))} now: first log in a profile of its own to it: ${loginCommand(profile, timeout, ['--base-url', baseUrl])}`;
}

export function where(entry: JournalEntry): string {
  return `for ${text(maskBaseUrl(entry.baseUrl))}${entry.profile !== undefined ? ` (sent with profile ${text(entry.profile)})` : ''}`;
}

/**
 * The error of `payout get <payoutId>` run against `baseUrl` when the ledger has the payout only
 * under other base URLs (`entries`, at least one): what the journal knows of each, and the
 * exit that the run's own base URL would give (4 with OUTCOME_UNKNOWN when any is of unknown
 * outcome; one accepted with its transaction id, which needs the other profile's key to look
 * up: exit 2, with the command that does). A run not logged in (`notLoggedIn`: why, as its
 * AuthError says it: "this run is not logged in (…)") is answered from the journal alike, saying so.
 */
export function elsewhereError(
  entries: JournalEntry[],
  ctx: {
    baseUrl: string | undefined;
    notLoggedIn?: string;
    typed?: string;
    inv: Invocation;
    ledger: Pick<Ledger, 'called'>;
    config: Pick<ConfigStore, 'profileNames' | 'getProfile'>;
  },
): CliError {
  const payoutId = entries[0]!.payoutId;
  const copied = ctx.typed !== undefined && ctx.typed !== payoutId ? `${text(ctx.typed)} reads ${text(payoutId)} without the characters copied with it. ` : '';
  const sentWhere = entries.map(where).join(' and ');
  const head =
    ctx.notLoggedIn !== undefined || ctx.baseUrl === undefined
      ? `${copied}Payout ${text(payoutId)} was not looked up at the service: ${ctx.notLoggedIn ?? 'this run has no base URL'}. ${capitalized(ctx.ledger.called)} has it ${sentWhere}.`
      : `${copied}Payout ${text(payoutId)} is not journaled for ${text(maskBaseUrl(ctx.baseUrl))}, this run's base URL; ${ctx.ledger.called} has it ${sentWhere}.`;
  const parts = entries.map((entry) => {
    const found = profileFor(entry, ctx.config);
    // No profile has its base URL now: one of its own is logged in first (never the profile it
    // was sent with, which may point elsewhere now), and the commands after carry that one.
    const profile = found ?? freeProfileName(entry.baseUrl, ctx.config);
    const inv = invocationFor(entry, profile, ctx.inv);
    const login = found === undefined ? ownProfileLogin(entry.baseUrl, profile, ctx.inv.timeout) : undefined;
    const get = `Look it up ${where(entry)} with: ${commandLine(inv, ['payout', 'get'], [payoutId])}`;
    const accepted = entry.outcome?.kind === 'accepted' && entry.outcome.transactionId;
    return { entry, inv, login, get, error: accepted ? undefined : notLookedUpError(entry, inv, ctx.ledger, ctx.config) };
  });
  // The logins first: every command printed after them runs as printed once they are done.
  const logins = parts.flatMap((p) => (p.login ? [p.login] : []));
  const unknown = parts.filter((p) => isUnresolved(p.entry));
  if (unknown.length) {
    // With the profile that sent it (sender-profile.ts): reconcile acts on it with no other.
    const reconcile = unknown.map(
      (p) =>
        `Find out what became of it ${where(p.entry)} with: ${commandLine(otherSender(p.entry, p.inv, ctx.config), ['history', 'reconcile'], ['--payout-id', payoutId])}`,
    );
    return new OutcomeUnknownError(`${head} Its outcome is unknown there (it may or may not have been made; no answer was read). Nothing was asked of the service.`, {
      payoutId,
      causeCode: OUTCOME_UNKNOWN,
      hint: [...logins, ...reconcile, ...parts.map((p) => p.get)].join('\n'),
    });
  }
  if (parts.length === 1 && parts[0]!.error) {
    // As the run's own base URL would say it (refused, found not made: exit 1; made before under another key: 5).
    const e = parts[0]!.error;
    e.message = `${head} ${e.message}`;
    e.hint = [...logins, e.hint, parts[0]!.get].filter(Boolean).join('\n');
    return e;
  }
  return new RefusedError(`${head} Nothing was asked of the service.`, [], [...logins, ...parts.map((p) => p.get)].join('\n'));
}

/** The invocation of its reconcile: with the profile that sent it when that one is there at its base URL; else `inv`, which logs one in first (invocationFor). */
function otherSender(entry: JournalEntry, inv: Invocation, config: Profiles): Invocation {
  const s = senderOf(entry, inv, config);
  return s.kind === 'other' ? { ...inv, profile: s.profile } : inv;
}
