/**
 * The entries of `history reconcile`'s base URL that the ledger's record of itself names and that
 * are gone (Ledger.journalGaps): said by the run as entries passed over.
 */
import { text } from '../../output/text.js';
import type { Ledger } from '../../payouts/journal.js';

/**
 * Entries of this base URL the ledger's record of itself names that are gone (Ledger.journalGaps:
 * deleted, moved aside, a folder restored from an older backup), said as entries passed over:
 * any may be a payout of unknown outcome, so the run never says "No unknown outcomes" (exit 2).
 * One line each for the first ten, then one for the rest (`more`: how many more it stands for).
 */
export async function missingEntries(journal: Ledger, baseUrl: string): Promise<{ said: string[]; more: number }> {
  const gaps = await journal.journalGaps(baseUrl);
  if (!gaps?.missing) return { said: [], more: 0 };
  const said = gaps.payoutIds.map((id) => `the entry of payout ${text(id)} is missing (${GONE})`);
  const more = gaps.missing - gaps.payoutIds.length;
  return more > 0 ? { said: [...said, `${more} more entries are missing (${GONE})`], more: more - 1 } : { said, more: 0 };
}

const GONE = 'journal.index names it: deleted, moved aside or replaced by an older backup';
