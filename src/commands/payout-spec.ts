/** `payctl payout`: the group of single-payout verbs (payout/). */
import type { GroupSpec } from './spec.js';
import { createSpec } from './payout/create-spec.js';
import { batchSpec } from './payout/batch-spec.js';
import { getSpec } from './payout/get-spec.js';

export const payoutSpec: GroupSpec = {
  name: 'payout',
  summary: 'send and look up single payouts',
  commands: [createSpec, batchSpec, getSpec],
};
