/** `payctl ledger status` (the run is status.ts). */
import type { CommandSpec } from '../spec.js';

export const ledgerStatusSpec: CommandSpec = {
  name: 'status',
  summary: "show the profile's ledger: local or PostgreSQL, reachable, schema version, entries",
  help:
    "The ledger is the local journal in the config folder unless PAYCTL_LEDGER_URL or the profile's ledger\n" +
    'setting names a PostgreSQL database (payctl config set ledger --stdin). A PostgreSQL ledger is connected\n' +
    'to and shown with its password masked. Exits 0 when the ledger can be read, 2 when it cannot be reached.',
  examples: ['payctl ledger status', 'payctl ledger status --profile team --json'],
  load: () => import('./status.js'),
};
