/** `payctl payout`: the group of single-payout verbs (payout/). */
import type { GroupSpec } from './spec.js';
import { createSpec } from './payout/create-spec.js';
import { batchSpec } from './payout/batch-spec.js';
import { getSpec } from './payout/get-spec.js';

export const payoutSpec: GroupSpec = {
  name: 'payout',
  summary: 'send and look up single payouts',
  examples: ['payctl payout create', 'payctl payout batch stipends.csv --dry-run', 'payctl payout get stipend-2026-10-017 --wait'],
  commands: [createSpec, batchSpec, getSpec],
};
