/** `payctl payouts list` (the run is list.ts). */
import { intOption, type CommandSpec } from '../spec.js';
import { CURRENCY_FILTER, FROM_FILTER, TO_FILTER, WALLET_FILTER } from '../filter-options.js';

export const listSpec: CommandSpec = {
  name: 'list',
  summary: 'payouts, newest first',
  options: [
    { flags: '--status <status>', description: 'only payouts in this status (Pending, Successful, Failed; any case)' },
    WALLET_FILTER,
    CURRENCY_FILTER,
    FROM_FILTER,
    TO_FILTER,
    {
      flags: '--limit <n>',
      description: 'payouts to show, 1 to 100 (default 20); with --all, the page size asked of the service (default 100)',
      parse: intOption('--limit', 1, 100),
    },
    { flags: '--page <n>', description: "the service's page to start from, from 1", parse: intOption('--page', 1) },
    { flags: '--all', description: 'follow every page (streams; memory stays flat)' },
    { flags: '--csv', description: 'write CSV with a header row' },
  ],
  help: [
    'Filters are applied by payctl to every record it reads: the service is asked only for pages',
    '(page, per_page) and never trusted to filter. Without --all, pages are read from --page on until',
    '--limit payouts match or the list ends, whatever page size the service uses (pages of --limit',
    'payouts without a filter, of 100 with one: --page counts those pages). --all follows the',
    "service's next-page links only on the base URL's origin (the API key goes nowhere else), else",
    'page numbers. A record without a wallet never matches --wallet (said once on stderr).',
    '--json prints the page as the service sent it; with filters, or past one page, the same envelope',
    'holding only the payouts shown. With --all, one envelope whose data holds every matching record.',
    'At a terminal the transaction id (what `payctl payout get` takes), the amount and the status are',
    'never cut: the recipient is cut with …, then the created time, the wallet id and the recipient are',
    'left out, in that order. Piped (| less -S), --csv and --json have every column.',
  ].join('\n'),
  examples: [
    'payctl payouts list --status Pending',
    'payctl payouts list --from 2026-11-01 --to 2026-11-30 --all --csv > november.csv',
    'payctl payouts list --all --json | jq ".data | length"',
  ],
  load: () => import('./list.js'),
};
