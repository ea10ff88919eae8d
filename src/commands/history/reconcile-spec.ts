/** `payctl history reconcile` (the run is reconcile.ts). */
import type { CommandSpec } from '../spec.js';

export const reconcileSpec: CommandSpec = {
  name: 'reconcile',
  summary: 'look up every payout whose outcome is unknown and record what the service says',
  help:
    'For each journaled payout of this base URL whose outcome is unknown, asks the service for it\n' +
    'by payout id: found means accepted (its transaction is recorded); not found means it was not\n' +
    'made, and the command that sends it safely (same payout id and idempotency key) is printed.\n' +
    'Exits 0 when no outcome is left unknown, 4 when some could not be looked up.',
  examples: ['payctl history reconcile', 'payctl history reconcile --profile production --json'],
  load: () => import('./reconcile.js'),
};
