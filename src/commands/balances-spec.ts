/** `payctl balances` (the run is balances.ts). */
import type { CommandSpec } from './spec.js';

export const balancesSpec: CommandSpec = {
  name: 'balances',
  summary: 'wallet balances',
  options: [
    { flags: '--currency <code>', description: 'only wallets in this currency' },
    { flags: '--wallet <id>', description: 'only this wallet (exit 1 when the service has no such wallet)' },
    { flags: '--csv', description: 'write CSV with a header row (balances exact, no grouping)' },
  ],
  examples: ['payctl balances', 'payctl balances --currency SLE', 'payctl balances --json | jq -r ".data[].wallet_id"'],
  load: () => import('./balances.js'),
};
