/**
 * `payout create`'s repeat guard (docs/architecture.md, "Where each rule lives": the repeat
 * guard; payouts/repeats.ts): the same payout typed again without --payout-id would get a new id,
 * so be a new payout. One that repeats an earlier payout is refused without a terminal (a dry run
 * only says so), or asked about at one; --allow-repeat sends it. But while an earlier payout of
 * the same details has an unknown outcome (its answer lost, or still in flight), nothing is sent,
 * --allow-repeat or not, and the refusal offers only what settles it: that payout may have been
 * made, and a second one would pay twice (probe 70-T: the refusal offered --allow-repeat to an
 * operator whose terminal had died mid-request, and the service held two payouts); however old
 * that payout is (repeats.ts recentRepeats: one over 24 hours old was forgotten, and typed again
 * the next day was paid twice, probe 53-H). And a guard
 * that cannot see every payout this folder sent to this service (entries of the journal missing)
 * is refused, until a payout sent with --allow-repeat acknowledges those entries for the guard
 * (under a policy's daily total, they also stop the total: --acknowledge-missing, plans/limits.ts).
 */
import { UsageError } from '../../errors.js';
import { commandLine } from '../../config/command-line.js';
import { isUnresolved } from '../../payouts/lookup.js';
import type { JournalEntry } from '../../payouts/journal.js';
import { blindRepeatGuard, describeRepeat, paidFirst, recentRepeats } from '../../payouts/repeats.js';
import { text } from '../../output/text.js';
import { heldReason, keyMayBeForgotten } from '../../payouts/entry-age.js';
import { checkCommand, type CreateRun } from './create-send.js';
import { dailyTotalApplies } from '../../plans/policy.js';
import { effectivePolicy } from '../policy/effective.js';

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
  const repeats = paidFirst(await recentRepeats(c.journal, c.api.baseUrl, c.request, now));
  const unknown = repeats.find(isUnresolved);
  if (unknown) await refuseUnknown(c, unknown, now, repeats);
  if (opts.allowRepeat) {
    if (!refuse) await allowBlind(c);
    return undefined;
  }
  // Those that paid first: the one named, and checked, is the payout that paid (before, the newest
  // was, a row its run never sent among them, and its check read "found not made").
  const repeated = repeats[0];
  // Checked once, before the lock (the record of lost entries does not change between).
  if (!repeated && !refuse) await refuseBlindGuard(c);
  if (!repeated) return undefined;
  const gone = await entryGone(c, repeated);
  const said = `This payout repeats ${describeRepeat(repeated, now, c.journal.sentFrom, c.request.account, gone)}${gone ? LOST : ''}${alsoSaid(c, repeats, now)}`;
  if (refuse || (!deps.io.interactive && !opts.dryRun)) {
    const check = gone ? putBackOrList(c) : `Check that one with: ${checkCommand(c, repeated)}`;
    throw new UsageError(`${said}. Nothing was sent.`, [], `${check}\n${allowAdvice(repeats)}`);
  }
  return `${said}.`;
}

/** The other earlier payouts this one repeats, after the first (at most 3 said, then how many more). */
function alsoSaid(c: CreateRun, repeats: JournalEntry[], now: Date): string {
  const rest = repeats.slice(1);
  if (!rest.length) return '';
  const shown = rest.slice(0, 3).map((e) => describeRepeat(e, now, c.journal.sentFrom, c.request.account));
  return `; and ${shown.join('; and ')}${rest.length > 3 ? `; and ${rest.length - 3} more` : ''}`;
}

/**
 * What --allow-repeat does, said true to what was found: a second payment over one that paid;
 * over a batch row recorded not made, a payment its batch, run again, would make once more
 * unless the row is taken out of its file.
 */
function allowAdvice(repeats: JournalEntry[]): string {
  const unsent = repeats.filter((e) => e.outcome?.kind === 'not-made' && e.batch);
  const rows = unsent.map((e) => `row ${e.batch!.row} of ${text(e.batch!.file ?? `batch "${e.batch!.id}"`)}`).join(', ');
  const takeOut = unsent.length
    ? `, and take ${rows} out of ${unsent.length === 1 ? 'its file' : 'their files'} before ${unsent.length === 1 ? 'its batch runs' : 'those batches run'} again: run again, ${unsent.length === 1 ? 'it' : 'each'} would pay it once more`
    : '';
  if (repeats[0]!.outcome?.kind === 'not-made') return `That one was not paid. If this payout is to pay it instead, add --allow-repeat${takeOut}.`;
  return `If it is meant to be paid again, add --allow-repeat${takeOut}.`;
}

/** Said of an earlier payout whose entry is gone (moved aside), found by its look-up markers: reconcile cannot check it. */
const LOST = ' (its journal entry is missing: deleted or moved aside; its look-up markers still hold it)';

/** Whether `entry` was found only by its look-up markers, its journal entry gone. */
async function entryGone(c: CreateRun, entry: JournalEntry): Promise<boolean> {
  return (await c.journal.get(c.api.baseUrl, entry.payoutId)) === undefined;
}

/** For an earlier payout whose entry is gone: put it back, or see what the service made. */
function putBackOrList(c: CreateRun): string {
  return `Put its entry back, or check whether the service made it with: ${commandLine(c.inv, ['payouts', 'list'], ['--all'])}`;
}

/** Refuses a repeat of a payout of unknown outcome, --allow-repeat or not: only what settles that one is offered. */
async function refuseUnknown(c: CreateRun, unknown: JournalEntry, now: Date, repeats: JournalEntry[]): Promise<never> {
  const gone = await entryGone(c, unknown);
  // Any that paid named first; the one of unknown outcome is what the settle command is for.
  const order = [...repeats.filter((e) => e.outcome?.kind === 'accepted'), unknown, ...repeats.filter((e) => e !== unknown && e.outcome?.kind !== 'accepted')];
  const first = order[0]!;
  const lost = first === unknown && gone;
  const said = `This payout repeats ${describeRepeat(first, now, c.journal.sentFrom, c.request.account, lost)}${lost ? LOST : ''}${alsoSaid(c, order, now)}`;
  const paid = first !== unknown;
  const lead = paid ? ` Payout ${unknown.payoutId} is of unknown outcome.` : '';
  const why =
    lead +
    (c.opts.allowRepeat
      ? ' --allow-repeat sends no payout while an earlier one of the same details may have been made: it would pay twice.'
      : ' It may have been made: a new payout would pay twice.');
  // Over 24 hours old (or dated in the future), reconcile holds it and lists the service's payouts that could be it.
  const old = keyMayBeForgotten(unknown, now);
  const how = old
    ? `${heldReason(unknown, now)}: reconcile lists the payouts the service made that could be it, to record the one that is with --made-by, or to resend it under its own key with --resend`
    : 'within 24 hours of it, reconcile resends it under its own key, so it is paid once';
  const settle = gone ? `${putBackOrList(c)}\n` : `Settle ${paid ? `payout ${unknown.payoutId}` : 'that one'} first (${how}): ${checkCommand(c, unknown)}\n`;
  const then = paid
    ? 'Then run this command again if it is still wanted: it is refused as a repeat of the payout accepted, saying how to pay it again.'
    : old
      ? 'Then run this command again if it is still wanted. Settled with --made-by (or found not made), that payout no longer holds this one back (sent more than 24 hours ago, its outcome known): this one is sent as a new payout. Settled with --resend, that payout is sent again now, so for 24 hours this one is refused as its repeat, saying how to pay it again: never run it only to finish the resend.'
      : 'Then run this command again if it is still wanted: if that payout was not made, this one is sent; if it was, this one is refused as its repeat, saying how to pay it again.';
  throw new UsageError(`${said}.${why} Nothing was sent.`, [], settle + then);
}

/**
 * A repeat guard that cannot see every payout this folder sent (repeats.ts blindRepeatGuard):
 * refused (exit 2), nothing sent, at a terminal too and in a dry run (a send would be refused),
 * with how to put the entries back or check, and --allow-repeat as the deliberate way on (which
 * acknowledges them: allowBlind).
 */
async function refuseBlindGuard(c: CreateRun): Promise<void> {
  const blind = await blindRepeatGuard(c.journal, c.api.baseUrl);
  if (!blind) return;
  const back = blind.missing ? 'Put the missing entries back where they were (from a backup, or from where they were moved) and run the same command again.\n' : '';
  // --allow-repeat acknowledges them for this guard only: under a daily total they stop the total too.
  const total = blind.missing && (await underDailyTotal(c));
  throw new UsageError(
    `${blind.said}. Nothing was sent.`,
    [],
    back +
      `${back ? 'Or c' : 'C'}heck that this payout was not made already: ${commandLine(c.inv, ['payouts', 'list'], ['--all'])} lists what the service made, ${commandLine(c.inv, ['history'])} ${blind.lostWhole ? 'what this config folder still has (the entries lost are not known)' : 'names the missing entries'}.\n` +
      `If it is to be sent all the same, as a new payout, add --allow-repeat (a deliberate choice: it also sends a payout that repeats one sent in the last 24 hours)${
        total
          ? " and, under the policy's daily total, --acknowledge-missing (it acknowledges the missing entries: the daily total then no longer counts what they paid)"
          : ''
      }.`,
  );
}

/** Whether the policy the run goes by has a daily total for this payout's currency (plans/limits.ts): missing entries stop it, --allow-repeat or not. */
async function underDailyTotal(c: CreateRun): Promise<boolean> {
  const policy = await effectivePolicy(c.deps);
  return !!policy && dailyTotalApplies(policy, c.request.currency);
}

/**
 * --allow-repeat while the guard cannot see entries of this base URL (missing ones not yet
 * acknowledged): said, and noted so that once the payout is sent they are acknowledged
 * (acknowledgeLost): later payouts are not refused for them (README "payout create").
 */
async function allowBlind(c: CreateRun): Promise<void> {
  const blind = await blindRepeatGuard(c.journal, c.api.baseUrl);
  if (!blind?.missing) return;
  c.lostAllowed = !c.opts.dryRun;
  c.deps.log.warn(
    `${blind.said}. --allow-repeat sends it all the same${c.opts.dryRun ? '' : '; once it is sent, these missing entries are acknowledged for the repeat guard: later payouts are not refused as possible repeats of them (history still names them; a daily total goes by --acknowledge-missing)'}.`,
  );
}

/** After a payout sent under allowBlind: the missing entries of its base URL acknowledged (Ledger.acknowledgeGaps). */
export async function acknowledgeLost(c: CreateRun): Promise<void> {
  if (c.lostAllowed) await c.journal.acknowledgeGaps?.(c.api.baseUrl, 'repeat');
}
