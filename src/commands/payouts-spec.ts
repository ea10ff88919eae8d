/** `payctl payouts`: the group of verbs over many payouts (payouts/). */
import type { GroupSpec } from './spec.js';
import { listSpec } from './payouts/list-spec.js';

export const payoutsSpec: GroupSpec = {
  name: 'payouts',
  summary: 'list payouts',
  examples: ['payctl payouts list --status Pending', 'payctl payouts list --all --csv > payouts.csv'],
  commands: [listSpec],
};
