/**
 * A batch run's bookkeeping (docs/architecture.md, "Idempotency journal"): what each row came to,
 * the counts the progress bar shows, the outcome writes still pending, and the outcomes as the
 * report gets them at the end (a row whose outcome the journal could not take is unknown; rows
 * never taken are not sent). batch.ts's senders tell it; nothing here sends.
 *
 * On a batch's path (npm run bench, docs/performance.md): one RowOutcome object a row, every one
 * of the same shape (rowOutcome), and no spreads.
 */
import { AuthError } from '../errors.js';
import { plainAmount } from '../money/amount.js';
import { failedAtOnceWord } from '../service/schemas.js';
import type { JournalEntry, Outcome } from './journal.js';
import type { PayoutRequest } from './request.js';
import type { SendResult } from './send-result.js';
import { localFault } from './send-result.js';
import { OUTCOME_UNKNOWN } from './lookup.js';

export interface BatchItem {
  row: number;
  request: PayoutRequest;
  body: string;
  /** What the row pays (identity.ts), journaled with it. */
  fingerprint?: string;
  /** The journal entry of an earlier run, if any. */
  earlier?: JournalEntry | undefined;
  /** The key to journal it under (a plan's); default a new one. */
  idempotencyKey?: string;
  /** False when the file gives the row its payout_id (paid-meanwhile.ts passes it over); else its id is made from what it pays. */
  derivedId?: boolean;
}

export type RowOutcomeKind = 'accepted' | 'replayed' | 'rejected' | 'unknown' | 'not sent';

export interface RowOutcome {
  row: number;
  payoutId: string;
  outcome: RowOutcomeKind;
  code?: string;
  message?: string;
  transactionId?: string;
  fee?: string;
  /** Accepted in an earlier run (not sent again). */
  earlier?: boolean;
  /** Unknown, first sent more than 24 hours ago or dated in the future (payouts/entry-age.ts): not resent, held for a person (history reconcile). */
  held?: boolean;
  /**
   * Unknown, journaled under this profile, not this run's (sender-profile.ts heldSender): not resent with this run's key;
   * or resent, refused as another account's wallet, and said apart with that profile's login (other-sender-rows.ts).
   */
  sender?: string | undefined;
  /** Unknown: its resend refused as from a wallet this key's account does not have (resend-refused.ts walletRefused). */
  walletRefused?: true;
  /**
   * What a rejected row paid (whom, how much): how a person is told which row it is. Kept for
   * rejected rows only: a 10,000-row batch holding every row's request in its outcomes peaked
   * 6 MB higher (`npm run bench`).
   */
  request?: PayoutRequest;
}

export interface BatchStats {
  total: number;
  done: number;
  failed: number;
  unknown: number;
  inFlight: number;
}

/**
 * A row's outcome as one object literal with every field (those not given undefined).
 * Not `{ ...base, outcome, ... }`: in Node 20's V8 each object made by a spread followed by
 * more properties gets a hidden class of its own, so a batch of 10,000 rows made 10,000 of
 * them, and every read of a field went megamorphic.
 */
export function rowOutcome(
  it: BatchItem,
  outcome: RowOutcomeKind,
  f: { code?: string | undefined; message?: string | undefined; transactionId?: string | undefined; fee?: string | undefined; held?: boolean },
): RowOutcome {
  return {
    row: it.row,
    payoutId: it.request.payoutId,
    outcome,
    // A row of unknown outcome has the code payout create --json gives one (lookup.ts): a script reads it in the code column.
    code: f.code ?? (outcome === 'unknown' ? OUTCOME_UNKNOWN : undefined),
    message: f.message,
    transactionId: f.transactionId,
    fee: f.fee,
    earlier: undefined,
    held: f.held,
    sender: undefined,
    request: outcome === 'rejected' ? it.request : undefined,
  };
}

export const STOPPED_BEFORE_SENT = 'stopped before this row was sent';
const KEY_REFUSED = 'not sent: the service refused the API key';

/** The code of an accepted row whose answer says the provider failed it at once. */
export const FAILED_AT_ONCE = 'FAILED';

/** Accepted, and the answer says the provider failed it: nothing was paid for it. */
export function failedAtOnce(o: RowOutcome): boolean {
  return (o.outcome === 'accepted' || o.outcome === 'replayed') && o.code === FAILED_AT_ONCE;
}

function money(v: number | string | undefined, currency: string): string | undefined {
  return v === undefined ? undefined : plainAmount(v, currency);
}

/** The outcomes of one run, by the index of each row as it was pulled from the file. */
export class RunBook {
  readonly outcomes: RowOutcome[];
  readonly stats: BatchStats;
  /** The service refused the API key before anything was sent (runBatch's `since`): no more rows are started. */
  keyRefused: AuthError | undefined = undefined;
  // Outcome writes still pending: counted, not kept (a long batch holds no list of them).
  #writing = 0;
  #written: (() => void) | undefined = undefined;
  readonly #unrecorded = new Map<number, unknown>();

  constructor(
    total: number,
    private readonly onSettle: ((o: RowOutcome) => void) | undefined,
    private readonly onProgress: ((s: BatchStats) => void) | undefined,
  ) {
    this.outcomes = new Array<RowOutcome>(total);
    this.stats = { total, done: 0, failed: 0, unknown: 0, inFlight: 0 };
  }

  /** A row taken: until it is sent, it counts as not sent (Ctrl-C may come first). */
  taken(i: number, it: BatchItem): void {
    this.outcomes[i] = rowOutcome(it, 'not sent', { message: STOPPED_BEFORE_SENT });
  }

  /** A row's outcome, known: counted, and told to the report. */
  settle(i: number, out: RowOutcome): void {
    this.outcomes[i] = out;
    this.onSettle?.(out);
    const { stats } = this;
    if (out.outcome === 'accepted' || out.outcome === 'replayed') stats.done++;
    else if (out.outcome === 'rejected') stats.failed++;
    else if (out.outcome === 'unknown') stats.unknown++;
    this.onProgress?.(stats);
  }

  /** A row accepted in an earlier run: not sent again. */
  earlier(i: number, it: BatchItem, prior: Extract<Outcome, { kind: 'accepted' }>): void {
    const out = rowOutcome(it, 'accepted', { transactionId: prior.transactionId, fee: prior.fee });
    out.earlier = true;
    this.settle(i, out);
  }

  /** A row journaled under another profile (`sender`): not sent with this run's key, left unknown as it was; `message` says with what to resume it. */
  otherSender(i: number, it: BatchItem, sender: string, message: string): void {
    const out = rowOutcome(it, 'unknown', { message });
    out.sender = sender;
    this.settle(i, out);
  }

  /** Its journal entry could not be written, so it was not sent: the rerun sends it. */
  notJournaled(i: number, it: BatchItem, err: unknown): void {
    this.settle(i, rowOutcome(it, 'not sent', { message: `not journaled, so not sent: ${(err as Error).message}` }));
  }

  /** A row's request about to leave. */
  sending(): void {
    this.stats.inFlight++;
    this.onProgress?.(this.stats);
  }

  /** A row's request ended by the stop before it left (NotSentError): not sent, as a row never taken. */
  unsent(): void {
    this.stats.inFlight--;
    this.onProgress?.(this.stats);
  }

  /** What sendPayout said of a row. */
  sent(i: number, it: BatchItem, r: SendResult): void {
    this.stats.inFlight--;
    if (r.kind === 'accepted') {
      const t = r.transaction;
      // The answer may say the provider failed it at once ("DECLINED"): accepted, and said so (FAILED).
      const word = r.alreadyMade ? undefined : failedAtOnceWord(t);
      const failed = word !== undefined ? { code: FAILED_AT_ONCE, message: `the service's answer says ${JSON.stringify(word)}` } : {};
      this.settle(
        i,
        rowOutcome(
          it,
          r.replayed ? 'replayed' : 'accepted',
          // Already made (the service has the payout id from an earlier key): no transaction id; report.ts says so.
          r.alreadyMade ? {} : { transactionId: t.transaction_id, fee: money(t.fee, t.currency), ...failed },
        ),
      );
    } else if (r.kind === 'rejected') {
      this.settle(i, rowOutcome(it, 'rejected', { code: r.error.code, message: r.error.message }));
    } else {
      const out = rowOutcome(it, 'unknown', r.held ? { message: r.error.message, held: true } : { message: r.error.message });
      if (r.walletRefused) out.walletRefused = true;
      this.settle(i, out);
    }
  }

  /** sendPayout threw: the key refused on a row never sent before, or unknown. */
  threw(i: number, it: BatchItem, err: unknown, journaledNow: boolean): void {
    this.stats.inFlight--;
    // The key refused on a row never sent before (journaled as refused by sendPayout): nothing was sent.
    if (err instanceof AuthError && journaledNow && err.status !== undefined) {
      this.keyRefused ??= err;
      this.settle(
        i,
        rowOutcome(it, 'rejected', { code: err.status === 403 ? 'FORBIDDEN' : 'UNAUTHORIZED', message: `${err.message.replace(/\.$/, '')}: nothing was sent` }),
      );
    } else this.settle(i, rowOutcome(it, 'unknown', { message: (err as Error).message }));
  }

  /** A row's outcome write, taken from sendPayout (deferRecord): waited for by allWritten. */
  deferRecord(i: number, w: Promise<unknown>): void {
    // A failed write leaves the journal without this row's outcome: reported as unknown (unrecorded).
    this.#writing++;
    w.catch((err: unknown) => this.#unrecorded.set(i, err)).finally(() => {
      if (--this.#writing === 0) this.#written?.();
    });
  }

  /** Every outcome is on disk before the batch reports. */
  async allWritten(): Promise<void> {
    if (this.#writing > 0) await new Promise<void>((resolve) => (this.#written = resolve));
  }

  /** Rows whose outcome the journal could not take: unknown, saying what the service said. */
  unrecordedAsUnknown(): void {
    for (const [i, err] of this.#unrecorded) {
      const prev = this.outcomes[i]!;
      const what = localFault(err);
      const said = prev.outcome === 'accepted' || prev.outcome === 'replayed' ? `accepted (transaction ${prev.transactionId ?? '?'})` : prev.outcome;
      this.outcomes[i] = { ...prev, outcome: 'unknown', code: OUTCOME_UNKNOWN, message: `${said}, but payctl could not record it in its journal: ${what}` };
    }
  }

  /** A row never taken (stopped first), reported too, with its id. */
  notTaken(i: number, it: BatchItem): void {
    this.outcomes[i] = rowOutcome(it, 'not sent', { message: this.keyRefused ? KEY_REFUSED : STOPPED_BEFORE_SENT });
  }

  /** The outcomes in row order, and whether the run was stopped with rows left. */
  result(stopAsked: boolean): { outcomes: RowOutcome[]; stopped: boolean; keyRefused?: AuthError } {
    const { outcomes, keyRefused } = this;
    if (keyRefused)
      for (const [i, x] of outcomes.entries()) if (x?.outcome === 'not sent' && x.message === STOPPED_BEFORE_SENT) outcomes[i] = { ...x, message: KEY_REFUSED };
    const all = outcomes.filter((x): x is RowOutcome => x !== undefined);
    return { outcomes: all, stopped: stopAsked && all.some((x) => x.outcome === 'not sent'), keyRefused };
  }
}
