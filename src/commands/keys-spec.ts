/** `payctl keys`: this person's signing key for four-eyes plans (keys/). */
import type { GroupSpec } from './spec.js';
import { keysCreateSpec } from './keys/create-spec.js';
import { keysShowSpec } from './keys/show-spec.js';

export const keysSpec: GroupSpec = {
  name: 'keys',
  summary: 'your signing key for making and approving payout plans',
  examples: ['payctl keys create --name "Aminata Kamara"', 'payctl keys show'],
  commands: [keysCreateSpec, keysShowSpec],
};
