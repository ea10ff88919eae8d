/**
 * What makes two payouts the same payout (GUIDE pattern 11). A batch row without a
 * payout_id gets its id from the batch id, what the row pays (normalized: the same
 * payout written as `100` or `100.00`, in another row order, in a renamed or re-saved
 * file, gives the same id) and its occurrence among identical rows of the file, never
 * from the file's name or the row's position. A single payout typed twice is caught by
 * its repeat key: the same wallet, recipient account, amount and currency.
 */
import { hash } from 'node:crypto';
import type { PayoutRequest } from './request.js';

/** The batch id of a run without --batch-id. */
export const DEFAULT_BATCH_ID = 'default';

/** What a --batch-id may hold: it is shown in plans, reports and commands to paste. */
export const BATCH_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

export function checkBatchId(id: string): string | undefined {
  return BATCH_ID.test(id) ? undefined : `--batch-id: "${id}" may only hold letters, digits and _ . : - (at most 64, starting with a letter or digit)`;
}

/**
 * The SHA-256 of a text (as UTF-8), in hex. One call, no Hash object: a batch hashes a few
 * times a row (its fingerprint, its journal entry's and markers' names), and crypto.hash()
 * took about a third of createHash()'s time for texts of this size.
 */
export function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

/** Everything a payout pays, normalized, without its id: equal for the same intended payout. */
export function payoutFingerprint(r: PayoutRequest): string {
  const metadata = r.metadata
    ? Object.keys(r.metadata)
        .sort()
        .map((k) => [k, r.metadata![k]])
    : [];
  const canon = JSON.stringify([r.walletId, r.currency, r.amountMinor.toString(), r.type, r.name, r.provider, r.account, r.phone ?? null, r.note ?? null, metadata]);
  return sha256(`payctl-payout-v1\n${canon}`).slice(0, 32);
}

/**
 * The payout id of a batch row without one: `b-` and 32 hex digits of a hash over the
 * batch id, the row's fingerprint and its occurrence (0, 1, ...) among identical rows.
 */
export function derivedPayoutId(batchId: string, fingerprint: string, occurrence: number): string {
  return `b-${sha256(`payctl-batch-v2\n${batchId}\n${fingerprint}\n${occurrence}`).slice(0, 32)}`;
}

/** Same wallet, recipient account, amount and currency: a payout typed a second time. */
export function repeatKey(r: PayoutRequest): string {
  return sha256(`payctl-repeat-v1\n${JSON.stringify([r.walletId, r.account, r.currency, r.amountMinor.toString()])}`).slice(0, 32);
}
