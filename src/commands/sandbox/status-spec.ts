/** `payctl sandbox status` (the run is status.ts). */
import type { CommandSpec } from '../spec.js';

export const statusSpec: CommandSpec = {
  name: 'status',
  summary: 'say whether the background sandbox runs, and where',
  help: 'Exits 0 when the background sandbox runs, 1 when it does not.',
  examples: ['payctl sandbox status', 'payctl sandbox status --json'],
  load: () => import('./status.js'),
};
