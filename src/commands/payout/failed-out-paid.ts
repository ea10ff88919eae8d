/**
 * Whether a report's Failed or rejected row was paid since by another payout, for `payout batch
 * status --failed-out`, which leaves such a row out of the file it writes, and says so (sent
 * again, that person would be paid twice). Paid since: by a payout journaled after the row's
 * that pays all the same (its fingerprint), or by a payout of a retry batch of this report (a
 * batch id its --failed-out prints: batch-commands.ts retryBatchIdsOn) journaled after the row's
 * that pays the same wallet, amount and currency to the same payee: the same account (as
 * compared), or the same name when the account was corrected. The tool asks the operator to
 * review the file it writes, and a review corrects cells (a note's typo, the account a
 * provider did not find): the retry that paid is still the row's. A payout refused, or settled
 * Failed, paid nobody and does not count.
 */
import { bodyDifferences, describeChange, readBody, type Change } from '../../payouts/changed-cells.js';
import { comparedAccount, comparedName } from '../../payouts/identity.js';
import type { JournalEntry, Ledger } from '../../payouts/journal.js';
import { countsAsSent } from '../../payouts/repeats.js';
import { fingerprintOfBody } from '../../payouts/sent-body.js';
import { formatAmount } from '../../money/amount.js';
import { text } from '../../output/text.js';
import { retryBatchIdsOn } from './batch-commands.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The payout that paid a row since, and the cells in which it differs from the row (none: it paid all the same). */
export interface PaidSince {
  entry: JournalEntry;
  changes: Change[];
}

/** A payout that paid: not refused, and not settled Failed (a retry that failed paid nobody either). */
function paid(o: JournalEntry): boolean {
  return countsAsSent(o) && !(o.outcome?.kind === 'accepted' && o.outcome.payoutStatus?.toLowerCase() === 'failed');
}

/** Whether `o` pays what `row` paid (wallet, amount, currency) to the same payee: the same account as compared, or the same name. */
function samePayment(o: JournalEntry, row: JournalEntry): boolean {
  const a = readBody(o.body);
  const b = readBody(row.body);
  if (a.walletId === undefined || a.walletId !== b.walletId || a.currency === undefined || a.currency !== b.currency) return false;
  if (a.amount === undefined || b.amount === undefined || formatAmount(a.amount, a.currency) !== formatAmount(b.amount, b.currency)) return false;
  const account = a.account !== undefined && b.account !== undefined && comparedAccount(a.account) === comparedAccount(b.account);
  const name = a.name !== undefined && b.name !== undefined && comparedName(a.name) === comparedName(b.name);
  return account || name;
}

/** The rows of the report's retry batches, each batch read once a run. */
export class PaidSinceCheck {
  readonly #batches = new Map<string, Promise<JournalEntry[] | undefined>>();

  /** `report`: the report's absolute path; `batchId`: its batch's; `now`: the run's clock (the retry ids' dates are its). */
  constructor(
    readonly journal: Ledger,
    readonly baseUrl: string,
    readonly report: string,
    readonly batchId: string,
    readonly now: Date,
  ) {}

  /** The payout that paid `row`'s payment since it was journaled, if any (see above). */
  async of(row: JournalEntry): Promise<PaidSince | undefined> {
    const later = (o: JournalEntry) => o.payoutId !== row.payoutId && paid(o) && o.createdAt >= row.createdAt;
    const fingerprint = row.fingerprint ?? fingerprintOfBody(row.body);
    if (fingerprint) {
      const same = (await this.journal.find(this.baseUrl, 'fingerprint', fingerprint).catch(() => [])).find(later);
      if (same) return { entry: same, changes: [] };
    }
    for (const o of await this.#retries(row.createdAt)) if (later(o) && samePayment(o, row)) return { entry: o, changes: bodyDifferences(row.body, o.body) };
    return undefined;
  }

  /**
   * The rows of the retry batches of this report sent since `since`: for each day from the one
   * before it (the ledger's clock may be ahead of the run's) to today, the ids retryBatchId
   * prints that day, up to the first never sent.
   */
  async #retries(since: string): Promise<JournalEntry[]> {
    const out: JournalEntry[] = [];
    const first = Math.floor(Date.parse(since) / DAY_MS) - 1;
    const last = Math.floor(this.now.getTime() / DAY_MS);
    for (let day = first; day <= last; day++) {
      for (const id of retryBatchIdsOn(this.report, this.batchId, new Date(day * DAY_MS))) {
        const rows = await this.#rows(id);
        if (!rows) break;
        out.push(...rows);
      }
    }
    return out;
  }

  /** Batch `id`'s rows, or undefined when it was never sent. */
  #rows(id: string): Promise<JournalEntry[] | undefined> {
    let rows = this.#batches.get(id);
    if (!rows) {
      // A ledger that cannot be read is said (the run stops): a row it may show paid is not written to be paid again.
      rows = this.journal.batchSent(this.baseUrl, id).then((sent) => (sent ? this.journal.batchRows(this.baseUrl, { id }) : undefined));
      this.#batches.set(id, rows);
    }
    return rows;
  }
}

/** The payout that paid a row since, as said: `(payout X)`, or for a retry whose cells differ, which retry and how it differs. */
export function paidSinceSaid(p: PaidSince): string {
  if (!p.changes.length) return `(payout ${p.entry.payoutId})`;
  const cells = p.changes.map((c) => c.column).join('/');
  const said = p.changes.map((c) => `${c.column} ${describeChange(c)}`).join(', ');
  return `by retry payout ${p.entry.payoutId} in batch "${text(p.entry.batch?.id ?? '')}", its ${cells} changed: ${text(said)}`;
}
