/**
 * What became of a journaled payout, asked of the service. The service looks a payout up by
 * its transaction id only (`GET /payout/{transactionId}`, docs/service.md): there is no
 * look-up by the client's payout id. So a payout id is mapped to a transaction id through the
 * journal, which records the transaction id of every create answer; a payout whose answer was
 * lost has none, and is found by resending it with its journaled key (history reconcile) or,
 * once that key may be forgotten (entry-age.ts, the 24-hour rule), by searching `GET /payout/list` (candidate-search.ts) for records
 * that could be it (candidates), for a person to choose from.
 */
import { ApiError, NotAskedError, OutcomeUnknownError, StillPendingError } from '../errors.js';
import type { ApiClient, HttpResponse } from '../api/client.js';
import {
  parseOrThrow,
  payoutRecordSchema,
  recordStatus,
  isTransactionId,
  TRANSACTION_ID_FORM,
  type Envelope,
  type Money,
  type PayoutRecord,
} from '../service/schemas.js';
import { plainAmount, sameAmount } from '../money/amount.js';
import { commandLine, type Invocation } from '../config/command-line.js';
import { text, utcTime } from '../output/text.js';
import { type JournalEntry, type Ledger, type Outcome } from './journal.js';
import { askedOf } from './candidate-fields.js';
import { comparedAccount } from './identity.js';
import { goneAdvice, heldSender, senderInvocation, type Profiles } from './sender-profile.js';

export { isUnresolved } from './unresolved.js';

/** The error of an answer about another payout than the one sent: never taken for it. */
export class AnswerMismatch extends Error {}

/**
 * A look-up answered 2xx with nothing payctl can take for the payout asked for: its status was
 * not read (`payout get` exits 5 on it, with or without --wait; never 1, which --wait says for
 * Failed). Itself: a record payctl does not understand (an amount "7.02 ").
 */
export class UnusableAnswer extends ApiError {}

/**
 * A look-up answered with a record that is not the payout asked for (another transaction id,
 * none, or what the journal sent paid otherwise): not an answer about it (an UnusableAnswer).
 */
export class OtherPayoutAnswer extends UnusableAnswer {}

/**
 * The answer must be about the payout that was asked for: the payout id, amount, currency,
 * wallet and account that were sent, wherever the answer carries them (the account as compared:
 * identity.ts comparedAccount, so a form of it the service wrote without dashes, spaces or in
 * upper case is the same account). A mismatch names each value sent and answered.
 */
export function checkAnswer(
  entry: Pick<JournalEntry, 'body'>,
  t: {
    payout_id?: string | undefined;
    currency?: string;
    amount?: Money;
    wallet_id?: string | undefined;
    recipient?: { accountNumber?: string | undefined } | undefined;
  },
): void {
  const asked = askedOf(entry.body);
  if (!asked) return;
  const problems: string[] = [];
  const differs = (what: string, sent: unknown, answered: string) => problems.push(`${what}: sent ${String(sent)}, answered ${answered}`);
  if (t.payout_id !== undefined && t.payout_id !== asked.payoutId) differs('payout id', asked.payoutId, t.payout_id);
  if (t.currency !== undefined && asked.currency !== undefined && t.currency.toUpperCase() !== asked.currency) differs('currency', asked.currency, t.currency);
  if (t.amount !== undefined && asked.amount !== undefined && asked.currency !== undefined) {
    if (!sameAmount(t.amount, asked.amount, asked.currency)) differs('amount', plainAmount(asked.amount, asked.currency), plainAmount(t.amount, asked.currency));
  }
  if (t.wallet_id !== undefined && t.wallet_id !== asked.walletId) differs('wallet', asked.walletId, t.wallet_id);
  // Compared as the repeat guard and reconcile compare accounts: `4410-0012-34` sent is `4410001234` answered.
  const account = t.recipient?.accountNumber;
  if (account !== undefined && asked.account !== undefined && comparedAccount(account) !== comparedAccount(asked.account)) differs('account', asked.account, account);
  if (problems.length) throw new AnswerMismatch(`the service answered about a different payout (${problems.join('; ')})`);
}

/** A payout as payctl asks the service for it: its transaction id, and what the journal knows of it. */
export interface PayoutRef {
  transactionId: string;
  /** The payout id the journal has for it (shown on the card; the look-up has none). */
  payoutId?: string | undefined;
  /** The journaled entry: its body is what the answer is checked against. */
  entry?: JournalEntry | undefined;
}

/**
 * `id` as `payout get` takes it: a payout id the journal has a transaction id for, or a
 * transaction id (the journal's payout id for it found when it has one; typed in lower case, it
 * is asked in the documented upper case). A journaled payout id without a transaction id comes
 * back as `known`, and anything else as `unknown`: there is nothing to ask the service.
 */
export async function resolvePayoutRef(journal: Ledger, baseUrl: string, id: string): Promise<{ ref: PayoutRef } | { known: JournalEntry } | { unknown: string }> {
  const entry = await journal.get(baseUrl, id);
  if (entry) {
    const o = entry.outcome;
    if (o?.kind === 'accepted' && o.transactionId) return { ref: { transactionId: o.transactionId, payoutId: entry.payoutId, entry } };
    return { known: entry };
  }
  const byTxn = await journal.byTransactionId(baseUrl, id);
  if (byTxn) return { ref: { transactionId: id, payoutId: byTxn.payoutId, entry: byTxn } };
  const upper = id.toUpperCase();
  if (!isTransactionId(upper)) return { unknown: id };
  const journaled = upper === id ? undefined : await journal.byTransactionId(baseUrl, upper);
  return { ref: { transactionId: upper, ...(journaled ? { payoutId: journaled.payoutId, entry: journaled } : {}) } };
}

/**
 * Why `payout get <id>` has nothing to ask for an id that is neither a transaction id nor a
 * journaled payout id (NOT_FOUND, exit 1; `payout get --wait` makes it 2); `meant`: the id without
 * what was copied with it, when that one is either (copiedId), with the command that looks it up.
 */
export function unknownIdError(id: string, inv: Invocation, ledger: Pick<Ledger, 'called'>, meant?: string): NotAskedError {
  const lists = `Payouts sent from this config folder, with their transaction ids: ${commandLine(inv, ['history'])}\nAll payouts at the service: ${commandLine(inv, ['payouts', 'list'])}`;
  const why = `it is not a transaction id (${TRANSACTION_ID_FORM}; the service looks payouts up by transaction id only), and ${ledger.called} has no payout id ${text(id)}`;
  return new NotAskedError(
    meant
      ? `Not looked up: ${text(id)} as typed is not an id payctl can look up (${why}); without the characters copied with it, it reads ${text(meant)}. Nothing was asked of the service.`
      : `No payout ${text(id)}: ${why}. Nothing was asked of the service.`,
    {
      hint: meant ? `Did you mean ${meant} (without the characters copied with it)? Look it up with: ${commandLine(inv, ['payout', 'get'], [meant])}` : lists,
    },
  );
}

/** The `--json` code of a payout whose outcome is unknown from an earlier attempt (`payout get`, exit 4). */
export const OUTCOME_UNKNOWN = 'OUTCOME_UNKNOWN';

/**
 * Why `payout get <id>` has nothing to ask for a journaled payout id without a transaction id,
 * and what to do, saying what the journal knows: refused or found not made, a NotAskedError
 * (exit 1); made before under another key, a StillPendingError of a status not read (exit 5, as
 * payout create --wait says it: the payout was made, its settlement cannot be known; never 1,
 * which --wait says for Failed); of unknown outcome, an OutcomeUnknownError (exit 4, `--wait`
 * too) with the reconcile command.
 */
export function notLookedUpError(
  entry: JournalEntry,
  runInv: Invocation,
  ledger: Pick<Ledger, 'called'>,
  config: Profiles,
): NotAskedError | OutcomeUnknownError | StillPendingError {
  // Its commands carry the profile that sent it, when another: its key, its account (sender-profile.ts).
  const inv = senderInvocation(entry, runInv, config);
  const sender = heldSender(entry, runInv, config);
  const id = text(entry.payoutId);
  const head = `No transaction id for payout ${id}: the service looks payouts up by transaction id only, and ${ledger.called} has none for it`;
  const o = entry.outcome;
  if (o?.kind === 'rejected') {
    return new NotAskedError(`${head}: the service refused it (${text([o.code, o.message].filter(Boolean).join(': '))}), so no payout was made.`);
  }
  if (o?.kind === 'not-made') return new NotAskedError(`${head}: it was found not made (${utcTime(o.at)}).`);
  if (o?.kind === 'accepted' && o.alreadyMade) {
    return new StillPendingError(
      `${head}: the service already had this payout id when it was sent (${utcTime(o.at)}: ${text(o.alreadyMade.message)}), so it was made before under another idempotency key, and its answer named no transaction: its status cannot be read. Nothing was asked of the service.`,
      { payoutId: entry.payoutId, notRead: true, hint: `If it is this payout, its record is among: ${findRecordCommand(entry, inv)}` },
    );
  }
  // Unknown: exit 4 as the create's was, never 1 (which --wait says for Failed, and a script may
  // take for "send it again"), nor NOT_FOUND (read as "no such payout").
  return new OutcomeUnknownError(
    `${head}: its outcome is unknown (it may or may not have been made; no answer was read${o?.kind === 'unknown' ? `: ${text(o.reason).replace(/\.$/, '')}` : ''}). Nothing was asked of the service.`,
    {
      payoutId: entry.payoutId,
      causeCode: OUTCOME_UNKNOWN,
      hint: `Find out what became of it with: ${sender ? goneAdvice(entry.baseUrl, sender, inv.timeout) : ''}${commandLine(inv, ['history', 'reconcile'], ['--payout-id', entry.payoutId])}`,
    },
  );
}

/**
 * The `payouts list` command that finds the record of a journaled payout payctl has no
 * transaction id for (made before under another key, perhaps days before): its currency, as the
 * journaled body sent it (documented records name no wallet, so `--wallet` would leave out every
 * one), every page (`--all`: it may be anywhere in the list).
 */
export function findRecordCommand(entry: JournalEntry, inv: Invocation): string {
  const a = askedOf(entry.body);
  return commandLine(inv, ['payouts', 'list'], [...(a?.currency ? ['--currency', a.currency] : []), '--all']);
}

/**
 * The payout record of an answer to a look-up by `ref.transactionId`, checked to be that payout
 * (its transaction id, which it must name; with a journaled body, also its payout id, amount,
 * currency and account): an answer about another one, or about none it names, is an
 * OtherPayoutAnswer, never taken for it. The journal's payout id is set on the record (the look-up has none) so
 * the card shows it.
 */
export function payoutAnswer(data: unknown, ref: PayoutRef, res: HttpResponse, api: Pick<ApiClient, 'command'>): PayoutRecord {
  const record = readRecord(data, res);
  const hint = `Check the profile's base URL and its payoutGet route (when not set, the documented path): ${api.command(['config', 'list'])}`;
  // A record that names no transaction id may be any payout's: it is not taken for this one.
  if (record.transaction_id === undefined) {
    throw new OtherPayoutAnswer(
      `Asked for payout ${ref.transactionId}, the service answered with a payout that names no transaction id: it is not taken for ${ref.transactionId}.`,
      {
        status: res.status,
        requestId: res.requestId,
        hint,
      },
    );
  }
  if (record.transaction_id !== ref.transactionId) {
    throw new OtherPayoutAnswer(`Asked for payout ${ref.transactionId}, the service answered about a different payout: ${record.transaction_id}.`, {
      status: res.status,
      requestId: res.requestId,
      hint,
    });
  }
  if (ref.entry) {
    try {
      checkAnswer({ body: ref.entry.body }, { ...record, payout_id: record.payout_id });
    } catch (err) {
      if (!(err instanceof AnswerMismatch)) throw err;
      throw new OtherPayoutAnswer(`Asked for payout ${ref.transactionId} (payout id ${ref.entry.payoutId}), ${err.message}.`, {
        status: res.status,
        requestId: res.requestId,
        hint,
      });
    }
  }
  if (record.payout_id === undefined && ref.payoutId !== undefined) record.payout_id = ref.payoutId;
  return record;
}

/** The record of a look-up's answer, or an UnusableAnswer saying why payctl does not understand it. */
function readRecord(data: unknown, res: HttpResponse): PayoutRecord {
  try {
    return parseOrThrow(payoutRecordSchema, data, 'a payout', res.requestId);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    throw new UnusableAnswer(err.message, { ...(err.requestId ? { requestId: err.requestId } : {}), ...(err.hint ? { hint: err.hint } : {}) });
  }
}

/** One payout read by its transaction id, checked (payoutAnswer); a 404 is the ApiError it is. */
export async function getPayout(api: ApiClient, ref: PayoutRef, signal?: AbortSignal): Promise<{ record: PayoutRecord; envelope: Envelope; res: HttpResponse }> {
  const got = await api.callEnvelope('payoutGet', { params: { transactionId: ref.transactionId }, ...(signal ? { signal } : {}) });
  return { record: payoutAnswer(got.envelope.data, ref, got.res, api), ...got };
}

/** The accepted outcome a record read at the service shows (marked looked up: nothing was sent). */
export function lookedUpOutcome(record: PayoutRecord, status: number, now: Date): Outcome {
  const s = recordStatus(record);
  return {
    kind: 'accepted',
    status,
    transactionId: record.transaction_id,
    fee: record.fee === undefined || record.fee === null ? undefined : plainAmount(record.fee, record.currency),
    replayed: true,
    at: now.toISOString(),
    lookedUp: true,
    ...(s ? { payoutStatus: s } : {}),
  };
}
