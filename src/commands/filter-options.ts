/**
 * The payout filters that `payouts list` and `summary` both take (read by payouts/filters.ts):
 * declared once, each command listing them in its own order. payctl applies them itself to
 * every listed record; they are never sent to the service (docs/service.md "Payout list").
 */
import type { OptionSpec } from './spec.js';

export const WALLET_FILTER: OptionSpec = { flags: '--wallet <id>', description: 'only payouts from this wallet (records that name no wallet never match)' };
export const CURRENCY_FILTER: OptionSpec = { flags: '--currency <code>', description: 'only payouts in this currency' };
export const FROM_FILTER: OptionSpec = { flags: '--from <time>', description: 'created at or after (2026-11-01 or an ISO timestamp, UTC)' };
export const TO_FILTER: OptionSpec = { flags: '--to <time>', description: 'created at or before (a date means the whole day)' };
