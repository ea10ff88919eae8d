/** `payctl status` (the run is status.ts). */
import type { CommandSpec } from './spec.js';

export const statusSpec: CommandSpec = {
  name: 'status',
  summary: 'show the profile, base URL and masked key, and check the key live (whose account it is)',
  help:
    'Checks the key with GET /auth/user and shows the account it belongs to (business, email, wallet id,\n' +
    'KYC status; a KYC status other than verified is a warning). Exits 0 when the key works, 3 when it is\n' +
    'refused (or there is none), 4 when the service cannot be reached, 1 when it answers with an error.',
  examples: ['payctl status', 'payctl status --profile sandbox --json'],
  load: () => import('./status.js'),
};
