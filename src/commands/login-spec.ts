/** `payctl login`: what it takes and how its help reads (the run is login.ts). */
import type { CommandSpec } from './spec.js';

export const loginSpec: CommandSpec = {
  name: 'login',
  summary: 'check an API key, show whose it is, and save it with the base URL in the profile',
  options: [
    { flags: '--api-key-stdin', description: 'read the API key from the first line of standard input' },
    { flags: '--insecure-storage', description: 'store the key in the config file (0600) instead of the OS keyring' },
  ],
  help:
    'The key is checked with GET /auth/user (it is sent as the bearer token) and the account it belongs to\n' +
    'is shown. The key comes from --api-key-stdin (at a terminal: a hidden prompt), else PAYCTL_API_KEY (asked\n' +
    'about at a terminal, else named masked on stderr before it is sent), else a hidden prompt. The base URL\n' +
    'from --base-url, else PAYCTL_BASE_URL, else the profile, else a prompt (default https://api.bokumonie.com/v2).\n' +
    'Nothing is saved unless the key works. The key goes to the OS keyring; when none can be reached, to the\n' +
    'config file (with a notice).',
  examples: [
    'payctl login --base-url https://api.bokumonie.com/v2',
    'printf %s "$API_KEY" | payctl login --api-key-stdin --base-url https://api.bokumonie.com/v2',
    'payctl login --profile staging',
  ],
  load: () => import('./login.js'),
};
