/** `payctl config path` (the run is path.ts). */
import type { CommandSpec } from '../spec.js';

export const pathSpec: CommandSpec = {
  name: 'path',
  summary: 'print the path of the config file',
  load: () => import('./path.js'),
};
