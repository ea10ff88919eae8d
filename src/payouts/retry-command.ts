/** The exact command that retries a payout safely: same payout id, same key, same body. */
import { commandLine, type Invocation } from '../output/command-line.js';
import type { PayoutRequest } from './request.js';

export function retryCommand(r: PayoutRequest, idempotencyKey: string, context: Invocation): string {
  const args: string[] = [];
  const add = (flag: string, value: string | undefined) => {
    if (value !== undefined) args.push(flag, value);
  };
  add('--wallet', r.walletId);
  add('--amount', r.amount);
  add('--currency', r.currency);
  add('--type', r.type);
  add('--name', r.name);
  add('--provider', r.provider);
  add('--account', r.account);
  add('--phone', r.phone);
  add('--note', r.note);
  for (const [k, v] of Object.entries(r.metadata ?? {})) add('--metadata', `${k}=${v}`);
  add('--payout-id', r.payoutId);
  add('--idempotency-key', idempotencyKey);
  args.push('--yes');
  return commandLine(context, ['payout', 'create'], args);
}
