/** `payctl policy`: the team's spending policy (policy/). */
import type { GroupSpec } from './spec.js';
import { policyCheckSpec } from './policy/check-spec.js';
import { policyApproveSpec, policyProposeSpec, policyShowSpec } from './policy/team-specs.js';

export const policySpec: GroupSpec = {
  name: 'policy',
  summary: "the team's spending policy: what it asks of a batch or a plan, and the team's policy in the shared ledger",
  examples: [
    'payctl policy check stipends.csv --batch-id oct-stipends',
    'payctl policy check stipends.plan.json',
    'payctl policy propose team-policy.json',
    'payctl policy show',
  ],
  commands: [policyCheckSpec, policyProposeSpec, policyApproveSpec, policyShowSpec],
};
