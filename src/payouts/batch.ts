/**
 * Runs a batch: rows sent with bounded concurrency over the shared client, each
 * journaled with its own key before its request leaves and retried like `payout
 * create` (the same sendPayout). A 429 pauses every sender at once, so the batch
 * slows down instead of failing rows. Rows accepted in an earlier run are not sent
 * again. Stopping (Ctrl-C) takes no new rows and lets the ones in flight finish.
 */
import { setMaxListeners } from 'node:events';
import type { ApiClient } from '../api/client.js';
import { plainAmount } from '../money/amount.js';
import type { Clock } from '../clock.js';
import type { Journal, JournalEntry } from './journal.js';
import type { PayoutRequest } from './request.js';
import { localFault, sendPayout } from './send.js';
import { AuthError, CliError, LocalError } from '../errors.js';

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
  /** What the row pays (whom, how much): how a person is told which row it is. */
  request?: PayoutRequest;
}

/** One pause shared by every sender: a 429 holds them all until Retry-After has passed. */
export class RateGate {
  #resumeAt = 0;
  constructor(private readonly clock: Clock) {}
  pause(ms: number): void {
    this.#resumeAt = Math.max(this.#resumeAt, this.clock.now().getTime() + ms);
  }
  async wait(): Promise<void> {
    const left = () => this.#resumeAt - this.clock.now().getTime();
    for (let ms = left(); ms > 0; ms = left()) await this.clock.sleep(ms);
  }
}

export interface BatchStats {
  total: number;
  done: number;
  failed: number;
  unknown: number;
  inFlight: number;
}

export interface RunBatchOptions {
  api: ApiClient;
  journal: Journal;
  concurrency: number;
  /** The time, and the waits between retries. */
  clock: Clock;
  /** Aborted on Ctrl-C: no new rows are started. */
  stop: AbortSignal;
  onProgress?: (s: BatchStats) => void;
  /** Told of each row's outcome as it is known (the report is written as rows finish). */
  onSettle?: (o: RowOutcome) => void;
  /** The batch run, journaled with each row: its id and the file's absolute path. */
  batch?: { id: string; file: string };
  /** The profile of the run, journaled with each row. */
  profile?: string;
  onRetry?: (row: number, info: { attempt: number; waitMs: number; reason: string }) => void;
  /**
   * When this run began: a row journaled at or after it, with no outcome yet, was never sent
   * before. The service refusing the API key (401, or 403 to POST /payout) on such a row's
   * first attempt means nothing was sent: the row is journaled and reported as refused and the
   * run stops sending (every row would be refused alike). Without it, or for a row journaled
   * by an earlier run (whose attempt may have reached the service), the row stays unknown.
   */
  since?: Date;
}

/**
 * A row's outcome as one object literal with every field (those not given undefined).
 * Not `{ ...base, outcome, ... }`: in Node 20's V8 each object made by a spread followed by
 * more properties gets a hidden class of its own, so a batch of 10,000 rows made 10,000 of
 * them, and every read of a field went megamorphic.
 */
function rowOutcome(
  it: BatchItem,
  outcome: RowOutcomeKind,
  f: { code?: string | undefined; message?: string | undefined; transactionId?: string | undefined; fee?: string | undefined },
): RowOutcome {
  return {
    row: it.row,
    payoutId: it.request.payoutId,
    outcome,
    code: f.code,
    message: f.message,
    transactionId: f.transactionId,
    fee: f.fee,
    earlier: undefined,
    request: it.request,
  };
}

const STOPPED_BEFORE_SENT = 'stopped before this row was sent';

/** The fewest rows journaled together (one write and one fsync of the log, one of the folder). */
const MIN_GROUP = 32;

function money(v: number | string | undefined, currency: string): string | undefined {
  return v === undefined ? undefined : plainAmount(v, currency);
}

interface RowJournal {
  journal: Journal;
  baseUrl: string;
  now: Date;
  batch?: { id: string; file: string } | undefined;
  profile?: string | undefined;
}

/** A row's journal entry: made (in this run's log) unless the row has one; how runBatch and claimRows journal a row. */
function beginRow(it: BatchItem, o: RowJournal): Promise<JournalEntry> {
  return o.journal.begin({
    baseUrl: o.baseUrl,
    payoutId: it.request.payoutId,
    body: it.body,
    idempotencyKey: it.idempotencyKey,
    now: o.now,
    // In this run's log: rows journaled at the same moment share one write and one fsync.
    log: true,
    // Items come looked up (batch-load.ts lookUpRow, plan send): no entry then, none looked for again.
    absent: it.earlier === undefined,
    profile: o.profile,
    origin: {
      batch: o.batch ? { id: o.batch.id, file: o.batch.file, row: it.row } : undefined,
      fingerprint: it.fingerprint || undefined,
    },
  });
}

/** Rows claimed together by claimRows: one write and one fsync of the log per group. */
const CLAIM_GROUP = 256;

/**
 * Every row still to send journaled before any is sent: what a batch under a policy that counts
 * the day does while it holds the wallets' locks (wallet-lock.ts), so that the rows count in
 * the checks of other runs from then on. Each row gets its entry as `earlier`, so runBatch
 * sends it under that entry (same key). Rows accepted earlier are left as they are. Every
 * claim is awaited before a failure is thrown (a LocalError unless it is one of payctl's):
 * nothing is sent then, and the rows already claimed are sent by the rerun under their keys.
 */
export async function claimRows<T extends BatchItem>(items: T[], o: RowJournal): Promise<T[]> {
  for (let from = 0; from < items.length; from += CLAIM_GROUP) {
    const group = items.slice(from, from + CLAIM_GROUP).filter((it) => it.earlier?.outcome?.kind !== 'accepted');
    const results = await Promise.allSettled(group.map((it) => beginRow(it, o)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      if (failed.reason instanceof CliError) throw failed.reason;
      throw new LocalError(
        `Cannot journal the payouts before sending them: ${(failed.reason as Error).message}. Nothing was sent.`,
        'Payouts journaled so far are sent under their keys when the same command is run again.',
      );
    }
    // Set in place (the items are this run's own): a spread would give each row a shape of its own.
    group.forEach((it, j) => (it.earlier = (results[j] as PromiseFulfilledResult<JournalEntry>).value));
  }
  return items;
}

export async function runBatch(
  items: BatchItem[] | AsyncIterable<BatchItem>,
  o: RunBatchOptions & { total?: number },
): Promise<{ outcomes: RowOutcome[]; stopped: boolean; keyRefused?: AuthError }> {
  const total = o.total ?? (Array.isArray(items) ? items.length : 0);
  // The service refused the API key before anything was sent (o.since): no more rows are started.
  let keyRefused: AuthError | undefined;
  const outcomes = new Array<RowOutcome>(total);
  const stats: BatchStats = { total, done: 0, failed: 0, unknown: 0, inFlight: 0 };
  const gate = new RateGate(o.clock);
  // Requests in flight are not interrupted by the first Ctrl-C: they finish and are recorded.
  const inFlightSignal = new AbortController().signal;
  // Every sender listens on it (its request, which undici may hold until the body is read,
  // and its wait before a retry): more than Node's default of 10 is expected, not a leak.
  setMaxListeners(Math.max(10, o.concurrency * 4), inFlightSignal);
  // Outcome writes still pending: counted, not kept (a long batch holds no list of them).
  let writing = 0;
  let written: (() => void) | undefined;
  const unrecorded = new Map<number, unknown>();
  // Rows are pulled one at a time (a streamed file is never held whole), numbered as they come.
  const rowsOf: AsyncIterator<BatchItem> | Iterator<BatchItem> = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  let pulled = 0;
  const pull = async (): Promise<{ i: number; it: BatchItem } | undefined> => {
    const n = await rowsOf.next();
    return n.done ? undefined : { i: pulled++, it: n.value };
  };

  const settle = (i: number, out: RowOutcome) => {
    outcomes[i] = out;
    o.onSettle?.(out);
    if (out.outcome === 'accepted' || out.outcome === 'replayed') stats.done++;
    else if (out.outcome === 'rejected') stats.failed++;
    else if (out.outcome === 'unknown') stats.unknown++;
    o.onProgress?.(stats);
  };

  /** A row taken to send, its journal entry being written. */
  type Taken = { i: number; it: BatchItem; entry: Promise<JournalEntry> };
  // Rows are journaled ahead of the senders, `ahead` at a time and all in the same moment:
  // their lines share one write and one fsync of the log, their claims one fsync of the
  // journal folder (instead of a group of whatever few rows finished together). A refill
  // starts while the senders still have rows, so journaling stays off the requests' path.
  // At most about twice `ahead` rows are journaled and not yet sent; on Ctrl-C they are
  // reported as not sent, and a rerun sends them under the keys journaled now. At least 32 a
  // group: each group costs two fsyncs, and groups of 8 (concurrency 8) made a 10,000-row
  // batch 10% slower and spend a quarter more system time (`npm run bench`).
  const ahead = Math.max(MIN_GROUP, o.concurrency);
  const ready: Taken[] = [];
  let drained = false;
  let refilling: Promise<void> | undefined;
  // Reading the rows failed (the file changed meanwhile): every sender stops with it.
  let failure: { err: unknown } | undefined;

  const journal = (i: number, it: BatchItem): Taken => {
    const entry = beginRow(it, { journal: o.journal, baseUrl: o.api.baseUrl, now: o.clock.now(), batch: o.batch, profile: o.profile });
    entry.catch(() => {}); // handled where it is awaited
    return { i, it, entry };
  };

  /** The next `ahead` rows to send pulled from the file, then journaled together (rows accepted in an earlier run are settled on the way). */
  const refill = (): Promise<void> =>
    (refilling ??= (async () => {
      const rows: Array<{ i: number; it: BatchItem }> = [];
      while (rows.length < ahead && !o.stop.aborted) {
        const n = await pull();
        if (!n) {
          drained = true;
          break;
        }
        const { i, it } = n;
        // Until it is sent, the row counts as not sent (Ctrl-C may come first).
        outcomes[i] = rowOutcome(it, 'not sent', { message: STOPPED_BEFORE_SENT });
        const prior = it.earlier?.outcome;
        if (prior?.kind === 'accepted') {
          const out = rowOutcome(it, 'accepted', { transactionId: prior.transactionId, fee: prior.fee });
          out.earlier = true;
          settle(i, out);
          continue;
        }
        rows.push(n);
      }
      for (const r of rows) ready.push(journal(r.i, r.it));
    })()
      .catch((err: unknown) => {
        failure = { err };
        drained = true;
      })
      .finally(() => (refilling = undefined)));

  /** The next row to send, its journal entry already being written; undefined when no rows are left or stopping. */
  const take = async (): Promise<Taken | undefined> => {
    for (;;) {
      if (failure) throw failure.err;
      if (o.stop.aborted || keyRefused) return undefined;
      const next = ready.shift();
      if (next) {
        if (ready.length < ahead && !drained) void refill();
        return next;
      }
      if (drained) return undefined;
      await refill();
    }
  };

  const worker = async () => {
    // A row journaled but not sent (Ctrl-C) is simply sent by the rerun, with the same key.
    for (let cur = await take(); cur && !o.stop.aborted; cur = await take()) {
      const { i, it } = cur;
      let entry: JournalEntry;
      try {
        entry = await cur.entry;
      } catch (err) {
        // Not journaled, so not sent: the rerun sends it.
        settle(i, rowOutcome(it, 'not sent', { message: `not journaled, so not sent: ${(err as Error).message}` }));
        continue;
      }
      stats.inFlight++;
      o.onProgress?.(stats);
      const journaledNow = o.since !== undefined && entry.outcome === undefined && Date.parse(entry.createdAt) >= o.since.getTime();
      try {
        const r = await sendPayout(o.api, o.journal, entry, {
          signal: inFlightSignal,
          clock: o.clock,
          gate,
          journaledNow,
          deferRecord: (w) => {
            // A failed write leaves the journal without this row's outcome: reported as unknown below.
            writing++;
            w.catch((err: unknown) => unrecorded.set(i, err)).finally(() => {
              if (--writing === 0) written?.();
            });
          },
          onRetry: (info) => o.onRetry?.(it.row, info),
        });
        stats.inFlight--;
        if (r.kind === 'accepted') {
          settle(
            i,
            rowOutcome(
              it,
              r.replayed ? 'replayed' : 'accepted',
              // Already made (the service has the payout id from an earlier key): no transaction id; report.ts says so.
              r.alreadyMade ? {} : { transactionId: r.transaction.transaction_id, fee: money(r.transaction.fee, r.transaction.currency) },
            ),
          );
        } else if (r.kind === 'rejected') {
          settle(i, rowOutcome(it, 'rejected', { code: r.error.code, message: r.error.message }));
        } else {
          settle(i, rowOutcome(it, 'unknown', { message: r.error.message }));
        }
      } catch (err) {
        stats.inFlight--;
        // The key refused on a row never sent before (journaled as refused by sendPayout): nothing was sent.
        if (err instanceof AuthError && journaledNow && err.status !== undefined) {
          keyRefused ??= err;
          settle(
            i,
            rowOutcome(it, 'rejected', { code: err.status === 403 ? 'FORBIDDEN' : 'UNAUTHORIZED', message: `${err.message.replace(/\.$/, '')}: nothing was sent` }),
          );
        } else settle(i, rowOutcome(it, 'unknown', { message: (err as Error).message }));
      }
    }
  };

  // A sender that fails (the file changed while sending) stops the others at their next row;
  // the outcomes of rows already sent are still written and the log closed before it is thrown.
  let stoppedBy: { err: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.max(1, total ? Math.min(o.concurrency, total) : o.concurrency) }, () =>
      worker().catch((err: unknown) => {
        stoppedBy ??= { err };
      }),
    ),
  );
  // Every outcome is on disk before the batch reports.
  if (writing > 0) await new Promise<void>((resolve) => (written = resolve));
  // The run's log keeps only the latest line of each entry; if that fails, it stays whole, only longer.
  await o.journal.closeLog().catch(() => {});
  if (stoppedBy) throw stoppedBy.err;
  for (const [i, err] of unrecorded) {
    const prev = outcomes[i]!;
    const what = localFault(err);
    const said = prev.outcome === 'accepted' || prev.outcome === 'replayed' ? `accepted (transaction ${prev.transactionId ?? '?'})` : prev.outcome;
    outcomes[i] = { ...prev, outcome: 'unknown', message: `${said}, but payctl could not record it in its journal: ${what}` };
  }
  // Rows never taken (stopped first) are reported too, each with its id.
  const notTaken = keyRefused ? 'not sent: the service refused the API key' : STOPPED_BEFORE_SENT;
  if (!drained) for (let n = await pull(); n; n = await pull()) outcomes[n.i] = rowOutcome(n.it, 'not sent', { message: notTaken });
  if (keyRefused) for (const [i, x] of outcomes.entries()) if (x?.outcome === 'not sent' && x.message === STOPPED_BEFORE_SENT) outcomes[i] = { ...x, message: notTaken };
  const all = outcomes.filter((x): x is RowOutcome => x !== undefined);
  return { outcomes: all, stopped: o.stop.aborted && all.some((x) => x.outcome === 'not sent'), keyRefused };
}
