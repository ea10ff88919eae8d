/** `payctl ledger import` (the run is import.ts). */
import type { CommandSpec } from '../spec.js';

export const ledgerImportSpec: CommandSpec = {
  name: 'import',
  summary: "copy this config folder's local journal into the profile's PostgreSQL ledger",
  help:
    'Every entry of the local journal (its key, body and outcome) is copied into the shared ledger, once:\n' +
    'an entry already there is counted, never duplicated, and one the ledger holds with other details is a\n' +
    'conflict, listed by payout id and never overwritten. Running it again imports nothing new. Entries keep\n' +
    "their own time; those dated in the future by the ledger's clock (a fast machine's) are named: payctl\n" +
    'holds them until that time, as it cannot tell their age; reconcile those of unknown outcome before. The profile\n' +
    'must use a PostgreSQL ledger (payctl config set ledger --stdin, or PAYCTL_LEDGER_URL). Exits 0 when\n' +
    'everything is in the ledger, 1 when conflicts or unreadable entries were left out, 2 when the ledger\n' +
    'is local or cannot be reached.',
  examples: ['payctl ledger import', 'payctl ledger import --profile team --json'],
  load: () => import('./import.js'),
};
