/** `payctl payout get <id>`: one payout, by payoutId or transaction id. */
import { write, type Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { payoutAnswer } from '../../payouts/lookup.js';
import { renderPayoutCard } from '../../output/payout.js';
import { makeStyle } from '../../output/style.js';
import { waitAndReport } from './wait.js';

export interface PayoutGetOptions {
  id: string;
  /** Wait until the payout is Successful or Failed (wait.ts). */
  wait?: boolean;
  /** Seconds --wait waits at most (default 600). */
  waitTimeout?: number;
}

export async function run(opts: PayoutGetOptions, deps: Deps): Promise<number> {
  const id = opts.id.trim();
  if (!id) throw new UsageError('payout get needs a payout id or transaction id.');
  const api = await deps.api();
  if (opts.wait) return waitAndReport(deps, api, id, opts.waitTimeout);
  const { envelope, res } = await api.callEnvelope('payoutGet', { params: { id } });
  // An answer about another payout is an error (exit 1), never shown as this one.
  const record = payoutAnswer(envelope.data, id, res, { orTransaction: true });
  if (deps.globals.json) {
    await write(deps.io.stdout, res.raw.trim() + '\n');
    return 0;
  }
  await write(deps.io.stdout, renderPayoutCard(record, makeStyle(deps.io.color)));
  return 0;
}
