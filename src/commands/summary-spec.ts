/** `payctl summary` (the run is summary.ts). */
import type { CommandSpec } from './spec.js';
import { CURRENCY_FILTER, FROM_FILTER, TO_FILTER, WALLET_FILTER } from './filter-options.js';

export const summarySpec: CommandSpec = {
  name: 'summary',
  summary: "the service's counts by status and type; with a filter, totals per currency computed by payctl",
  options: [
    FROM_FILTER,
    TO_FILTER,
    WALLET_FILTER,
    CURRENCY_FILTER,
    { flags: '--csv', description: "write CSV with a header row: the service's figures, or one row per currency and status" },
  ],
  help: [
    "Without a filter: the service's own summary of every payout (POST /payout/summary): counts by",
    'status and by type, with bar charts, and the total sent as the service gives it (it carries no',
    'currency, so none is shown). --json prints the envelope as the service sent it.',
    '',
    'With any filter (--from, --to, --wallet, --currency): the service documents no filters for its',
    'summary, so payctl reads the whole list (every page, filters applied by payctl) and computes',
    'counts and exact amounts per currency and status, labelled "Computed by payctl from N payouts".',
    '--json then prints that computed document, marked "computed": true (amounts as exact decimal strings).',
  ].join('\n'),
  examples: ['payctl summary', 'payctl summary --from 2026-11-01 --currency SLE', 'payctl summary --json'],
  load: () => import('./summary.js'),
};
