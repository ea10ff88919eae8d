/** `payctl keys show` (the run is show.ts). */
import type { CommandSpec } from '../spec.js';

export const keysShowSpec: CommandSpec = {
  name: 'show',
  summary: 'print your public key and its fingerprint',
  examples: ['payctl keys show', 'payctl keys show --json | jq -r .public_key'],
  load: () => import('./show.js'),
};
