/**
 * A batch or a plan resumed with another profile than the one its rows were journaled under
 * (probe 55-R findings 2 and 3): two profiles of one base URL may hold the keys of two accounts,
 * and a row resent under the other account's key is refused as that account's, its payout list
 * searched in vain, and the row recorded as rejected though its first attempts may have paid it.
 * So such a row is not sent (sender-profile.ts heldSender, checked where payouts/batch.ts sends a
 * row's entry): it is left unknown as it was, its report line names the resume of the profile that
 * sent it (after the login that brings that profile back, when it is gone), and the summary says
 * so once a profile. A row journaled without its key's id from a wallet this run's account does
 * not hold was sent with another account's key (payouts/unkeyed-wallet.ts, probe 56-K finding 1):
 * left so too.
 */
import type { Deps } from '../../deps.js';
import { commandLine, invocationOf, type Invocation } from '../../config/command-line.js';
import type { JournalEntry } from '../../payouts/journal.js';
import type { RowOutcome } from '../../payouts/batch-outcomes.js';
import {
  goneAdvice,
  heldSender,
  keyFromOf,
  otherSenderClause,
  runProfile,
  withRunKey,
  type OtherSender,
  type Profiles,
  type RunKey,
} from '../../payouts/sender-profile.js';
import { plural, text } from '../../output/text.js';
import { resumeCommand } from './batch-commands.js';
import type { ApiClient } from '../../api/client.js';
import { notHeldAdvice, notHeldClause, notHeldCommand, RunWallets, walletSender } from '../../payouts/unkeyed-wallet.js';

export class OtherSenderRows {
  readonly #inv: Invocation;
  /** Whether this run's key is from PAYCTL_API_KEY: journaled with each row it sends (sender-profile.ts keyFromOf). */
  readonly keyFrom: 'env' | undefined;
  /** Each other profile met, with what to run to resume its rows. */
  readonly #met = new Map<string, { sender: OtherSender; resume: string; wallet?: string }>();

  /** The key this run sends (ApiClient.runKey): a row journaled with another key's id is not this run's. */
  readonly #runKey: RunKey | undefined;
  /** The config's profiles with the run's key, read once (withRunKey). */
  #config: Profiles | undefined;

  /** The run's account's wallets, read once when a row journaled without its key's id is met (unkeyed-wallet.ts). */
  readonly #wallets: RunWallets;

  constructor(
    private readonly deps: Deps,
    runKey: RunKey | undefined,
    api: Pick<ApiClient, 'wallets'>,
  ) {
    this.#wallets = new RunWallets(api);
    this.#runKey = runKey;
    this.#inv = invocationOf(deps.globals, deps.env);
    this.keyFrom = keyFromOf(deps.env);
  }

  /** runBatch's `otherSender`: the profile that sent `entry` when it is not this run's, with the row's report message. */
  readonly check = async (entry: JournalEntry): Promise<{ profile: string; message: string } | undefined> => {
    const s = heldSender(entry, this.#inv, (this.#config ??= withRunKey(this.deps.config(), this.#runKey)));
    if (!s) return this.#notHeld(entry);
    const inv = s.profile === runProfile(this.#inv) ? this.#inv : { ...this.#inv, profile: s.profile };
    const resume = entry.batch ? resumeCommand(inv, this.deps.clock, entry.batch) : commandLine(inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId]);
    const advice = `${goneAdvice(entry.baseUrl, s, this.#inv.timeout)}${resume}`;
    if (!this.#met.has(s.profile)) this.#met.set(s.profile, { sender: s, resume: advice });
    return {
      profile: s.profile,
      message: `not sent: ${otherSenderClause(entry, s, this.#inv)}; it is resent only with the profile that sent it, its outcome still unknown: ${advice}`,
    };
  };

  /** A row journaled without its key's id from a wallet this run's account does not hold (unkeyed-wallet.ts): another account's key sent it. */
  async #notHeld(entry: JournalEntry): Promise<{ profile: string; message: string } | undefined> {
    const wallet = await this.#wallets.notHeld(entry);
    if (wallet === undefined) return undefined;
    const s = walletSender(entry, this.#inv);
    const inv = s.profile === runProfile(this.#inv) ? this.#inv : { ...this.#inv, profile: s.profile };
    const resume = entry.batch ? resumeCommand(inv, this.deps.clock, entry.batch) : notHeldCommand(entry, this.#inv);
    const advice = `${notHeldAdvice(entry, this.#inv, this.keyFrom === 'env')}${resume}`;
    if (!this.#met.has(s.profile)) this.#met.set(s.profile, { sender: s, resume: advice, wallet });
    return { profile: s.profile, message: `not sent: ${notHeldClause(entry, wallet)}; its outcome still unknown: ${advice}` };
  }

  /** The rows left to other profiles (their outcomes' `sender`), said once a profile after the summary. */
  warn(outcomes: RowOutcome[]): void {
    const said: string[] = [];
    for (const [profile, { sender, resume, wallet }] of this.#met) {
      const rows = outcomes.filter((r) => r.sender === profile).map((r) => r.row);
      if (!rows.length) continue;
      const shown = `${rows.slice(0, 10).join(', ')}${rows.length > 10 ? ', ...' : ''}`;
      const withWhat =
        wallet !== undefined
          ? `with another API key than this run's, which does not hold wallet ${text(wallet)} they were sent from (journaled by an older payctl without the id of the key that sent them): this run's key is another account's`
          : sender.kind === 'key'
            ? `with another API key than this run's (under profile ${text(profile)}), and this run's key may be another account's`
            : `with profile ${text(profile)}, not with this run's profile (${text(runProfile(this.#inv))}), whose API key may be another account's`;
      said.push(
        `${plural(rows.length, 'payout')} (row${rows.length === 1 ? '' : 's'} ${shown}) ${rows.length === 1 ? 'was' : 'were'} sent before ${withWhat}: not sent again with it, and left unknown (${rows.length === 1 ? 'it' : 'they'} may or may not have been made). Resume with the ${sender.kind === 'key' ? 'key' : 'profile'} that sent ${rows.length === 1 ? 'it' : 'them'}:\n  ${resume}`,
      );
    }
    if (said.length) this.deps.log.warn(said.join('\n'));
  }
}
