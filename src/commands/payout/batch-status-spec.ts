/** `payctl payout batch status <report>` (the run is batch-status.ts). */
import { intOption, nonEmpty, type CommandSpec } from '../spec.js';
import { checkWait, DEFAULT_WAIT_TIMEOUT_S, WAIT_OPTIONS } from './wait-spec.js';

/** Payouts read at once when --concurrency is not given. */
export const DEFAULT_STATUS_CONCURRENCY = 4;

export const batchStatusSpec: CommandSpec = {
  name: 'status',
  summary: "refresh a batch report with each accepted row's status: Successful, Failed or Pending",
  arguments: [{ name: '<report>', description: 'the report payout batch wrote (.csv or .jsonl)' }],
  options: [
    { flags: '--concurrency <n>', description: 'payouts read at once', parse: intOption('--concurrency', 1, 64), default: DEFAULT_STATUS_CONCURRENCY },
    {
      ...WAIT_OPTIONS[0]!,
      description: 'wait until no row is Pending; exit 5 if some still are at --wait-timeout',
    },
    WAIT_OPTIONS[1]!,
    { flags: '--failed-out <file>', description: 'write the Failed rows as a new batch file (.csv or .jsonl; never overwrites a file)', parse: nonEmpty('--failed-out') },
  ],
  check: checkWait,
  help:
    'Reads every accepted row again (payoutGet) and rewrites the report in place, atomically: same rows,\n' +
    'same columns, with status, failure_reason and settled_at added. Prints the rows and exact totals per\n' +
    'currency and status, then the Failed rows with their reasons.\n' +
    `--wait checks again (1 s, 2 s, 4 s, ... at most every 15 s) for at most --wait-timeout seconds (default ${DEFAULT_WAIT_TIMEOUT_S}).\n` +
    '--failed-out writes the Failed rows without their payout ids, and prints the command that sends them\n' +
    'as a new batch (a new --batch-id; without --yes, so the plan is shown first).\n' +
    'A batch file named "status" is sent with `payctl payout batch ./status`.\n' +
    'Exit codes: 0 every accepted row Successful, 1 some Failed, 2 not a report, 4 some rows could not be read,\n' +
    '5 some still Pending.',
  examples: ['payctl payout batch status stipends.report.csv', 'payctl payout batch status stipends.report.csv --wait --failed-out stipends-failed.csv'],
  load: () => import('./batch-status.js'),
};
