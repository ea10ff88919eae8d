/** `payctl sandbox status` (the run is status.ts). */
import type { CommandSpec } from '../spec.js';

export const statusSpec: CommandSpec = {
  name: 'status',
  summary: 'say whether the background sandbox runs, and where',
  load: () => import('./status.js'),
};
