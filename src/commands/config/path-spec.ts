/** `payctl config path` (the run is path.ts). */
import type { CommandSpec } from '../spec.js';

export const pathSpec: CommandSpec = {
  name: 'path',
  summary: 'print the path of the config file',
  examples: ['payctl config path', 'PAYCTL_CONFIG_DIR=./ci-config payctl config path'],
  load: () => import('./path.js'),
};
