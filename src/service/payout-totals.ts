/**
 * A payout's `total_amount` checked against its `amount` and `fee`. The documentation's examples
 * show the total as the amount plus the fee: the look-up's "1,000.00" + "5.00" = "1,005.00", and
 * the fuller webhook copy's 10 + 0.05 = 10.05 (docs/service.md, "One payout"). An answer whose
 * total is not that sum, exactly (minor units: money/amount.ts), is not trusted to be right and
 * is said; nothing is recomputed in its place. An answer without a fee or a total (the create
 * answer has none) is not checked, nor one whose amounts cannot be read (the schemas refuse those).
 */
import { toCommonMinor } from '../money/amount.js';
import { money } from './schemas.js';

/** The three values of a record whose total is not its amount plus its fee, as the service sent them. */
export interface TotalMismatch {
  transactionId: unknown;
  amount: unknown;
  fee: unknown;
  total: unknown;
  currency: unknown;
}

/** The record as the service sent it (`item`: the answer's object, before any schema) when its total is not amount + fee; else undefined. */
export function totalMismatch(item: unknown): TotalMismatch | undefined {
  if (!item || typeof item !== 'object') return undefined;
  const o = item as Record<string, unknown>;
  const { amount, fee, total_amount: total, currency } = o;
  if (fee === undefined || fee === null || total === undefined || total === null) return undefined;
  const read = [amount, fee, total].map((v) => money.safeParse(v));
  if (!read.every((r) => r.success)) return undefined;
  try {
    const { minors } = toCommonMinor(
      read.map((r) => r.data),
      typeof currency === 'string' ? currency : '',
    );
    if (minors[0]! + minors[1]! === minors[2]) return undefined;
  } catch {
    return undefined;
  }
  return { transactionId: o.transaction_id, amount, fee, total, currency };
}
