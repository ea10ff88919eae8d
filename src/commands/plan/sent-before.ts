/**
 * What `plan show` says of a plan's payouts that were sent before, as far as the run's ledger
 * knows (this config folder's journal, or the team's shared ledger): one accepted earlier under its own
 * payout id (plan send will not send it again), or one that pays all that a payout sent before
 * under another id paid (plan send pays it again, as a new payout). An approver decides with that
 * in view; plan create says the same to the maker (create-repeats.ts).
 */
import { describeSentIn, samePayoutsSent } from '../../payouts/repeats.js';
import { payoutFingerprint, repeatKeys } from '../../payouts/identity.js';
import type { JournalEntry, Ledger } from '../../payouts/journal.js';
import type { ReadPayout } from '../../plans/plan.js';
import { text } from '../../output/text.js';

export interface SentBefore {
  row: number | undefined;
  payoutId: string;
  /**
   * accepted: this payout, accepted earlier; repeat: another payout that paid the same before the
   * plan was made (plan send pays it again); after: one that paid it after (plan send refuses it).
   */
  kind: 'accepted' | 'repeat' | 'after';
  earlier: JournalEntry;
}

/** Rows a plan's ledger look-ups take at once (Ledger.prefetch). */
const GROUP = 256;

/**
 * The plan's payouts sent before, in plan order, looked up in `journal` under the plan's service;
 * one that paid the same is after the plan when it was journaled after `madeAt` (source.ts madeAt).
 */
export async function sentBefore(journal: Ledger, baseUrl: string, payouts: readonly ReadPayout[], madeAt?: Date): Promise<SentBefore[]> {
  const made = madeAt === undefined ? NaN : madeAt.getTime();
  const out: SentBefore[] = [];
  for (let from = 0; from < payouts.length; from += GROUP) {
    const group = payouts.slice(from, from + GROUP).map((p) => ({ p, fingerprint: payoutFingerprint(p.request) }));
    // What each pays as written (fingerprint), and as compared: among the entries of its repeat keys (samePayoutsSent).
    const keys = [...new Set(group.flatMap((g) => repeatKeys(g.p.request)))];
    await journal.prefetch?.(
      baseUrl,
      group.map((g) => g.p.payout_id),
      group.map((g) => g.fingerprint),
      undefined,
      keys,
    );
    for (const { p, fingerprint } of group) {
      const own = await journal.get(baseUrl, p.payout_id);
      if (own?.outcome?.kind === 'accepted') {
        out.push({ row: p.row, payoutId: p.payout_id, kind: 'accepted', earlier: own });
        continue;
      }
      if (own) continue; // journaled, not accepted: plan send resolves it under its key
      const same = (await samePayoutsSent(journal, baseUrl, fingerprint, (e) => e.payoutId === p.payout_id, p.request)).at(-1);
      if (same) out.push({ row: p.row, payoutId: p.payout_id, kind: Date.parse(same.createdAt) > made ? 'after' : 'repeat', earlier: same });
    }
  }
  return out;
}

/** One line of each, for people: where it was sent before and what plan send does about it. */
export function sentBeforeLines(found: readonly SentBefore[]): string[] {
  return found.map((s) => {
    const where = describeSentIn(s.earlier);
    const who = s.row !== undefined ? `row ${s.row}` : text(s.payoutId);
    const o = s.earlier.outcome;
    return s.kind === 'accepted'
      ? `${who}: accepted earlier ${where}${o?.kind === 'accepted' && o.transactionId ? ` (transaction ${text(o.transactionId)})` : ''}: plan send does not send it again`
      : s.kind === 'after'
        ? `${who}: pays what payout ${text(s.earlier.payoutId)} paid ${where}, after the plan was made: plan send refuses the plan`
        : `${who}: pays what payout ${text(s.earlier.payoutId)} paid ${where}: plan send pays it again as a new payout`;
  });
}
