/**
 * `payout create`'s repeat guard (payouts/repeats.ts): the same payout typed again without
 * --payout-id would get a new id, so be a new payout. One that repeats an earlier payout is
 * refused without a terminal (a dry run only says so), or asked about at one; --allow-repeat
 * sends it. But while an earlier payout of the same details has an unknown outcome (its answer
 * lost, or still in flight), nothing is sent, --allow-repeat or not, and the refusal offers
 * only the reconcile that settles it: that payout may have been made, and a second one would pay
 * twice (probe 70-T: the refusal offered --allow-repeat to an operator whose terminal had died
 * mid-request, and the service held two payouts).
 */
import { UsageError } from '../../errors.js';
import { isUnresolved } from '../../payouts/lookup.js';
import { describeRepeat, recentRepeats } from '../../payouts/repeats.js';
import { checkCommand, type CreateRun } from './create-send.js';

/**
 * What the payout repeats, said before asking (undefined: no repeat, or --allow-repeat); refused
 * (UsageError, exit 2, nothing sent) when `refuse`, without a terminal outside a dry run, and
 * whenever an earlier payout of the same details has an unknown outcome.
 */
export async function repeatWarning(c: CreateRun, refuse = false): Promise<string | undefined> {
  const { opts, deps } = c;
  if (opts.payoutId !== undefined || c.existing) return undefined;
  // The last 24 hours by the ledger's clock, which dated its entries: on a shared ledger the
  // database's, so that no machine's clock, slow or fast, moves a payout out of the window.
  const now = await c.journal.now();
  const repeats = await recentRepeats(c.journal, c.api.baseUrl, c.request, now);
  const unknown = repeats.filter(isUnresolved).at(-1);
  if (unknown) {
    const said = `This payout repeats ${describeRepeat(unknown, now, c.journal.sentFrom, c.request.account)}`;
    const why = opts.allowRepeat
      ? ' --allow-repeat sends no payout while an earlier one of the same details may have been made: it would pay twice.'
      : ' It may have been made: a new payout would pay twice.';
    throw new UsageError(
      `${said}.${why} Nothing was sent.`,
      [],
      `Settle that one first (within 24 hours of it, reconcile resends it under its own key, so it is paid once): ${checkCommand(c, unknown)}\n` +
        'Then run this command again if it is still wanted: if that payout was not made, this one is sent; if it was, this one is refused as its repeat, saying how to pay it again.',
    );
  }
  if (opts.allowRepeat) return undefined;
  const repeated = repeats.at(-1);
  if (!repeated) return undefined;
  const said = `This payout repeats ${describeRepeat(repeated, now, c.journal.sentFrom, c.request.account)}`;
  if (refuse || (!deps.io.interactive && !opts.dryRun)) {
    throw new UsageError(`${said}. Nothing was sent.`, [], `Check that one with: ${checkCommand(c, repeated)}\nIf it is meant to be paid again, add --allow-repeat.`);
  }
  return `${said}.`;
}
