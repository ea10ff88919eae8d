/** `payctl sandbox start` (the run is start.ts). */
import { InvalidArgumentError } from 'commander';
import { MAX_SETTLE_AFTER_MS } from '../../sandbox/options.js';
import { ERROR_SHAPES, LIST_SHAPES } from '../../sandbox/shapes.js';
import { intOption, type CommandSpec } from '../spec.js';

/** One of `names`, else a usage error listing them. */
function oneOf(flag: string, names: readonly string[]) {
  return (value: string): string => {
    if (!names.includes(value)) throw new InvalidArgumentError(`${flag} must be one of ${names.join(', ')}.`);
    return value;
  };
}

/**
 * --settle-after: a whole number of ms, at most what a timer can wait; a longer one made
 * Node fire the timer at once, warning about it 1,000 times a second.
 */
function settleAfterOption(value: string): number {
  const ms = intOption('--settle-after')(value);
  if (ms > MAX_SETTLE_AFTER_MS) {
    throw new InvalidArgumentError(`--settle-after is at most ${MAX_SETTLE_AFTER_MS} ms (about 24.8 days), the longest a timer can wait.`);
  }
  return ms;
}

export const startSpec: CommandSpec = {
  name: 'start',
  summary: 'start the sandbox (foreground; Ctrl-C stops it) and print its base URL and API key',
  options: [
    { flags: '--port <n>', description: 'port to listen on (0 picks a free one)', parse: intOption('--port', 0, 65535), default: 0 },
    { flags: '--detach', description: 'run in the background; stop it with `payctl sandbox stop`' },
    { flags: '--api-key <key>', description: 'API key the sandbox accepts (default: $PAYCTL_SANDBOX_API_KEY, else a random sk_sandbox_ key)' },
    { flags: '--seed <n>', description: 'seed for the demo data (same seed, same wallets and payouts)', parse: intOption('--seed'), default: 1 },
    { flags: '--state <file>', description: 'keep state in this file across restarts' },
    { flags: '--settle-after <ms>', description: 'time before a Pending payout settles', parse: settleAfterOption, default: 3000 },
    { flags: '--webhook-url <url>', description: 'POST signed payout events to this URL' },
    { flags: '--webhook-secret <secret>', description: 'secret for webhook signatures (default: $PAYCTL_SANDBOX_WEBHOOK_SECRET, else whsec_sandbox)' },
    { flags: '--rate-limit <n>', description: 'requests per second before answering 429 (0: no limit)', parse: intOption('--rate-limit'), default: 0 },
    {
      flags: '--list-shape <shape>',
      description: `how GET /payout/list answers: ${LIST_SHAPES.join(', ')} (default: paginator, Laravel's)`,
      parse: oneOf('--list-shape', LIST_SHAPES),
    },
    {
      flags: '--error-shape <shape>',
      description: `how errors are written: ${ERROR_SHAPES.join(', ')} (default: laravel)`,
      parse: oneOf('--error-shape', ERROR_SHAPES),
    },
    { flags: '--kyc-status <status>', description: "the account's KYC status in GET /auth/user (default: Verified)" },
  ],
  help:
    'The sandbox answers as the documented Bokumonie API v2 does; where the documentation is silent,\n' +
    '--list-shape and --error-shape pick which tolerated variant it serves.\n' +
    '--api-key and --webhook-secret are visible to other users of this machine (ps); PAYCTL_SANDBOX_API_KEY\n' +
    'and PAYCTL_SANDBOX_WEBHOOK_SECRET are not. The sandbox answers only requests for a loopback host.',
  examples: [
    'payctl sandbox start',
    'payctl sandbox start --detach --seed 7 --state ./sandbox-state.json',
    'payctl sandbox start --webhook-url http://127.0.0.1:4242/webhooks --settle-after 1000',
    'payctl sandbox start --list-shape resource --error-shape problem',
  ],
  load: () => import('./start.js'),
};
