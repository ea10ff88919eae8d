/**
 * Settlement: a Pending payout created by a client becomes Successful `settleAfterMs`
 * after its creation, or Failed when the recipient's account number ends in `0000`
 * (then the ledger returns amount + fee to the wallet). One timer serves the queue,
 * ordered by due time; after a restart from a state file the queue is re-armed from
 * the Pending records that are due to settle.
 */
import { MAX_SETTLE_AFTER_MS } from './options.js';
import type { Ledger, Payout } from './state.js';

export const FAILING_ACCOUNT_SUFFIX = '0000';
export const FAILURE_REASON = 'Recipient account rejected by the provider (account not found).';

interface Due {
  id: string;
  dueMs: number;
}

export class Settlement {
  private queue: Due[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly ledger: Ledger,
    private readonly settleAfterMs: number,
    private readonly onSettled: (p: Payout) => void,
  ) {}

  /** Schedules a payout created at `createdUs` (microseconds). */
  schedule(p: Payout): void {
    const dueMs = Math.floor(p.createdUs / 1000) + this.settleAfterMs;
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1]!.dueMs > dueMs) i--;
    this.queue.splice(i, 0, { id: p.transactionId, dueMs });
    if (i === 0) this.arm();
  }

  private arm(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const head = this.queue[0];
    if (!head) return;
    // A longer wait than a timer takes would fire at once and spin: wait the longest, then look again.
    this.timer = setTimeout(() => this.run(), Math.min(MAX_SETTLE_AFTER_MS, Math.max(0, head.dueMs - Date.now())));
  }

  private run(): void {
    this.timer = undefined;
    const now = Date.now();
    while (this.queue.length && this.queue[0]!.dueMs <= now) {
      const { id } = this.queue.shift()!;
      const p = this.ledger.find(id);
      if (!p || p.status !== 'Pending') continue;
      const fails = p.recipient.accountDetails.accountNumber.endsWith(FAILING_ACCOUNT_SUFFIX);
      const settled = fails ? this.ledger.settle(id, 'Failed', FAILURE_REASON) : this.ledger.settle(id, 'Successful');
      if (settled) this.onSettled(settled);
    }
    this.arm();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = [];
  }
}
