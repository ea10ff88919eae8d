/** `payctl history` and `payctl history reconcile` (the runs are history.ts and history/reconcile.ts). */
import type { CommandSpec } from './spec.js';
import { reconcileSpec } from './history/reconcile-spec.js';

export const historySpec: CommandSpec = {
  name: 'history',
  summary: 'the journal as a ledger of what this config folder sent, newest first',
  options: [
    { flags: '--since <time>', description: 'journaled at or after (2026-11-01 or an ISO timestamp, UTC)' },
    { flags: '--until <time>', description: 'journaled at or before (a date means the whole day)' },
    { flags: '--status <outcome>', description: 'only this outcome: accepted, rejected, unknown, not-made' },
    { flags: '--batch-id <id>', description: 'only the payouts of this batch' },
    { flags: '--csv', description: 'write CSV with a header row' },
  ],
  help:
    'Every payout this config folder journaled (payout create, payout batch), whatever the profile or service:\n' +
    'time, profile, host, payout id, batch, amount, recipient, outcome and transaction id (the\n' +
    'service looks payouts up by transaction id: `payctl payout get <transaction id>`, or the payout id).\n' +
    'An explicit --profile (or PAYCTL_PROFILE) shows only the payouts sent under that profile.\n' +
    'Outcome "unknown": no answer, or none recorded (the request may have left); "not made": found not\n' +
    'made by an earlier payctl. Resolve unknown outcomes with `payctl history reconcile`.',
  examples: ['payctl history', 'payctl history --status unknown --since 2026-11-01', 'payctl history --batch-id oct-stipends --csv > oct.csv'],
  load: () => import('./history.js'),
  commands: [reconcileSpec],
};
