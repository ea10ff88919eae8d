/**
 * `payctl history reconcile`: resolves journaled payouts of this base URL whose outcome is
 * unknown (no answer read, or none recorded: the run ended with the request maybe in flight).
 * The service has no look-up by payout id (docs/service.md), so an unknown outcome is resolved
 * by sending the same body with the same Idempotency-Key, which the service treats as a retry:
 * one payout either way. That is done on its own only while the service is trusted to remember
 * the key (24 hours: payouts/entry-age.ts); for an older entry, or one dated in the future (its
 * age cannot be told), the payout list is searched for
 * candidates, which are shown with the two commands a person chooses from:
 * `--payout-id ID --made-by TXN` (looked up, checked, recorded as accepted: reconcile-made-by.ts) or
 * `--payout-id ID --resend` (asks to confirm, or `--yes`; then resent with the journaled idempotency key;
 * refused while a later payout of the same details may have paid it: reconcile-resend.ts).
 * A resend refused (not as a duplicate) is not taken for "not made" on its word: the payout list
 * is searched for the earlier attempt (payouts/resend-refused.ts); a record that could be it, or a
 * search that cannot tell, leaves it unknown, with the `--made-by` commands.
 */
import { capitalized } from '../../words.js';
import { write, type Deps } from '../../deps.js';
import { AuthError, ExitCode, InterruptedError, LockHeldError, UsageError } from '../../errors.js';
import { recordStatus } from '../../service/schemas.js';
import type { ApiClient } from '../../api/client.js';
import { commandLine, invocationOf, type Invocation } from '../../config/command-line.js';
import { text } from '../../output/text.js';
import { journalBase, ledgerNow, type JournalEntry, type Ledger } from '../../payouts/journal.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { idOption } from '../../payouts/filters.js';
import { isUnresolved } from '../../payouts/lookup.js';
import { findCandidates, type CandidateSearch } from '../../payouts/candidate-search.js';
import { choiceCommands } from '../../payouts/held-advice.js';
import { ageUnknown, keyMayBeForgotten } from '../../payouts/entry-age.js';
import { ledgerOutcome } from '../../payouts/history-lines.js';
import { sendPayout } from '../../payouts/send.js';
import { journalFolder } from '../../config/paths.js';
import { JournalFaults } from '../payout/send-rows.js';
import { resumeCommand } from '../payout/batch-commands.js';
import { resolveLockIds, resolveLockOptions } from '../../payouts/resolve-lock.js';
import { recordReplaced, sentInsteadOf } from '../payout/create-replaces.js';
import { madeBy } from './reconcile-made-by.js';
import { checkResend } from './reconcile-resend.js';
import { laterTwin, refuseLaterTwin } from '../../payouts/later-twin.js';
import { refuseTwinPaidResend, twinPaid } from '../../payouts/twin-paid.js';
import { notHeldResult, notThisSender, otherSenderLine, refuseNotHeld, refuseOtherSender, senderConfirmed } from './reconcile-sender.js';
import { missingEntries } from './reconcile-missing.js';
import { RunWallets } from '../../payouts/unkeyed-wallet.js';
import { withRunKey } from '../../payouts/sender-profile.js';
import { shownBase, unloggedReconcileError } from './reconcile-unlogged.js';
import { busyLine, document, INTERRUPTED, lines, type ReconcileResult } from './reconcile-output.js';
import { describeOutcome } from '../../payouts/history-lines.js';

export interface ReconcileOptions {
  payoutId?: string;
  madeBy?: string;
  resend?: boolean;
  yes?: boolean;
}

export async function run(opts: ReconcileOptions, deps: Deps): Promise<number> {
  const problems: string[] = [];
  idOption('--payout-id', 'a payout id', opts.payoutId, problems);
  idOption('--made-by', 'a transaction id', opts.madeBy, problems);
  if (problems.length) throw new UsageError('Invalid options for history reconcile.', problems);
  // Not logged in: payouts of unknown outcome the journal has under other profiles are said (reconcile-unlogged.ts).
  const api = await deps.api().catch(async (err: unknown) => {
    throw err instanceof AuthError && opts.madeBy === undefined ? await unloggedReconcileError(err, opts.payoutId, deps) : err;
  });
  const journal = await openLedger(deps);
  const inv = invocationOf(deps.globals, deps.env);
  // Journaled without its key's id, from a wallet this run's account does not hold: another account's (unkeyed-wallet.ts).
  const wallets = new RunWallets(api);
  const named = opts.payoutId !== undefined ? await journal.get(api.baseUrl, opts.payoutId) : undefined;
  if (named && isUnresolved(named))
    await refuseNotHeld(named, inv, wallets, deps.env, opts.resend ? ['--resend'] : opts.madeBy ? ['--made-by', opts.madeBy] : [], 'Nothing was sent.');
  if (opts.madeBy !== undefined) return madeBy(api, journal, opts.payoutId!, opts.madeBy, inv, deps, opts.yes === true);

  const base = journalBase(api.baseUrl);
  const damaged: string[] = [];
  // One entry at a time: the journal's listing is read first, each entry when its turn comes.
  // The same pass notes which transaction ids are journaled payouts already (never shown as candidates).
  const todo: Array<{ name: string; payoutId: string; t: number }> = [];
  const claimed = new Map<string, string>();
  const elsewhere = new Map<string, { shown: string; n: number }>();
  const others: ReconcileResult[] = [];
  if (opts.payoutId !== undefined) {
    const entry = await journal.get(api.baseUrl, opts.payoutId);
    if (!entry)
      throw new UsageError(
        `${capitalized(journal.called)} has no payout ${text(opts.payoutId)} for ${text(api.baseUrl)}. Nothing was sent.`,
        [],
        `See what it has with: ${commandLine(inv, ['history'])}`,
      );
    if (!isUnresolved(entry)) return notUnknown(entry, api.baseUrl, deps);
    refuseOtherSender(entry, inv, withRunKey(deps.config(), api.runKey), opts.resend ? ['--resend'] : [], 'Nothing was sent.');
    if (opts.resend) await checkResend(journal, entry, { yes: opts.yes, inv, now: ledgerNow(journal, deps.clock) }, deps);
  }
  for await (const it of journal.scan()) {
    if ('error' in it) {
      damaged.push(it.error.message);
      continue;
    }
    const e = it.entry;
    if (journalBase(e.baseUrl) !== base) {
      // Said at the end: a person who reconciled "everything" may have more under another service.
      if (opts.payoutId === undefined && ledgerOutcome(e) === 'unknown') {
        const other = elsewhere.get(journalBase(e.baseUrl)) ?? { shown: shownBase(e.baseUrl), n: 0 };
        elsewhere.set(journalBase(e.baseUrl), { ...other, n: other.n + 1 });
      }
      continue;
    }
    if (e.outcome?.kind === 'accepted' && e.outcome.transactionId) claimed.set(e.outcome.transactionId, e.payoutId);
    if (ledgerOutcome(e) !== 'unknown' || (opts.payoutId !== undefined && e.payoutId !== opts.payoutId)) continue;
    // Another profile's payout (or one journaled without its profile) is left to that profile (reconcile-sender.ts).
    const notHere =
      opts.payoutId === undefined
        ? (notThisSender(e, inv, withRunKey(deps.config(), api.runKey), deps.env) ?? (await notHeldResult(e, inv, wallets, deps.env)))
        : undefined;
    if (notHere) others.push(notHere);
    else todo.push({ name: it.name, payoutId: e.payoutId, t: Date.parse(e.createdAt) || 0 });
  }
  // Oldest first: the order they were sent in.
  todo.sort((a, b) => a.t - b.t);
  // Entries missing: said as passed over, each counted (the first ten named).
  const missing = opts.payoutId === undefined ? await missingEntries(journal, api.baseUrl) : { said: [], more: 0 };
  damaged.push(...missing.said);

  const results: ReconcileResult[] = [...others];
  if (!deps.globals.json) for (const r of others) await write(deps.io.stdout, otherSenderLine(r));
  // Answers the journal fails to record are told apart from answers that never came (what to do differs).
  const faults = new JournalFaults(journalFolder(deps.env));
  const watched = faults.watch(journal);
  const resolvedMeanwhile = await resolveEach(todo, results, { api, journal, watched, opts, claimed, inv, faults }, deps);
  if (opts.payoutId !== undefined && !results.length && resolvedMeanwhile && !deps.signal.aborted) return notUnknown(resolvedMeanwhile, api.baseUrl, deps);
  await closedLater(results, journal, api.baseUrl, deps);

  const left = await sayResults(results, { damaged, more: missing.more, elsewhere }, api.baseUrl, deps);
  // Ctrl-C: what was answered is recorded; the rest is as unknown as before (exit 130, as every command).
  if (deps.signal.aborted || results.some((r) => r.error === INTERRUPTED)) {
    throw new InterruptedError(
      `Interrupted: ${results.filter((r) => r.error !== INTERRUPTED && r.action !== 'other-profile' && r.action !== 'unchecked').length} of ${todo.length} unknown payouts reconciled; the rest are still unknown.`,
      `Go on with: ${commandLine(inv, ['history', 'reconcile'])}`,
    );
  }
  againAdvice(results, faults, opts, inv, deps);
  // An entry that cannot be read may be a payout of unknown outcome: never "all settled" (exit 0).
  return left ? ExitCode.unknown : damaged.length ? ExitCode.usage : ExitCode.ok;
}

/**
 * What the run did, after its lines: the --json document, or a count and the batch resumes to
 * run; entries passed over; unknown payouts of other base URLs. Returns how many are still unknown.
 */
async function sayResults(
  results: ReconcileResult[],
  { damaged, more, elsewhere }: { damaged: string[]; more: number; elsewhere: Map<string, { shown: string; n: number }> },
  baseUrl: string,
  deps: Deps,
): Promise<number> {
  const count = (k: ReconcileResult['outcome']) => results.filter((r) => r.outcome === k).length;
  const left = count('unknown');
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify(document(baseUrl, results, damaged, more)) + '\n');
  else if (results.length === 0 && damaged.length) deps.log.info(`No unknown outcomes among the journal entries read for ${text(baseUrl)}.`);
  else if (results.length === 0) deps.log.info(`No unknown outcomes in the journal for ${text(baseUrl)}.`);
  else {
    const resent = results.filter((r) => r.action === 'resent').length;
    const batch = results.filter((r) => r.action === 'batch').length;
    const busy = results.filter((r) => r.action === 'busy').length;
    const other = results.filter((r) => r.action === 'other-profile').length;
    const unchecked = results.filter((r) => r.action === 'unchecked').length;
    const why = results.some((r) => r.ageUnknown) ? 'older than 24 hours or dated in the future' : 'older than 24 hours';
    const rows = batch ? `, ${batch} batch row${batch === 1 ? '' : 's'} with no outcome recorded left to the batch's resume` : '';
    const others =
      (busy ? `, ${busy} being resolved by another payctl` : '') +
      (other ? `, ${other} left to the profile that sent ${other === 1 ? 'it' : 'them'}` : '') +
      (unchecked ? `, ${unchecked} not resent (the wallets that tell whose key sent ${unchecked === 1 ? 'it' : 'them'} could not be read)` : '');
    deps.log.info(
      `${results.length} unknown: ${resent} resent with their journaled idempotency keys, ${results.length - resent - batch - busy - other - unchecked} not resent (${why})${rows}${others}; now ${count('accepted')} accepted, ${count('rejected')} refused, ${left} still unknown.`,
    );
    for (const resume of new Set(results.flatMap((r) => (r.resume ? [r.resume] : []))))
      deps.log.warn(
        `Rows of a batch with no outcome recorded (they may or may not have been sent): resume the batch to finish them (same keys; rows accepted are skipped, nothing is paid twice):\n  ${resume}`,
      );
  }
  if (damaged.length) {
    const n = damaged.length + more;
    const one = n === 1;
    deps.log.warn(
      `${n} journal entr${one ? 'y was' : 'ies were'} passed over: ${one ? 'it' : 'they'} could not be read or verified, or ${one ? 'is' : 'are'} missing, so ${one ? 'its outcome is' : 'their outcomes are'} not known (${one ? 'it' : 'any'} may be a payout of unknown outcome):`,
    );
    for (const m of damaged.slice(0, 5)) deps.log.warn(`  ${text(m)}`);
    if (damaged.length > 5) deps.log.warn(`  and ${damaged.length - 5} more.`);
  }
  for (const { shown, n } of elsewhere.values())
    deps.log.info(
      `Note: ${n === 1 ? '1 payout' : `${n} payouts`} of unknown outcome ${n === 1 ? 'is' : 'are'} journaled for ${text(shown)}, another base URL: reconcile ${n === 1 ? 'it' : 'them'} with a profile of that base URL.`,
    );
  return left;
}

/**
 * Each unknown entry of `todo` resolved in turn (results pushed, a line each), holding its payout's
 * lock (resolve-lock.ts), its entry read again under it: a --made-by or another reconcile that
 * recorded it meanwhile is seen, not resent. Ctrl-C (while waiting for a lock too) ends the loop.
 * Returns an entry found resolved meanwhile, for a --payout-id run to say so.
 */
async function resolveEach(
  todo: Array<{ name: string; payoutId: string }>,
  results: ReconcileResult[],
  c: { api: ApiClient; journal: Ledger; watched: Ledger; opts: ReconcileOptions; claimed: Map<string, string>; inv: Invocation; faults: JournalFaults },
  deps: Deps,
): Promise<JournalEntry | undefined> {
  const { api, journal, opts, inv } = c;
  let resolvedMeanwhile: JournalEntry | undefined;
  for (const { name, payoutId } of todo) {
    if (deps.signal.aborted) break;
    let result: ReconcileResult | undefined;
    try {
      result = await journal.withResolveLocks(
        resolveLockIds(payoutId),
        async () => {
          const entry = await journal.byName(name);
          if (!entry || !isUnresolved(entry)) {
            resolvedMeanwhile = entry;
            return undefined;
          }
          const r = await reconcileOne(api, c.watched, entry, { resend: opts.resend === true, claimed: c.claimed, inv, faults: c.faults }, deps);
          results.push(r);
          if (!deps.globals.json) await write(deps.io.stdout, lines(r, entry, inv, ledgerNow(journal, deps.clock)));
          return r;
        },
        // One payout asked for is waited for as any lock; in a run over all of them, one another payctl
        // resolves is left after a short wait (said, still unknown), so the others are not held up.
        resolveLockOptions(deps, opts.payoutId === undefined),
      );
    } catch (err) {
      if (err instanceof InterruptedError) break; // Ctrl-C while waiting for the lock: said by the caller
      if (!(err instanceof LockHeldError)) throw err;
      // Another payctl resolves it (another terminal, another machine on a shared ledger): still unknown here; on to the next.
      const busy: ReconcileResult = { payoutId, action: 'busy', outcome: 'unknown', error: err.message.replace(/ Nothing was sent\.$/, '') };
      results.push(busy);
      if (!deps.globals.json) await write(deps.io.stdout, busyLine(busy));
    }
    if (result?.error === INTERRUPTED) break;
  }
  return resolvedMeanwhile;
}

/**
 * A payout held earlier in the run and closed by a later one (its printed P-2 accepted: recorded as
 * sent instead, create-replaces.ts): its result is what the journal now says, said on a line of its
 * own, so that the counts and the exit code are the journal's (probe 49-Q F6: "1 still unknown", exit 4).
 */
async function closedLater(results: ReconcileResult[], journal: Ledger, baseUrl: string, deps: Deps): Promise<void> {
  // Only a payout accepted in this run closes another: without one, no result is read again.
  if (!results.some((r) => r.outcome === 'accepted')) return;
  for (const r of results) {
    if (r.outcome !== 'unknown') continue;
    const now = await journal.get(baseUrl, r.payoutId);
    const instead = now && sentInsteadOf(now);
    if (!instead) continue;
    r.outcome = 'rejected';
    r.message = now.outcome?.kind === 'rejected' ? now.outcome.message : undefined;
    if (!deps.globals.json) await write(deps.io.stdout, `refused   ${text(r.payoutId)}  not made: sent as payout ${text(instead)} instead, accepted in this run\n`);
  }
}

/** A payout asked for by --payout-id whose outcome is known (recorded before, or meanwhile by another payctl): nothing to do. */
async function notUnknown(entry: JournalEntry, baseUrl: string, deps: Deps): Promise<number> {
  deps.log.info(`Payout ${text(entry.payoutId)} is not unknown: ${describeOutcome(entry)}. Nothing to do.`);
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify(document(baseUrl, [])) + '\n');
  return ExitCode.ok;
}

/**
 * What to do about resends left unknown, by why: an answer this machine could not record (the
 * journal's cause, named once, and its fix: free space, or make the folder writable) or one that
 * never came (the service could not be reached). Running it again is the way either way. (An
 * answer about another payout, a refusal or a redirect is an answer: its line says what to do.)
 */
function againAdvice(results: ReconcileResult[], faults: JournalFaults, opts: ReconcileOptions, inv: Invocation, deps: Deps): void {
  // The same command again: one payout (--payout-id) stays one; a --resend stays a resend (asked again).
  const same = opts.payoutId !== undefined ? ['--payout-id', opts.payoutId, ...(opts.resend ? ['--resend'] : [])] : [];
  const again = commandLine(inv, ['history', 'reconcile'], same);
  // A resend refused while an earlier attempt may have been made, or answered about another payout, is no want of an answer: its line says what to do.
  const unknown = results.filter(
    (r) => r.action === 'resent' && r.outcome === 'unknown' && r.error !== INTERRUPTED && !r.refused && !r.redirected && !r.otherPayout && !r.walletRefused,
  );
  const fault = faults.fault;
  if (fault && unknown.some((r) => r.unrecorded)) deps.log.warn(`${fault.cause}. ${fault.then} ${again} again.`);
  if (unknown.some((r) => !r.unrecorded)) deps.log.warn(`Run ${again} again when the service can be reached.`);
}

/** One unknown entry: resent (under 24 hours, or --resend), else held with its candidates. */
async function reconcileOne(
  api: ApiClient,
  journal: Ledger,
  entry: JournalEntry,
  o: { resend: boolean; claimed: ReadonlyMap<string, string>; inv: Invocation; faults: JournalFaults },
  deps: Deps,
): Promise<ReconcileResult> {
  const payoutId = entry.payoutId;
  // A batch journals rows ahead of its senders: a row with no outcome recorded (its run killed,
  // or stopped twice with Ctrl-C) may have left or not (repeats.ts NO_OUTCOME): most of such
  // rows are claims never sent. Sending it here would pay what a person
  // stopped; its batch's resume sends it under the same key, with the plan shown first. Past the
  // service's key memory (or dated in the future) the resume holds it and sends here: its
  // candidates are listed below. Its age by the ledger's clock, which dated it (the database's,
  // for a shared ledger).
  const now = ledgerNow(journal, deps.clock);
  if (entry.outcome === undefined && entry.batch && !o.resend && !keyMayBeForgotten(entry, now)) {
    return { payoutId, action: 'batch', outcome: 'unknown', resume: resumeCommand(o.inv, deps.clock, entry.batch) };
  }
  if (!o.resend && keyMayBeForgotten(entry, now)) {
    let search: CandidateSearch | { error: string };
    try {
      search = await findCandidates(api, entry, { now, signal: deps.signal, claimed: o.claimed });
    } catch (err) {
      if (err instanceof AuthError) throw err;
      if (err instanceof InterruptedError) return { payoutId, action: 'held', outcome: 'unknown', error: INTERRUPTED };
      search = { error: (err as Error).message.replace(/\.$/, '') };
    }
    return {
      payoutId,
      action: 'held',
      outcome: 'unknown',
      held: { search, ...choiceCommands(entry, search, o.inv, o.claimed, await laterTwin(journal, entry, now, o.inv), await twinPaid(journal, entry, search)) },
      ...(ageUnknown(entry, now) ? { ageUnknown: true } : {}),
    };
  }
  // --resend asked for: checked again under the lock (a later payout journaled meanwhile refuses it too).
  if (o.resend) await refuseLaterTwin(journal, entry, now, o.inv, 'Nothing was sent.');
  // Nor while a payout of the same details is recorded as made by a record that could be its (twin-paid.ts).
  if (o.resend) await refuseTwinPaidResend(api, journal, entry, { inv: o.inv, now, signal: deps.signal });
  // The same body with the same key: a retry to the service, one payout either way.
  const r = await sendPayout(api, journal, entry, {
    signal: deps.signal,
    clock: deps.clock,
    resendOld: o.resend,
    earlierAttempt: true,
    senderUnconfirmed: !senderConfirmed(entry, o.inv, withRunKey(deps.config(), api.runKey), deps.env),
    // A single payout's id refused as used before is checked against the payout list, as payout create does (used-before.ts).
    checkAlreadyMade: entry.batch === undefined,
    onRetry: ({ attempt, waitMs, reason }) =>
      deps.log.info(
        `Payout ${text(payoutId)}: attempt ${attempt} got no final answer (${reason}); retrying in ${(waitMs / 1000).toFixed(1)} s with the same idempotency key…`,
      ),
  });
  if (r.kind === 'accepted') {
    const status = r.transaction.provider_response?.status;
    // Sent in place of payouts a search held (their ids used before): they are not made (create-replaces.ts).
    await recordReplaced(journal, entry, deps);
    return {
      payoutId,
      action: 'resent',
      outcome: 'accepted',
      transactionId: r.transaction.transaction_id,
      replayed: r.replayed,
      ...(status ? { status: recordStatus({ status }) } : {}),
    };
  }
  if (r.kind === 'rejected') return { payoutId, action: 'resent', outcome: 'rejected', ...(r.error.code ? { code: r.error.code } : {}), message: r.error.message };
  if (r.error instanceof InterruptedError) return { payoutId, action: 'resent', outcome: 'unknown', error: INTERRUPTED };
  const refusedSearch = r.resendRefused ?? r.usedBefore;
  // Answered, or not, but not recorded: this machine's doing (o.faults saw the journal fail), not the service's.
  return {
    payoutId,
    action: 'resent',
    outcome: 'unknown',
    error: r.error.message.replace(/\.$/, ''),
    ...(o.faults.unrecorded(payoutId) ? { unrecorded: true as const } : {}),
    // Answered with a redirect (payout-retry.ts): an answer, not none; nothing to wait for the service for.
    ...(r.lastStatus !== undefined && r.lastStatus >= 300 && r.lastStatus <= 399 ? { redirected: true as const } : {}),
    // Answered about another payout (send.ts): the service was reached; the same key gets the same answer.
    ...(r.otherPayout ? { otherPayout: true as const } : {}),
    // Refused as another account's wallet (resend-refused.ts walletRefused): an answer; run it with the key that sent it.
    ...(r.walletRefused ? { walletRefused: true as const } : {}),
    // Refused, while an earlier attempt may have been made, or its payout id used before: the payout list's records that could be it (resend-refused.ts, used-before.ts).
    ...(refusedSearch ? { refused: await refusedChoice(journal, entry, refusedSearch, o, now) } : {}),
  };
}

/** A refused resend's search with the `--made-by` commands it offers (none while a later payout blocks them: laterTwin) and the candidates it does not (held-advice.ts madeByOffers). */
async function refusedChoice(
  journal: Ledger,
  entry: JournalEntry,
  search: CandidateSearch | { error: string },
  o: { inv: Invocation; claimed: ReadonlyMap<string, string> },
  now: Date,
): Promise<NonNullable<ReconcileResult['refused']>> {
  const { madeBy, notOffered, later } = choiceCommands(entry, search, o.inv, o.claimed, await laterTwin(journal, entry, now, o.inv));
  return { search, madeBy, notOffered, ...(later ? { later } : {}) };
}
