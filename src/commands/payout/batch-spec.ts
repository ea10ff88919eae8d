/**
 * `payctl payout batch <file>` (the run is batch.ts) and `payctl payout batch status <report>`.
 * A batch file named `status` is sent as `payctl payout batch ./status`: the bare word is the verb.
 */
import { intOption, type CommandSpec } from '../spec.js';
import { batchStatusSpec } from './batch-status-spec.js';

export const batchSpec: CommandSpec = {
  name: 'batch',
  summary: 'send many payouts from a CSV or JSON-lines file: validated, planned, confirmed, resumable',
  arguments: [{ name: '<file>', description: 'CSV with a header row, or JSON lines' }],
  options: [
    { flags: '--batch-id <name>', description: 'name of this batch (default: "default"); a new name pays the same rows again as new payouts' },
    { flags: '--concurrency <n>', description: 'payouts in flight at once', parse: intOption('--concurrency', 1, 64), default: 4 },
    { flags: '--report <file>', description: 'where to write the report (.csv or .jsonl; default: beside the input)' },
    { flags: '--dry-run', description: 'check the file and show the plan; send nothing (exit 2 when the file has problems)' },
    { flags: '--allow-duplicates', description: 'send identical rows as separate payouts without asking' },
    { flags: '-y, --yes', description: 'send without asking for confirmation (required without a terminal)' },
  ],
  help:
    'Columns: payout_id, wallet_id, amount, currency, type, name, provider, account_number, phone_number,\n' +
    'note, and metadata.<key>. A row without payout_id gets an id made from what it pays and the batch id,\n' +
    'never from the file name or the row number: a sorted, copied or re-saved file pays nobody twice.\n' +
    'Every row is checked first (wallets and currencies too); nothing is sent if any row is bad. Running the\n' +
    'file again resumes: rows already accepted are skipped, unknown ones are retried with their journaled keys.\n' +
    'Identical rows are sent only after a confirmation at a terminal, or with --allow-duplicates.\n' +
    'Exit codes: 0 every row accepted, 1 some rejected, 2 bad file (nothing sent), 4 some outcomes unknown.\n' +
    'Then `payctl payout batch status <report>` shows what each accepted payout became (a file named\n' +
    '"status" is sent as ./status).',
  examples: [
    'payctl payout batch stipends.csv --dry-run',
    'payctl payout batch stipends.csv --batch-id 2026-11-stipends --concurrency 8 --yes',
    'payctl payout batch suppliers.jsonl --report suppliers-report.jsonl --yes',
    'payctl payout batch status stipends.report.csv --wait',
  ],
  load: () => import('./batch.js'),
  commands: [batchStatusSpec],
};
