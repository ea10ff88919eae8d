/** `payctl payouts list` (the run is list.ts). */
import { intOption, type CommandSpec } from '../spec.js';
import { CURRENCY_FILTER, FROM_FILTER, TO_FILTER, WALLET_FILTER } from '../filter-options.js';

export const listSpec: CommandSpec = {
  name: 'list',
  summary: 'payouts, newest first',
  options: [
    { flags: '--status <status>', description: 'only payouts in this status (Pending, Successful, Failed)' },
    WALLET_FILTER,
    CURRENCY_FILTER,
    FROM_FILTER,
    TO_FILTER,
    { flags: '--limit <n>', description: 'payouts per page, 1 to 100 (default 20; 100 with --all)', parse: intOption('--limit', 1, 100) },
    { flags: '--page <n>', description: 'page to show, from 1', parse: intOption('--page', 1) },
    { flags: '--all', description: 'follow every page (streams; memory stays flat)' },
    { flags: '--csv', description: 'write CSV with a header row' },
  ],
  examples: [
    'payctl payouts list --status Pending',
    'payctl payouts list --from 2026-11-01 --to 2026-11-30 --all --csv > november.csv',
    'payctl payouts list --all --json | jq ".data | length"',
  ],
  load: () => import('./list.js'),
};
