/** `payctl sandbox`: the group of verbs of the local sandbox (sandbox/). */
import type { GroupSpec } from './spec.js';
import { startSpec } from './sandbox/start-spec.js';
import { stopSpec } from './sandbox/stop-spec.js';
import { statusSpec } from './sandbox/status-spec.js';

export const sandboxSpec: GroupSpec = {
  name: 'sandbox',
  summary: 'run the documented payout service on localhost, with demo wallets',
  examples: ['payctl sandbox start', 'payctl sandbox start --detach --port 4010', 'payctl sandbox status', 'payctl sandbox stop'],
  commands: [startSpec, stopSpec, statusSpec],
};
