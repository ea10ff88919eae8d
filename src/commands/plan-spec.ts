/** `payctl plan`: payouts written down, approved by others, then sent exactly as written (plan/). */
import type { GroupSpec } from './spec.js';
import { planApproveSpec, planCreateSpec, planMergeSpec, planSendSpec, planShowSpec } from './plan/specs.js';

export const planSpec: GroupSpec = {
  name: 'plan',
  summary: 'four eyes: write payouts down, have them approved, send exactly what was approved',
  examples: ['payctl plan create stipends.csv --batch-id oct-stipends', 'payctl plan approve stipends.plan.json', 'payctl plan send stipends.plan.json'],
  commands: [planCreateSpec, planShowSpec, planApproveSpec, planMergeSpec, planSendSpec],
};
