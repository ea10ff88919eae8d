/** `payctl config set <key> <value>` (the run is set.ts). */
import type { CommandSpec } from '../spec.js';
import { KEY_ARGUMENT } from './key-argument.js';

export const setSpec: CommandSpec = {
  name: 'set',
  summary: 'change a setting (checked before it is saved)',
  arguments: [KEY_ARGUMENT, { name: '<value>', description: 'the new value (or --stdin)', unless: '--stdin' }],
  options: [{ flags: '--stdin', description: 'read the value from the first line of standard input (keeps a password off the command line)' }],
  help:
    'ledger is local (the journal in the config folder, the default) or the PostgreSQL URL of a ledger your\n' +
    'team shares (README "Working as a team"). A URL with a password is best given with --stdin, or without\n' +
    'the password: PGPASSWORD or ~/.pgpass supplies it. TLS: ?sslmode=verify-full (or require). PAYCTL_LEDGER_URL\n' +
    'overrides the setting. --profile names a profile that exists (made by login, or by sandbox start for\n' +
    '"sandbox"): config set changes a profile, it makes none but the default.',
  examples: [
    'payctl config set base-url https://api.example.com/v2',
    'payctl config set routes.payoutGet /payouts/{transactionId}',
    'payctl config set policy ~/finance/payout-policy.json',
    'payctl config set ledger postgres://payctl@db.example.com/payctl',
    'printf \'%s\\n\' "$LEDGER_URL" | payctl config set ledger --stdin',
    'payctl config set webhook-signature-header X-Bokumonie-Signature --profile sandbox',
  ],
  load: () => import('./set.js'),
};
