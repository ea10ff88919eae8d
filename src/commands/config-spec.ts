/** `payctl config`: the group of profile-settings verbs (config/). */
import type { GroupSpec } from './spec.js';
import { listSpec } from './config/list-spec.js';
import { getSpec } from './config/get-spec.js';
import { setSpec } from './config/set-spec.js';
import { unsetSpec } from './config/unset-spec.js';
import { pathSpec } from './config/path-spec.js';

export const configSpec: GroupSpec = {
  name: 'config',
  summary: 'profile settings: base-url, webhook-secret, routes.<name> (secrets are never printed)',
  examples: [
    'payctl config list',
    'payctl config set base-url https://api.example.com/v2',
    'payctl config set routes.payoutGet /payouts/{transactionId}',
    'payctl config path',
  ],
  commands: [listSpec, getSpec, setSpec, unsetSpec, pathSpec],
};
