/**
 * Sending rows once they are checked and confirmed, shared by `payout batch` and
 * `plan send`: the report written as rows finish, the progress bar, the batch runner
 * (journal, retries, concurrency), the summary, and the exit code with the command that
 * resumes. Nothing here decides what to send: the caller hands over the rows.
 */
import { write, type Deps } from '../../deps.js';
import { AuthError, ExitCode, InterruptedError, UsageError } from '../../errors.js';
import type { ApiClient } from '../../api/client.js';
import { runBatch, type BatchItem, type RowOutcome } from '../../payouts/batch.js';
import type { Ledger } from '../../payouts/journal.js';
import { isAlreadyMade, ReportWriter } from '../../payouts/report.js';
import { renderBatchResult } from '../../output/batch.js';
import { Progress } from '../../output/progress.js';
import { plural } from '../../output/text.js';
import { commandLine, invocationOf } from '../../config/command-line.js';

export interface SendRowsOptions {
  items: BatchItem[] | AsyncIterable<BatchItem>;
  /** Rows in all (those accepted earlier included). */
  rows: number;
  /** Rows that will be sent (0: nothing to send, no progress bar). */
  toSend: number;
  alreadyAccepted: number;
  api: ApiClient;
  journal: Ledger;
  concurrency: number;
  /** Journaled with each row: the batch id and the absolute path of the file the rows came from. */
  batch: { id: string; file: string };
  reportPath: string;
  /** The command that runs the same send again (resume, finish unknown outcomes). */
  rerun: string;
  /** When the command began (runBatch's `since`): rows journaled since were never sent before. */
  since: Date;
}

export async function sendRows(deps: Deps, o: SendRowsOptions): Promise<number> {
  let report: ReportWriter;
  try {
    report = new ReportWriter(o.reportPath, o.batch.id);
  } catch (err) {
    // Checked before, but the path may have changed since: still nothing was sent.
    throw new UsageError(
      `Cannot write the report ${o.reportPath}: ${(err as NodeJS.ErrnoException).code === 'ELOOP' ? 'it is a symbolic link' : (err as Error).message}. Nothing was sent.`,
    );
  }
  const progress = new Progress(deps.io.stderr, deps.io.stderrIsTTY, undefined, `batch ${o.batch.id}`, () => deps.io.stderrColumns);
  let outcomes: RowOutcome[];
  let stopped: boolean;
  let keyRefused: AuthError | undefined;
  try {
    ({ outcomes, stopped, keyRefused } = await runBatch(o.items, {
      since: o.since,
      total: o.rows,
      api: o.api,
      journal: o.journal,
      concurrency: o.concurrency,
      clock: deps.clock,
      stop: deps.signal,
      batch: o.batch,
      profile: deps.globals.profile,
      onProgress: (s) => progress.update(s),
      onSettle: (r) => report.append(r),
    }));
  } finally {
    report.close();
  }
  const count = (k: string) => outcomes.filter((r) => r.outcome === k).length;
  if (o.toSend > 0) progress.finish({ total: o.rows, done: count('accepted') + count('replayed'), failed: count('rejected'), unknown: count('unknown'), inFlight: 0 });

  report.finish(outcomes);
  const summary = {
    batch_id: o.batch.id,
    rows: o.rows,
    accepted: count('accepted'),
    replayed: count('replayed'),
    rejected: count('rejected'),
    unknown: count('unknown'),
    not_sent: count('not sent'),
    already_accepted: o.alreadyAccepted,
    report: o.reportPath,
  };
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify(summary) + '\n');
  deps.log.block(renderBatchResult(summary, outcomes, outcomes.filter(isAlreadyMade).length, deps.io.stderrColumns));
  return exitOf(deps, o, summary, outcomes, stopped, keyRefused);
}

/** The batch summary (as --json prints it). */
type Summary = Record<'rows' | 'accepted' | 'replayed' | 'rejected' | 'unknown' | 'not_sent' | 'already_accepted', number> & { batch_id: string; report: string };

/**
 * The exit code, with what to do next: the key refused (exit 3) or a stop (exit 130) thrown with
 * the command that sends the rest; unknown outcomes (exit 4) or rows not sent (exit 1) said with
 * the command that finishes them (same keys: nothing is paid twice).
 */
function exitOf(deps: Deps, o: SendRowsOptions, summary: Summary, outcomes: RowOutcome[], stopped: boolean, keyRefused: AuthError | undefined): number {
  if (keyRefused) {
    // Nothing was sent for the rows refused or not started; rows accepted before stay accepted.
    throw new AuthError(`${keyRefused.message.replace(/\.$/, '')}: ${plural(summary.rejected + summary.not_sent, 'row was', 'rows were')} not sent.`, {
      status: keyRefused.status,
      hint: `Run \`${commandLine(invocationOf(deps.globals, deps.env), ['login'])}\` (or check the key of this profile), then send the rest with the same command (rows accepted are skipped, nothing is paid twice):\n  ${o.rerun}`,
    });
  }
  if (stopped) {
    throw new InterruptedError(
      'Stopped: rows in flight finished; the rest were not sent.',
      `Resume with (rows already accepted are skipped, nothing is paid twice):\n  ${o.rerun}`,
    );
  }
  if (summary.unknown) {
    // Held: unknown, first sent more than 24 hours ago. Running the batch again would hold them again.
    const held = outcomes.filter((r) => r.outcome === 'unknown' && r.held).length;
    const fresh = summary.unknown - held;
    if (fresh) deps.log.warn(`${plural(fresh, 'payout')} may or may not have been made. Run the same command again to finish them safely (same keys):\n  ${o.rerun}`);
    if (held)
      deps.log.warn(
        `${plural(held, 'payout')} may or may not have been made, first sent more than 24 hours ago: the service may have forgotten ${held === 1 ? 'its key' : 'their keys'}, so payctl does not resend ${held === 1 ? 'it' : 'them'} on its own. ` +
          `See the payouts at the service that could be ${held === 1 ? 'it' : 'each'}, and choose (record as made, or resend), with:\n  ${commandLine(invocationOf(deps.globals, deps.env), ['history', 'reconcile'])}`,
      );
    return ExitCode.unknown;
  }
  if (summary.not_sent) {
    deps.log.warn(
      `${plural(summary.not_sent, 'row was', 'rows were')} not sent (see the report). Run the same command again to send ${summary.not_sent === 1 ? 'it' : 'them'}:\n  ${o.rerun}`,
    );
    return ExitCode.failed;
  }
  return summary.rejected ? ExitCode.failed : ExitCode.ok;
}
