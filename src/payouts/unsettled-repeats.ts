/**
 * Rows of a batch (payout batch, plan create) that pay what an earlier payout of unknown outcome
 * paid (journaled with no answer recorded, as a killed run leaves a request in flight, or of
 * unknown outcome; not one found not made, nor one refused): that payout may have been made, so
 * the row is refused, whatever the batch id (exit 2, nothing sent), as payout create refuses
 * such a repeat with --allow-repeat or not (commands/payout/create-repeat.ts). The refusal offers
 * only what settles it: its batch resumed from its file (its journaled rows sent again under
 * their own keys: paid once) or history reconcile. Before, a killed run's row, in fact paid, put
 * in a file of its own and sent under a batch id of its own was paid again, with only a note
 * saying it paid the same as "payouts sent" (probe A53). A row resumed under its own entry of
 * unknown outcome is its own payout sent again under its key, not a new one: the plan's note says
 * so (resent), never "pays it again as new payouts".
 */
import { rowProblem, UsageError } from '../errors.js';
import { commandLine } from '../config/command-line.js';
import { ownBatchCommand } from './changed-refusal.js';
import { plural, text } from '../output/text.js';
import { listed, MAX_LISTED, ProblemList } from './batch-problems.js';
import type { EntryBatch, JournalEntry, Ledger } from './journal.js';
import { isUnresolved } from './lookup.js';
import { keyMayBeForgotten } from './entry-age.js';
import { paidWording, recentRepeats, RunTally, shortTime } from './repeats.js';
import type { PayoutRequest } from './request.js';

/**
 * Entries of unknown outcome, however old (before, only those of the day before `now`: a row
 * paying the same person under another name, journaled a day after such a payout, was paid
 * again, probe 53-H), that pay what `r` pays by wallet,
 * account (as compared, in any form of leading zeros), amount and currency: what payout create's
 * repeat guard finds (repeats.ts recentRepeats, identity.ts zeroKey), whatever name,
 * note or metadata either wrote. `own` (the batch's own entries) and `r`'s own payout id left
 * out. Before, a row was refused only when it paid the same in every cell: the same person paid
 * again under another name, note or leading zeros in a batch id of its own (probe D54).
 */
export async function openAlike(journal: Ledger, baseUrl: string, r: PayoutRequest, now: Date, own: (e: JournalEntry) => boolean): Promise<JournalEntry[]> {
  return (await recentRepeats(journal, baseUrl, r, now)).filter((e) => isUnresolved(e) && !own(e));
}

/** The commands the refusal prints: a batch run's resume as it printed it (batch-commands.ts resumeCommand), history reconcile of one payout or (none given) of every payout of unknown outcome. */
export interface SettleCommands {
  resume(batch: EntryBatch): string;
  reconcile(payoutId?: string): string;
  /** The command that sends a file of rows that are new payouts under a batch id of its own (changed-refusal.ts), a template. */
  ownBatch: string;
}

/** The commands without the run's profile or options (a caller that gives none: tests of the plan). */
export const PLAIN_SETTLE: SettleCommands = {
  resume: (b) => commandLine({}, ['payout', 'batch'], [b.file, '--batch-id', b.id]),
  reconcile: (id) => commandLine({}, ['history', 'reconcile'], id === undefined ? [] : ['--payout-id', id]),
  ownBatch: ownBatchCommand({}, ['payout', 'batch']),
};

/** At most this many commands are printed of each kind. */
const SHOWN = 3;

/** The rows of one run that pay what a payout of unknown outcome paid, kept as problems; and the rows resent under their own such entry, with what they pay the same as. */
export class UnsettledRepeats {
  readonly problems = new ProblemList(MAX_LISTED);
  /** Per batch run (id and file), its latest entry found (its resume) and the entries of unknown outcome found of it. */
  readonly #runs = new Map<string, { batch: EntryBatch; open: JournalEntry[] }>();
  /** Payouts found that no batch run resumes (single payouts). */
  readonly #singles = new Set<string>();
  /** Rows resent under their own entry of unknown outcome that pay what other payouts paid, and those payouts' runs. */
  resentRows = 0;
  readonly resent = new RunTally(true);
  /** Rows still to send as new payouts that pay what other payouts paid, and those payouts' runs. */
  newRows = 0;
  readonly again = new RunTally(true);

  /**
   * A row still to send (`row`: its number; `own`: its own entry, when it has one) with the payouts
   * it repeats (repeats.ts samePayoutsSent: refused ones and the batch's own left out), and those
   * of unknown outcome that pay the same person (`alike`: openAlike).
   */
  add(row: number, same: JournalEntry[], own: JournalEntry | undefined, alike: JournalEntry[] = []): void {
    if (same.length) {
      const resent = own !== undefined && isUnresolved(own);
      if (resent) this.resentRows++;
      else this.newRows++;
      for (const e of same) (resent ? this.resent : this.again).add(e);
    }
    // The same payout in every cell, else one paying the same person as payout create's guard finds it (openAlike).
    const open = same.filter(isUnresolved).at(-1) ?? alike.at(-1);
    if (!open) return;
    const where = open.batch
      ? `in batch "${text(open.batch.id)}" (its row ${open.batch.row} of ${text(open.batch.file)}, ${shortTime(open.createdAt)})`
      : `as a single payout (payout create, ${shortTime(open.createdAt)})`;
    this.problems.push(rowProblem(row, `pays what payout ${open.payoutId} ${paidWording(open, 'the same')} ${where}`));
    if (open.batch) {
      const key = `${open.batch.id}\n${open.batch.file}`;
      const run = this.#runs.get(key);
      if (run) run.open.push(open);
      this.#runs.set(key, { batch: open.batch, open: run ? run.open : [open] });
    } else this.#singles.add(open.payoutId);
  }

  /**
   * The refusal (exit 2) of the rows found, when there are; `nothing`: "Nothing was sent.", "No plan
   * was written."; `now`: the ledger's time. A run one of whose payouts was first sent over 24
   * hours before is not offered its resume, which resends none of them then (the service may have
   * forgotten their keys: send.ts): each of its payouts is settled with history reconcile, which
   * lists the records that could be it, for --made-by or --resend. Before, the resume was promised
   * to send them again "so each is paid once", and run as printed it resent nothing (probe 54-H).
   */
  refusal(path: string, nothing: string, say: SettleCommands, now: Date): UsageError | undefined {
    const n = this.problems.total;
    if (!n) return undefined;
    const all = [...this.#runs.values()];
    const stale = all.filter((r) => r.open.some((e) => keyMayBeForgotten(e, now)));
    const runs = all
      .filter((r) => !stale.includes(r))
      .slice(0, SHOWN)
      .map((r) => `  ${say.resume(r.batch)}`);
    const old = [...new Set(stale.flatMap((r) => r.open.map((e) => e.payoutId)))].slice(0, SHOWN).map((id) => `  ${say.reconcile(id)}`);
    const singles = [...this.#singles].slice(0, SHOWN).map((id) => `  ${say.reconcile(id)}`);
    const settle = [
      ...(old.length
        ? [
            `Settle ${old.length === 1 ? 'the batch row' : 'the batch rows'} first sent over 24 hours ago one by one with history reconcile (a resume no longer resends ${old.length === 1 ? 'it' : 'them'}: the service may have forgotten ${old.length === 1 ? 'its key' : 'their keys'}; it lists the payouts the service made that could be ${old.length === 1 ? 'it' : 'each'}, for --made-by or --resend):`,
            ...old,
          ]
        : []),
      ...(runs.length
        ? [
            `Resume ${runs.length === 1 ? 'its batch' : 'their batches'} from the file as it was sent (its journaled rows are sent again under their own keys, so each is paid once):`,
            ...runs,
          ]
        : []),
      ...(singles.length
        ? [
            `Settle the single payout${singles.length === 1 ? '' : 's'} with history reconcile (within 24 hours it resends each under its own key: paid once; an older one it holds, listing the payouts the service made that could be it, for --made-by or --resend):`,
            ...singles,
          ]
        : []),
      `Or settle every payout of unknown outcome: ${say.reconcile()}`,
    ];
    return new UsageError(
      `${path}: ${plural(n, 'row pays', 'rows pay')} what ${n === 1 ? 'an earlier payout' : 'earlier payouts'} of unknown outcome may have paid: sent again as ${n === 1 ? 'a new payout' : 'new payouts'}, ${n === 1 ? 'it' : 'they'} would pay twice, whatever the batch id (payout create refuses the same, --allow-repeat or not). ${nothing}`,
      listed(this.problems),
      `${settle.join('\n')}\nEither way each such payout is then made once. Only if a row is meant as a second payment, run this command again once it is settled: the plan notes the payout that paid it, and a batch id of its own pays it again. Until then, never send such a row in a file of its own or under a batch id of its own: that would pay it twice.`,
    );
  }
}
