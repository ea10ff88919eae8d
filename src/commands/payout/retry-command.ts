/** The exact command that retries a payout safely: same payout id, same key, same body. */
import { commandLine, type Invocation } from '../../output/command-line.js';
import type { PayoutRequest } from '../../payouts/request.js';
import { FIELD_FLAGS, flagOf } from './fields.js';

export function retryCommand(r: PayoutRequest, idempotencyKey: string, context: Invocation): string {
  const args: string[] = [];
  for (const f of FIELD_FLAGS) {
    const value = r[f.field];
    if (value === undefined) continue;
    if (typeof value === 'object') for (const [k, v] of Object.entries(value)) args.push(flagOf(f), `${k}=${v}`);
    else args.push(flagOf(f), value);
  }
  args.push('--idempotency-key', idempotencyKey, '--yes');
  return commandLine(context, ['payout', 'create'], args);
}
