/** Payouts in flight at once when --concurrency is not given (payout batch and plan send; printed commands leave it out). */
export const DEFAULT_CONCURRENCY = 4;
