/**
 * A payout journaled without the id of the key that sent it (JournalEntry.keyId: an entry of a
 * payctl before it kept one), checked against the run's account before it is resent, searched
 * for or recorded (probe 56-K finding 1): its profile alone does not tell whose account sent it,
 * since that profile may have been logged in again since with another account's key. Such a
 * resend is refused as that account's ("The selected wallet id is invalid"), that account's
 * payout list holds none of this one's records, and "no payout was made" read from it has the
 * payout retyped and paid twice. So the run's account must hold the entry's source wallet (the
 * account's wallets from the API, as the batch's wallet check and `balances` read them, read
 * once a run): else the run's key is another account's, and the payout is left unknown, with the
 * login of the key that sent it (sender-profile.ts goneAdvice) and its command. An entry with a
 * key id is told by that id (sender-profile.ts senderOf): no wallet is read for it, and a read
 * that fails (HTTP 5xx, a time-out: readFault) leaves only the entries that need it unknown, said
 * so with the read's cause (probe K57 finding 2), never a run's exit 1.
 */
import type { ApiClient } from '../api/client.js';
import { commandLine, type Invocation } from '../config/command-line.js';
import { plural, text } from '../output/text.js';
import type { Wallet } from '../service/schemas.js';
import { askedOf } from './candidate-fields.js';
import type { JournalEntry } from './journal.js';
import { goneLogin, runProfile, type OtherSender } from './sender-profile.js';
import { isProfileName } from '../config/known-profiles.js';
import { ApiError, NetworkError, networkCode, OutcomeUnknownError } from '../errors.js';
import { capitalized } from '../words.js';

/** The wallets of the run's account, read from the API once a run (or given: a batch read them already). */
export class RunWallets {
  #ids: Promise<Set<string>> | undefined;

  constructor(
    private readonly api: Pick<ApiClient, 'wallets'>,
    wallets?: readonly Wallet[],
  ) {
    if (wallets) this.#ids = Promise.resolve(new Set(wallets.map((w) => w.wallet_id)));
  }

  /**
   * The wallet `entry` was sent from when it has no key id and the run's account does not hold
   * that wallet (the run's key is another account's); else undefined. A failed read of the
   * wallets rejects: nothing is resent on a guess.
   */
  async notHeld(entry: JournalEntry): Promise<string | undefined> {
    const wallet = checkedWallet(entry);
    if (wallet === undefined) return undefined;
    this.#ids ??= this.api.wallets().then((r) => new Set(r.wallets.map((w) => w.wallet_id)));
    return (await this.#ids).has(wallet) ? undefined : wallet;
  }
}

/** The wallet `entry` was sent from when whether the run's key sent it needs the run's wallets (no key id journaled); else undefined. */
export function checkedWallet(entry: JournalEntry): string | undefined {
  return entry.keyId === undefined ? askedOf(entry.body)?.walletId : undefined;
}

/**
 * Batch or plan rows (their numbers) of unknown outcome not sent because the run's wallets could
 * not be read (`why`): what is said of them, before the command to run when the service answers
 * (a batch's summary, other-sender-rows.ts; a batch stopped before its plan, batch-wallets.ts).
 * Rows journaled without their key's id (`older`, the default) needed those wallets to tell
 * whether this run's key sent them; rows this build journaled (with the key's id) were stopped
 * with the rest of their batch, whose wallet check needs them before any row is sent.
 */
export function unreadRowsSaid(rows: readonly number[], why: string, older = true): string {
  const n = rows.length;
  const them = n === 1 ? 'it' : 'them';
  const which = older ? ` journaled by an older payctl without the id of the key that sent ${them}` : ' of unknown outcome';
  const needed = older ? `which tell whether this run's key sent ${them}` : "which the batch's wallet check needs before it sends any row";
  return `${rowsSaid(rows, which)} not sent: this run's account's wallets, ${needed}, could not be read (${why}); left unknown (${n === 1 ? 'it' : 'they'} may or may not have been made)`;
}

/** "2 payouts (rows 2, 3)`which` were" (the first ten rows shown): batch or plan rows named before what is said of them. */
export function rowsSaid(rows: readonly number[], which: string): string {
  const n = rows.length;
  const shown = `${rows.slice(0, 10).join(', ')}${n > 10 ? ', ...' : ''}`;
  return `${plural(n, 'payout')} (row${n === 1 ? '' : 's'} ${shown})${which} ${n === 1 ? 'was' : 'were'}`;
}

/** What to do about rows left unknown so (unreadRowsSaid): `command` once the service answers. */
export function unreadRetry(command: string): string {
  return `Run it again when the service can be reached:\n  ${command}`;
}

/** A failed read of the run's wallets (the service's error, a network fault or time-out): what is said of it and its documented cause (README "Output, scripting and exit codes"); else undefined. */
export function readFault(err: unknown): { said: string; cause: string } | undefined {
  if (!(err instanceof NetworkError) && !(err instanceof ApiError)) return undefined;
  const said = err.message.replace(/\.$/, '');
  return { said, cause: err instanceof NetworkError ? networkCode(err.causeCode) : 'SERVICE_ERROR' };
}

/** "this run's account's wallets could not be read (…)": why payout `payoutId` is left unknown when the read its check needs failed. */
export function unreadClause(payoutId: string, said: string): string {
  return `this run's account's wallets could not be read (${said}), so whether this run's API key is the one that sent payout ${text(payoutId)} (journaled by an older payctl without the id of the key that sent it) cannot be told: it is not resent, searched for or recorded, and its outcome is still unknown`;
}

/** `entry` named (reconcile --payout-id, payout create --payout-id) when the wallet read its check needs failed: exit 4, its payout id named, with `command` to run once the service answers. */
export function unreadError(entry: JournalEntry, fault: { said: string; cause: string }, command: string): OutcomeUnknownError {
  return new OutcomeUnknownError(`${capitalized(unreadClause(entry.payoutId, text(fault.said)))}. Nothing was sent.`, {
    payoutId: entry.payoutId,
    causeCode: fault.cause,
    hint: `Run it again when the service can be reached: ${command}`,
  });
}

/** The sender of an entry whose wallet the run's account does not hold: its profile (the run's, when none was journaled), with a key it is not known to hold. */
export function walletSender(entry: JournalEntry, inv: Invocation): Extract<OtherSender, { kind: 'key' }> {
  return { kind: 'key', profile: senderProfileOf(entry, inv), stored: false, envRun: false, envSent: entry.keyFrom === 'env' };
}

function senderProfileOf(entry: JournalEntry, inv: Invocation): string {
  return entry.profile !== undefined && isProfileName(entry.profile) ? entry.profile : runProfile(inv);
}

/** "this run's API key does not hold wallet W, which payout P was sent from: …": why the payout is not acted on here. */
export function notHeldClause(entry: JournalEntry, wallet: string): string {
  return `this run's API key does not hold wallet ${text(wallet)}, which payout ${text(entry.payoutId)} was sent from (journaled by an older payctl without the id of the key that sent it): this run's key is another account's, and the payout is not resent, searched for or recorded with it`;
}

/**
 * The login of the key that sent `entry`, ending in ": " before its command, as goneAdvice words
 * it (sender-profile.ts): under its profile (the run's, when it was not journaled). A run whose
 * key is from PAYCTL_API_KEY may have that profile's key right: unsetting it is said first.
 */
export function notHeldAdvice(entry: JournalEntry, inv: Invocation, envRun: boolean): string {
  const profile = senderProfileOf(entry, inv);
  const login = goneLogin(profile, entry.baseUrl, inv.timeout);
  const unset = envRun ? `if profile ${text(profile)} holds the API key that sent it, unset PAYCTL_API_KEY; else ` : '';
  return `${unset}log a profile in with the API key that sent it: ${login}; then, with it: `;
}

/** The reconcile of `entry` with its profile (`more` after its --payout-id), to run with the key that sent it. */
export function notHeldCommand(entry: JournalEntry, inv: Invocation, more: string[] = []): string {
  const profile = senderProfileOf(entry, inv);
  return commandLine({ ...inv, profile }, ['history', 'reconcile'], ['--payout-id', entry.payoutId, ...more]);
}
