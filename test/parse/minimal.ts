/**
 * The shortest valid command line of every command (its required positional arguments),
 * for the parser tests that go over the whole tree (global options, unknown options,
 * extra arguments). A command added to the tree without a line here fails those tests.
 */
export const MINIMAL: Record<string, string[]> = {
  login: ['login'],
  logout: ['logout'],
  status: ['status'],
  balances: ['balances'],
  payout: ['payout'],
  'payout create': ['payout', 'create'],
  'payout batch': ['payout', 'batch', 'rows.csv'],
  'payout batch status': ['payout', 'batch', 'status', 'rows.report.csv'],
  'payout get': ['payout', 'get', 'po_1'],
  payouts: ['payouts'],
  'payouts list': ['payouts', 'list'],
  history: ['history'],
  'history reconcile': ['history', 'reconcile'],
  ledger: ['ledger'],
  'ledger status': ['ledger', 'status'],
  'ledger import': ['ledger', 'import'],
  'ledger verify': ['ledger', 'verify'],
  summary: ['summary'],
  webhooks: ['webhooks'],
  'webhooks listen': ['webhooks', 'listen'],
  config: ['config'],
  'config list': ['config', 'list'],
  'config get': ['config', 'get', 'base-url'],
  'config set': ['config', 'set', 'base-url', 'https://api.example.com/v2'],
  'config unset': ['config', 'unset', 'base-url'],
  'config path': ['config', 'path'],
  completion: ['completion', 'bash'],
  '__complete-profiles': ['__complete-profiles'],
  sandbox: ['sandbox'],
  'sandbox start': ['sandbox', 'start'],
  'sandbox stop': ['sandbox', 'stop'],
  'sandbox status': ['sandbox', 'status'],
  plan: ['plan'],
  'plan create': ['plan', 'create', 'rows.csv'],
  'plan show': ['plan', 'show', 'rows.plan.json'],
  'plan approve': ['plan', 'approve', 'rows.plan.json'],
  'plan merge': ['plan', 'merge', 'rows.plan.json', 'copy.plan.json'],
  'plan send': ['plan', 'send', 'rows.plan.json'],
  keys: ['keys'],
  'keys create': ['keys', 'create'],
  'keys show': ['keys', 'show'],
  policy: ['policy'],
  'policy check': ['policy', 'check', 'rows.csv'],
  'policy propose': ['policy', 'propose', 'team-policy.json'],
  'policy approve': ['policy', 'approve', '50398ce020a0'],
  'policy show': ['policy', 'show'],
};

/** Group commands (payout, config, ...): no action of their own, only subcommands. */
export const GROUPS = ['payout', 'payouts', 'webhooks', 'config', 'sandbox', 'plan', 'keys', 'policy', 'ledger'];

/** Commands that run something (every command that is not a group). */
/** Commands whose last argument takes any number of values (`plan merge <plan> <copy...>`): no argument is extra. */
export const VARIADIC = new Set(['plan merge']);

export const LEAVES = Object.keys(MINIMAL).filter((p) => !GROUPS.includes(p));
