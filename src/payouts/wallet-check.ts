/**
 * A payout's wallet checked against the live balances before anything is sent, for a batch
 * row (batch-load.ts) and a single payout (`payout create`) alike: a wallet that is not one of
 * yours, or one that holds another currency, is refused by payctl (nothing sent, nothing
 * journaled) instead of by the service. Said by the batch's columns; `payout create` names
 * its flags instead.
 */
import type { Wallet } from '../service/schemas.js';
import { fieldProblem, rowProblem, type Problem } from '../errors.js';
import { COLUMN_LABELS } from './batch-columns.js';
import type { PayoutRequest } from './request.js';

/** A wallet problem of a row (unknown wallet, other currency: the currency column), or undefined. */
export function walletProblem(row: number, r: PayoutRequest, wallets: Map<string, Wallet>, balancesCommand = 'payctl balances'): Problem | undefined {
  const w = wallets.get(r.walletId);
  if (!w) return rowProblem(row, fieldProblem(COLUMN_LABELS.walletId, `"${r.walletId}" is not one of your wallets (see ${balancesCommand})`, ' '));
  if (w.currency.toUpperCase() !== r.currency) {
    const message = `wallet ${r.walletId} holds ${w.currency.toUpperCase()}, not ${r.currency}`;
    return rowProblem(row, { field: COLUMN_LABELS.currency, message, text: message });
  }
  return undefined;
}
