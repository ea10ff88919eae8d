/**
 * `payctl history reconcile --payout-id ID --resend`, before anything is sent: refused while a
 * later payout of the same details may have paid it (payouts/later-twin.ts: a resend would pay it
 * twice; exit 2, the same refusal as `--made-by`'s), then confirmed at a terminal, or by --yes.
 */
import type { Deps } from '../../deps.js';
import { CancelledError, UsageError } from '../../errors.js';
import type { Invocation } from '../../config/command-line.js';
import { text } from '../../output/text.js';
import { plainAmount } from '../../money/amount.js';
import type { JournalEntry, Ledger } from '../../payouts/journal.js';
import { askedOf } from '../../payouts/candidate-fields.js';
import { sentClause } from '../../payouts/entry-age.js';
import { refuseLaterTwin } from '../../payouts/later-twin.js';

/** Nothing is sent while a later payout may have paid it; else, at a terminal, asks before a --resend; elsewhere --yes must say it. */
export async function checkResend(journal: Ledger, entry: JournalEntry, o: { yes?: boolean; inv: Invocation; now: Date }, deps: Deps): Promise<void> {
  await refuseLaterTwin(journal, entry, o.now, o.inv, 'Nothing was sent.');
  if (o.yes) return;
  if (!deps.io.interactive) {
    throw new UsageError(
      `--resend sends payout ${text(entry.payoutId)} again and needs a confirmation: run it at a terminal, or add --yes. Nothing was sent.`,
      [],
      'Resend only when no payout at the service is this one (the candidates reconcile lists): if the first attempt was made and the service forgot its key, a resend pays twice.',
    );
  }
  const a = askedOf(entry.body);
  const what = a?.amount !== undefined && a.currency ? `${plainAmount(a.amount, a.currency)} ${a.currency} to account ${text(a.account ?? '?')}` : 'it';
  deps.log.warn(
    `Payout ${text(entry.payoutId)} (${what}) ${sentClause(entry, o.now)} and no answer was read. If that attempt was made and the service forgot its key, resending pays twice.`,
  );
  const ok = await (await deps.prompter()).confirm({ message: `Resend payout ${entry.payoutId} with its journaled idempotency key and body?`, default: false });
  if (!ok) throw new CancelledError();
}
