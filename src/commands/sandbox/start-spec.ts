/** `payctl sandbox start` (the run is start.ts). */
import { intOption, type CommandSpec } from '../spec.js';

export const startSpec: CommandSpec = {
  name: 'start',
  summary: 'start the sandbox (foreground; Ctrl-C stops it) and print its base URL and API key',
  options: [
    { flags: '--port <n>', description: 'port to listen on (0 picks a free one)', parse: intOption('--port', 0, 65535), default: 0 },
    { flags: '--detach', description: 'run in the background; stop it with `payctl sandbox stop`' },
    { flags: '--api-key <key>', description: 'API key the sandbox accepts (default: $PAYCTL_SANDBOX_API_KEY, else a random sk_sandbox_ key)' },
    { flags: '--seed <n>', description: 'seed for the demo data (same seed, same wallets and payouts)', parse: intOption('--seed'), default: 1 },
    { flags: '--state <file>', description: 'keep state in this file across restarts' },
    { flags: '--token-ttl <seconds>', description: 'lifetime of issued tokens', parse: intOption('--token-ttl', 1), default: 3600 },
    { flags: '--settle-after <ms>', description: 'time before a Pending payout settles', parse: intOption('--settle-after'), default: 3000 },
    { flags: '--webhook-url <url>', description: 'POST signed payout events to this URL' },
    { flags: '--webhook-secret <secret>', description: 'secret for webhook signatures (default: $PAYCTL_SANDBOX_WEBHOOK_SECRET, else whsec_sandbox)' },
    { flags: '--rate-limit <n>', description: 'requests per second before answering 429 (0: no limit)', parse: intOption('--rate-limit'), default: 0 },
  ],
  help:
    '--api-key and --webhook-secret are visible to other users of this machine (ps); PAYCTL_SANDBOX_API_KEY\n' +
    'and PAYCTL_SANDBOX_WEBHOOK_SECRET are not. The sandbox answers only requests for a loopback host.',
  examples: [
    'payctl sandbox start',
    'payctl sandbox start --detach --seed 7 --state ./sandbox-state.json',
    'payctl sandbox start --webhook-url http://127.0.0.1:4242/webhooks --settle-after 1000',
  ],
  load: () => import('./start.js'),
};
