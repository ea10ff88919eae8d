/** `payctl config get <key>` (the run is get.ts). */
import type { CommandSpec } from '../spec.js';
import { KEY_ARGUMENT } from './key-argument.js';

export const getSpec: CommandSpec = {
  name: 'get',
  summary: 'one setting (exit 1 when not set)',
  arguments: [KEY_ARGUMENT],
  load: () => import('./get.js'),
};
