/**
 * The profile that sent a journaled payout, against the run's (probe 54-H finding 1): a payout of
 * unknown outcome is resent, searched for and recorded (`history reconcile`, `--resend`,
 * `--made-by`) only with the key that sent it. Two profiles of one base URL may hold the keys of
 * two accounts: a resend under another account's key is refused as that account's ("The selected
 * wallet id is invalid"), and that account's payout list holds none of this one's records, so "no
 * payout was made" would be read from the wrong account, and the payout retyped and paid twice.
 * The journal keeps the profile's name and the id of the key that sent it (JournalEntry.keyId: a
 * hash, never the key). When both the entry's key id and the run's are known, they decide alone:
 * the same id is the run's own, whatever the profile or PAYCTL_API_KEY; another id is never acted
 * on with this run's key (`key`), its commands naming the entry's profile, after the login that
 * gives it the key that sent it when it no longer holds that key (goneAdvice). Without a key id
 * (an entry journaled before payctl kept one, or a run with no key), the profile decides, once
 * the run's account is seen to hold the entry's wallet (unkeyed-wallet.ts: else another account's key):
 * An entry journaled under a profile that is gone now, or has another base URL (probe 55-R finding
 * 5), is no more this run's than another profile's: its commands name that profile, after the
 * login that brings it back (goneAdvice), never the run's; but `default` there is taken as not
 * recorded (a run with --base-url and PAYCTL_API_KEY journals it, its key held by no profile). An
 * entry whose sender cannot be told
 * (journaled without a profile, by an older payctl; or by a run whose key came from
 * PAYCTL_API_KEY, `keyFrom`), or a run whose own key comes from PAYCTL_API_KEY, is not acted on by
 * a run over every unknown payout; a run naming it (`--payout-id`) acts on it with the run's
 * profile and key, and a refusal then is never taken for "not made" (that key's account may be
 * another: resend-refused.ts). A batch or plan resumed with another profile or key leaves its rows
 * journaled under another (heldSender, probe 55-R findings 2 and 3).
 */
import { commandLine, type Invocation } from '../config/command-line.js';
import { trimKey } from '../config/api-key.js';
import { DEFAULT_PROFILE, isProfileName } from '../config/known-profiles.js';
import type { ConfigStore } from '../config/store.js';
import { text } from '../output/text.js';
import { journalBase, type JournalEntry } from './journal.js';
import { keyIdOf } from '../config/key-id.js';
import { ProfileSecretsUnreachable } from '../config/profile-secrets.js';

/** The key a run sends (ApiClient.runKey): its id (config/key-id.ts), and 'env' when it is from PAYCTL_API_KEY. */
export interface RunKey {
  keyId: string;
  keyFrom?: 'env';
}

/**
 * The profiles of the config folder, as read to tell whether the one that sent an entry can still
 * resolve it; with `runKey`, the key of the run asking (withRunKey), which decides wherever the
 * entry has a key id too. Without it, the profile alone decides (a run that sends nothing).
 */
export type Profiles = Pick<ConfigStore, 'profileNames' | 'getProfile'> & { readonly runKey?: RunKey | undefined };

/**
 * `config` as seen by a run that sends with `runKey` (the client's: ApiClient.runKey). A profile
 * read with its key (otherKey) is read once (a batch asks of each of its rows; a keyring, once).
 */
export function withRunKey(config: Profiles, runKey: RunKey | undefined): Profiles {
  const read = new Map<string, ReturnType<Profiles['getProfile']>>();
  const getProfile: Profiles['getProfile'] = (name, opts) => {
    if (opts?.readSecrets === false) return config.getProfile(name, opts);
    if (!read.has(name)) read.set(name, config.getProfile(name, opts));
    return read.get(name);
  };
  return { profileNames: () => config.profileNames(), getProfile, runKey };
}

/**
 * Who sent `entry`, against the run's profile and key: the run's own, another profile (named),
 * one gone, another key than the run's (`key`: under `profile`, which holds it still when
 * `stored`; `envRun` when the run's key is from PAYCTL_API_KEY, `envSent` when the entry's was),
 * or not recorded.
 */
export type Sender =
  | { kind: 'own' }
  | { kind: 'other'; profile: string }
  | { kind: 'gone'; profile: string }
  | { kind: 'key'; profile: string; stored: boolean; envRun: boolean; envSent: boolean; unreadable?: KeyUnreadable }
  | { kind: 'unrecorded' };

/**
 * A profile whose own key cannot be read (its OS keyring out of reach, or no entry there:
 * ProfileSecretsUnreachable): where the key is, and what makes it readable (probe 56-K finding 3:
 * it was said to be "logged in again with another key").
 */
export interface KeyUnreadable {
  said: string;
  remedy: string;
}

/** A sender this run is known not to be: another profile, there or gone. */
export type OtherSender = Extract<Sender, { profile: string }>;

/** The profile of the run whose printed commands carry `inv` (invocationOf leaves out `default` when it was not chosen). */
export function runProfile(inv: Invocation): string {
  return inv.profile ?? 'default';
}

/**
 * 'env' when the run's API key comes from PAYCTL_API_KEY (it is sent in place of the profile's:
 * config/resolve.ts), journaled with each entry (JournalEntry.keyFrom): the profile then does not
 * tell whose account the key is (probe 55-R finding 1).
 */
export function keyFromOf(env: NodeJS.ProcessEnv): 'env' | undefined {
  return trimKey(env.PAYCTL_API_KEY) ? 'env' : undefined;
}

/**
 * `runKey`: the run's keyFromOf, where it acts on the entry (history reconcile); a run whose key is
 * from PAYCTL_API_KEY, or an entry journaled by one, is never the entry's own sender.
 */
export function senderOf(entry: JournalEntry, inv: Invocation, config: Profiles, runKey?: 'env'): Sender {
  // The key that sent it, when the journal knows it and so does the run, decides alone.
  const run = config.runKey;
  if (entry.keyId !== undefined && run !== undefined) return entry.keyId === run.keyId ? { kind: 'own' } : otherKey(entry, inv, config);
  if (entry.profile === undefined || entry.keyFrom === 'env') return { kind: 'unrecorded' };
  if (entry.profile === runProfile(inv)) return runKey === 'env' ? { kind: 'unrecorded' } : { kind: 'own' };
  if (!isProfileName(entry.profile)) return { kind: 'unrecorded' };
  // Only a profile that still has the entry's base URL can resolve it: else whose key sent it is not known.
  const url = config.profileNames().includes(entry.profile) ? config.getProfile(entry.profile, { readSecrets: false, mayBeNew: true })?.baseUrl : undefined;
  if (url !== undefined && journalBase(url) === journalBase(entry.baseUrl)) return { kind: 'other', profile: entry.profile };
  // `default` without that base URL: journaled by a run with --base-url and PAYCTL_API_KEY, whose key no profile held.
  return entry.profile === DEFAULT_PROFILE ? { kind: 'unrecorded' } : { kind: 'gone', profile: entry.profile };
}

/**
 * `entry`, sent with another key than the run's: under its profile (the run's, when it was not
 * journaled: the command the run prints then carries it), which holds that key still (`other`,
 * unless the run's key is from PAYCTL_API_KEY: `key`, to be unset) or not (`key`). Its stored key
 * is read (the keyring, perhaps) only here, to tell which.
 */
function otherKey(entry: JournalEntry, inv: Invocation, config: Profiles): Sender {
  const profile = entry.profile !== undefined && isProfileName(entry.profile) ? entry.profile : runProfile(inv);
  const { stored, unreadable } = senderKeyHeld(entry, profile, config);
  const envRun = config.runKey?.keyFrom === 'env';
  // The profile holds it still: that profile's, as any other profile's payout (its printed commands then send it).
  if (stored && !envRun) return { kind: 'other', profile };
  return { kind: 'key', profile, stored, envRun, envSent: entry.keyFrom === 'env', ...(unreadable ? { unreadable } : {}) };
}

/**
 * Whether `profile` holds, for `entry`'s base URL, the key that sent it (its stored key is read:
 * the keyring, perhaps); a key that cannot be read is not known to be held, and is said so.
 */
function senderKeyHeld(entry: JournalEntry, profile: string, config: Profiles): { stored: boolean; unreadable?: KeyUnreadable } {
  try {
    const p = config.profileNames().includes(profile) ? config.getProfile(profile, { mayBeNew: true }) : undefined;
    const key = trimKey(p?.apiKey);
    return { stored: !!key && !!p?.baseUrl && journalBase(p.baseUrl) === journalBase(entry.baseUrl) && keyIdOf(key) === entry.keyId };
  } catch (err) {
    // A keyring locked, gone, or without the profile's entry: where the key is, and what makes it readable.
    if (err instanceof ProfileSecretsUnreachable) return { stored: false, unreadable: { said: err.said, remedy: err.remedy } };
    return { stored: false };
  }
}

/**
 * The profile that sent `entry` with the run's own key, when that key is from PAYCTL_API_KEY and
 * the profile (another than the run's) holds it too: a printed command naming that profile works
 * with the variable unset as well (probe 56-K finding 2), where the run's own (`--base-url` alone)
 * works only while the same key is exported.
 */
function envOwnSender(entry: JournalEntry, inv: Invocation, config: Profiles): string | undefined {
  const run = config.runKey;
  if (run?.keyFrom !== 'env' || entry.keyId === undefined || entry.keyId !== run.keyId) return undefined;
  const profile = entry.profile;
  if (profile === undefined || entry.keyFrom === 'env' || !isProfileName(profile) || profile === runProfile(inv)) return undefined;
  return senderKeyHeld(entry, profile, config).stored ? profile : undefined;
}

/** Another profile or key sent `entry` (there, or gone): it is not resent, looked for or recorded with this run's key. */
export function heldSender(entry: JournalEntry, inv: Invocation, config: Profiles): OtherSender | undefined {
  const s = senderOf(entry, inv, config);
  return s.kind === 'other' || s.kind === 'gone' || s.kind === 'key' ? s : undefined;
}

/**
 * A batch's plan (payout batch): a journaled row another sender may have paid (another profile or
 * key, or journaled without its key's id) is never refused for its wallet: its send says whose it is.
 */
export function mayBeAnothers(inv: Invocation, config: Profiles): (e: JournalEntry) => boolean {
  return (e) => e.keyId === undefined || heldSender(e, inv, config) !== undefined;
}

/**
 * The invocation a printed command about `entry` carries: the run's, with the profile that sent it
 * when that is another one (its key, its account), so that pasted as printed it resolves the
 * payout; also when the run sent it itself with PAYCTL_API_KEY's key, which that profile holds
 * (envOwnSender: it then works whether the variable is still set or not).
 */
export function senderInvocation(entry: JournalEntry, inv: Invocation, config: Profiles): Invocation {
  const s = heldSender(entry, inv, config);
  const profile = s ? s.profile : envOwnSender(entry, inv, config);
  return profile !== undefined && profile !== runProfile(inv) ? { ...inv, profile } : inv;
}

/** The login that brings back `profile`, which sent a payout of `baseUrl` and is gone, with the run's time limit as every printed command. */
export function goneLogin(profile: string, baseUrl: string, timeout: string | undefined): string {
  return commandLine({ profile, baseUrl, ...(timeout !== undefined ? { timeout } : {}) }, ['login']);
}

/**
 * Before a command with the profile `s` that sent a payout of `baseUrl`, when that profile is gone
 * (or has another base URL now): how to bring it back, ending in ": " for the command; else "".
 * Never the run's profile: its key may be another account's.
 */
export function goneAdvice(baseUrl: string, s: OtherSender, timeout: string | undefined): string {
  if (s.kind === 'other') return '';
  if (s.kind === 'key' && s.stored)
    return s.envRun ? `profile ${text(s.profile)} holds the API key that sent it, not PAYCTL_API_KEY's; unset PAYCTL_API_KEY; then: ` : '';
  if (s.kind === 'key' && s.unreadable)
    return `the API key of profile ${text(s.profile)} cannot be read (${s.unreadable.said}), so whether it is the one that sent it is not known; ${s.unreadable.remedy}; then: `;
  const login = goneLogin(s.profile, baseUrl, timeout);
  if (s.kind === 'key' && s.envSent)
    return `it was sent with a key from PAYCTL_API_KEY that profile ${text(s.profile)} does not hold; with the API key that sent it in PAYCTL_API_KEY (or a profile logged in with it: ${login}), run: `;
  if (s.kind === 'key')
    return `the API key that sent it is no longer stored under profile ${text(s.profile)} (it was logged in again with another key); log a profile in with the API key that sent it: ${login}; then, with it: `;
  return `profile ${text(s.profile)}, which sent it, is gone from the config or now has another base URL; log it in again with the API key it had: ${login}; then, with it: `;
}

/** "payout P was sent with profile A, not with this run's profile (B)": why it is not acted on here. */
export function otherSenderClause(entry: JournalEntry, sender: OtherSender, inv: Invocation): string {
  if (sender.kind === 'key') {
    const held = sender.stored ? `, which holds that key` : sender.unreadable ? `, whose own key cannot be read` : `, which no longer holds that key`;
    return `payout ${text(entry.payoutId)} was sent with another API key than this run's (under profile ${text(sender.profile)}${held}), and this run's key may be another account's`;
  }
  const gone = sender.kind === 'gone' ? ' (now gone from the config, or at another base URL)' : '';
  return `payout ${text(entry.payoutId)} was sent with profile ${text(sender.profile)}${gone}, not with this run's profile (${text(runProfile(inv))}), whose API key may be another account's`;
}
