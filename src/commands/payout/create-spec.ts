/**
 * `payctl payout create` (the run is create.ts): the payout's field flags come from the one
 * table in fields.ts, then the flags of the sending itself.
 */
import type { CommandSpec, OptionSpec } from '../spec.js';
import { FIELD_FLAGS } from './fields.js';
import { checkWait, WAIT_HELP, WAIT_OPTIONS } from './wait-spec.js';
import { ACKNOWLEDGE_MISSING } from './missing-spec.js';

export const createSpec: CommandSpec = {
  name: 'create',
  summary: 'send one payout: validated, confirmed, journaled, and never sent twice',
  options: [
    ...FIELD_FLAGS.map((f): OptionSpec => (f.field === 'metadata' ? { flags: f.flags, description: f.help, repeatable: true } : { flags: f.flags, description: f.help })),
    { flags: '--idempotency-key <uuid>', description: 'idempotency key to send (default: a new UUID, journaled)' },
    { flags: '-y, --yes', description: 'send without asking for confirmation (required without a terminal)' },
    { flags: '--dry-run', description: 'validate and show what would be sent (with --json the exact request body); send nothing' },
    { flags: '--plan-out <file>', description: 'write the payout as a plan for approval (payctl plan) instead of sending it' },
    {
      flags: '--allow-repeat',
      description:
        'send even when the same payout (wallet, account, amount, currency) was sent in the last 24 hours (not while its outcome is unknown), or while journal entries are missing (acknowledged for this check only: a daily total needs --acknowledge-missing)',
    },
    ACKNOWLEDGE_MISSING,
    ...WAIT_OPTIONS,
  ],
  check: (o) =>
    checkWait(o) ??
    (o.dryRun === true && o.wait === true ? '--wait cannot be used with --dry-run: a dry run sends nothing to wait for.' : undefined) ??
    (o.planOut !== undefined && (o.wait === true || o.dryRun === true)
      ? '--plan-out cannot be used with --wait or --dry-run: it writes a plan and sends nothing.'
      : undefined),
  help:
    'Missing fields are asked for at a terminal. The payout id and its idempotency key are journaled\n' +
    'before the request leaves: running the same command again with the same --payout-id never pays twice.\n' +
    'Without --payout-id, a payout that repeats one sent from this config folder in the last 24 hours (same wallet,\n' +
    'account, amount and currency) is shown and asked about at a terminal, and refused without one\n' +
    "unless --allow-repeat is given; while an earlier one's outcome is unknown, however old, it is refused even so:\n" +
    'reconcile that one first.\n' +
    'With a policy in the profile (payctl config set policy), a payout that needs approval is refused\n' +
    'with the command that writes it as a plan (--plan-out) for payctl plan approve and plan send.\n' +
    'Exit codes: 0 sent, 1 refused by the service, 2 bad input (nothing sent), 3 not logged in, 4 outcome unknown.\n' +
    WAIT_HELP +
    '\nA create that is refused or whose outcome is unknown does not wait.',
  examples: [
    'payctl payout create --wallet 6643665465 --amount 1500.50 --currency SLE --type wallet \\\n      --name "Aminata Kamara" --provider orange_money --account 076123456 --phone +23276123456 \\\n      --note "October stipend" --metadata batch=oct-stipends --payout-id stipend-2026-10-017 --yes',
    'payctl payout create --wallet 4832172568 --amount 250000 --currency NGN --type bank --name "Chinedu Okafor" --provider ecobank --account 0123456789 --yes --json',
    'payctl payout create --wallet 6643665465 --amount 200 --currency SLE --type wallet --name "Fatmata Sesay" \\\n      --provider afrimoney --account 088765432 --phone +23288765432 --yes --wait',
    'payctl payout create          # asks for everything at a terminal',
  ],
  load: () => import('./create.js'),
};
