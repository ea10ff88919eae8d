/**
 * `payctl payout get <id>`: one payout, by transaction id (the only look-up the service has:
 * docs/service.md), or by a payout id this config folder's journal has a transaction id for. Anything
 * else is not asked of the service: a journaled payout of unknown outcome exits 4 (`--wait` too:
 * never 1, which says Failed), one journaled under another base URL only is said to be there with
 * the commands of its profile (lookup-elsewhere.ts), any other id 1 (`--wait`: 2, never 1),
 * saying what is known (code NOT_FOUND, nothing asked); so
 * does a run not logged in, from the journal, before "Not logged in" (get-unlogged.ts). The answer is checked
 * against what was asked (transaction id; payout id, amount, currency and account when the
 * journal has the body): an answer about another payout, or a record payctl does not understand,
 * is a status not read (exit 5, as with
 * --wait any first read that is refused or cannot be used: never 1, which --wait says for
 * Failed). A payout the journal has as read Successful that now reads anything else (Pending,
 * Failed, ...) is said as --wait and payout batch status say it (exit 4), as is one read Failed
 * that now reads Successful, or a settled transaction the journal has the other way under
 * another base URL; a read Successful or Failed is noted in the journal as --wait notes it
 * (read-held.ts). The card shows the journal's payout id; `--json` prints the envelope as the
 * service sent it.
 */
import { write, type Deps } from '../../deps.js';
import { ApiError, AuthError, ExitCode, NotAskedError, StillPendingError, UsageError, type CliError } from '../../errors.js';
import { commandLine, invocationOf, type Invocation } from '../../config/command-line.js';
import type { ConfigStore } from '../../config/store.js';
import type { Ledger } from '../../payouts/journal.js';
import { elsewhereError, journaledElsewhere } from '../../payouts/lookup-elsewhere.js';
import { openLedger } from '../../payouts/open-ledger.js';
import { getPayout, notLookedUpError, resolvePayoutRef, unknownIdError, UnusableAnswer, type PayoutRef } from '../../payouts/lookup.js';
import { withRunKey } from '../../payouts/sender-profile.js';
import { copiedId } from '../../words.js';
import { digitsWarning, renderPayoutCard, totalWarning } from '../../output/payout.js';
import { makeStyle } from '../../output/style.js';
import { text } from '../../output/text.js';
import { unusable, waitAndReport } from './wait.js';
import { heldRead, shownIdOf } from './read-held.js';
import { unloggedGetError } from './get-unlogged.js';

export interface PayoutGetOptions {
  id: string;
  /** Wait until the payout is Successful or Failed (wait.ts). */
  wait?: boolean;
  /** Seconds --wait waits at most (default 600). */
  waitTimeout?: number;
}

export async function run(opts: PayoutGetOptions, deps: Deps): Promise<number> {
  const id = opts.id.trim();
  if (!id) throw new UsageError('payout get needs a transaction id or payout id.');
  let api: Awaited<ReturnType<Deps['api']>>;
  try {
    api = await deps.api();
  } catch (err) {
    // Not logged in: the journal, which needs no login, may know the payout (get-unlogged.ts).
    throw err instanceof AuthError ? await unloggedGetError(err, id, deps) : err;
  }
  const inv = invocationOf(deps.globals, deps.env);
  const ledger = await openLedger(deps);
  const resolved = await resolvePayoutRef(ledger, api.baseUrl, id);
  if ('known' in resolved) throw notLookedUpError(resolved.known, inv, ledger, withRunKey(deps.config(), api.runKey));
  if ('unknown' in resolved) throw underWait(await notAsked(id, { ledger, baseUrl: api.baseUrl, inv, config: deps.config() }), opts.wait);
  const ref = resolved.ref;
  const again = (...extra: string[]) => commandLine(inv, ['payout', 'get'], [ref.transactionId, ...extra]);
  if (opts.wait) {
    try {
      return await waitAndReport(deps, api, id, opts.waitTimeout, ref);
    } catch (err) {
      // The first read refused or not usable (a 404, a 5xx after the retries, a page, another
      // payout's record): not Failed, which --wait's exit 1 says and a script may resend on.
      if (err instanceof ApiError) throw statusNotRead(err, ref, again('--wait'));
      throw err;
    }
  }
  let got: Awaited<ReturnType<typeof getPayout>>;
  try {
    got = await getPayout(api, ref);
  } catch (err) {
    // An answer about another payout, or a record not understood, is never shown as this one, nor
    // taken for a refusal (exit 1): its status was not read (exit 5), as --wait says it.
    if (err instanceof UnusableAnswer) throw statusNotRead(err, ref, again());
    if (err instanceof ApiError && err.status === 404 && err.code === 'NOT_FOUND' && !ref.entry) {
      throw new ApiError(
        `No payout ${text(id)}: the service has no transaction with this id (it said: ${err.message.replace(/\.$/, '')}), and this config folder's journal has no payout with it.`,
        {
          status: 404,
          code: 'NOT_FOUND',
          ...(err.requestId ? { requestId: err.requestId } : {}),
          hint: `Payouts sent from this config folder, with their transaction ids: ${commandLine(inv, ['history'])}\nAll payouts at the service: ${commandLine(inv, ['payouts', 'list'])}`,
        },
      );
    }
    throw err;
  }
  const warning = totalWarning(got.envelope.data);
  if (warning) deps.log.warn(warning);
  const digits = digitsWarning(got.record, got.envelope.data);
  if (digits) deps.log.warn(digits);
  if (deps.globals.json) await write(deps.io.stdout, got.res.raw.trim() + '\n');
  else await write(deps.io.stdout, renderPayoutCard(got.record, makeStyle(deps.io.color)));
  // Noted as --wait notes it, and held against what the journal read before (read-held.ts): a
  // contradiction exits 4, never a plain Failed or Successful.
  const contradicted = await heldRead({ deps, ledger, baseUrl: api.baseUrl, inv }, ref, got.record, again('--wait'));
  if (contradicted) throw contradicted;
  return 0;
}

/**
 * A look-up whose answer says nothing of the payout's status (exit 5, `--json` code
 * STATUS_NOT_READ, as payout create --wait says it): why, with the answer's own hint, and the
 * command that checks it again.
 */
function statusNotRead(err: ApiError, ref: PayoutRef, checkAgain: string): StillPendingError {
  const request = err.requestId ? ` (request id ${text(err.requestId)})` : '';
  return new StillPendingError(`The status of payout ${shownIdOf(ref)} was not read: ${unusable(err)}${request}. What it became is not known; nothing was sent.`, {
    payoutId: ref.payoutId,
    hint: `${err.hint ? `${err.hint}\n` : ''}Check it again with: ${checkAgain}`,
    notRead: true,
  });
}

/**
 * An id as typed that is not looked up, with --wait: exit 2 (bad input, nothing asked of the
 * service), never 1, which --wait says for Failed (a script may take a mis-pasted id of a paid
 * payout for Failed); `--json` code NOT_FOUND still.
 */
function underWait(err: CliError, wait: boolean | undefined): CliError {
  if (!wait || !(err instanceof NotAskedError)) return err;
  return new NotAskedError(err.message, { ...(err.hint !== undefined ? { hint: err.hint } : {}), exitCode: ExitCode.usage });
}

/**
 * Why an id the journal has no transaction id for under the run's base URL is not asked of the
 * service. Copied with what was around it, the id as it reads without it: journaled without a
 * transaction id, what the journal knows of it (exit 4 when its outcome is unknown), else the
 * command that looks it up. Journaled under another base URL only (the profile that sent it
 * not chosen): said, with that profile's commands (lookup-elsewhere.ts), never "no payout".
 */
async function notAsked(id: string, c: { ledger: Ledger; baseUrl: string; inv: Invocation; config: ConfigStore }): Promise<CliError> {
  const bare = copiedId(id);
  const meant = bare === undefined ? undefined : await resolvePayoutRef(c.ledger, c.baseUrl, bare);
  if (meant && 'known' in meant) {
    const e = notLookedUpError(meant.known, c.inv, c.ledger, c.config);
    e.message = `${text(id)} reads ${text(bare!)} without the characters copied with it. ${e.message}`;
    return e;
  }
  if (meant && 'ref' in meant) return unknownIdError(id, c.inv, c.ledger, bare);
  for (const candidate of bare === undefined ? [id] : [id, bare]) {
    const elsewhere = await journaledElsewhere(c.ledger, c.baseUrl, candidate);
    if (elsewhere.length) return elsewhereError(elsewhere, { ...c, typed: id });
  }
  return unknownIdError(id, c.inv, c.ledger);
}
