/**
 * A resend that resolves an unknown outcome (history reconcile's, a rerun of `payout create` or
 * its printed `--idempotency-key` retry, a batch's resume of a row an earlier run left unknown)
 * refused with a final 4xx that does not say "duplicate": a proxy's 404 page, a gateway's 400, or
 * a service that did not honour the key answering 400 "Insufficient wallet balance" because the
 * earlier attempt drained the wallet. The refusal speaks of this attempt only, and an earlier one
 * may have been made: it is not taken for "no payout was made" on its word. The payout list is
 * searched by the search that decides (decide.ts: records of any time, ruled out on amount and
 * currency only, complete only at a certain end of the list) for records that could be the
 * earlier attempt's payout. Then:
 * - the whole list read to its end and no record could be it: refused, recorded as rejected,
 *   the message saying the list was searched; unknown (exit 4) when the run's key is not known
 *   to be the one that sent it (SendOptions.senderUnconfirmed): that list may be another account's;
 * - a candidate (one payctl can check or not), a search that stopped before a certain end, or
 *   one that failed: unknown (exit 4), journaled marked `anyTime` (decide.ts leftUnknown),
 *   naming the candidates; `history reconcile --payout-id ID --made-by TXN` records one as made
 *   (refusedAdvice), as printed.
 * A refusal of the payout's wallet as not found or invalid for this key (WALLET_NOT_FOUND, "The
 * selected wallet id is invalid") is the sign of another account's key (README "history
 * reconcile"; probe 56-K finding 1): never "no payout was made", whatever the key's id says; it
 * is left unknown without a search (that account's list has none of the payout's records).
 * The first attempt of an entry journaled fresh, refused, is refused as it is: no search (send.ts).
 */
import { ApiError, NetworkError, type InterruptedError } from '../errors.js';
import type { HttpResponse } from '../api/client.js';
import type { Invocation } from '../config/command-line.js';
import { text } from '../output/text.js';
import type { JournalEntry } from './journal.js';
import type { PayoutRecord } from '../service/schemas.js';
import { findRecordCommand } from './lookup.js';
import { type CandidateSearch, type ListSearch } from './candidate-search.js';
import { choiceCommands, madeByLines, notOfferedLines, type Choices } from './held-advice.js';
import { COMPARED, leftUnknown, searchList, stoppedAfter, verdict } from './decide.js';
import { checkedCandidates, type UsedBeforeSend } from './used-before.js';
import { inner, type SendResult } from './send-result.js';

/** What of one sendPayout (send.ts PayoutSend) the search and its verdict use. */
export type ResendSend = Pick<UsedBeforeSend, 'api' | 'journal' | 'entry' | 'opts' | 'unknown' | 'record'>;

function records(n: number): string {
  return `${n} record${n === 1 ? '' : 's'}`;
}

/** The refusal's message (not sanitized: the journal keeps what the service said), with the search that found nothing. */
export function notMadeMessage(said: string, s: CandidateSearch): string {
  return `${said}; the payout list was searched: ${records(s.read)} read, the whole list, none pays it`;
}

/** Why the refusal does not tell whether the payout was made: the search's candidates, or why it could not tell. */
export function unsureRefusal(status: number, said: string, s: ListSearch): string {
  // The status said once: a page that is not JSON is quoted as "The service answered HTTP 404 with…" already.
  const what = /\bHTTP \d{3}\b/.test(said) ? said : `HTTP ${status}: ${said}`;
  const head = `the service refused the resend (${text(what)}), but an earlier attempt may have been made`;
  if ('error' in s) return `${head}: searching the service's payout list for it failed (${text(s.error)})`;
  const same = `${COMPARED}; ${records(s.read)} of the payout list read`;
  const ids = checkedCandidates(s);
  if (ids.length)
    return `${head}: ${ids.length === 1 ? 'a record' : `${ids.length} records`} at the service could be it (${same}): ${ids.map((t) => text(t)).join(', ')}`;
  if (s.candidates.length) return `${head}: only ${s.candidates.length === 1 ? 'a record' : `${s.candidates.length} records`} payctl cannot check could be it (${same})`;
  return `${head}: ${stoppedAfter(s)}`;
}

/**
 * A refusal of a resend whose sender is not confirmed (SendOptions.senderUnconfirmed): the list
 * searched was this run's key's account's, which may not be the one that sent it (probe 55-R finding 1).
 */
function unconfirmedRefusal(status: number, said: string, s: CandidateSearch): string {
  const what = /\bHTTP \d{3}\b/.test(said) ? said : `HTTP ${status}: ${said}`;
  return `the service refused the resend (${text(what)}), but this run's API key is not known to be the one that sent it (another account refuses a payout as its own), and the payout list it reads, ${records(s.read)}, none paying it, may be another account's: run it with the profile and key that sent it`;
}

/**
 * A final non-duplicate refusal of a resend that resolves an unknown outcome: the payout list
 * searched, and what that says recorded: refused (the whole span read, none could be it), or
 * unknown, with the search (SendResult `resendRefused`). `error`: the refusal, as read.
 */
export async function refusedResend(s: ResendSend, res: HttpResponse, error: ApiError, n: number): Promise<SendResult> {
  if (walletRefused(error)) {
    const said = `the service refused the resend (${text(`HTTP ${res.status}: ${inner(error)}`)}): that wallet is not this API key's account's, a sign that the key is another account's than the one that sent it, whose payout list would not have it either; the payout is left unknown: run it with the API key that sent it`;
    return { ...(await leftUnknown((o) => s.record(o), s.opts.clock, new NetworkError(said), n, res.status)), walletRefused: true };
  }
  let found: ListSearch;
  try {
    found = await searchList(s.api, s.entry, { signal: s.opts.signal });
  } catch (err) {
    return s.unknown(err as InterruptedError, 'interrupted while the payout list was searched after the resend was refused', res.status);
  }
  if (verdict(found) !== 'not-made' || s.opts.senderUnconfirmed) {
    const said = verdict(found) === 'not-made' ? unconfirmedRefusal(res.status, inner(error), found as CandidateSearch) : unsureRefusal(res.status, inner(error), found);
    const unsure = new NetworkError(said);
    return { ...(await leftUnknown((o) => s.record(o), s.opts.clock, unsure, n, res.status)), resendRefused: found };
  }
  const refused = new ApiError(notMadeMessage(inner(error), found as CandidateSearch), {
    status: error.status,
    code: error.code,
    requestId: error.requestId,
    errors: error.errors,
    ...(error.hint ? { hint: error.hint } : {}),
  });
  // Refused is refused: nothing pays it, whether or not the journal heard of it.
  await s.record({ kind: 'rejected', status: res.status, code: error.code, message: refused.message, at: s.opts.clock.now().toISOString() })?.catch(() => undefined);
  return { kind: 'rejected', error: refused, attempts: n };
}

/** What a person does about a resend refused while an earlier attempt may have been made: record a candidate as made, or find its record (`choices`: the commands offered, when the caller knows the journal's transactions: held-advice.ts choiceCommands). */
export function refusedAdvice(
  entry: JournalEntry,
  search: ListSearch,
  inv: Invocation,
  choices: Pick<Choices, 'madeBy' | 'later'> & { notOffered?: ReadonlyMap<PayoutRecord, string> } = choiceCommands(entry, search, inv),
): string {
  const notOffered = choices.notOffered ?? new Map<PayoutRecord, string>();
  let out = madeByLines(choices);
  out += notOfferedLines(notOffered);
  out += `Look for the earlier payout among the service's payouts (same account, amount and currency, at any time):\n  ${findRecordCommand(entry, inv)}\n`;
  out += `Sending it again uses the same idempotency key and body, and the list is searched again if it is refused again.\n`;
  return out;
}

/** A refusal of the payout's wallet as not found or invalid for the key that sent it: the sign of another account (README "history reconcile"). */
export function walletRefused(error: ApiError): boolean {
  if (error.code === 'WALLET_NOT_FOUND') return true;
  const said = [error.message, ...error.errors.filter((e) => /wallet/i.test(e.field)).map((e) => e.message)];
  return said.some((m) => /\bwallet[ _]?(id)?\b[^.]*\b(is invalid|does not exist|not found)\b/i.test(m));
}
