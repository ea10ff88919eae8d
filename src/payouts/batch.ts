/**
 * Runs a batch: rows sent with bounded concurrency over the shared client, each
 * journaled with its own key before its request leaves and retried like `payout
 * create` (the same sendPayout). A 429 pauses every sender at once, so the batch
 * slows down instead of failing rows. Rows accepted in an earlier run are not sent
 * again. Stopping (Ctrl-C) takes no new rows and lets the requests in flight finish, but starts
 * no new attempt of a row: one whose attempt got no final answer is left unknown (its key journaled).
 * runBatch is the sender pool; the rows come journaled ahead in groups from batch-feed.ts and
 * what each came to is kept by batch-outcomes.ts (docs/architecture.md, "Idempotency journal").
 */
import { setMaxListeners } from 'node:events';
import type { ApiClient } from '../api/client.js';
import type { Clock } from '../clock.js';
import { InterruptedError, NotSentError, type AuthError } from '../errors.js';
import type { JournalEntry, Ledger } from './journal.js';
import { sendPayout } from './send.js';
import { RunBook, type BatchItem, type BatchStats, type RowOutcome } from './batch-outcomes.js';
import { MIN_GROUP, RowFeed, type JournaledRun } from './batch-feed.js';
import type { Contest } from './paid-meanwhile.js';

export { claimRows } from './batch-feed.js';
export type { BatchItem, BatchStats, RowOutcome, RowOutcomeKind } from './batch-outcomes.js';

/** One pause shared by every sender: a 429 holds them all until Retry-After has passed. */
export class RateGate {
  #resumeAt = 0;
  constructor(private readonly clock: Clock) {}
  pause(ms: number): void {
    this.#resumeAt = Math.max(this.#resumeAt, this.clock.now().getTime() + ms);
  }
  /** Until the pause has passed, or `stop` aborts (the run's first stop: the attempt then sees it, and none leaves). */
  async wait(stop?: AbortSignal): Promise<void> {
    const left = () => this.#resumeAt - this.clock.now().getTime();
    for (let ms = left(); ms > 0 && !stop?.aborted; ms = left()) {
      await this.clock.sleep(ms, stop).catch((err: unknown) => {
        if (!(err instanceof InterruptedError)) throw err;
      });
    }
  }
}

export interface RunBatchOptions {
  api: ApiClient;
  journal: Ledger;
  concurrency: number;
  /** The time, and the waits between retries. */
  clock: Clock;
  /** Aborted on Ctrl-C: no new rows are started. */
  stop: AbortSignal;
  onProgress?: (s: BatchStats) => void;
  /** Told of each row's outcome as it is known (the report is written as rows finish). */
  onSettle?: (o: RowOutcome) => void;
  /** The batch run, journaled with each row: its id, the file's absolute path and the options a resume repeats. */
  batch?: JournaledRun;
  /** The profile of the run, journaled with each row, and whether its key is from PAYCTL_API_KEY (sender-profile.ts keyFromOf). */
  profile?: string;
  keyFrom?: 'env' | undefined;
  /**
   * A row's entry journaled under another profile (an earlier run's, resumed with this one:
   * sender-profile.ts heldSender): that profile, and what the row's report says; such a row is not
   * sent with this run's key (another account's, perhaps), and left unknown as it was.
   */
  otherSender?: (entry: JournalEntry) => Promise<{ profile: string; message: string } | undefined>;
  onRetry?: (row: number, info: { attempt: number; waitMs: number; reason: string }) => void;
  /**
   * When this run began, by the ledger's clock (Ledger.now: the one entries are dated by): a row
   * journaled at or after it, with no outcome yet, was never sent before. The service refusing the API key (401, or 403 to POST /payout) on such a row's
   * first attempt means nothing was sent: the row is journaled and reported as refused and the
   * run stops sending (every row would be refused alike). Without it, or for a row journaled
   * by an earlier run (whose attempt may have reached the service), the row stays unknown.
   */
  since?: Date;
  /** A run without --batch-id: its rows are looked for among other runs' as they are journaled (paid-meanwhile.ts); `stop` should include its signal. */
  contest?: Contest | undefined;
}

export async function runBatch(
  items: BatchItem[] | AsyncIterable<BatchItem>,
  o: RunBatchOptions & { total?: number },
): Promise<{ outcomes: RowOutcome[]; stopped: boolean; keyRefused?: AuthError }> {
  const total = o.total ?? (Array.isArray(items) ? items.length : 0);
  const book = new RunBook(total, o.onSettle, o.onProgress);
  const feed = new RowFeed(items, book, {
    journal: o.journal,
    baseUrl: o.api.baseUrl,
    clock: o.clock,
    stop: o.stop,
    batch: o.batch,
    profile: o.profile,
    keyFrom: o.keyFrom,
    // The id of the key each row is sent with (sender-profile.ts): the client's.
    keyId: o.api.runKey?.keyId,
    ahead: Math.max(MIN_GROUP, o.concurrency),
    contest: o.contest,
  });
  const gate = new RateGate(o.clock);
  // Requests in flight are not interrupted by the first Ctrl-C: they finish and are recorded.
  const inFlightSignal = new AbortController().signal;
  // Every sender listens on it (its request, which undici may hold until the body is read), and
  // on the stop (its request not started yet, its wait before a retry): more than Node's
  // default of 10 is expected, not a leak (each goes when its request ends). Past 10 Node
  // printed MaxListenersExceededWarning to the operator (--concurrency 11).
  setMaxListeners(Math.max(10, o.concurrency * 4), inFlightSignal, o.stop);
  // The transaction ids of this run's answers: one given to two rows leaves the second unknown.
  const seen = new Map<string, string>();

  /** One sender: rows taken (journaled ahead) and sent one after another, until none are left or the run stops. */
  const sender = async () => {
    // A row journaled but not sent (Ctrl-C) is simply sent by the rerun, with the same key.
    for (let cur = await feed.take(); cur; cur = await feed.take()) {
      const { i, it } = cur;
      let entry: JournalEntry;
      try {
        entry = await cur.entry;
      } catch (err) {
        book.notJournaled(i, it, err); // not journaled, so not sent: the rerun sends it
        continue;
      }
      // Stopped while this row was taken or its entry written: not sent (recorded as such below).
      if (o.stop.aborted) {
        feed.giveBack(cur);
        break;
      }
      // One place a row's journaled entry is sent from: another profile's is left to that profile (probe 55-R findings 2, 3).
      const other = await o.otherSender?.(entry);
      if (other) {
        book.otherSender(i, it, other.profile, other.message);
        continue;
      }
      book.sending();
      const journaledNow = o.since !== undefined && entry.outcome === undefined && Date.parse(entry.createdAt) >= o.since.getTime();
      try {
        const r = await sendPayout(o.api, o.journal, entry, {
          signal: inFlightSignal,
          // The first stop lets requests in flight finish, but ends one not started: a connection
          // or a proxy's tunnel still opening (a proxy slow to open them sent the rows long after),
          // and a wait before a retry (no new attempt starts: the row is unknown).
          unsentStop: o.stop,
          clock: o.clock,
          gate,
          seen,
          journaledNow,
          deferRecord: (w) => book.deferRecord(i, w),
          onRetry: (info) => o.onRetry?.(it.row, info),
        });
        book.sent(i, it, r);
      } catch (err) {
        if (!(err instanceof NotSentError)) {
          book.threw(i, it, err, journaledNow);
          continue;
        }
        // Not sent: recorded as a row never taken (recordUnsent); one recorded as not made before
        // (and as unknown by sendPayout just before it was to leave) is not made again.
        book.unsent();
        if (entry.outcome?.kind === 'not-made') await o.journal.record(entry, entry.outcome).catch(() => {});
        feed.giveBack(cur);
        break;
      }
    }
  };

  // A sender that fails (the file changed while sending) stops the others at their next row;
  // the outcomes of rows already sent are still written and the log closed before it is thrown.
  let stoppedBy: { err: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.max(1, total ? Math.min(o.concurrency, total) : o.concurrency) }, () =>
      sender().catch((err: unknown) => {
        stoppedBy ??= { err };
      }),
    ),
  );
  await feed.recordUnsent();
  await book.allWritten();
  // The run's log keeps only the latest line of each entry; if that fails, it stays whole, only longer.
  await o.journal.closeLog().catch(() => {});
  if (stoppedBy) throw stoppedBy.err;
  book.unrecordedAsUnknown();
  // Rows never taken (stopped first) are reported too, each with its id.
  await feed.rest((i, it) => book.notTaken(i, it));
  return book.result(o.stop.aborted);
}
