/** `payctl config get <key>` (the run is get.ts). */
import type { CommandSpec } from '../spec.js';
import { GET_KEY_ARGUMENT } from './key-argument.js';

export const getSpec: CommandSpec = {
  name: 'get',
  summary: 'one setting (exit 1 when not set)',
  arguments: [GET_KEY_ARGUMENT],
  examples: ['payctl config get base-url', 'payctl config get routes.payoutGet --profile staging', 'payctl config get webhook-secret   # masked'],
  load: () => import('./get.js'),
};
