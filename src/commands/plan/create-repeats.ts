/**
 * What `plan create` says of rows paid before, as `payout batch` says it (commands/payout/batch.ts):
 * a plan is approved by people who see only its payouts, so what its file's rows paid before is
 * said before the plan is written. Rows a named batch sent, planned with no --batch-id or with
 * that name typed with a slip (other letter case, other separators), are refused: the plan would
 * pay them again as new payouts; when that batch accepted every row, there is no rest of it to
 * plan, and that is said instead of a plan create that would plan nothing. Rows that pay what
 * other payouts paid, and rows this batch accepted in an earlier run (plan send will not send
 * them), are noted. `policy check` says the same refusal of a batch its policy lets be sent
 * directly, in the words and commands of payout batch (RowsRoute).
 */
import type { Invocation } from '../../config/command-line.js';
import { UsageError } from '../../errors.js';
import { isOwnId, type BatchSource, type LoadedRow } from '../../payouts/batch-load.js';
import type { JournalEntry, Ledger } from '../../payouts/journal.js';
import { BatchRepeats, describeRun, recentSinglesSaid, RunTally, samePayoutsSent, slippedBatch } from '../../payouts/repeats.js';
import { plural } from '../../output/text.js';
import { openAlike, UnsettledRepeats } from '../../payouts/unsettled-repeats.js';
import { newBatchId, recentSinglesRefusal } from '../payout/batch-commands.js';

/**
 * What would send a file's rows, for the refusal of rows paid before: a plan (plan create), or
 * the file sent directly (payout batch: policy check, for a batch its policy lets be sent so);
 * `command`: the command that does it under a batch id (the file by its absolute path).
 */
export interface RowsRoute {
  kind: 'plan' | 'batch';
  command(batchId: string): string;
}

/** How a refusal says each route. */
const ROUTE_WORDS: Record<RowsRoute['kind'], { subject: string; verb: string; payAgain: string }> = {
  plan: { subject: 'this plan', verb: 'plan', payAgain: 'To plan paying these rows again as new payouts' },
  batch: { subject: 'this batch', verb: 'send', payAgain: 'To pay these rows again as new payouts' },
};

export class PlanRepeats {
  readonly #repeats: BatchRepeats;
  readonly #earlier = new RunTally();
  #accepted = 0;
  #rows = 0;
  /** Per other batch, the payouts it accepted that rows of the file pay (one a row): all of them, and it has nothing left to plan. */
  readonly #acceptedIn = new Map<string, Set<string>>();
  /** Rows that pay what a payout of unknown outcome paid: refused, whatever the batch id (payouts/unsettled-repeats.ts). */
  readonly unsettled = new UnsettledRepeats();

  /** `recentSince`: a plan without --batch-id (changed-rows.ts comparedSince). */
  constructor(
    private readonly src: BatchSource,
    private readonly journal: Ledger,
    private readonly baseUrl: string,
    /** The ledger's time: payouts of unknown outcome of the day before it are looked for by what they pay (unsettled-repeats.ts openAlike). */
    private readonly now: Date,
    private readonly recentSince?: Date,
  ) {
    this.#repeats = new BatchRepeats(src.batchId, recentSince);
  }

  /** A row of the file, with its journal entry if it has one. */
  async add(r: LoadedRow): Promise<void> {
    this.#rows++;
    if (r.earlier?.outcome?.kind === 'accepted') {
      this.#accepted++;
      this.#earlier.add(r.earlier);
    } else if (!r.earlier) {
      const own = (e: JournalEntry) => isOwnId(e, this.src, r);
      const same = await samePayoutsSent(this.journal, this.baseUrl, r.fingerprint, own, r.request);
      this.#repeats.add(same, r.row);
      this.unsettled.add(r.row, same, undefined, await openAlike(this.journal, this.baseUrl, r.request, this.now, own));
      this.#acceptedBy(same);
    }
  }

  /** The payouts other batches accepted that a row pays: each batch's first not yet taken by another row. */
  #acceptedBy(same: JournalEntry[]): void {
    const counted = new Set<string>();
    for (const e of same) {
      const id = e.batch?.id;
      if (id === undefined || id === this.src.batchId || counted.has(id) || e.outcome?.kind !== 'accepted') continue;
      const taken = this.#acceptedIn.get(id) ?? new Set<string>();
      if (taken.has(e.payoutId)) continue;
      taken.add(e.payoutId);
      this.#acceptedIn.set(id, taken);
      counted.add(id);
    }
  }

  /**
   * Rows a named batch already sent, planned with no --batch-id (`given` undefined) or with that
   * name typed with a slip: the refusal, with the two commands to choose from, as payout batch
   * refuses them (`route`: what would send the rows, and its command for a batch id:
   * create-rows.ts; `nothing` ends the message); when that batch accepted every row of the file,
   * only the second, and why. Rows a single payout of the last day paid, alike, likewise.
   * Undefined when neither.
   */
  async otherBatchRefusal(given: string | undefined, inv: Invocation, now: Date, nothing: string, route: RowsRoute): Promise<UsageError | undefined> {
    const r = this.#repeats;
    const others = r.otherBatches.runs();
    const taken = new Set([...others, ...r.matched.runs(), ...this.#earlier.runs()].map((o) => o.batchId).filter((id): id is string => id !== undefined));
    const fresh = () => newBatchId(this.src.file, this.src.batchId, now, taken, (id) => this.journal.batchSent(this.baseUrl, id));
    const singles = recentSinglesSaid(r);
    if (singles) return recentSinglesRefusal(this.src.file, singles, this.recentSince!, inv, nothing);
    const slip = slippedBatch({ otherBatchRows: r.otherBatchRows, otherBatches: others }, given);
    if (!slip) return undefined;
    const { rows: n, named, runs } = slip;
    const again = await fresh();
    const allAccepted = (this.#acceptedIn.get(named)?.size ?? 0) === this.#rows;
    const w = ROUTE_WORDS[route.kind];
    const payAgain = `${w.payAgain}:`.padEnd(48);
    return new UsageError(
      `${this.src.file}: ${plural(n, 'row')} ${n === 1 ? 'matches a payout' : 'match payouts'} already sent ${runs}: ${w.subject} would pay ${n === 1 ? 'it' : 'them'} again. ${nothing}`,
      [],
      allAccepted
        ? `Batch "${named}" accepted every row of the file: there is nothing left of it to ${w.verb}.\n${payAgain}${route.command(again)}`
        : `${`To ${w.verb} the rest of that batch:`.padEnd(48)}${route.command(named)}\n${payAgain}${route.command(again)}`,
    );
  }

  /** What is said once the plan is written: rows accepted earlier (a note), rows that pay what other payouts paid (a warning). */
  notices(): Array<{ warn: boolean; text: string }> {
    const out: Array<{ warn: boolean; text: string }> = [];
    if (this.#accepted) {
      out.push({
        warn: false,
        text: `${plural(this.#accepted, 'payout of this plan was', 'payouts of this plan were')} accepted earlier ${this.#earlier.runs().map(describeRun).join('; ')}; plan send does not send ${this.#accepted === 1 ? 'it' : 'them'} again.`,
      });
    }
    const r = this.#repeats;
    if (r.rows) {
      out.push({
        warn: true,
        text: `${plural(r.rows, 'payout of this plan pays', 'payouts of this plan pay')} the same as payouts sent ${r.matched.runs().map(describeRun).join('; ')}; plan send pays ${r.rows === 1 ? 'it' : 'them'} again as new payouts.`,
      });
    }
    return out;
  }
}
