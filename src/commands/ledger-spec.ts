/** `payctl ledger`: where the payout journal is kept, a local journal copied to a team's, and the team's rows checked (ledger/). */
import type { GroupSpec } from './spec.js';
import { ledgerStatusSpec } from './ledger/status-spec.js';
import { ledgerImportSpec } from './ledger/import-spec.js';
import { ledgerVerifySpec } from './ledger/verify-spec.js';

export const ledgerSpec: GroupSpec = {
  name: 'ledger',
  summary: "the payout journal's store: local, or a PostgreSQL ledger shared by a team",
  examples: ['payctl ledger status', 'payctl ledger import --profile team', 'payctl ledger verify --profile team'],
  commands: [ledgerStatusSpec, ledgerImportSpec, ledgerVerifySpec],
};
