/**
 * Rows journaled for a batch's senders (docs/architecture.md, "Idempotency journal"): every row
 * gets its journal entry (its key and exact body) before its request leaves. RowFeed pulls the
 * rows one at a time (a streamed file is never held whole) and journals them ahead of the
 * senders in groups; claimRows journals every row at once, for a run that holds the wallets'
 * locks. Rows accepted in an earlier run are settled on the way, never journaled again.
 */
import { CliError, LocalError } from '../errors.js';
import type { Clock } from '../clock.js';
import { claimedNow, type JournalEntry, type Ledger, type RunOptions } from './journal.js';
import type { BatchItem, RunBook } from './batch-outcomes.js';
import { repeatKey, zeroKey } from './identity.js';
import { checkMeanwhile, type Contest } from './paid-meanwhile.js';

/** The fewest rows journaled together (one write and one fsync of the log, one of the folder). */
export const MIN_GROUP = 32;

/** Rows claimed together by claimRows: one write and one fsync of the log per group. */
const CLAIM_GROUP = 256;

export interface RowJournal {
  journal: Ledger;
  baseUrl: string;
  now: Date;
  batch?: JournaledRun | undefined;
  profile?: string | undefined;
  /** 'env' when the run's key is from PAYCTL_API_KEY (sender-profile.ts keyFromOf), journaled with each row. */
  keyFrom?: 'env' | undefined;
  /** The id of the run's API key (JournalEntry.keyId), journaled with each row. */
  keyId?: string | undefined;
}

/** The batch run each row is journaled with: its id and file, and the options a resume repeats (set only when given). */
export type JournaledRun = { id: string; file: string } & RunOptions;

/** The run's options as an entry keeps them: only those set (an entry has no member that is undefined). */
function runOptions(r: RunOptions): RunOptions {
  if (r.report === undefined && r.concurrency === undefined) return {};
  return { ...(r.report !== undefined ? { report: r.report } : {}), ...(r.concurrency !== undefined ? { concurrency: r.concurrency } : {}) };
}

/** A row's journal entry: made (in this run's log) unless the row has one; how RowFeed and claimRows journal a row. */
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
    keyFrom: o.keyFrom,
    keyId: o.keyId,
    origin: {
      batch: o.batch ? { id: o.batch.id, file: o.batch.file, row: it.row, ...runOptions(o.batch) } : undefined,
      fingerprint: it.fingerprint || undefined,
      // Found by `payout create`'s repeat guard, and by a resume whose row was changed since (changed-rows.ts).
      repeatKey: repeatKey(it.request),
      // And whatever leading zeros the other copy kept (identity.ts zeroKey).
      zeroKey: zeroKey(it.request),
    },
  });
}

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

/** A row whose entry is handed to its sender only once its group is checked (RowFeed #contest): a row found stops the run first. */
function afterCheck(t: Taken, checked: Promise<void>): Taken {
  const entry = t.entry.then(async (e) => {
    await checked;
    return e;
  });
  entry.catch(() => {}); // handled where it is awaited
  return { ...t, entry };
}

/** A row taken to send, its journal entry being written. */
export interface Taken {
  i: number;
  it: BatchItem;
  entry: Promise<JournalEntry>;
}

export interface FeedOptions {
  journal: Ledger;
  baseUrl: string;
  clock: Clock;
  /** Aborted on Ctrl-C: no new rows are taken. */
  stop: AbortSignal;
  batch?: JournaledRun | undefined;
  profile?: string | undefined;
  keyFrom?: 'env' | undefined;
  keyId?: string | undefined;
  /** Rows journaled together, ahead of the senders. */
  ahead: number;
  /** A run without --batch-id: each group, once journaled, is looked for among other runs' rows before it is sent (paid-meanwhile.ts). */
  contest?: Contest | undefined;
}

/**
 * The rows of a run, handed to its senders journaled. Rows are journaled ahead of the senders,
 * `ahead` at a time and all in the same moment: their lines share one write and one fsync of the
 * log, their claims one fsync of the journal folder (instead of a group of whatever few rows
 * finished together). A refill starts while the senders still have rows, so journaling stays off
 * the requests' path. At most about twice `ahead` rows are journaled and not yet sent; on Ctrl-C
 * they are reported as not sent, and a rerun sends them under the keys journaled now. At least
 * 32 a group (MIN_GROUP): each group costs two fsyncs, and groups of 8 (concurrency 8) made a
 * 10,000-row batch 10% slower and spend a quarter more system time (`npm run bench`).
 */
export class RowFeed {
  readonly #rows: AsyncIterator<BatchItem> | Iterator<BatchItem>;
  #pulled = 0;
  readonly #ready: Taken[] = [];
  #drained = false;
  #refilling: Promise<void> | undefined = undefined;
  // Reading the rows failed (the file changed meanwhile): every sender stops with it.
  #failure: { err: unknown } | undefined = undefined;

  constructor(
    items: BatchItem[] | AsyncIterable<BatchItem>,
    private readonly book: RunBook,
    private readonly o: FeedOptions,
  ) {
    // Rows are pulled one at a time (a streamed file is never held whole), numbered as they come.
    this.#rows = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  }

  async #pull(): Promise<{ i: number; it: BatchItem } | undefined> {
    const n = await this.#rows.next();
    return n.done ? undefined : { i: this.#pulled++, it: n.value };
  }

  #journal(i: number, it: BatchItem): Taken {
    const { o } = this;
    const entry = beginRow(it, { journal: o.journal, baseUrl: o.baseUrl, now: o.clock.now(), batch: o.batch, profile: o.profile, keyFrom: o.keyFrom, keyId: o.keyId });
    entry.catch(() => {}); // handled where it is awaited
    return { i, it, entry };
  }

  /** The next `ahead` rows to send pulled from the file, then journaled together (rows accepted in an earlier run are settled on the way). */
  #refill(): Promise<void> {
    return (this.#refilling ??= (async () => {
      const rows: Array<{ i: number; it: BatchItem }> = [];
      while (rows.length < this.o.ahead && !this.o.stop.aborted) {
        const n = await this.#pull();
        if (!n) {
          this.#drained = true;
          break;
        }
        const { i, it } = n;
        this.book.taken(i, it);
        const prior = it.earlier?.outcome;
        if (prior?.kind === 'accepted') {
          this.book.earlier(i, it, prior);
          continue;
        }
        rows.push(n);
      }
      const group = rows.map((r) => this.#journal(r.i, r.it));
      const checked = this.o.contest && group.length ? this.#contest(group, this.o.contest) : undefined;
      for (const t of group) this.#ready.push(checked ? afterCheck(t, checked) : t);
    })()
      .catch((err: unknown) => {
        this.#failure = { err };
        this.#drained = true;
      })
      .finally(() => (this.#refilling = undefined)));
  }

  /** The group looked for among other runs' rows once its entries are made; never rejects: a failure stops the run as a row found does. */
  async #contest(group: Taken[], c: Contest): Promise<void> {
    try {
      const made = await Promise.allSettled(group.map((t) => t.entry));
      const rows = group.flatMap((t, j) => {
        const m = made[j]!;
        return m.status === 'fulfilled' ? [{ row: t.it.row, request: t.it.request, derivedId: t.it.derivedId, entry: m.value }] : [];
      });
      await checkMeanwhile(this.o.journal, this.o.baseUrl, c, rows);
    } catch (err) {
      c.stop.abort(err);
    }
  }

  /** The next row to send, its journal entry already being written; undefined when no rows are left or stopping. */
  async take(): Promise<Taken | undefined> {
    for (;;) {
      if (this.#failure) throw this.#failure.err;
      if (this.o.stop.aborted || this.book.keyRefused) return undefined;
      const next = this.#ready.shift();
      if (next) {
        if (this.#ready.length < this.o.ahead && !this.#drained) void this.#refill();
        return next;
      }
      if (this.#drained) return undefined;
      await this.#refill();
    }
  }

  /** A row a sender took and did not send (the run stopped meanwhile): back with the rows no sender took. */
  giveBack(t: Taken): void {
    this.#ready.unshift(t);
  }

  /**
   * The run is over: the rows journaled ahead that no sender took (it stopped: Ctrl-C, the key
   * refused, the file changed), recorded as not made. No request left for them, and an entry
   * without an outcome would read as unknown, which history reconcile resolves by sending it:
   * it would pay what the person stopped. Only entries this run made (an entry another run made
   * for the same row may be in flight there), and only while they still have no outcome.
   */
  async recordUnsent(): Promise<void> {
    await this.#refilling;
    const rows = this.#ready.splice(0).filter((t) => t.it.earlier === undefined);
    const at = this.o.clock.now().toISOString();
    await Promise.allSettled(
      rows.map(async (t) => {
        const entry = await t.entry;
        if (!claimedNow(entry)) return;
        const current = await this.o.journal.get(entry.baseUrl, entry.payoutId);
        if (current && current.outcome === undefined && current.idempotencyKey === entry.idempotencyKey) await this.o.journal.record(current, { kind: 'not-made', at });
      }),
    );
  }

  /** Each row never pulled (the run stopped first), told to `each`. */
  async rest(each: (i: number, it: BatchItem) => void): Promise<void> {
    if (this.#drained) return;
    for (let n = await this.#pull(); n; n = await this.#pull()) each(n.i, n.it);
  }
}
