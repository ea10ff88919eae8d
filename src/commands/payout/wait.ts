/**
 * What `--wait` on `payout create` and `payout get` prints: a live status line on a
 * terminal while payouts/settle.ts polls (nothing extra off a terminal), then the final
 * record on stdout (the card, or with --json the envelope as the service sent it) and the
 * outcome as an exit code: 0 Successful, 1 Failed (the failure reason on stderr), 5 still
 * Pending at --wait-timeout (with the command to keep waiting), 4 instead when the last status
 * seen is a word payctl does not know (whether it was paid cannot be told), 130 on Ctrl-C. The payout
 * is read by its transaction id (the only look-up the service has: docs/service.md).
 */
import { write, type Deps } from '../../deps.js';
import { parseEnvelope, type ApiClient } from '../../api/client.js';
import { InterruptedError, PayoutFailedError, StatusUnknownError, StillPendingError } from '../../errors.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { renderPayoutCard, totalWarning } from '../../output/payout.js';
import { isUnknownStatus, unknownStatusWords } from '../../service/schemas.js';
import { LiveLine } from '../../output/progress.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { makeStyle } from '../../output/style.js';
import { noteSettled, waitForSettled, type SettleResult, type WaitStatus } from '../../payouts/settle.js';
import { notLookedUpError, resolvePayoutRef, unknownIdError, type PayoutRef } from '../../payouts/lookup.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { DEFAULT_WAIT_TIMEOUT_S } from './wait-spec.js';

/** 12 s, 4 min 5 s. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

/**
 * Waits for payout `id` (a transaction id, or a payout id the journal has a transaction id
 * for; `known` when the caller has the reference already) to settle and reports it; returns
 * the exit code (0) or throws the error of the outcome. Printed commands name the payout by
 * its transaction id, which any machine can look up.
 */
export async function waitAndReport(deps: Deps, api: ApiClient, id: string, timeoutSeconds: number | undefined, known?: PayoutRef): Promise<number> {
  const inv = invocationOf(deps.globals, deps.env);
  let ref = known;
  if (!ref) {
    const ledger = await openLedger(deps);
    const r = await resolvePayoutRef(ledger, api.baseUrl, id);
    if ('known' in r) throw notLookedUpError(r.known, inv, ledger);
    if ('unknown' in r) throw unknownIdError(id, inv, ledger);
    ref = r.ref;
  }
  const asked = ref.transactionId;
  const getCommand = (...extra: string[]) => commandLine(inv, ['payout', 'get'], [asked, ...extra]);
  const shownId = sanitizeInline(ref.payoutId && ref.payoutId !== asked ? `${ref.payoutId} (transaction ${asked})` : asked);
  const line = new LiveLine(deps.io.stderr, deps.io.stderrIsTTY);
  const started = deps.clock.now().getTime();
  let last: WaitStatus | undefined;
  const draw = () => {
    if (!last) return;
    const elapsed = duration(deps.clock.now().getTime() - started);
    line.set(
      `Waiting for payout ${shownId}: ${sanitizeInline(last.status) || 'status unknown'} (${elapsed}${last.problem ? `; last check failed: ${sanitizeInline(last.problem)}` : ''})`,
    );
  };
  // At a terminal the seconds go on between checks (which come at most every 15 s).
  const ticker = deps.io.stderrIsTTY ? setInterval(draw, 1000) : undefined;
  ticker?.unref();
  let result: SettleResult;
  try {
    result = await waitForSettled(api, ref, {
      clock: deps.clock,
      signal: deps.signal,
      timeoutMs: Math.round((timeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_S) * 1000),
      onStatus: (s) => {
        last = s;
        draw();
      },
    });
  } catch (err) {
    if (err instanceof InterruptedError) {
      throw new InterruptedError(
        `Interrupted: stopped waiting for payout ${shownId}${last ? ` (last seen: ${sanitizeInline(last.status)})` : ''}. The payout was accepted; waiting does not change it.`,
        `Check it with:   ${getCommand()}\nWait again with: ${getCommand('--wait')}`,
      );
    }
    throw err;
  } finally {
    if (ticker) clearInterval(ticker);
    line.clear();
  }

  // What it became, for history: in the journal of this machine, when it has the payout.
  if (result.kind === 'settled') await noteSettled(await openLedger(deps), api.baseUrl, ref.payoutId, result.status);
  const warning = totalWarning(parseEnvelope(result.res).data);
  if (warning) deps.log.warn(warning);
  if (deps.globals.json) await write(deps.io.stdout, result.res.raw.trim() + '\n');
  else await write(deps.io.stdout, renderPayoutCard(result.record, makeStyle(deps.io.color)));

  const after = duration(result.elapsedMs);
  // A word payctl does not know, waited through (it may become one it knows): not Pending.
  if (result.kind === 'pending' && isUnknownStatus(result.status)) {
    throw new StatusUnknownError(
      `Payout ${shownId} has ${unknownStatusWords(sanitizeInline(result.status))}, after ${after} of waiting: whether it was paid cannot be told from it. It was not sent again.`,
      { payoutId: ref.payoutId, hint: `Ask the service what it means; wait again with: ${getCommand('--wait')}` },
    );
  }
  if (result.kind === 'pending') {
    throw new StillPendingError(
      `Payout ${shownId} is still ${sanitizeInline(result.status) || 'not settled'} after ${after} (--wait-timeout ${timeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_S}). It was accepted and may still settle.`,
      { payoutId: ref.payoutId, hint: `Keep waiting with: ${getCommand('--wait')}` },
    );
  }
  if (result.status === 'Failed') {
    // On one line: the error's message is shown whole, and a reason with a line break in it
    // ("...\r\nFAKE: Successful") would print a line of the service's making.
    const reason = result.record.failure_reason ? sanitizeInline(result.record.failure_reason) : undefined;
    throw new PayoutFailedError(`Payout ${shownId} failed: ${reason ?? 'the service gave no reason'}.`.replace(/\.\.$/, '.'), {
      payoutId: ref.payoutId,
      reason,
    });
  }
  deps.log.success(`Payout ${shownId} is Successful${result.checks > 1 ? ` (after ${after})` : ''}.`);
  return 0;
}
