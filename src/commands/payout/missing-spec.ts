/**
 * `--acknowledge-missing`, of the commands that send under a spending policy (payout create,
 * payout batch, plan send): journal entries that are missing leave a daily total unknown and stop
 * the send (plans/limits.ts); this flag goes on all the same, and acknowledges them so that the
 * daily total, from then on, is counted without what they paid.
 */
import type { OptionSpec } from '../spec.js';

export const ACKNOWLEDGE_MISSING: OptionSpec = {
  flags: '--acknowledge-missing',
  description:
    "under a policy's daily total, send although entries of this config folder's journal are missing: they are acknowledged (journal.index) and the daily total no longer counts what they paid",
};
