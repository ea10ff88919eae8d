/** `payctl config list` (the run is list.ts). */
import type { CommandSpec } from '../spec.js';

export const listSpec: CommandSpec = {
  name: 'list',
  summary: "the profile's settings, secrets masked",
  examples: ['payctl config list', 'payctl config list --profile sandbox', 'payctl config list --json'],
  load: () => import('./list.js'),
};
