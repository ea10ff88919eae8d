/** `payctl config set <key> <value>` (the run is set.ts). */
import type { CommandSpec } from '../spec.js';
import { KEY_ARGUMENT } from './key-argument.js';

export const setSpec: CommandSpec = {
  name: 'set',
  summary: 'change a setting (checked before it is saved)',
  arguments: [KEY_ARGUMENT, { name: '<value>', description: 'the new value' }],
  load: () => import('./set.js'),
};
