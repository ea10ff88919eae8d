/** `payctl keys create` (the run is create.ts). */
import type { CommandSpec } from '../spec.js';

export const keysCreateSpec: CommandSpec = {
  name: 'create',
  summary: 'make your Ed25519 signing key (kept in the config folder, never sent)',
  options: [{ flags: '--name <name>', description: 'your name, as approvals show it (default: your user name)' }],
  help:
    'The key is made once and never replaced: signing-key.json in the config folder, mode 0600.\n' +
    "Give the printed public key to whoever keeps your team's policy file: it lists its members,\n" +
    'makers and approvers, by name and public key; a plan made or approved with a key it does not\n' +
    'list does not count.',
  examples: ['payctl keys create --name "Aminata Kamara"', 'payctl keys create --json'],
  load: () => import('./create.js'),
};
