/** The exact command that retries a payout safely: same payout id, same key, same body. */
import { commandLine, type Invocation } from '../../config/command-line.js';
import type { PayoutRequest } from '../../payouts/request.js';
import { FIELD_FLAGS, flagOf } from './fields.js';

/** The field flags that give exactly this payout (its payout id included). */
function fieldArgs(r: PayoutRequest): string[] {
  const args: string[] = [];
  for (const f of FIELD_FLAGS) {
    const value = r[f.field];
    if (value === undefined) continue;
    if (typeof value === 'object') for (const [k, v] of Object.entries(value)) args.push(flagOf(f), `${k}=${v}`);
    else args.push(flagOf(f), value);
  }
  return args;
}

/** With `--yes` unless `confirmed` is false: a payout the person has not said yes to yet is asked about again. */
export function retryCommand(r: PayoutRequest, idempotencyKey: string, context: Invocation, confirmed = true): string {
  return commandLine(context, ['payout', 'create'], [...fieldArgs(r), '--idempotency-key', idempotencyKey, ...(confirmed ? ['--yes'] : [])]);
}

/** The command that sends this payout (a new one: its key derived from its payout id and body), with `--yes` when `confirmed`. */
export function sendCommand(r: PayoutRequest, context: Invocation, confirmed: boolean): string {
  return commandLine(context, ['payout', 'create'], [...fieldArgs(r), ...(confirmed ? ['--yes'] : [])]);
}

/** The command that writes this payout as a plan for approval (four eyes) instead of sending it. */
export function planOutCommand(r: PayoutRequest, planFile: string, context: Invocation): string {
  return commandLine(context, ['payout', 'create'], [...fieldArgs(r), '--plan-out', planFile]);
}
