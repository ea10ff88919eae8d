/** `payctl policy check` (the run is check.ts). */
import type { CommandSpec } from '../spec.js';

export const policyCheckSpec: CommandSpec = {
  name: 'check',
  summary: 'say what a batch file or a plan (a file, or sha256:<hash>) needs under the policy, and why',
  arguments: [
    {
      name: 'file',
      description:
        "a batch file (CSV or JSON lines), a plan file (payctl plan create), or a plan of the team's shared ledger by its hash (sha256:<hex>, or its first 12 digits or more)",
    },
  ],
  options: [{ flags: '--batch-id <id>', description: 'the batch id the file would be sent under (default "default")' }],
  help:
    'The policy is the file named in the profile (payctl config set policy <path>). Approvals are\n' +
    'needed by the total moved per currency and by what one wallet sends one recipient account in a\n' +
    "UTC day; limits are per payout and per wallet per UTC day; both counted from this config folder's\n" +
    'journal (or the shared ledger). For a plan: who made it and who approved it. Exit 0 when it can be sent as it is, 1 when not.',
  examples: ['payctl policy check stipends.csv', 'payctl policy check stipends.plan.json --json', 'payctl policy check sha256:0ebbbf26d5c1'],
  load: () => import('./check.js'),
};
