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
 * left so too, and so is such a row when those wallets cannot be read (probe K57 finding 2).
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
import { text } from '../../output/text.js';
import { resumeCommand } from './batch-commands.js';
import type { ApiClient } from '../../api/client.js';
import {
  checkedWallet,
  notHeldAdvice,
  notHeldClause,
  notHeldCommand,
  readFault,
  RunWallets,
  unreadClause,
  unreadRetry,
  rowsSaid,
  unreadRowsSaid,
  walletSender,
} from '../../payouts/unkeyed-wallet.js';

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

  /** Rows journaled without their key's id and sent (the run's account holds their wallet): their profile, and what resumes them with the key that sent them. */
  readonly #sentUnkeyed = new Map<string, { profile: string; advice: string }>();

  /** Rows left unknown because the run's wallets could not be read: what the read said, and their resume. */
  readonly #unread = new Map<string, { said: string; resume: string }>();

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
    // A row journaled with its key's id (every row this payctl journals) is this run's: nothing to
    // check, and no resume made (a tenth of a 10,000-row batch's CPU, made for every row).
    if (checkedWallet(entry) === undefined) return undefined;
    const s = walletSender(entry, this.#inv);
    const inv = s.profile === runProfile(this.#inv) ? this.#inv : { ...this.#inv, profile: s.profile };
    const resume = entry.batch ? resumeCommand(inv, this.deps.clock, entry.batch) : notHeldCommand(entry, this.#inv);
    let wallet: string | undefined;
    try {
      wallet = await this.#wallets.notHeld(entry);
    } catch (err) {
      // The wallets not read: the row is left unknown, said with the read's fault, never the run's exit 1 (probe K57 finding 2).
      const fault = readFault(err);
      if (!fault) throw err;
      this.#unread.set(entry.payoutId, { said: text(fault.said), resume });
      return { profile: s.profile, message: `not sent: ${unreadClause(entry.payoutId, text(fault.said))}; run it again when the service can be reached: ${resume}` };
    }
    const advice = `${notHeldAdvice(entry, this.#inv, this.keyFrom === 'env')}${resume}`;
    if (wallet === undefined) {
      // Sent: a refusal of its wallet then is another account's sign too (said in warn).
      this.#sentUnkeyed.set(entry.payoutId, { profile: s.profile, advice });
      return undefined;
    }
    if (!this.#met.has(s.profile)) this.#met.set(s.profile, { sender: s, resume: advice, wallet });
    return { profile: s.profile, message: `not sent: ${notHeldClause(entry, wallet)}; its outcome still unknown: ${advice}` };
  }

  /** The rows left to other profiles (their outcomes' `sender`), said once a profile after the summary. */
  warn(outcomes: RowOutcome[]): void {
    const said: string[] = [];
    for (const [profile, { sender, resume, wallet }] of this.#met) {
      const rows = outcomes.filter((r) => r.sender === profile).map((r) => r.row);
      if (!rows.length) continue;
      const withWhat =
        wallet !== undefined
          ? `with another API key than this run's, which does not hold wallet ${text(wallet)} they were sent from (journaled by an older payctl without the id of the key that sent them): this run's key is another account's`
          : sender.kind === 'key'
            ? `with another API key than this run's (under profile ${text(profile)}), and this run's key may be another account's`
            : `with profile ${text(profile)}, not with this run's profile (${text(runProfile(this.#inv))}), whose API key may be another account's`;
      said.push(
        `${rowsSaid(rows, '')} sent before ${withWhat}: not sent again with it, and left unknown (${rows.length === 1 ? 'it' : 'they'} may or may not have been made). Resume with the ${sender.kind === 'key' ? 'key' : 'profile'} that sent ${rows.length === 1 ? 'it' : 'them'}:\n  ${resume}`,
      );
    }
    said.push(...this.#walletRefused(outcomes));
    const unread = outcomes.filter((r) => this.#unread.has(r.payoutId));
    if (unread.length) {
      const { said: why, resume } = this.#unread.get(unread[0]!.payoutId)!;
      said.push(
        `${unreadRowsSaid(
          unread.map((r) => r.row),
          why,
        )}. ${unreadRetry(resume)}`,
      );
    }
    if (said.length) this.deps.log.warn(said.join('\n'));
  }

  /**
   * Rows journaled without their key's id, resent, and refused as from a wallet this run's key's
   * account does not have (a wallet of the same id is that account's too): another account's key,
   * so running the same command again gets the same refusal (probe K57 finding 4). Said with the
   * login of the key that sent them and then the resume, and marked as their profile's
   * (`sender`), so that the summary does not say to run the same command again.
   */
  #walletRefused(outcomes: RowOutcome[]): string[] {
    const refused = outcomes.filter((r) => r.outcome === 'unknown' && r.walletRefused && this.#sentUnkeyed.has(r.payoutId));
    if (!refused.length) return [];
    const { advice } = this.#sentUnkeyed.get(refused[0]!.payoutId)!;
    for (const r of refused) r.sender = this.#sentUnkeyed.get(r.payoutId)!.profile;
    const n = refused.length;
    return [
      `${rowsSaid(
        refused.map((r) => r.row),
        ` journaled by an older payctl without the id of the key that sent ${n === 1 ? 'it' : 'them'}`,
      )} resent and refused as from a wallet this run's API key's account does not have, a sign that the key is another account's: left unknown (${n === 1 ? 'it' : 'they'} may or may not have been made), and the same command gets the same refusal. Resume with the key that sent ${n === 1 ? 'it' : 'them'}: ${advice}`,
    ];
  }
}
