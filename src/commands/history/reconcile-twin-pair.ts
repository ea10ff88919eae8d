/**
 * A pair of twins resolved together by `history reconcile --payout-id Q --made-by TXN` (probe K57
 * finding 1): Q pays what an earlier payout P of unknown outcome pays (same base URL, same body
 * but its payout id, its own --payout-id: later-twin.ts), and the service holds one record, TXN,
 * that could be either: the documented API puts no client reference on its records, and their
 * times are seconds apart (within the clock tolerance the candidate search allows, or not
 * readable), so whose it is cannot be told. A twin was sent in P's place: one record is one
 * payment of the two. So once Q is recorded as made by TXN, P is recorded as not made, TXN having
 * paid the person in its place (create-replaces.ts recordSentInstead, as for a printed P-2), and
 * neither is resent: before, P then "matched nothing" (TXN was taken), was offered `--resend`
 * (a second payment once its key is forgotten) and its `--made-by` of TXN was refused as taken, so
 * P stayed unknown for good. Only when TXN is the one record there is: P's `--made-by` would take
 * it, and P's own search of the payout list, read to its end, finds no other record that could be
 * P (two records: each twin was made, each is recorded by its own). Otherwise P is left unknown,
 * said, with its reconcile.
 */
import { write, type Deps } from '../../deps.js';
import { AuthError, ExitCode } from '../../errors.js';
import type { ApiClient } from '../../api/client.js';
import { commandLine, type Invocation } from '../../config/command-line.js';
import { text } from '../../output/text.js';
import type { JournalEntry, Ledger } from '../../payouts/journal.js';
import { isUnresolved } from '../../payouts/lookup.js';
import { samePayments } from '../../payouts/later-twin.js';
import { askedOf, judgeCandidate, refusals, searchesAnyTime } from '../../payouts/candidate-fields.js';
import { claimedTransactions, findCandidates } from '../../payouts/candidate-search.js';
import { ageUnknown } from '../../payouts/entry-age.js';
import type { PayoutRecord } from '../../service/schemas.js';
import { recordSentInstead, sentInsteadOf } from '../payout/create-replaces.js';
import type { TwinPaid } from '../../payouts/twin-paid.js';
import { document, type ReconcileResult } from './reconcile-output.js';

/**
 * The payouts of unknown outcome journaled before `q` that pay what it pays, sent with its key
 * (`replaced`, those its printed P-2 closes, left out): whose resolution locks `--made-by` of `q` takes.
 */
export async function earlierTwins(journal: Ledger, q: JournalEntry, replaced: readonly string[] = []): Promise<JournalEntry[]> {
  const before = (e: JournalEntry) => Date.parse(e.createdAt) <= Date.parse(q.createdAt);
  return (await samePayments(journal, q)).filter((e) => before(e) && isUnresolved(e) && e.keyId === q.keyId && !replaced.includes(e.payoutId));
}

/**
 * After `q` is recorded as made by `txn` (its record `got`): its one earlier twin P, recorded as not
 * made when `txn` is the one record that could be either (see above); else P left unknown, said.
 * Run under the resolution locks of `q`, `txn` and P (reconcile-made-by.ts).
 */
export async function closeEarlierTwin(
  api: ApiClient,
  journal: Ledger,
  q: JournalEntry,
  got: { txn: string; record: PayoutRecord; now: Date },
  o: { inv: Invocation; deps: Deps; replaced: readonly string[] },
): Promise<void> {
  const twins = await earlierTwins(journal, q, o.replaced);
  // Two or more earlier ones: which of them the record paid cannot be told; each is left to its own reconcile.
  if (twins.length !== 1) return;
  const p = (await journal.get(q.baseUrl, twins[0]!.payoutId)) ?? twins[0]!;
  if (!isUnresolved(p)) return;
  const left = `Payout ${text(p.payoutId)}, journaled before payout ${text(q.payoutId)} with the same details, is still unknown`;
  const see = `see its candidates with: ${commandLine(o.inv, ['history', 'reconcile'], ['--payout-id', p.payoutId])}`;
  const judged = judgeCandidate(got.record, p, askedOf(p.body), { anyTime: ageUnknown(p, got.now), hardFacts: searchesAnyTime(p), accountMustMatch: true });
  if (refusals(judged).length) return;
  // Another payout of unknown outcome that pays the same as well: the record may be that one's.
  if ((await samePayments(journal, p)).some((e) => e.payoutId !== q.payoutId && isUnresolved(e))) return;
  let others: string | undefined;
  try {
    const s = await findCandidates(api, p, { now: got.now, signal: o.deps.signal, claimed: await claimedTransactions(journal, q.baseUrl) });
    if (s.candidates.length) others = `${s.candidates.length} other record${s.candidates.length === 1 ? '' : 's'} of the payout list could be it`;
    else if (!s.complete) others = 'its search of the payout list stopped before the end';
  } catch (err) {
    if (err instanceof AuthError) throw err;
    others = `searching the payout list for it failed (${text((err as Error).message.replace(/\.$/, ''))})`;
  }
  if (others) return o.deps.log.warn(`${left}: ${others}, so it is not recorded as paid by transaction ${text(got.txn)}; ${see}`);
  await recordPaidByTwin(journal, p, { txn: got.txn, owner: q.payoutId }, o.deps, {
    relation: 'sent after it with the same details',
    why: 'it is the one record at the service that could be either, so one of the two was made',
  });
}

/**
 * `p` recorded as not made, transaction `twin.txn` (recorded as payout `twin.owner`, `relation` to
 * `p`) having paid the person in its place, and said with `why` it could be either's: the one
 * record of such a close (code PAID_BY_TWIN), whether Q's `--made-by` closes P or P's own does.
 */
function recordPaidByTwin(journal: Ledger, p: JournalEntry, twin: TwinPaid, deps: Deps, how: { relation: string; why: string }): Promise<void> {
  return recordSentInstead(journal, p, twin.owner, deps, {
    why: `not made: transaction ${twin.txn}, recorded as payout ${twin.owner} (${how.relation}), paid the person in its place`,
    code: 'PAID_BY_TWIN',
    said: `transaction ${text(twin.txn)} paid the person in its place: recorded as payout ${text(twin.owner)}, ${how.relation}, ${how.why}; ${text(p.payoutId)} is not resent`,
  });
}

/**
 * `--made-by TXN` of payout `p` naming the transaction its twin is recorded as made by (twin-paid.ts,
 * the record checked against `p` first): `p` recorded as not made, TXN having paid the person in its
 * place (the one record could be either: one payment of the two), never resent. Run under `p`'s
 * and TXN's resolution locks (reconcile-made-by.ts).
 */
export async function paidInPlace(journal: Ledger, p: JournalEntry, twin: TwinPaid, deps: Deps): Promise<number> {
  await recordPaidByTwin(journal, p, twin, deps, { relation: 'of the same details', why: 'it is a record that could be either, named for it' });
  const now = await journal.get(p.baseUrl, p.payoutId);
  const closed = now !== undefined && sentInsteadOf(now) === twin.owner;
  // --json: the document every --made-by writes, P recorded as not made (its code PAID_BY_TWIN).
  if (closed && deps.globals.json) {
    const o = now.outcome?.kind === 'rejected' ? now.outcome : undefined;
    const result: ReconcileResult = { payoutId: p.payoutId, action: 'made-by', outcome: 'rejected', transactionId: twin.txn, code: o?.code, message: o?.message };
    await write(deps.io.stdout, JSON.stringify(document(p.baseUrl, [result])) + '\n');
  }
  return closed ? ExitCode.ok : ExitCode.usage;
}
