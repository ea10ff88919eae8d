/** `payctl summary` (the run is summary.ts). */
import type { CommandSpec } from './spec.js';

export const summarySpec: CommandSpec = {
  name: 'summary',
  summary: 'totals per currency and status, with a bar chart of amounts',
  options: [
    { flags: '--from <time>', description: 'created at or after (2026-11-01 or an ISO timestamp, UTC)' },
    { flags: '--to <time>', description: 'created at or before (a date means the whole day)' },
    { flags: '--wallet <id>', description: 'only payouts from this wallet' },
    { flags: '--currency <code>', description: 'only payouts in this currency' },
  ],
  examples: ['payctl summary', 'payctl summary --from 2026-11-01 --currency SLE', 'payctl summary --json'],
  load: () => import('./summary.js'),
};
