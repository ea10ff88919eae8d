/**
 * `payctl history reconcile --payout-id ID --made-by TXN`: a payout whose answer was lost,
 * recorded as made by a transaction a person found (among the candidates reconcile.ts lists):
 * the transaction looked up, checked against the journaled request, recorded as accepted, under
 * the payout's and the transaction's resolution locks (resolve-lock.ts). A `--made-by` that is
 * no transaction id is refused first, with whatever is wrong with the payout id in the same refusal.
 */
import { capitalized } from '../../words.js';
import { write, type Deps } from '../../deps.js';
import { ApiError, CancelledError, ExitCode, fieldProblem, LockHeldError, OutcomeUnknownError, UsageError } from '../../errors.js';
import type { ApiClient } from '../../api/client.js';
import { commandLine, type Invocation } from '../../config/command-line.js';
import { text } from '../../output/text.js';
import { ledgerNow, type JournalEntry, type Ledger } from '../../payouts/journal.js';
import { writeError } from '../../payouts/ledger/atomic-files.js';
import { getPayout, isUnresolved, lookedUpOutcome } from '../../payouts/lookup.js';
import { isTransactionId, TRANSACTION_ID_FORM, type PayoutRecord } from '../../service/schemas.js';
import { accountForm, maskedWords } from '../../payouts/identity.js';
import { refuseLaterTwin } from '../../payouts/later-twin.js';
import { settleHint } from '../../payouts/reconcile-hint.js';
import { describeOutcome } from '../../payouts/history-lines.js';
import { searchList } from '../../payouts/decide.js';
import { askedOf, judgeCandidate, refusals, searchesAnyTime, type Judgement } from '../../payouts/candidate-fields.js';
import { ageUnknown } from '../../payouts/entry-age.js';
import { journalFolder } from '../../config/paths.js';
import { resolveLockIds, resolveLockOptions } from '../../payouts/resolve-lock.js';
import { recordSentInstead, replacedBy } from '../payout/create-replaces.js';
import { heldSender, otherSenderClause, withRunKey, type Profiles } from '../../payouts/sender-profile.js';
import { senderAdvice } from './reconcile-sender.js';
import { closeEarlierTwin, earlierTwins, paidInPlace } from './reconcile-twin-pair.js';
import { onlyTwinPaid } from '../../payouts/twin-paid.js';
import { document, lines, type ReconcileResult } from './reconcile-output.js';

/** `--payout-id ID --made-by TXN`: the transaction looked up, checked against the journaled request, recorded as accepted. */
export async function madeBy(api: ApiClient, journal: Ledger, payoutId: string, typed: string, inv: Invocation, deps: Deps, yes = false): Promise<number> {
  // Typed in lower case or with spaces around it, it is asked in the documented form, as payout get asks it.
  const transactionId = typed.trim().toUpperCase();
  if (!isTransactionId(transactionId))
    await refuseMalformed(journal, api.baseUrl, payoutId, typed, { inv, config: withRunKey(deps.config(), api.runKey) }, ledgerNow(journal, deps.clock));
  // Under the locks of the payout and of the transaction (resolve-lock.ts): a --resend of the same
  // payout, or a --made-by naming the same transaction for another, run at the same time from
  // another terminal, is seen (its outcome recorded) before anything here is read.
  // And of the payouts it was sent in place of (create-replaces.ts replacedBy), recorded as not made with it.
  const own = await journal.get(api.baseUrl, payoutId);
  const replaced = own ? (await replacedBy(journal, own)).map((e) => e.payoutId) : [];
  // And of an earlier twin of unknown outcome (reconcile-twin-pair.ts), recorded as not made when the record is the one there is for the two.
  const twins = own ? (await earlierTwins(journal, own, replaced)).map((e) => e.payoutId) : [];
  try {
    return await journal.withResolveLocks(
      [...resolveLockIds(payoutId, transactionId), ...[...replaced, ...twins].map((id) => `Payout ${id}`)],
      () => record(api, journal, payoutId, transactionId, inv, deps, yes, replaced),
      // A payout another payctl resolves (a resend in flight) is not waited for long: it is still unknown here (exit 4).
      resolveLockOptions(deps, true),
    );
  } catch (err) {
    // Another payctl resolves it: nothing was asked or recorded, and its outcome is as unknown as before (exit 4).
    if (!(err instanceof LockHeldError)) throw err;
    throw new OutcomeUnknownError(err.message.replace(/ Nothing was sent\.$/, ' Nothing was recorded: its outcome is still unknown.'), {
      payoutId,
      hint: err.hint,
      causeCode: 'LOCKED',
    });
  }
}

/** The entry read, the transaction checked against it and looked up, the outcome recorded: under the resolution locks. */
async function record(
  api: ApiClient,
  journal: Ledger,
  payoutId: string,
  transactionId: string,
  inv: Invocation,
  deps: Deps,
  yes: boolean,
  replaced: readonly string[],
): Promise<number> {
  const entry = unknownEntry(await journal.get(api.baseUrl, payoutId), journal, api.baseUrl, payoutId, { inv, config: withRunKey(deps.config(), api.runKey) }, [
    '--made-by',
    transactionId,
  ]);
  if ('problem' in entry) throw new UsageError(`${capitalized(entry.problem)}. Nothing was recorded.`, [], entry.hint);
  const now = ledgerNow(journal, deps.clock);
  await refuseLaterTwin(journal, entry, now, inv, 'Nothing was recorded.');
  const other = await journal.byTransactionId(api.baseUrl, transactionId);
  // Recorded as a payout of the same details (a twin): the one record could be either, so it closes this one as paid by it in its place.
  const found = other && other.payoutId !== payoutId ? await onlyTwinPaid(api, journal, entry, { now, signal: deps.signal }) : undefined;
  const twin = found && found.owner === other?.payoutId && found.txn === transactionId ? found : undefined;
  if (other && other.payoutId !== payoutId && !twin) {
    throw new UsageError(
      `Transaction ${text(transactionId)} is already recorded as payout ${text(other.payoutId)}. Nothing was recorded.`,
      [],
      settleHint(entry, now, inv),
    );
  }
  // Read by its transaction id, checked to be that transaction (not yet against the body: said below, item by item).
  let got: Awaited<ReturnType<typeof getPayout>>;
  try {
    got = await getPayout(api, { transactionId });
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404 && err.code === 'NOT_FOUND')) throw err;
    throw new ApiError(`The service has no transaction ${text(transactionId)} (it said: ${err.message.replace(/\.$/, '')}). Nothing was recorded.`, {
      status: err.status,
      code: err.code,
      ...(err.requestId ? { requestId: err.requestId } : {}),
      hint: settleHint(entry, now, inv),
    });
  }
  // An entry dated in the future by the ledger's clock says nothing of when it was sent: a record of any time may be it.
  // One a search that decides left unknown (marked: searchesAnyTime; its payout id used before, a refused resend) is
  // judged as that search judged the records it offered: on the hard facts, at any time (payouts/decide.ts).
  const judged = judgeCandidate(got.record, entry, askedOf(entry.body), { anyTime: ageUnknown(entry, now), hardFacts: searchesAnyTime(entry), accountMustMatch: true });
  const problems = refusals(judged);
  if (problems.length) {
    throw new UsageError(`Transaction ${text(transactionId)} does not match payout ${text(payoutId)}. Nothing was recorded.`, problems, settleHint(entry, now, inv));
  }
  if (twin) return paidInPlace(journal, entry, twin, deps);
  await confirmMasked(api, journal, entry, got.record, { transactionId, yes, inv, deps });
  let next: JournalEntry;
  try {
    next = await journal.record(entry, lookedUpOutcome(got.record, got.res.status, deps.clock.now()));
  } catch (err) {
    // A full disk or a read-only folder: said as such (exit 2), never as a bug; the entry stays unknown.
    throw writeError(err, journalFolder(deps.env), 'Nothing was recorded: run the same command again once it can be written.');
  }
  const status = next.outcome?.kind === 'accepted' ? next.outcome.payoutStatus : undefined;
  const result: ReconcileResult = { payoutId, action: 'made-by', outcome: 'accepted', transactionId, ...(status ? { status } : {}) };
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify(document(api.baseUrl, [result])) + '\n');
  else await write(deps.io.stdout, lines(result, entry, inv, ledgerNow(journal, deps.clock)));
  warnMarks(judged, transactionId, payoutId, deps);
  deps.log.success(`Payout ${text(payoutId)} recorded as made by transaction ${text(transactionId)}.`);
  for (const p of await replacedBy(journal, next)) await recordSentInstead(journal, p, payoutId, deps);
  await closeEarlierTwin(api, journal, next, { txn: transactionId, record: got.record, now }, { inv, deps, replaced });
  return ExitCode.ok;
}

/**
 * What the record writes otherwise than sent, said with the record: what differs in form or time
 * only (an account's spacing, a masked account, an early creation time), and apart, what differs
 * otherwise and was not held against it (a name; for a payout a search that decides left unknown,
 * a provider, a type, a note), for a person to check.
 */
function warnMarks(judged: Judgement, transactionId: string, payoutId: string, deps: Deps): void {
  const forms = judged.marks.filter((m) => !judged.differences.includes(m));
  const txn = `Transaction ${text(transactionId)}'s record`;
  if (forms.length) deps.log.warn(`${txn} differs from what was sent in form or time only: ${forms.join('; ')}.`);
  if (judged.differences.length) {
    const masked = judged.differences.some((d) => d.startsWith('account shown masked'));
    const match = masked ? 'amount and currency match, the account as far as it is shown' : 'amount, currency and account match';
    deps.log.warn(
      `${txn} differs from what was sent for payout ${text(payoutId)}: ${judged.differences.join('; ')}. Not held against it (${match}): check with the service that it is this payout.`,
    );
  }
}

/** Why a payout id names no payout `--made-by` can record, and where to look instead. */
interface Unfit {
  problem: string;
  hint: string;
}

/**
 * The entry of payout `payoutId` when it is one `--made-by` can record (its outcome unknown);
 * else why not: the ledger has none by that id for this base URL, its outcome is known, or
 * another profile sent it (`more`: this run's options, repeated in the command printed for that profile).
 */
function unknownEntry(
  entry: JournalEntry | undefined,
  journal: Ledger,
  baseUrl: string,
  payoutId: string,
  { inv, config }: { inv: Invocation; config: Profiles },
  more: string[] = [],
): JournalEntry | Unfit {
  const history = `Payouts in ${journal.called}: ${commandLine(inv, ['history'])}`;
  if (!entry) return { problem: `${journal.called} has no payout ${text(payoutId)} for ${text(baseUrl)}`, hint: history };
  // Another profile's payout: its transaction is looked up and recorded only with that profile (reconcile-sender.ts).
  const sender = heldSender(entry, inv, config);
  if (isUnresolved(entry) && sender)
    return {
      problem: `${otherSenderClause(entry, sender, inv)}: it is looked up and recorded only with the profile that sent it`,
      hint: `Record it with the profile that sent it: ${senderAdvice(entry, inv, config, more)}`,
    };
  if (isUnresolved(entry)) return entry;
  const seen = entry.outcome?.kind === 'accepted' && entry.outcome.transactionId !== undefined;
  return {
    problem: `payout ${text(payoutId)} is not unknown: ${describeOutcome(entry)}`,
    hint: seen ? `See it with: ${commandLine(inv, ['payout', 'get', payoutId])}` : history,
  };
}

/**
 * `--made-by` that is no transaction id: refused before anything is asked of the service. The
 * candidates command is offered only for a payout it lists them for; a payout id the ledger has
 * not, or one whose outcome is known, is said in the same refusal (before, its candidates
 * command was offered, and refused it in turn).
 */
async function refuseMalformed(
  journal: Ledger,
  baseUrl: string,
  payoutId: string,
  typed: string,
  { inv, config }: { inv: Invocation; config: Profiles },
  now: Date,
): Promise<never> {
  const nothing = 'Nothing was asked of the service, nothing was recorded.';
  const bad = `${text(typed)} is not a transaction id (${TRANSACTION_ID_FORM})`;
  const unfit = unknownEntry(await journal.get(baseUrl, payoutId), journal, baseUrl, payoutId, { inv, config });
  if (!('problem' in unfit)) throw new UsageError(`--made-by ${bad}. ${nothing}`, [], settleHint(unfit, now, inv));
  throw new UsageError(
    `Cannot record payout ${text(payoutId)} as made by ${text(typed)}: 2 problems. ${nothing}`,
    [fieldProblem('--payout-id', unfit.problem), fieldProblem('--made-by', bad)],
    unfit.hint,
  );
}

/**
 * A record whose account is shown masked (`**3344`: only its visible characters checked, its
 * length hidden) is recorded as the payout only when no other record of the payout list pays the
 * account exactly as sent (decide.ts searchList, any time; one the journal has as another payout
 * aside), or the person confirms (a terminal, or `--yes`): probe A53 found `--made-by` taking a
 * masked record of another payee while the payout's own record was listed beside it.
 */
async function confirmMasked(
  api: ApiClient,
  journal: Ledger,
  entry: JournalEntry,
  got: PayoutRecord,
  o: { transactionId: string; yes: boolean; inv: Invocation; deps: Deps },
): Promise<void> {
  const sent = askedOf(entry.body)?.account;
  const written = got.recipient?.accountNumber;
  if (!sent || !written || !searchesAnyTime(entry) || accountForm(written, sent) !== 'masked') return;
  const s = await searchList(api, entry, { signal: o.deps.signal });
  let exact: PayoutRecord | undefined;
  if (!('error' in s)) {
    for (const c of s.candidates) {
      const id = c.transaction_id;
      const form = c.recipient?.accountNumber ? accountForm(c.recipient.accountNumber, sent) : 'other';
      if (!id || id === o.transactionId || (form !== 'same' && form !== 'form')) continue;
      const owner = await journal.byTransactionId(api.baseUrl, id);
      if (!owner || owner.payoutId === entry.payoutId) exact = c;
      if (exact) break;
    }
  }
  if (!exact && !('error' in s)) return;
  const shown = maskedWords(written, text(written));
  const why = exact
    ? `${shown}, and transaction ${text(exact.transaction_id)} pays the account exactly as sent (${text(exact.recipient!.accountNumber!)})`
    : `${shown}, and whether another record pays the account exactly as sent could not be checked (${text((s as { error: string }).error)})`;
  if (o.yes) return o.deps.log.warn(`Transaction ${text(o.transactionId)}: ${why}. Recorded all the same (--yes).`);
  const other = exact
    ? `If ${text(exact.transaction_id)} is this payout, record it instead: ${commandLine(o.inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId, '--made-by', exact.transaction_id!])}\n`
    : '';
  if (!o.deps.io.interactive)
    throw new UsageError(
      `Transaction ${text(o.transactionId)} is not recorded as payout ${text(entry.payoutId)} without a confirmation: ${why}. Nothing was recorded.`,
      [],
      `${other}If ${text(o.transactionId)} is this payout all the same, run the command at a terminal, or add --yes.`,
    );
  o.deps.log.warn(`Transaction ${text(o.transactionId)}: ${why}.`);
  const ok = await (await o.deps.prompter()).confirm({ message: `Record payout ${entry.payoutId} as made by ${o.transactionId} all the same?`, default: false });
  if (!ok) throw new CancelledError();
}
