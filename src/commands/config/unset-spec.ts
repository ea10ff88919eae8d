/** `payctl config unset <key>` (the run is unset.ts). */
import type { CommandSpec } from '../spec.js';
import { KEY_ARGUMENT } from './key-argument.js';

export const unsetSpec: CommandSpec = {
  name: 'unset',
  summary: 'remove a setting',
  arguments: [KEY_ARGUMENT],
  examples: ['payctl config unset routes.payoutGet', 'payctl config unset webhook-secret --profile staging'],
  load: () => import('./unset.js'),
};
