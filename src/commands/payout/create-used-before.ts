/**
 * What `payout create` says when the service refused its payout id as used before
 * (DUPLICATE_PAYOUT_ID) and the payout list was searched for the earlier payout
 * (payouts/used-before.ts): used for another payout, so nothing was paid (exit 1, with the
 * command that sends it under another payout id); or unknown (exit 4): the records that could be
 * it, each with the `history reconcile --made-by` command that records it as made, for a person
 * to choose (a record names no payout id: last month's payout of the same amount to the same
 * account matches too; none, nor the P-2 send, while a later payout of the same details may have
 * paid it: payouts/later-twin.ts), or the command that finds its record. Already submitted (exit 0) is
 * said only of a refusal no search was made for.
 */
import { write } from '../../deps.js';
import { ApiError, StillPendingError } from '../../errors.js';
import { findRecordCommand } from '../../payouts/lookup.js';
import { choiceCommands, laterLines } from '../../payouts/held-advice.js';
import type { LaterTwin } from '../../payouts/later-twin.js';
import type { UsedBefore } from '../../payouts/used-before.js';
import { sendCommand } from './retry-command.js';
import type { CreateRun, Journaled } from './create-send.js';
import type { SendResult } from '../../payouts/send.js';

type AlreadyMade = Extract<SendResult, { kind: 'accepted' }>;

/**
 * Already made with no search of the payout list (a refusal payctl does not check: `payout create`
 * checks every one, used-before.ts, so this is a fallback), then --wait.
 */
export async function alreadyMadeReport(c: CreateRun, j: Journaled, result: AlreadyMade): Promise<number> {
  const { deps, request, opts, inv } = c;
  const id = request.payoutId;
  const said = result.alreadyMade?.message ?? '';
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify({ payout_id: id, outcome: 'already made', message: said, candidates: [] }) + '\n');
  deps.log.success(`Already submitted: the service already has payout id ${id} (sent before under another key: ${said}). Nothing new was paid.`);
  deps.log.warn(
    `payctl cannot check what the service's payout ${id} pays (it looks payouts up by transaction id only): if that id was used before for another payout, this one was not paid; send it under another --payout-id.`,
  );
  if (!opts.wait) return 0;
  // --wait follows a payout by its transaction id, and the refusal names none: its settlement
  // cannot be followed, so not known (exit 5, as for a read that fails), never "settled".
  throw new StillPendingError(`Payout ${id} cannot be waited for: the service answered with no transaction id, so its settlement is not known.`, {
    payoutId: id,
    hint: `If it is this payout, its record is among: ${findRecordCommand(j.entry, inv)}`,
    notRead: true,
  });
}

/** A payout id the whole payout list shows used for another payout (exit 1): nothing was paid; how to send it under another id. */
export function usedBeforeRefusal(c: CreateRun, error: ApiError): ApiError {
  const r = c.request;
  const other = nextPayoutId(r.payoutId);
  const send = sendCommand({ ...r, payoutId: other }, c.inv, !!c.opts.yes);
  return new ApiError(error.message, {
    status: error.status,
    code: error.code,
    requestId: error.requestId,
    errors: error.errors,
    hint: `To pay it, send it under another payout id (${other} here; any unused id will do):\n  ${send}`,
  });
}

/**
 * The hint of an unknown outcome after the payout id was found used before: the records that
 * could be it, each with the command that records it as made (runs as printed), and, only if
 * none is, the command that sends it under another payout id; or the command that finds the
 * earlier payout's record.
 */
export function usedBeforeHint(c: CreateRun, j: Journaled, search: UsedBefore, later?: LaterTwin): string {
  const id = c.request.payoutId;
  const choices = choiceCommands(j.entry, search, c.inv, undefined, later);
  const { madeBy } = choices;
  let out = '';
  // A later payout that may have paid it: neither --made-by (refused) nor another payout id (it would pay twice).
  if (choices.later?.offered) {
    const one = choices.later.offered === 1;
    const lead = `If ${one ? 'that record is' : 'one of those records is'} this payout, it cannot be recorded as made yet; if ${one ? 'it is' : 'each is'} another payout, it cannot be sent under another payout id yet either.`;
    out += laterLines(lead, choices.later);
  }
  if (madeBy.length) {
    const one = madeBy.length === 1;
    out += `If ${one ? 'that record is' : 'one of those records is'} this payout (made before under payout id ${id}), record it as made:\n`;
    for (const m of madeBy) out += `  ${m}\n`;
    const other = nextPayoutId(id);
    out +=
      `If ${one ? 'it is' : 'each is'} another payout (an earlier one of the same amount), payout id ${id} was used for another payout and this one was not paid: ` +
      `only then send it under another payout id (${other} here):\n  ${sendCommand({ ...c.request, payoutId: other }, c.inv, !!c.opts.yes)}\n`;
  }
  out += `Find the earlier payout ${id} among the service's payouts (same account, amount and currency):\n  ${findRecordCommand(j.entry, c.inv)}\n`;
  return out + `Running this command again searches again; it cannot pay twice (same payout id, same idempotency key).`;
}

/** Another payout id for the same payout: `-2` added (`rent-2026-11-2`, never `rent-2026-12`), at most 128 characters. */
export function nextPayoutId(id: string): string {
  return `${id.slice(0, 126)}-2`;
}
