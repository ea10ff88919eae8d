/** `payctl status` (the run is status.ts). */
import type { CommandSpec } from './spec.js';

export const statusSpec: CommandSpec = {
  name: 'status',
  summary: 'show the profile, base URL, masked key and token expiry, and check the credentials live',
  help:
    'Exits 0 when the credentials work, 3 when they are refused (or there are none), 4 when the service\n' +
    'cannot be reached, 1 when it answers with an error. The Token line says which token is used:\n' +
    "PAYCTL_TOKEN as is, the profile's, or a new one from PAYCTL_API_KEY.",
  examples: ['payctl status', 'payctl status --profile sandbox --json'],
  load: () => import('./status.js'),
};
