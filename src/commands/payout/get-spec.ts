/** `payctl payout get <id>` (the run is get.ts). */
import type { CommandSpec } from '../spec.js';

export const getSpec: CommandSpec = {
  name: 'get',
  summary: 'one payout, by payout id or transaction id',
  arguments: [{ name: '<id>', description: 'payout id or transaction id' }],
  examples: ['payctl payout get 0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e', 'payctl payout get TRX4F1C2B9A0D3E5F6A7B8C --json'],
  load: () => import('./get.js'),
};
