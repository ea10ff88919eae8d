/** `payctl policy`: the team's spending policy (policy/). */
import type { GroupSpec } from './spec.js';
import { policyCheckSpec } from './policy/check-spec.js';

export const policySpec: GroupSpec = {
  name: 'policy',
  summary: "what the team's spending policy asks of a batch or a plan",
  examples: ['payctl policy check stipends.csv --batch-id oct-stipends', 'payctl policy check stipends.plan.json'],
  commands: [policyCheckSpec],
};
