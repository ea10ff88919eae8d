/**
 * `payctl payout batch <file>` (the run is batch.ts) and `payctl payout batch status <report>`.
 * A batch file named `status` is sent as `payctl payout batch ./status`: the bare word is the verb.
 * `payctl payout batch --template` needs no file: it prints a header row and an example row.
 */
import { intOption, nonEmpty, type CommandSpec } from '../spec.js';
import { batchStatusSpec } from './batch-status-spec.js';
import { DEFAULT_CONCURRENCY } from './concurrency.js';
import { ACKNOWLEDGE_MISSING } from './missing-spec.js';

/**
 * The example file in the help: a header row (the required columns and phone_number, in the
 * documented order) and two rows, one with an amount as a spreadsheet writes it. Each line fits
 * a help of 80 columns, so that it is shown whole (help.ts wraps wider ones).
 * test/unit/batch-spreadsheet.test.ts reads it with the batch loader: it stays a valid file.
 */
export const SAMPLE_FILE = [
  'wallet_id,amount,currency,type,name,provider,account_number,phone_number',
  '6643665465,100.00,SLE,wallet,Awa Sesay,orange_money,076000001,+23276000001',
  '6643665465,"1,250.50",SLE,bank,Ibrahim Koroma,ecobank,0011223344,',
] as const;

export const batchSpec: CommandSpec = {
  name: 'batch',
  summary: 'send many payouts from a CSV or JSON-lines file: validated, planned, confirmed, resumable',
  arguments: [{ name: '<file>', description: 'CSV with a header row, or JSON lines', unless: '--template' }],
  options: [
    { flags: '--batch-id <name>', description: 'name of this batch (default: "default"); a new name pays the same rows again as new payouts' },
    { flags: '--concurrency <n>', description: 'payouts in flight at once', parse: intOption('--concurrency', 1, 64), default: DEFAULT_CONCURRENCY },
    { flags: '--report <file>', description: 'where to write the report (.csv or .jsonl; default: beside the input)', parse: nonEmpty('--report') },
    { flags: '--dry-run', description: 'check the file and show the plan; send nothing (exit 2 when the file has problems)' },
    { flags: '--allow-duplicates', description: 'send identical rows as separate payouts without asking' },
    ACKNOWLEDGE_MISSING,
    { flags: '-y, --yes', description: 'send without asking for confirmation (required without a terminal)' },
    { flags: '--template', description: 'print a header row and an example row (CSV) to start a file from; sends nothing' },
  ],
  help:
    'Columns: payout_id, wallet_id, amount, currency, type, name, provider, account_number, phone_number,\n' +
    'note, and metadata.<key>. A row without payout_id gets an id made from what it pays and the batch id,\n' +
    'never from the file name or the row number: a sorted, copied or re-saved file pays nobody twice.\n' +
    'Every row is checked first (wallets and currencies too); nothing is sent if any row is bad. Running the\n' +
    'file again resumes: rows already accepted are skipped, unknown ones are retried with their journaled keys.\n' +
    'Identical rows (accounts compared without letter case, spaces and dashes) are sent only after a\n' +
    'confirmation at a terminal, or with --allow-duplicates.\n' +
    'Exit codes: 0 every row accepted, 1 some rejected, 2 bad file (nothing sent), 4 some outcomes unknown.\n' +
    'Then `payctl payout batch status <report>` shows what each accepted payout became (a file named\n' +
    '"status" is sent as ./status).\n' +
    '\n' +
    'A CSV file (payout_id and note may be added; `payctl payout batch --template` prints every column):\n' +
    `  ${SAMPLE_FILE.join('\n  ')}\n` +
    'Headers are matched ignoring case, spaces, _ and - ("Account Number", "ACCOUNT-NUMBER": account_number).\n' +
    'Amounts: digits with "." as the decimal point (1250, 1250.00), or with "," between groups of three digits\n' +
    'as spreadsheets write them (1,250.00, quoted in CSV: "1,250.00"), paid exactly as 1250.00. Refused, saying\n' +
    'why: "," as the decimal point (1.250,00 or 1,25, the European style) and other groups (12,34,567).\n' +
    'Lines may end in CRLF, LF or CR, mixed in one file.',
  examples: [
    'payctl payout batch stipends.csv --dry-run',
    'payctl payout batch stipends.csv --batch-id 2026-11-stipends --concurrency 8 --yes',
    'payctl payout batch suppliers.jsonl --report suppliers-report.jsonl --yes',
    'payctl payout batch status stipends.report.csv --wait',
    'payctl payout batch --template > payouts.csv',
  ],
  load: () => import('./batch.js'),
  commands: [batchStatusSpec],
};
