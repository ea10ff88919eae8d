/** `payctl login`: what it takes and how its help reads (the run is login.ts). */
import type { CommandSpec } from './spec.js';

export const loginSpec: CommandSpec = {
  name: 'login',
  summary: 'verify an API key and save it, with the base URL and a token, in the profile',
  options: [
    { flags: '--api-key-stdin', description: 'read the API key from the first line of standard input' },
    { flags: '--insecure-storage', description: 'store the key and token in the config file (0600) instead of the OS keyring' },
  ],
  help:
    'The key comes from --api-key-stdin, else PAYCTL_API_KEY, else a hidden prompt. The base URL from\n' +
    '--base-url, else PAYCTL_BASE_URL, else the profile, else a prompt. Nothing is saved unless the key works.\n' +
    'The key and token go to the OS keyring; when none can be reached, to the config file (with a notice).',
  examples: [
    'payctl login --base-url https://api.example.com/v2',
    'printf %s "$API_KEY" | payctl login --api-key-stdin --base-url https://api.example.com/v2',
    'payctl login --profile staging',
  ],
  load: () => import('./login.js'),
};
