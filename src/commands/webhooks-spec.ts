/** `payctl webhooks`: the group of webhook verbs (webhooks/). */
import type { GroupSpec } from './spec.js';
import { listenSpec } from './webhooks/listen-spec.js';

export const webhooksSpec: GroupSpec = {
  name: 'webhooks',
  summary: 'receive and inspect webhook events',
  examples: ['payctl webhooks listen --forward-to http://localhost:3000/webhooks'],
  commands: [listenSpec],
};
