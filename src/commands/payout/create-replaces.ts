/**
 * `payout create --payout-id P-2` run as payctl printed it after the service refused payout id P
 * as used before while its payout list held records that could be P (create-used-before.ts
 * usedBeforeHint): "only if none is this payout, send it under another payout id". The other
 * choice printed beside it is `history reconcile --payout-id P --made-by TXN`. A person who
 * answered that one first (P recorded as made) and then pasted this one too paid the payout
 * twice: an explicit --payout-id passes the repeat guard. So, for a payout whose id is P's next
 * (nextPayoutId) and whose body is P's in all but its id:
 * - P recorded as made: refused (exit 2), nothing sent; --allow-repeat sends it all the same;
 * - P still unknown: sent, and once accepted P is recorded as not made, on the person's choice
 *   (under P's resolution lock, resolve-lock.ts): otherwise P stayed unknown for good, every
 *   resend of it refused as used before and searched again (history reconcile exit 4).
 */
import { UsageError } from '../../errors.js';
import { text } from '../../output/text.js';
import { commandLine } from '../../config/command-line.js';
import type { JournalEntry } from '../../payouts/journal.js';
import { isUnresolved } from '../../payouts/lookup.js';
import { payoutBody } from '../../payouts/request.js';
import { resolveLockIds, resolveLockOptions } from '../../payouts/resolve-lock.js';
import { nextPayoutId } from './create-used-before.js';
import type { CreateRun } from './create-send.js';

/**
 * The entry of payout P this payout is the printed `P-2` of, when P is still unknown (to record
 * as not made once this one is accepted); refused when P is recorded as made.
 */
export async function replacedEntry(c: CreateRun): Promise<JournalEntry | undefined> {
  const id = c.opts.payoutId;
  if (id === undefined || !id.endsWith('-2') || c.existing) return undefined;
  const p = id.slice(0, -2);
  if (nextPayoutId(p) !== id) return undefined;
  const earlier = await c.journal.get(c.api.baseUrl, p);
  if (!earlier || earlier.body !== payoutBody({ ...c.request, payoutId: p })) return undefined;
  const o = earlier.outcome;
  if (o?.kind === 'accepted' && !c.opts.allowRepeat) {
    throw new UsageError(
      `Payout ${text(p)} is recorded as made${o.transactionId ? ` (transaction ${text(o.transactionId)})` : ''}: payout id ${text(id)} is the one payctl printed for sending it only if no payout at the service was ${text(p)}. Nothing was sent.`,
      [],
      `See it with: ${commandLine(c.inv, ['payout', 'get', p])}\nIf this is another payout, to be paid as well, add --allow-repeat.`,
    );
  }
  return isUnresolved(earlier) ? earlier : undefined;
}

/** This payout accepted: payout P it replaces recorded as not made (its id was used for another payout), unless recorded meanwhile. */
export async function recordReplaced(c: CreateRun, replaced: JournalEntry): Promise<void> {
  const { journal, deps } = c;
  const id = c.request.payoutId;
  try {
    await journal.withResolveLocks(
      resolveLockIds(replaced.payoutId),
      async () => {
        const now = await journal.get(replaced.baseUrl, replaced.payoutId);
        if (!now || !isUnresolved(now)) return;
        const message = `not made: its payout id was used for another payout, and it was sent as payout ${id} instead`;
        await journal.record(now, { kind: 'rejected', status: 422, code: 'DUPLICATE_PAYOUT_ID', message, at: deps.clock.now().toISOString() });
        deps.log.info(`Payout ${text(replaced.payoutId)} is recorded as not made: it was sent as payout ${text(id)}.`);
      },
      resolveLockOptions(deps),
    );
  } catch (err) {
    deps.log.warn(`Payout ${text(replaced.payoutId)} could not be recorded as not made (${text((err as Error).message)}); it was sent as payout ${text(id)}.`);
  }
}
