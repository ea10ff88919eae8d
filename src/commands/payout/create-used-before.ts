/**
 * What `payout create` says when the service refused its payout id as used before
 * (DUPLICATE_PAYOUT_ID) and the payout list was searched for the earlier payout
 * (payouts/used-before.ts): already submitted, naming the records that could be it (exit 0;
 * --wait exit 5: the refusal names no transaction to follow); used for another payout, so
 * nothing was paid (exit 1, with the command that sends it under another payout id); or
 * unknown (exit 4, with the command that finds its record).
 */
import { write } from '../../deps.js';
import { ApiError, StillPendingError } from '../../errors.js';
import { commandLine } from '../../config/command-line.js';
import { findRecordCommand } from '../../payouts/lookup.js';
import { checkedCandidates } from '../../payouts/used-before.js';
import { sendCommand } from './retry-command.js';
import type { CreateRun, Journaled } from './create-send.js';
import type { SendResult } from '../../payouts/send.js';

type AlreadyMade = Extract<SendResult, { kind: 'accepted' }>;

/** Already made: said with the candidates the payout list holds (none named: the search was not made), then --wait. */
export async function alreadyMadeReport(c: CreateRun, j: Journaled, result: AlreadyMade): Promise<number> {
  const { deps, request, opts, inv } = c;
  const id = request.payoutId;
  const said = result.alreadyMade?.message ?? '';
  const ids = result.usedBefore ? checkedCandidates(result.usedBefore) : [];
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify({ payout_id: id, outcome: 'already made', message: said, candidates: ids }) + '\n');
  const found =
    ids.length === 1
      ? `; its payout list holds it: transaction ${ids[0]}`
      : ids.length > 1
        ? `; ${ids.length} records of its payout list could be it: ${ids.join(', ')}`
        : '';
  deps.log.success(`Already submitted: the service already has payout id ${id} (sent before under another key: ${said})${found}. Nothing new was paid.`);
  if (ids.length > 1)
    deps.log.warn(
      `${ids.length} records of the service's payout list pay what payout ${id} asks (same account, amount and currency): payctl cannot tell which one is it.`,
    );
  if (!result.usedBefore)
    deps.log.warn(
      `payctl cannot check what the service's payout ${id} pays (it looks payouts up by transaction id only): if that id was used before for another payout, this one was not paid; send it under another --payout-id.`,
    );
  if (!opts.wait) return 0;
  // --wait follows a payout by its transaction id, and the refusal names none: its settlement
  // cannot be followed, so not known (exit 5, as for a read that fails), never "settled". The
  // records that could be it are named, each with the command that follows it.
  const follow = ids.map((t) => `  ${commandLine(inv, ['payout', 'get'], [t, '--wait'])}`).join('\n');
  throw new StillPendingError(`Payout ${id} cannot be waited for: the service answered with no transaction id, so its settlement is not known.`, {
    payoutId: id,
    hint: ids.length
      ? `Follow ${ids.length === 1 ? 'its record' : 'the record that is it'} with:\n${follow}`
      : `If it is this payout, its record is among: ${findRecordCommand(j.entry, inv)}`,
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

/** The hint of an unknown outcome after the payout id was found used before: find the earlier payout's record. */
export function usedBeforeHint(c: CreateRun, j: Journaled): string {
  return (
    `Find the earlier payout ${c.request.payoutId} among the service's payouts (same account, amount and currency):\n  ${findRecordCommand(j.entry, c.inv)}\n` +
    `Running this command again searches again; it cannot pay twice (same payout id, same idempotency key).`
  );
}

/** Another payout id for the same payout: `-2` added (`rent-2026-11-2`, never `rent-2026-12`), at most 128 characters. */
export function nextPayoutId(id: string): string {
  return `${id.slice(0, 126)}-2`;
}
