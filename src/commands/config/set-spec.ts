/** `payctl config set <key> <value>` (the run is set.ts). */
import type { CommandSpec } from '../spec.js';
import { KEY_ARGUMENT } from './key-argument.js';

export const setSpec: CommandSpec = {
  name: 'set',
  summary: 'change a setting (checked before it is saved)',
  arguments: [KEY_ARGUMENT, { name: '<value>', description: 'the new value' }],
  examples: [
    'payctl config set base-url https://api.example.com/v2',
    'payctl config set routes.payoutGet /payout/{id}',
    'payctl config set policy ~/finance/payout-policy.json',
    'payctl config set base-url http://127.0.0.1:4010/v2 --profile local',
  ],
  load: () => import('./set.js'),
};
