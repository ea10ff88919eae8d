/** The commands below the program, in the order help lists them (help itself aside): the completion tests pin the tree to it. */
export const ROOT_COMMANDS = [
  'login',
  'logout',
  'status',
  'balances',
  'payout',
  'payouts',
  'history',
  'ledger',
  'plan',
  'keys',
  'policy',
  'summary',
  'webhooks',
  'config',
  'completion',
  'sandbox',
];
