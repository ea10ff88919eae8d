/** `payctl payout get <id>` (the run is get.ts). */
import type { CommandSpec } from '../spec.js';
import { checkWait, WAIT_HELP, WAIT_OPTIONS } from './wait-spec.js';

export const getSpec: CommandSpec = {
  name: 'get',
  summary: 'one payout, by payout id or transaction id',
  arguments: [{ name: '<id>', description: 'payout id or transaction id' }],
  options: WAIT_OPTIONS,
  check: checkWait,
  help: WAIT_HELP,
  examples: [
    'payctl payout get 0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e',
    'payctl payout get TRX4F1C2B9A0D3E5F6A7B8C --json',
    'payctl payout get stipend-2026-10-017 --wait --wait-timeout 120',
  ],
  load: () => import('./get.js'),
};
