/**
 * `payctl payout create`, once the payout is read, checked and confirmed (create.ts): journaled
 * and fsynced before the request leaves, sent by payouts/send.ts with the journaled key and
 * body only, and what came of it said: accepted (the card, or with --json the service's answer;
 * --wait then waits for it to settle), refused by the service (with what to do next; its payout
 * id used before for another payout: the payout list searched for it, payouts/used-before.ts,
 * said by create-used-before.ts), or unknown (exit 4, with the safe retry printed; after its
 * payout id was found used before, the records that could be it, each with its `--made-by`); and
 * a read before journaling that failed, said as sending nothing (notSentBeforeJournal).
 * docs/architecture.md, "Idempotency journal" and "Printed commands".
 */
import { write, type Deps } from '../../deps.js';
import type { ApiClient } from '../../api/client.js';
import {
  ApiError,
  AuthError,
  InterruptedError,
  NetworkError,
  OutcomeUnknownError,
  PayoutFailedError,
  StatusUnknownError,
  StillPendingError,
  UsageError,
} from '../../errors.js';
import { failedAtOnceWord, type PayoutRecord, type PayoutTransaction } from '../../service/schemas.js';
import { claimedNow, JournalConflict, journalBase, ledgerNow, type JournalEntry, type Ledger } from '../../payouts/journal.js';
import { comparedFingerprint, derivedIdempotencyKey, repeatKey, zeroKey } from '../../payouts/identity.js';
import { commandLine, invocationOf, type Invocation } from '../../config/command-line.js';
import { refuseOtherSender, senderAdvice } from '../history/reconcile-sender.js';
import { withRunKey } from '../../payouts/sender-profile.js';
import type { PayoutRequest } from '../../payouts/request.js';
import { retryCommand } from './retry-command.js';
import { runLockOptions } from '../../payouts/wallet-lock.js';
import { sendPayout } from '../../payouts/send.js';
import { digitsWarning, renderPayoutCard, totalWarning } from '../../output/payout.js';
import { makeStyle } from '../../output/style.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { waitAndReport } from './wait.js';
import { noteSettled } from '../../payouts/settle.js';
import { isUnresolved } from '../../payouts/lookup.js';
import { choiceCommands, heldAdvice } from '../../payouts/held-advice.js';
import { laterTwin } from '../../payouts/later-twin.js';
import { refusedAdvice } from '../../payouts/resend-refused.js';
import { alreadyMadeReport, usedBeforeHint, usedBeforeRefusal } from './create-used-before.js';
import { futureDate, keyMayBeForgotten, ageUnknown } from '../../payouts/entry-age.js';
import type { PayoutCreateOptions } from './create.js';

/** A run of `payout create` with its payout read and checked: what each of its steps works with. */
export interface CreateRun {
  opts: PayoutCreateOptions;
  deps: Deps;
  request: PayoutRequest;
  /** The exact body of POST /payout. */
  body: string;
  api: ApiClient;
  journal: Ledger;
  inv: Invocation;
  /** This payout id's journal entry from an earlier run, if any. */
  existing: JournalEntry | undefined;
  /** Sent with --allow-repeat while journal entries of this base URL are missing: acknowledged once sent (create-repeat.ts). */
  lostAllowed?: boolean;
}

/** The journaled payout: its entry, and whether this run journaled it. */
export interface Journaled {
  entry: JournalEntry;
  /**
   * Journaled by this run (not found before, and made by this run's claim: claimedNow): no
   * earlier attempt of it can have reached the service. Another payctl that journaled the same
   * payout id a moment ago (begin then returns its entry) does not count.
   */
  journaledNow: boolean;
}

type Sent = Awaited<ReturnType<typeof sendPayout>>;

/** `payctl payout get <id>` as printed, with the settings in force. */
export function getCommand(c: CreateRun, id: string): string {
  return commandLine(c.inv, ['payout', 'get'], [id]);
}

/**
 * How to see what became of a journaled payout: `payout get` once the journal has its answer;
 * while its outcome is unknown there is no transaction id to ask the service for, and
 * `history reconcile` is what finds out (docs/service.md "Unknown outcomes").
 */
export function checkCommand(c: CreateRun, entry: JournalEntry): string {
  // The reconcile of the profile and key that sent it (sender-profile.ts), never this run's when another's: pasted, it is not refused.
  return isUnresolved(entry) ? senderAdvice(entry, c.inv, withRunKey(c.deps.config(), c.api.runKey)) : getCommand(c, entry.payoutId);
}

/**
 * The payout id was journaled with other details or another key: nothing is sent (exit 2), and
 * the earlier payout named. Found before claiming (create.ts), or by the claim itself when
 * another run (another terminal, another machine on a shared ledger) claimed the id between.
 */
export function conflictError(c: CreateRun, conflict: JournalConflict): UsageError {
  return new UsageError(
    conflict.what === 'details'
      ? `Payout id ${c.request.payoutId} was already used for a payout with other details. Nothing was sent.`
      : `Payout id ${c.request.payoutId} was already sent with another idempotency key (${conflict.existing.idempotencyKey}). Nothing was sent.`,
    [],
    `Check the earlier one with: ${checkCommand(c, conflict.existing)}\nFor a new payout, leave out --payout-id (a new id is made) or choose another.`,
  );
}

/**
 * Journaled (fsynced) before the request leaves; a rerun reuses this key and body. With
 * `recheck` (a policy that counts the day), the check and the journaling are one step under
 * the wallet's lock, so parallel runs count each other; the lock is let go before sending.
 */
export async function journalPayout(c: CreateRun, recheck: (() => Promise<void>) | undefined): Promise<Journaled> {
  const { deps, request, opts } = c;
  // Journaled before with another profile and maybe made (--payout-id run again): resent, looked
  // up and recorded only with that one, whose key may be another account's (reconcile-sender.ts).
  // One that never left (its key refused: nothing was sent) is a first send under any profile.
  if (c.existing && isUnresolved(c.existing))
    refuseOtherSender(c.existing, invocationOf(deps.globals, deps.env), withRunKey(deps.config(), c.api.runKey), [], 'Nothing was sent.');
  // Another run may claim the id between the look-up (create.ts) and this claim: the same refusal.
  const begin = async () => {
    try {
      return await c.journal.begin({
        baseUrl: c.api.baseUrl,
        payoutId: request.payoutId,
        body: c.body,
        idempotencyKey: opts.idempotencyKey,
        // A payout id given on the command line names the payout: its key is derived from it and
        // the body (journal.ts), so another machine or a restored backup reuses it. A new id, a new key.
        randomKey: opts.payoutId === undefined,
        now: deps.clock.now(),
        // Found by a batch row that pays the same (the account as compared) and by the repeat guard.
        origin: { fingerprint: comparedFingerprint(request), repeatKey: repeatKey(request), zeroKey: zeroKey(request) },
        profile: deps.globals.profile,
        // Who sent it (sender-profile.ts): the key's id, and whether it is from PAYCTL_API_KEY.
        ...c.api.runKey,
      });
    } catch (err) {
      if (err instanceof JournalConflict) throw conflictError(c, err);
      throw err;
    }
  };
  const entry = recheck
    ? await c.journal.withWalletLocks(
        [request.walletId],
        async () => {
          await recheck();
          return begin();
        },
        runLockOptions(deps),
      )
    : await begin();
  if (c.existing) deps.log.info(journaledBefore(entry, ledgerNow(c.journal, deps.clock)));
  return { entry, journaledNow: !c.existing && entry.outcome === undefined && claimedNow(entry) };
}

/** What a payout id journaled before is told when it is sent again: resent under its key, or checked instead (the 24-hour rule, payouts/entry-age.ts). */
function journaledBefore(entry: JournalEntry, now: Date): string {
  const id = entry.payoutId;
  if (!keyMayBeForgotten(entry, now)) return `Payout ${id} was journaled before: resending it with the same idempotency key.`;
  const when = ageUnknown(entry, now) ? `is ${futureDate(entry, now)}, so when it was journaled cannot be told` : 'was journaled more than 24 hours ago';
  return `Payout ${id} ${when}: it is not resent on its own; what became of it is checked instead.`;
}

/** The journaled payout sent (payouts/send.ts); credentials the service refused are said for this payout. */
export async function sendJournaled(c: CreateRun, j: Journaled): Promise<Sent> {
  const { deps } = c;
  try {
    return await sendPayout(c.api, c.journal, j.entry, {
      ownerCheck: true,
      checkAlreadyMade: true,
      signal: deps.signal,
      clock: deps.clock,
      journaledNow: j.journaledNow,
      onRetry: ({ attempt, waitMs, reason }) =>
        deps.log.info(`Attempt ${attempt} got no final answer (${reason}); retrying in ${(waitMs / 1000).toFixed(1)} s with the same idempotency key…`),
    });
  } catch (err) {
    // The service refused the credentials (it answered): what that means for this payout.
    throw refusedAtLogin(err, c, j);
  }
}

/** What came of the sending: 0 (or --wait's code) when accepted; a refusal or an unknown outcome thrown. */
export async function reportOutcome(c: CreateRun, j: Journaled, result: Sent): Promise<number> {
  if (result.kind === 'accepted') return accepted(c, j, result);
  // Its payout id used before for another payout (the whole payout list read): nothing pays it.
  if (result.kind === 'rejected') throw result.usedBefore ? usedBeforeRefusal(c, result.error) : withHint(result.error, c.request, c.inv);
  throw await unknownOutcome(c, j, result);
}

/** Accepted: the card or the service's answer on stdout (with --wait, the settled record instead), and then --wait. */
async function accepted(c: CreateRun, j: Journaled, result: Extract<Sent, { kind: 'accepted' }>): Promise<number> {
  const { deps, request, opts } = c;
  // The service has this payout id already, and no search of the list was made (create's are
  // searched: used-before.ts, never "already made" on a candidate): no transaction id to show or wait for.
  if (result.alreadyMade) return alreadyMadeReport(c, j, result);
  // With --wait, stdout gets the settled record instead (one card, one JSON document). A payout
  // read back by its transaction id (the 24-hour rule) shows the record read, as payout get does.
  const card = result.record ?? asRecord(result.transaction, request);
  const answer = () => write(deps.io.stdout, deps.globals.json ? result.res.raw.trim() + '\n' : renderPayoutCard(card, makeStyle(deps.io.color)));
  const transactionId = result.transaction.transaction_id;
  const warning = totalWarning(result.envelope.data);
  if (warning) deps.log.warn(warning);
  const digits = digitsWarning(card, result.record ? undefined : result.envelope.data);
  if (digits) deps.log.warn(digits);
  if (!opts.wait) {
    await answer();
    // The answer itself may say the provider failed it at once ("Failed", "declined"): no
    // success line, exit 1 as --wait says for Failed. Accepted and failed: nothing to resend.
    const word = failedAtOnceWord(result.transaction);
    if (word) {
      await noteSettled(c.journal, c.api.baseUrl, request.payoutId, 'Failed');
      throw new PayoutFailedError(
        `Payout ${request.payoutId} failed: the service accepted it (transaction ${sanitizeInline(transactionId)}) and its answer says ${JSON.stringify(sanitizeInline(word))}.`,
        { payoutId: request.payoutId, reason: sanitizeInline(word), hint: `See it with: ${commandLine(c.inv, ['payout', 'get'], [transactionId])}` },
      );
    }
  }
  const said = result.replayed
    ? `Already submitted: payout ${request.payoutId} was accepted earlier; this is the original transaction. Nothing new was paid.`
    : `Payout ${request.payoutId} submitted.`;
  // With --json and --wait, an error the wait ends in is the one document on stderr (README,
  // "Output"): the line is said only once the wait succeeded. Before, "✓ Payout p4 submitted."
  // came before the JSON error of a payout still pending, and stderr was no JSON.
  const held = deps.globals.json && opts.wait;
  if (!held) deps.log.success(said);
  if (!opts.wait) return 0;
  try {
    const code = await waitAndReport(deps, c.api, request.payoutId, opts.waitTimeout, { transactionId, payoutId: request.payoutId, entry: j.entry });
    if (held) deps.log.success(said);
    return code;
  } catch (err) {
    if (err instanceof InterruptedError || err instanceof PayoutFailedError || err instanceof StillPendingError || err instanceof StatusUnknownError) throw err;
    // Accepted, and only reading it back failed (a 404, a page, an answer about another payout):
    // never exit 1, which --wait says for Failed and a script may take for "send it again". The
    // answer to the create on stdout (its transaction id), and the settlement not known: exit 5.
    await answer();
    throw new StillPendingError(
      `Payout ${request.payoutId} was accepted (transaction ${sanitizeInline(transactionId)}), but its status could not be read: ${sanitizeInline((err as Error).message).replace(/\.$/, '')}. It was not sent again; it may still settle.`,
      {
        payoutId: request.payoutId,
        // A key refused between the create and the read (revoked meanwhile): log in first.
        hint: `${err instanceof AuthError ? `${err.hint ?? 'Log in again with a valid key.'}\nThen check it with: ` : 'Check it with: '}${commandLine(c.inv, ['payout', 'get'], [transactionId, '--wait'])}`,
        notRead: true,
      },
    );
  }
}

/**
 * Unknown (exit 4) or interrupted (exit 130): it may or may not have been made; how to check, and
 * the safe retry. A person's choices (`--made-by`, `--resend`, another payout id) are printed only
 * while no later payout of the same details may have paid it (payouts/later-twin.ts: each would be
 * refused, or pay twice): what resolves that one first instead.
 */
async function unknownOutcome(c: CreateRun, j: Journaled, result: Extract<Sent, { kind: 'unknown' }>): Promise<Error> {
  const { deps, request, inv } = c;
  const now = ledgerNow(c.journal, deps.clock);
  const choosing = result.held ?? result.usedBefore ?? result.resendRefused;
  const later = choosing ? await laterTwin(c.journal, j.entry, now, inv) : undefined;
  // Held (unknown and past the service's key memory): resending is a person's choice, not a retry.
  const hint = result.held
    ? heldAdvice(j.entry, result.held, inv, now, choiceCommands(j.entry, result.held, inv, undefined, later))
    : result.usedBefore
      ? usedBeforeHint(c, j, result.usedBefore, later)
      : result.resendRefused
        ? refusedAdvice(j.entry, result.resendRefused, inv, choiceCommands(j.entry, result.resendRefused, inv, undefined, later)).trimEnd()
        : `Find out with:   ${commandLine(inv, ['history', 'reconcile'], ['--payout-id', request.payoutId])}\n` +
          `  (it sends the same request under the same idempotency key: the service answers with the payout if it was made, and makes it once if not)\n` +
          `Retry safely (same idempotency key, so it cannot be paid twice):\n  ${retryCommand(request, j.entry.idempotencyKey, inv)}`;
  if (result.error instanceof InterruptedError) {
    return new InterruptedError(`Interrupted: payout ${request.payoutId} may or may not have been made.`, hint, request.payoutId);
  }
  return new OutcomeUnknownError(
    `The outcome of payout ${request.payoutId} is unknown: it may or may not have been made (${result.attempts} attempt${result.attempts === 1 ? '' : 's'}; last: ${result.error.message.replace(/\.$/, '')}).`,
    // Never no cause: an answer came that could not be read (a 200 that is no JSON) is the service's; none at all, the network's (probe E54, 3).
    { hint, payoutId: request.payoutId, causeCode: result.error.causeCode ?? (result.lastStatus !== undefined ? 'SERVICE_ERROR' : 'NETWORK_ERROR') },
  );
}

/** A transaction as a record for the card (schemas.ts's one record shape): the status is the provider's, the recipient what was sent. */
function asRecord(t: PayoutTransaction, r: PayoutRequest): PayoutRecord {
  return {
    ...t,
    status: t.provider_response?.status,
    wallet_id: r.walletId,
    recipient: { type: r.type, name: r.name, provider: r.provider, accountNumber: r.account, phoneNumber: r.phone },
    note: r.note,
    provider_reference: t.provider_response?.orderId,
  };
}

/**
 * The service refused the credentials (401 or 403; any other error is returned as it is) before
 * the payout was sent, or on its first attempt (`j`, exit 3). For a payout journaled by this run
 * nothing was sent, and the journal has it as refused. For one journaled before, this attempt
 * took nothing, but what an earlier attempt did is as the journal had it (an unknown outcome
 * stays unknown). What to do either way: log in, then send it with the printed command, which
 * gives its payout id and key (the journaled one, else the one its send would journal), so it
 * cannot be paid twice; refused before the person said yes, it asks again.
 */
export function refusedAtLogin(err: unknown, c: CreateRun, j?: Journaled): unknown {
  if (!(err instanceof AuthError) || err.status === undefined) return err;
  const r = c.request;
  const entry = j?.entry ?? c.existing;
  const key = entry?.idempotencyKey ?? c.opts.idempotencyKey ?? derivedIdempotencyKey(journalBase(c.api.baseUrl), r.payoutId, c.body);
  const login = err.hint ?? `The key may be wrong or revoked. Run \`${commandLine(c.inv, ['login'])}\` with a valid key.`;
  const said = err.message.replace(/\.$/, '');
  const message = j?.journaledNow
    ? `${said}. Nothing was sent: payout ${r.payoutId} is journaled as refused.`
    : entry && isUnresolved(entry)
      ? `${said}. This attempt sent nothing, but payout ${r.payoutId} was sent before and its outcome is still unknown.`
      : j
        ? `${said}. Payout ${r.payoutId} was not sent.`
        : `${said}. Nothing was sent.`;
  return new AuthError(message, {
    status: err.status,
    requestId: err.requestId,
    hint: `${login}\nThen send it with the same idempotency key (it cannot be paid twice):\n  ${retryCommand(r, key, c.inv, j !== undefined || !!c.opts.yes)}`,
  });
}

/**
 * A read before the payout is journaled (the balances, for the wallet's check and the card)
 * that failed: a time-out, or the service's error. No payout request left in this run, and the
 * message says so (a bare "No answer from ... within 1 s" does not). A payout whose earlier
 * attempt's outcome is unknown (a pasted "Retry safely") still is: said, exit 4 with its payout
 * id whatever the read's failure, and the command that finds out. Otherwise the error keeps its
 * exit (4 for a network failure, 1 for the service's). A refused key is refusedAtLogin's.
 */
export function notSentBeforeJournal(err: unknown, c: CreateRun): unknown {
  if (err instanceof AuthError) return refusedAtLogin(err, c);
  if (!(err instanceof NetworkError) && !(err instanceof ApiError)) return err;
  const id = c.request.payoutId;
  const said = err.message.replace(/\.$/, '');
  const causeCode = err instanceof NetworkError ? err.causeCode : 'SERVICE_ERROR';
  if (c.existing && isUnresolved(c.existing)) {
    return new OutcomeUnknownError(
      `${said}. This run sent nothing (the payout request did not leave), and the outcome of payout ${id} is still unknown from its earlier attempt: it may or may not have been made.`,
      {
        payoutId: id,
        ...(causeCode !== undefined ? { causeCode } : {}),
        hint:
          `${err.hint ? `${err.hint}\n` : ''}Find out what became of it with: ${commandLine(c.inv, ['history', 'reconcile'], ['--payout-id', id])}\n` +
          `  (it sends the same request under the same idempotency key: the service answers with the payout if it was made, and makes it once if not)`,
      },
    );
  }
  const message = `${said}. Nothing was sent (the payout request did not leave).`;
  const hint = err.hint !== undefined ? { hint: err.hint } : {};
  if (err instanceof NetworkError) return new NetworkError(message, { ...hint, ...(causeCode !== undefined ? { causeCode } : {}) });
  return new ApiError(message, { status: err.status, code: err.code, requestId: err.requestId, errors: err.errors, ...hint });
}

function withHint(err: ApiError, r: PayoutRequest, inv: Invocation): ApiError {
  const hints: Record<string, string> = {
    DUPLICATE_PAYOUT_ID: `Payout id ${r.payoutId} was already used under another idempotency key. See it with: ${commandLine(inv, ['payout', 'get'], [r.payoutId])}`,
    IDEMPOTENCY_KEY_REUSED: 'That idempotency key was used for a different payout. Leave out --idempotency-key to use a new one.',
    INSUFFICIENT_FUNDS: `The wallet cannot cover the amount plus the fee. Check it with: ${commandLine(inv, ['balances'], ['--wallet', r.walletId])}`,
    CURRENCY_MISMATCH: `The wallet holds another currency. Check it with: ${commandLine(inv, ['balances'], ['--wallet', r.walletId])}`,
    WALLET_NOT_FOUND: `No such wallet. List yours with: ${commandLine(inv, ['balances'])}`,
  };
  const hint = (err.code && hints[err.code]) ?? err.hint;
  return new ApiError(err.message, { status: err.status, code: err.code, requestId: err.requestId, errors: err.errors, hint });
}
