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
 * Failed, paid nobody and does not count. A payout counts as paying only when its settled status
 * is known Successful: the journal's (a status read noted it), else read from the service now,
 * once (payouts/settle.ts, as batch status reads its rows, and noted). One whose settlement is
 * not known yet (Pending, unread, of unknown outcome) is not said to have paid: the row is still
 * left out (sent again, it may be paid twice), said with the command that checks that payout.
 * Also whether a retry batch holds one of the rows a --failed-out file is written with (the
 * next retry then gets a batch id of its own: batch-commands.ts retryBatchId).
 */
import { bodyDifferences, describeChange, readBody, type Change } from '../../payouts/changed-cells.js';
import { comparedAccount, comparedName } from '../../payouts/identity.js';
import type { JournalEntry, Ledger } from '../../payouts/journal.js';
import { countsAsSent } from '../../payouts/repeats.js';
import { fingerprintOfBody } from '../../payouts/sent-body.js';
import { normalizeStatus } from '../../service/status-words.js';
import { noteSettled, waitForSettled, type SettleApi } from '../../payouts/settle.js';
import { AuthError, ConfigError, InterruptedError } from '../../errors.js';
import { commandLine, type Invocation } from '../../config/command-line.js';
import { sanitizeInline } from '../../output/sanitize.js';
import type { Clock } from '../../clock.js';
import { formatAmount } from '../../money/amount.js';
import { text } from '../../output/text.js';
import { retryBatchIdsOn } from './batch-commands.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The payout that paid a row since (`paid`), or was sent since to pay it and is not known to have
 * paid yet (`status`: what is known of it, "still Pending"), and the cells in which it differs
 * from the row (none: it pays all the same).
 */
export interface PaidSince {
  entry: JournalEntry;
  changes: Change[];
  paid: boolean;
  status: string;
}

/** How the service is read for a payout's settled status. */
export interface StatusReader {
  api: SettleApi;
  clock: Clock;
  signal?: AbortSignal | undefined;
}

/** "Successful" or "Failed" when `s` says a payout settled so (as every status word is read: status-words.ts). */
function settledWord(s: string | undefined): 'Successful' | 'Failed' | undefined {
  const word = s === undefined ? undefined : normalizeStatus(s);
  return word === 'Successful' || word === 'Failed' ? word : undefined;
}

/** What a payout pays, all of it: its fingerprint, journaled or made from its body. */
const entryFingerprint = (e: JournalEntry): string | undefined => e.fingerprint ?? fingerprintOfBody(e.body);

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

/** The rows of the report's retry batches, each batch read once a run, and the settled status of the payouts that may pay a row. */
export class PaidSinceCheck {
  readonly #batches = new Map<string, Promise<JournalEntry[] | undefined>>();
  readonly #statuses = new Map<string, Promise<string>>();

  /** `report`: the report's absolute path; `batchId`: its batch's; `now`: the run's clock (the retry ids' dates are its). */
  constructor(
    readonly journal: Ledger,
    readonly baseUrl: string,
    readonly report: string,
    readonly batchId: string,
    readonly now: Date,
    readonly reader: StatusReader,
  ) {}

  /**
   * The payout that paid `row`'s payment since it was journaled, if any (see above); else one
   * sent since to pay it whose settlement is not known yet, if any (`paid` false).
   */
  async of(row: JournalEntry): Promise<PaidSince | undefined> {
    const later = (o: JournalEntry) => o.payoutId !== row.payoutId && countsAsSent(o) && o.createdAt >= row.createdAt;
    const found: Array<Pick<PaidSince, 'entry' | 'changes'>> = [];
    const fingerprint = entryFingerprint(row);
    if (fingerprint)
      for (const o of (await this.journal.find(this.baseUrl, 'fingerprint', fingerprint).catch(() => [])).filter(later)) found.push({ entry: o, changes: [] });
    for (const o of await this.#retries(row.createdAt)) if (later(o) && samePayment(o, row)) found.push({ entry: o, changes: bodyDifferences(row.body, o.body) });
    let unsettled: PaidSince | undefined;
    for (const f of found) {
      const status = await this.#statusOf(f.entry);
      if (status === 'Successful') return { ...f, paid: true, status };
      if (status !== 'Failed') unsettled ??= { ...f, paid: false, status };
    }
    return unsettled;
  }

  /** Whether retry batch `id` was sent and holds a payout that pays what one of `rows` pays (all the same, or as its retry: samePayment). */
  async holds(id: string, rows: readonly JournalEntry[]): Promise<boolean> {
    const sent = await this.#rows(id);
    if (!sent) return false;
    return sent.some((o) => rows.some((r) => (entryFingerprint(o) !== undefined && entryFingerprint(o) === entryFingerprint(r)) || samePayment(o, r)));
  }

  /**
   * What is known of payout `e`'s settlement: "Successful" or "Failed" (the journal's, else read
   * now and noted), else what is known ("still Pending", "its outcome is unknown"). Read once a run.
   */
  #statusOf(e: JournalEntry): Promise<string> {
    let status = this.#statuses.get(e.payoutId);
    if (!status) {
      status = this.#read(e);
      this.#statuses.set(e.payoutId, status);
    }
    return status;
  }

  async #read(e: JournalEntry): Promise<string> {
    const o = e.outcome;
    if (o?.kind === 'unknown') return 'its outcome is unknown';
    // No answer recorded: its request may have left before the run ended (killed mid-request). Only one found not made was never sent.
    if (o === undefined) return 'journaled, its outcome unknown (it may have been paid)';
    if (o.kind !== 'accepted') return 'journaled, not sent yet';
    const known = settledWord(o.payoutStatus);
    if (known) return known;
    if (!o.transactionId) return 'accepted, with no transaction id to read it by';
    const { api, clock, signal } = this.reader;
    try {
      const r = await waitForSettled(api, { transactionId: o.transactionId, payoutId: e.payoutId, entry: e }, { clock, signal, timeoutMs: 0 });
      if (r.kind === 'unread') throw r.error;
      if (r.kind === 'settled') {
        await noteSettled(this.journal, this.baseUrl, e.payoutId, r.status);
        return r.status;
      }
      return `accepted, still ${sanitizeInline(r.status)}`;
    } catch (err) {
      if (err instanceof AuthError || err instanceof InterruptedError || err instanceof ConfigError) throw err;
      return `accepted, its status could not be read: ${sanitizeInline((err as Error).message)}`;
    }
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

/** The payout that paid a row since (or was sent to), as said: `(payout X)`, or for a retry whose cells differ, which retry and how it differs. */
export function paidSinceSaid(p: PaidSince): string {
  if (!p.changes.length) return `(payout ${p.entry.payoutId})`;
  const cells = p.changes.map((c) => c.column).join('/');
  const said = p.changes.map((c) => `${c.column} ${describeChange(c)}`).join(', ');
  return `by retry payout ${p.entry.payoutId} in batch "${text(p.entry.batch?.id ?? '')}", its ${cells} changed: ${text(said)}`;
}

/**
 * Why a row is left out of --failed-out (`file`), after "Row N Failed, " or "Row N was rejected,
 * ": paid since by `p`, or sent again since by `p`, not known to have paid yet, with the command
 * that checks that payout (once it settled Failed, the same --failed-out writes the row).
 */
export function leftOutSaid(p: PaidSince, file: string, inv: Invocation): string {
  if (p.paid) return `but what it pays was paid since ${paidSinceSaid(p)}: it is not written to ${file}.`;
  const o = p.entry.outcome;
  const check =
    o?.kind === 'accepted' && o.transactionId
      ? commandLine(inv, ['payout', 'get'], [o.transactionId, '--wait'])
      : commandLine(inv, ['history', 'reconcile'], ['--payout-id', p.entry.payoutId]);
  return (
    `and what it pays was sent again since ${paidSinceSaid(p)}; that payout is not known to have paid (${p.status}): it is not written to ${file} ` +
    `(sent again, it may be paid twice). Check it with: ${check}\nIf it settled Failed (it paid nobody), run this command again: the row is written then.`
  );
}
