/**
 * What `--wait` on `payout create` and `payout get` prints: a live status line on a
 * terminal while payouts/settle.ts polls (nothing extra off a terminal or with --json), then the final
 * record on stdout (the card, or with --json the envelope as the service sent it) and the
 * outcome as an exit code: 0 Successful, 1 Failed (the failure reason on stderr), 4 anything
 * but Successful of a payout the journal has as read Successful (contradiction: at the first read
 * that says so, never waited through to --wait-timeout), 4 too for Successful of one the journal
 * has as read Failed, and for a settled read the journal has the other way under another base
 * URL (read-held.ts, which notes the settled read in the journal), 5 still
 * Pending at --wait-timeout (with the command to keep waiting), 4 instead when the last status
 * seen is a word payctl does not know (whether it was paid cannot be told), 5 too when a read
 * after the payout was seen could not be used (a page, a 404, another payout's record: its
 * settlement is not known; the last record seen on stdout), 130 on Ctrl-C. The payout
 * is read by its transaction id (the only look-up the service has: docs/service.md).
 */
import { write, type Deps } from '../../deps.js';
import { parseEnvelope, type ApiClient } from '../../api/client.js';
import { InterruptedError, PayoutFailedError, StatusUnknownError, StillPendingError, type ApiError } from '../../errors.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { renderPayoutCard, totalWarning } from '../../output/payout.js';
import { isUnknownStatus, unknownStatusWords } from '../../service/schemas.js';
import { LiveLine } from '../../output/progress.js';
import { sanitizeInline } from '../../output/sanitize.js';
import { makeStyle } from '../../output/style.js';
import { journaledFailed, journaledSuccessful, waitForSettled, type SettleResult, type WaitStatus } from '../../payouts/settle.js';
import { notLookedUpError, resolvePayoutRef, unknownIdError, type PayoutRef } from '../../payouts/lookup.js';
import { withRunKey } from '../../payouts/sender-profile.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { DEFAULT_WAIT_TIMEOUT_S } from './wait-spec.js';
import { heldRead, shownIdOf } from './read-held.js';

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
    if ('known' in r) throw notLookedUpError(r.known, inv, ledger, withRunKey(deps.config(), api.runKey));
    if ('unknown' in r) throw unknownIdError(id, inv, ledger);
    ref = r.ref;
  }
  const asked = ref.transactionId;
  const getCommand = (...extra: string[]) => commandLine(inv, ['payout', 'get'], [asked, ...extra]);
  const shownId = shownIdOf(ref);
  // With --json, stderr holds JSON lines only (output/log.ts): no live line, even at a terminal.
  const live = deps.io.stderrIsTTY && !deps.globals.json;
  const line = new LiveLine(deps.io.stderr, live);
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
  const ticker = live ? setInterval(draw, 1000) : undefined;
  ticker?.unref();
  let result: SettleResult;
  try {
    result = await waitForSettled(api, ref, {
      clock: deps.clock,
      signal: deps.signal,
      timeoutMs: Math.round((timeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_S) * 1000),
      // Read Successful before: the first read that says otherwise is the contradiction, said at once.
      readSuccessfulBefore: journaledSuccessful(ref.entry),
      // Read Failed before: the first unsettled read is the contradiction, said at once (read-held.ts).
      readFailedBefore: journaledFailed(ref.entry) !== undefined,
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

  // Noted in the journal (when it has the payout) and held against what it read before (read-held.ts).
  const held =
    result.kind !== 'unread' ? await heldRead({ deps, ledger: await openLedger(deps), baseUrl: api.baseUrl, inv }, ref, result.record, getCommand('--wait')) : undefined;
  const warning = totalWarning(parseEnvelope(result.res).data);
  if (warning) deps.log.warn(warning);
  if (deps.globals.json) await write(deps.io.stdout, result.res.raw.trim() + '\n');
  else await write(deps.io.stdout, renderPayoutCard(result.record, makeStyle(deps.io.color)));

  const error =
    // Read otherwise before: a contradiction (exit 4), not Failed nor Pending nor Successful;
    // a later read that could not be used says nothing of what it became (outcomeError, exit 5).
    held ?? outcomeError(result, { shownId, payoutId: ref.payoutId, timeoutSeconds, keepWaiting: getCommand('--wait') });
  if (error) throw error;
  deps.log.success(`Payout ${shownId} is Successful${result.checks > 1 ? ` (after ${duration(result.elapsedMs)})` : ''}.`);
  return 0;
}

/**
 * The error a wait that did not end Successful exits with (undefined when Successful): Failed
 * (1), a word payctl does not know (4), still Pending at the limit (5), or a later read that
 * could not be used, so that what the payout became is not known (5).
 */
function outcomeError(
  result: SettleResult,
  w: { shownId: string; payoutId: string | undefined; timeoutSeconds: number | undefined; keepWaiting: string },
): Error | undefined {
  const { shownId, payoutId, timeoutSeconds, keepWaiting } = w;
  const after = duration(result.elapsedMs);
  if (result.kind === 'unread') {
    // Read after it was seen, an answer that cannot be used (a page, a 404, another payout's
    // record) says nothing of what it became: not known (exit 5), never --wait's Failed (exit 1),
    // which a script may take for "send it again".
    return new StillPendingError(
      `Payout ${shownId} was last seen ${sanitizeInline(result.status) || 'without a status'}, and a read after ${after} of waiting could not be used: ${unusable(result.error)}. Whether it settled is not known; it was not sent again and may still settle.`,
      { payoutId, hint: `Check it with: ${keepWaiting}`, notRead: true },
    );
  }
  // A word payctl does not know, waited through (it may become one it knows): not Pending.
  if (result.kind === 'pending' && isUnknownStatus(result.status)) {
    return new StatusUnknownError(
      `Payout ${shownId} has ${unknownStatusWords(sanitizeInline(result.status))}, after ${after} of waiting: whether it was paid cannot be told from it. It was not sent again.`,
      { payoutId, hint: `Ask the service what it means; wait again with: ${keepWaiting}` },
    );
  }
  if (result.kind === 'pending' && result.problem !== undefined) {
    // Not "still Pending after N s": nothing was read after the last record, whatever it became since.
    return new StillPendingError(
      `Payout ${shownId} was last read ${sanitizeInline(result.status) || 'without a status'} ${duration(result.readMs ?? 0)} into the wait; every check after it failed until the limit, ${after} (--wait-timeout ${timeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_S}; the last: ${sanitizeInline(result.problem)}). Whether it settled since is not known; it was not sent again.`,
      { payoutId, hint: `Check it again with: ${keepWaiting}`, notRead: true },
    );
  }
  if (result.kind === 'pending') {
    return new StillPendingError(
      `Payout ${shownId} is still ${sanitizeInline(result.status) || 'not settled'} after ${after} (--wait-timeout ${timeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_S}). It was accepted and may still settle.`,
      { payoutId, hint: `Keep waiting with: ${keepWaiting}` },
    );
  }
  if (result.kind === 'settled' && result.status === 'Failed') {
    // On one line: the error's message is shown whole, and a reason with a line break in it
    // ("...\r\nFAKE: Successful") would print a line of the service's making.
    const reason = result.record.failure_reason ? sanitizeInline(result.record.failure_reason) : undefined;
    return new PayoutFailedError(`Payout ${shownId} failed: ${reason ?? 'the service gave no reason'}.`.replace(/\.\.$/, '.'), {
      payoutId,
      reason,
    });
  }
  return undefined;
}

/** Why an answer could not be used, on one line: its message, and its HTTP status when that was not a 2xx. */
export function unusable(err: ApiError): string {
  const said = sanitizeInline(err.message).replace(/\.$/, '');
  if (err.status === undefined || (err.status >= 200 && err.status <= 299)) return said;
  return `${said} (HTTP ${err.status}${err.code ? ` ${sanitizeInline(err.code)}` : ''})`;
}
