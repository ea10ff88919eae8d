/** `payctl status` (the run is status.ts). */
import type { CommandSpec } from './spec.js';

export const statusSpec: CommandSpec = {
  name: 'status',
  summary: 'show the profile, base URL, masked key and token expiry, and check the credentials live',
  help: 'Exits 0 when the credentials work, 3 when they do not, 4 when the service cannot be reached.',
  examples: ['payctl status', 'payctl status --profile sandbox --json'],
  load: () => import('./status.js'),
};
