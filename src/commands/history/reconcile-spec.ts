/** `payctl history reconcile` (the run is reconcile.ts). */
import type { CommandSpec } from '../spec.js';

/** --made-by and --resend are two answers to one question: never both. */
function checkReconcile(opts: Record<string, unknown>): string | undefined {
  if (opts.madeBy !== undefined && opts.resend === true) return '--made-by and --resend cannot be used together.';
  if ((opts.madeBy !== undefined || opts.resend === true) && opts.payoutId === undefined)
    return `${opts.madeBy !== undefined ? '--made-by' : '--resend'} needs --payout-id.`;
  if (opts.yes === true && opts.resend !== true && opts.madeBy === undefined) return '--yes goes with --resend or --made-by.';
  return undefined;
}

export const reconcileSpec: CommandSpec = {
  name: 'reconcile',
  summary: 'resolve payouts whose outcome is unknown: resend them with their journaled idempotency key, or choose',
  options: [
    { flags: '--payout-id <id>', description: 'only this journaled payout' },
    { flags: '--made-by <transaction-id>', description: 'record the payout as made by this transaction (checked: same amount, currency and account)' },
    { flags: '--resend', description: 'resend the payout with its journaled key and body, even after 24 hours (asks to confirm)' },
    { flags: '-y, --yes', description: 'with --resend, or --made-by of a masked record: do not ask (required without a terminal)' },
  ],
  check: checkReconcile,
  help:
    'A payout whose answer was lost is resolved by sending it again: the same body with the same\n' +
    'Idempotency-Key, which the service treats as a retry (one payout either way). For each journaled\n' +
    'payout of this base URL whose outcome is unknown and whose first attempt is under 24 hours old,\n' +
    'reconcile does that and records the answer: accepted (with its transaction id) or refused.\n' +
    'After 24 hours the service may have forgotten the key, so payctl never resends on its own: it\n' +
    'searches the payout list for payouts that could be it (same account, amount and currency, the\n' +
    'same note, created since a day before the first attempt: a record created before it is marked, as\n' +
    "this machine's clock may have been fast), shows them, leaves the outcome unknown and prints the two commands\n" +
    'to choose from: --made-by <transaction id> (that payout is this one) or --resend (it was not made).\n' +
    'Exits 0 when no outcome is left unknown, 4 when some are.',
  examples: [
    'payctl history reconcile',
    'payctl history reconcile --payout-id 0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e --made-by TXN-BOK-FF051A7F00A49EB6AF225D10EA',
    'payctl history reconcile --payout-id 0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e --resend',
  ],
  load: () => import('./reconcile.js'),
};
