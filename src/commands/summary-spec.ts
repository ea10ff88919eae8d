/** `payctl summary` (the run is summary.ts). */
import type { CommandSpec } from './spec.js';
import { CURRENCY_FILTER, FROM_FILTER, TO_FILTER, WALLET_FILTER } from './filter-options.js';

export const summarySpec: CommandSpec = {
  name: 'summary',
  summary: 'totals per currency and status, with a bar chart of amounts',
  options: [FROM_FILTER, TO_FILTER, WALLET_FILTER, CURRENCY_FILTER, { flags: '--csv', description: 'write CSV with a header row: one row per currency and status' }],
  examples: ['payctl summary', 'payctl summary --from 2026-11-01 --currency SLE', 'payctl summary --json'],
  load: () => import('./summary.js'),
};
