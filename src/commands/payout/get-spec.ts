/** `payctl payout get <id>` (the run is get.ts). */
import type { CommandSpec } from '../spec.js';
import { checkWait, WAIT_HELP, WAIT_OPTIONS } from './wait-spec.js';

export const getSpec: CommandSpec = {
  name: 'get',
  summary: 'one payout, by transaction id (or a payout id this config folder has a transaction id for)',
  arguments: [{ name: '<id>', description: 'transaction id (TXN-BOK-…), or a payout id journaled in this config folder' }],
  options: WAIT_OPTIONS,
  check: checkWait,
  help:
    'The service looks payouts up by transaction id only. A payout id works when this config folder\n' +
    'journaled the payout and recorded its transaction id (payctl history shows them); for one whose\n' +
    'outcome is unknown, run `payctl history reconcile` first. Anything else exits 1 saying what is known.\n' +
    WAIT_HELP,
  examples: [
    'payctl payout get TXN-BOK-FF051A7F00A49EB6AF225D10EA',
    'payctl payout get 0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e --json',
    'payctl payout get TXN-BOK-FF051A7F00A49EB6AF225D10EA --wait --wait-timeout 120',
  ],
  load: () => import('./get.js'),
};
