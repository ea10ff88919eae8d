/**
 * `payout create --payout-id P-2` run as payctl printed it after the service refused payout id P
 * as used before while its payout list held records that could be P (create-used-before.ts
 * usedBeforeHint): "only if none is this payout, send it under another payout id". The other
 * choice printed beside it is `history reconcile --payout-id P --made-by TXN`. The two are one
 * choice, for a payout whose id is P's next (nextPayoutId) and whose body is P's in all but its id:
 * - P recorded as made by a transaction a person named (`--made-by`: accepted, looked up): refused
 *   (exit 2), nothing sent; --allow-repeat sends it all the same. Before, an explicit --payout-id
 *   passed the repeat guard and paid it twice;
 * - P still unknown, held by such a search (`anyTime`): sent under P's resolution lock
 *   (resolve-lock.ts), P checked again under it, and once accepted P is recorded as not made
 *   (before, P stayed unknown for good, every resend of it refused as used before);
 * - and `--made-by` for P (of unknown outcome, held so or not) is refused while a payout
 *   journaled after it that pays what it pays (P-2, or any id) may have paid it (payouts/later-twin.ts replacementOf: its outcome unknown, or accepted); any
 *   acceptance of P-2 (or P-2-2, …: first send, rerun, reconcile, --made-by) records P not made
 *   (replacedBy, recordReplaced).
 * Any other P (sent and answered as usual, or refused) leaves P-2 an ordinary payout.
 */
import { UsageError } from '../../errors.js';
import { text } from '../../output/text.js';
import { commandLine } from '../../config/command-line.js';
import type { JournalEntry, Ledger } from '../../payouts/journal.js';
import { isUnresolved } from '../../payouts/lookup.js';
import { payoutBody, type PayoutRequest } from '../../payouts/request.js';
import { resolveLockIds, resolveLockOptions } from '../../payouts/resolve-lock.js';
import { AND_SENT, samePayments, sentInsteadOf } from '../../payouts/later-twin.js';

export { sentInsteadOf };
import { nextPayoutId } from './create-used-before.js';
import type { CreateRun } from './create-send.js';

/** Whether `body` is `earlier`'s in all but its payout id (`request` being what `body` asks). */
function sameButId(earlier: JournalEntry, request: PayoutRequest): boolean {
  return earlier.body === payoutBody({ ...request, payoutId: earlier.payoutId });
}

/** P's entry when this payout is P's printed P-2 and P was held by a search that decides, or recorded as made by one a person named; else undefined. */
async function replacedOf(c: CreateRun): Promise<JournalEntry | undefined> {
  const id = c.opts.payoutId;
  if (id === undefined || !id.endsWith('-2') || c.existing) return undefined;
  const p = id.slice(0, -2);
  if (nextPayoutId(p) !== id) return undefined;
  const earlier = await c.journal.get(c.api.baseUrl, p);
  if (!earlier || !sameButId(earlier, c.request)) return undefined;
  const o = earlier.outcome;
  return (o?.kind === 'unknown' && o.anyTime) || (o?.kind === 'accepted' && o.lookedUp) ? earlier : undefined;
}

/**
 * The entry of payout P this payout is the printed P-2 of, when P is still unknown; refused when P
 * is recorded as made (unless --allow-repeat).
 */
export async function replacedEntry(c: CreateRun): Promise<JournalEntry | undefined> {
  const earlier = await replacedOf(c);
  const o = earlier?.outcome;
  if (earlier && o?.kind === 'accepted' && !c.opts.allowRepeat) {
    const p = earlier.payoutId;
    throw new UsageError(
      `Payout ${text(p)} is recorded as made${o.transactionId ? ` (transaction ${text(o.transactionId)})` : ''}: payout id ${text(c.request.payoutId)} is the one payctl prints for sending it under another id only if no payout at the service was ${text(p)}. Nothing was sent.`,
      [],
      `See it with: ${commandLine(c.inv, ['payout', 'get', p])}\nIf this is another payout, to be paid as well, add --allow-repeat.`,
    );
  }
  return earlier && isUnresolved(earlier) ? earlier : undefined;
}

/**
 * `send` (journal, send, what it returns) run holding P's resolution lock, P checked again under it
 * (a --made-by of P that ran meanwhile refuses this one); once this payout is accepted, P recorded
 * as not made (its id was used for another payout), unless it was recorded meanwhile.
 */
export async function sendReplacing<T>(c: CreateRun, replaced: JournalEntry, send: () => Promise<T>, accepted: (sent: T) => boolean): Promise<T> {
  const { journal, deps } = c;
  const id = c.request.payoutId;
  return journal.withResolveLocks(
    resolveLockIds(replaced.payoutId),
    async () => {
      const now = await replacedEntry(c);
      const sent = await send();
      if (now && accepted(sent)) await recordSentInstead(journal, now, id, deps);
      return sent;
    },
    resolveLockOptions(deps),
  );
}

/** Whether `id` is one of the ids payctl prints, one after another, to send `p` under (P-2, P-2-2, …). */
function printedAfter(p: string, id: string): boolean {
  let next = p;
  for (let i = 0; i < 8 && next.length < id.length; i++) if ((next = nextPayoutId(next)) === id) return true;
  return false;
}

/**
 * For an accepted payout `x`: the payouts it was sent in place of: those a search that decides held
 * (unknown, `anyTime`: their ids used before) that pay what it pays and whose printed P-2 (or that
 * one's P-2-2, …) x is. Once x is made they are recorded as not made (as sendReplacing does), or they
 * would stay unknown for good, their own --made-by refused while x is accepted. Only through the
 * ids payctl printed: another payout of the same details under an id a person chose may be another
 * intention, and is never taken for proof that a held one was not made.
 */
export async function replacedBy(journal: Ledger, x: JournalEntry): Promise<JournalEntry[]> {
  // Every printed id ends so (nextPayoutId): any other payout accepted asks the ledger nothing more.
  if (!x.payoutId.endsWith('-2')) return [];
  return (await samePayments(journal, x)).filter((e) => printedAfter(e.payoutId, x.payoutId) && e.outcome?.kind === 'unknown' && e.outcome.anyTime === true);
}

/** `x` recorded as made: each payout it was sent in place of (replacedBy) recorded as not made, under that payout's lock. */
export async function recordReplaced(journal: Ledger, x: JournalEntry, deps: CreateRun['deps']): Promise<void> {
  for (const p of await replacedBy(journal, x)) {
    await journal
      .withResolveLocks(
        resolveLockIds(p.payoutId),
        async () => {
          const now = await journal.get(p.baseUrl, p.payoutId);
          if (now?.outcome?.kind === 'unknown' && now.outcome.anyTime) await recordSentInstead(journal, now, x.payoutId, deps);
        },
        resolveLockOptions(deps, true),
      )
      .catch((err: unknown) => deps.log.warn(`Payout ${text(p.payoutId)} could not be recorded as not made: ${text((err as Error).message)}`));
  }
}

const SENT_INSTEAD = 'not made: its payout id was used for another payout';

/**
 * `payout create` of a payout recorded as sent as another instead (its id used for another payout):
 * run again, it would be resent, refused as used before and held unknown again, its held advice
 * leading nowhere (probe 49-Q F1). Refused: nothing sent (exit 2), naming the payout that paid it.
 */
export function refuseSentInstead(c: CreateRun): void {
  const instead = c.existing && sentInsteadOf(c.existing);
  if (!instead) return;
  throw new UsageError(
    `Payout ${text(c.request.payoutId)} is recorded as ${text((c.existing!.outcome as { message: string }).message)}. Nothing was sent.`,
    [],
    `See that one with: ${commandLine(c.inv, ['payout', 'get', instead])}`,
  );
}

/**
 * Records `p` as not made: sent as payout `id` instead (held by p's resolution lock). `why`: why
 * it was not made (its payout id used for another payout, unless said: a twin's record paid it,
 * reconcile-twin-pair.ts), and `said`, what is logged after "recorded as not made: ".
 */
export async function recordSentInstead(
  journal: Ledger,
  p: JournalEntry,
  id: string,
  deps: CreateRun['deps'],
  how: { why: string; code: string; said: string } = { why: SENT_INSTEAD, code: 'DUPLICATE_PAYOUT_ID', said: `it was sent as payout ${text(id)}` },
): Promise<void> {
  const message = `${how.why}${AND_SENT}${id} instead`;
  try {
    await journal.record(p, { kind: 'rejected', status: 422, code: how.code, message, at: deps.clock.now().toISOString() });
    deps.log.info(`Payout ${text(p.payoutId)} is recorded as not made: ${how.said}.`);
  } catch (err) {
    deps.log.warn(`Payout ${text(p.payoutId)} could not be recorded as not made (${text((err as Error).message)}); ${how.said}.`);
  }
}
