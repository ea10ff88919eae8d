/** `payctl logout` (the run is logout.ts). */
import type { CommandSpec } from './spec.js';

export const logoutSpec: CommandSpec = {
  name: 'logout',
  summary: 'remove the API key from the profile',
  examples: ['payctl logout', 'payctl logout --profile staging'],
  load: () => import('./logout.js'),
};
