/**
 * `history reconcile` acts on a payout of unknown outcome only with the profile that sent it
 * (payouts/sender-profile.ts, probe 54-H finding 1): one sent with another profile is refused
 * when named (`--payout-id`, `--resend`, `--made-by`: exit 2, nothing sent or recorded), and left
 * unknown by a run over every payout, each with the command that resolves it with that profile.
 * One sent with a profile now gone (or at another base URL) is another profile's too: its commands
 * name that profile, after the login that brings it back (probe 55-R finding 5). One whose sender
 * cannot be told (no profile journaled, a key from PAYCTL_API_KEY journaled or this run's) is left
 * unknown by a run over every payout, with its `--payout-id` command: named, it is acted on with
 * the run's profile, and a refusal of its resend is left unknown (senderConfirmed: that key's
 * account may not be the sender's). One journaled without the id of its key, from a wallet the
 * run's account does not hold, was sent with another account's key (payouts/unkeyed-wallet.ts):
 * left unknown by a run over every payout, refused when named (probe 56-K finding 1); when those
 * wallets cannot be read, such a payout alone is left unknown (`unchecked`), named: exit 4.
 */
import { UsageError } from '../../errors.js';
import { commandLine, type Invocation } from '../../config/command-line.js';
import { text } from '../../output/text.js';
import type { JournalEntry } from '../../payouts/journal.js';
import { goneAdvice, goneLogin, heldSender, keyFromOf, otherSenderClause, senderInvocation, senderOf, type Profiles } from '../../payouts/sender-profile.js';
import { capitalized } from '../../words.js';
import { notHeldAdvice, notHeldClause, notHeldCommand, readFault, unreadClause, unreadError, type RunWallets } from '../../payouts/unkeyed-wallet.js';
import type { ReconcileResult } from './reconcile-output.js';

/** The reconcile command of `entry` with the profile that sent it, `more` after its --payout-id. */
export function senderCommand(entry: JournalEntry, inv: Invocation, config: Profiles, more: string[] = []): string {
  return commandLine(senderInvocation(entry, inv, config), ['history', 'reconcile'], ['--payout-id', entry.payoutId, ...more]);
}

/**
 * The same, after the login that brings the profile that sent it back when it is gone (sender-profile.ts goneAdvice).
 * Another profile's entry journaled without its key's id, met by a run whose key is from
 * PAYCTL_API_KEY: that profile's command works only with the variable unset (it is sent in place of
 * the profile's key), so the unset comes first, as unkeyed-wallet.ts notHeldAdvice words it (probe K57 finding 3).
 */
export function senderAdvice(entry: JournalEntry, inv: Invocation, config: Profiles, more: string[] = []): string {
  const s = heldSender(entry, inv, config);
  const envOther = s?.kind === 'other' && entry.keyId === undefined && config.runKey?.keyFrom === 'env';
  const before = envOther ? notHeldAdvice(entry, inv, true) : s ? goneAdvice(entry.baseUrl, s, inv.timeout) : '';
  return `${before}${senderCommand(entry, inv, config, more)}`;
}

/** `entry` named by --payout-id (`more`: the run's --resend or --made-by, repeated in the command printed): refused when another profile sent it. */
export function refuseOtherSender(entry: JournalEntry, inv: Invocation, config: Profiles, more: string[], nothing: string): void {
  const s = heldSender(entry, inv, config);
  if (!s) return;
  throw new UsageError(
    `${capitalized(otherSenderClause(entry, s, inv))}: it is resent, looked for and recorded only with the profile that sent it. ${nothing}`,
    [],
    `Reconcile it with the profile that sent it: ${senderAdvice(entry, inv, config, more)}`,
  );
}

/** Whether this run's profile and key are known to be the ones that sent `entry` (its key not from PAYCTL_API_KEY, nor the entry's: keyFromOf). */
export function senderConfirmed(entry: JournalEntry, inv: Invocation, config: Profiles, env: NodeJS.ProcessEnv): boolean {
  return senderOf(entry, inv, config, keyFromOf(env)).kind === 'own';
}

/** In a run over every unknown payout: the result of `entry` when this run's profile and key are not known to have sent it (left unknown), else undefined. */
export function notThisSender(entry: JournalEntry, inv: Invocation, config: Profiles, env: NodeJS.ProcessEnv): ReconcileResult | undefined {
  const s = senderOf(entry, inv, config, keyFromOf(env));
  if (s.kind === 'own') return undefined;
  return {
    payoutId: entry.payoutId,
    action: 'other-profile',
    outcome: 'unknown',
    ...(s.kind === 'other' || s.kind === 'gone' || s.kind === 'key' ? { sender: s.profile } : {}),
    ...(s.kind === 'gone' || (s.kind === 'key' && !s.stored) ? { login: goneLogin(s.profile, entry.baseUrl, inv.timeout) } : {}),
    ...(s.kind === 'key'
      ? {
          otherKey: `sent with another API key than this run's; ${goneAdvice(entry.baseUrl, s, inv.timeout) || `profile ${text(s.profile)} holds it; with that profile: `}`,
        }
      : {}),
    command: senderCommand(entry, inv, config),
  };
}

/** The line of a payout left to the profile that sent it (action `other-profile`), or unchecked for want of the wallets (`unchecked`). */
export function otherSenderLine(r: ReconcileResult): string {
  const id = text(r.payoutId);
  if (r.action === 'unchecked')
    return `unknown   ${id}  not resent: ${unreadClause(r.payoutId, text(r.error))}; run it again when the service can be reached: ${r.command}\n`;
  if (r.otherKey !== undefined) return `unknown   ${id}  not resent: ${r.otherKey}${r.command}\n`;
  if (r.sender === undefined)
    return `unknown   ${id}  not resent: whose key sent it is not known (journaled without its profile by an older payctl, or with a key from PAYCTL_API_KEY; or this run's key is from PAYCTL_API_KEY), so no profile or key is taken to have sent it; if this run's did: ${r.command}\n`;
  if (r.login !== undefined)
    return `unknown   ${id}  not resent: sent with profile ${text(r.sender)}, now gone from the config (or at another base URL); log it in again with the API key it had: ${r.login}; then, with it: ${r.command}\n`;
  return `unknown   ${id}  not resent: sent with profile ${text(r.sender)}, whose key this run does not hold (another profile's key may be another account's); with that profile: ${r.command}\n`;
}

/** `entry` named by --payout-id (`more` as refuseOtherSender's): refused when it has no key id and the run's account does not hold its wallet. */
export async function refuseNotHeld(entry: JournalEntry, inv: Invocation, wallets: RunWallets, env: NodeJS.ProcessEnv, more: string[], nothing: string): Promise<void> {
  // The wallets not read: the payout stays unknown, exit 4 with its payout id (unkeyed-wallet.ts readFault).
  const wallet = await wallets.notHeld(entry).catch((err: unknown) => {
    const fault = readFault(err);
    throw fault ? unreadError(entry, fault, notHeldCommand(entry, inv, more)) : err;
  });
  if (wallet === undefined) return;
  throw new UsageError(
    `${capitalized(notHeldClause(entry, wallet))}. ${nothing}`,
    [],
    `Reconcile it with the API key that sent it: ${notHeldAdvice(entry, inv, keyFromOf(env) === 'env')}${notHeldCommand(entry, inv, more)}`,
  );
}

/** In a run over every unknown payout: the result of `entry` when it has no key id and the run's account does not hold its wallet (left unknown), else undefined. */
export async function notHeldResult(entry: JournalEntry, inv: Invocation, wallets: RunWallets, env: NodeJS.ProcessEnv): Promise<ReconcileResult | undefined> {
  let wallet: string | undefined;
  try {
    wallet = await wallets.notHeld(entry);
  } catch (err) {
    // The wallets not read: this one left unknown, with the read's cause; the others are resolved (probe K57 finding 2).
    const fault = readFault(err);
    if (!fault) throw err;
    const command = notHeldCommand(entry, inv);
    return { payoutId: entry.payoutId, action: 'unchecked', outcome: 'unknown', code: 'OUTCOME_UNKNOWN', cause: fault.cause, error: fault.said, command };
  }
  if (wallet === undefined) return undefined;
  return {
    payoutId: entry.payoutId,
    action: 'other-profile',
    outcome: 'unknown',
    ...(entry.profile !== undefined ? { sender: entry.profile } : {}),
    otherKey: `${notHeldClause(entry, wallet)}; ${notHeldAdvice(entry, inv, keyFromOf(env) === 'env')}`,
    command: notHeldCommand(entry, inv),
  };
}
