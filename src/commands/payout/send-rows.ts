/**
 * Sending rows once they are checked and confirmed, shared by `payout batch` and
 * `plan send`: the report written as rows finish, the progress bar, the batch runner
 * (journal, retries, concurrency), the summary, and the exit code with the command that
 * resumes. Nothing here decides what to send: the caller hands over the rows.
 */
import { write, type Deps } from '../../deps.js';
import { AuthError, ConfigError, ExitCode, InterruptedError, LocalError, UsageError } from '../../errors.js';
import type { ApiClient } from '../../api/client.js';
import { runBatch, type BatchItem, type RowOutcome } from '../../payouts/batch.js';
import type { JournaledRun } from '../../payouts/batch-feed.js';
import { failedAtOnce } from '../../payouts/batch-outcomes.js';
import type { Ledger } from '../../payouts/journal.js';
import { fsFault } from '../../config/fs-fault.js';
import { freePath, journalFolder } from '../../config/paths.js';
import { isAlreadyMade, ReportWriter } from '../../payouts/report.js';
import { renderBatchResult } from '../../output/batch.js';
import { Progress } from '../../output/progress.js';
import { wrapText } from '../../output/text-width.js';
import { plural } from '../../output/text.js';
import { commandLine, fileOperand, invocationOf } from '../../config/command-line.js';
import { extname } from 'node:path';
import { PaidMeanwhile, type Contest } from '../../payouts/paid-meanwhile.js';
import { OtherSenderRows } from './other-sender-rows.js';

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
  batch: JournaledRun;
  reportPath: string;
  /** The command that runs the same send again (resume, finish unknown outcomes). */
  rerun: string;
  /** When the command began, by the ledger's clock (runBatch's `since`): rows journaled since were never sent before. */
  since: Date;
  /** Aborted, with the ledger's error, when the batch's lock is lost (batch-lock.ts batchLock): no new rows are taken. */
  lockLost?: AbortSignal;
  /** A run without --batch-id: stopped when another run is found paying its rows (paid-meanwhile.ts). */
  contest?: Contest | undefined;
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
  const faults = new JournalFaults(journalFolder(deps.env));
  // No bar under --json (stderr holds JSON lines only): its plain lines, as notices of the Log.
  const [tty, say] = [deps.io.stderrIsTTY && !deps.globals.json, (line: string) => deps.log.info(line)];
  const progress = new Progress(deps.io.stderr, tty, undefined, `batch ${o.batch.id}`, () => deps.io.stderrColumns, say);
  let [outcomes, stopped, keyRefused]: [RowOutcome[], boolean, AuthError | undefined] = [[], false, undefined];
  let inFlight = 0;
  // The first Ctrl-C (or SIGTERM) is said at once: the requests it waits for, and how to stop at once.
  const onStop = () => inFlight && progress.say(stopNotice(inFlight, deps.globals.timeoutMs));
  const others = new OtherSenderRows(deps, o.api.runKey, o.api); // rows journaled under another profile: not sent with this one's key
  deps.signal.addEventListener('abort', onStop, { once: true });
  try {
    ({ outcomes, stopped, keyRefused } = await runBatch(o.items, {
      since: o.since,
      total: o.rows,
      api: o.api,
      journal: faults.watch(o.journal),
      concurrency: o.concurrency,
      clock: deps.clock,
      stop: AbortSignal.any([deps.signal, ...(o.lockLost ? [o.lockLost] : []), ...(o.contest ? [o.contest.stop.signal] : [])]),
      contest: o.contest,
      batch: o.batch,
      profile: deps.globals.profile,
      keyFrom: others.keyFrom,
      otherSender: others.check,
      onProgress: (s) => {
        inFlight = s.inFlight;
        progress.update(s);
      },
      onSettle: (r) => report.append(r),
    }));
  } finally {
    deps.signal.removeEventListener('abort', onStop);
    report.close();
  }
  const count = (k: string) => outcomes.filter((r) => r.outcome === k).length;
  if (o.toSend > 0) progress.finish({ total: o.rows, done: count('accepted') + count('replayed'), failed: count('rejected'), unknown: count('unknown'), inFlight: 0 });

  // Every row's outcome is journaled: a report that cannot be written now (its folder removed,
  // a full disk) is said after the summary, never instead of it, and changes no outcome's code.
  const reportFault = finishReport(report, outcomes);
  const summary = {
    batch_id: o.batch.id,
    rows: o.rows,
    accepted: count('accepted'),
    replayed: count('replayed'),
    rejected: count('rejected'),
    unknown: count('unknown'),
    not_sent: count('not sent'),
    already_accepted: o.alreadyAccepted,
    report: reportFault ? null : o.reportPath,
    ...(reportFault ? { report_error: `${o.reportPath}: ${reportFault}` } : {}),
  };
  if (deps.globals.json) await write(deps.io.stdout, JSON.stringify(summary) + '\n');
  deps.log.block(renderBatchResult(summary, outcomes, outcomes.filter(isAlreadyMade).length, deps.io.stderrColumns));
  others.warn(outcomes);
  if (reportFault) {
    deps.log.warn(
      `The report could not be written to ${o.reportPath}: ${reportFault}. Every row's outcome is in the journal: once that folder can be written (or with another --report), the same command writes the report again (rows accepted are skipped, nothing is paid twice):\n  ${o.rerun}`,
    );
  }
  const code = exitOf(deps, o, summary, outcomes, stopped, keyRefused, faultSaid(faults, outcomes));
  return reportFault && code === ExitCode.ok ? ExitCode.failed : code;
}

/** What the first stop says while requests are in flight: each ends by its --timeout, nothing new leaves, and a second stop ends the run at once. */
function stopNotice(inFlight: number, timeoutMs: number): string {
  const them = inFlight === 1 ? 'it' : 'them';
  return `Stopping: waiting for ${plural(inFlight, 'request')} in flight (each ends within ${timeoutMs / 1000} s, the --timeout); no new row or retry is sent. Ctrl-C again stops at once, leaving ${them} unknown.`;
}

/** Writes the final report; a file-system failure comes back in words (the error thrown on otherwise). */
function finishReport(report: ReportWriter, outcomes: RowOutcome[]): string | undefined {
  try {
    report.finish(outcomes);
    return undefined;
  } catch (err) {
    if (typeof (err as NodeJS.ErrnoException | undefined)?.code !== 'string') throw err;
    return fsFault(err);
  }
}

/** The batch summary (as --json prints it): `report` null, and why in `report_error`, when it could not be written. */
type Summary = Record<'rows' | 'accepted' | 'replayed' | 'rejected' | 'unknown' | 'not_sent' | 'already_accepted', number> & {
  batch_id: string;
  report: string | null;
  report_error?: string;
};

/**
 * The exit code, with what to do next: the key refused (exit 3) or a stop that left no outcome
 * unknown (exit 130) thrown with the command that sends the rest (with unknown outcomes, said as
 * a warning before them); unknown outcomes (exit 4:
 * always, whatever else happened, a stop too, said with the rows it left unsent)
 * with the command that finishes them (same keys: nothing is paid twice); rows the journal could
 * not take (a full disk, a read-only folder) thrown as the local fault it is (exit 2, the cause
 * named once); other rows not sent, or rejected, exit 1.
 */
function exitOf(
  deps: Deps,
  o: SendRowsOptions,
  summary: Summary,
  outcomes: RowOutcome[],
  stopped: boolean,
  keyRefused: AuthError | undefined,
  fault: FaultSaid | undefined,
): number {
  if (keyRefused) {
    // Nothing was sent for the rows refused or not started; rows accepted before stay accepted.
    const refused = `${keyRefused.message.replace(/\.$/, '')}: ${plural(summary.rejected + summary.not_sent, 'row was', 'rows were')} not sent.`;
    const login = `Run \`${commandLine(invocationOf(deps.globals, deps.env), ['login'])}\` (or check the key of this profile)`;
    const hint = `${login}, then send the rest with the same command (rows accepted are skipped, nothing is paid twice):\n  ${o.rerun}`;
    if (!summary.unknown) throw new AuthError(refused, { status: keyRefused.status, hint });
    // Unknown outcomes outrank the refusal (exit 4): said with it, and the same command (below) finishes them and sends the rest.
    deps.log.warn(`${refused} ${login}; then the same command (below) sends ${summary.rejected + summary.not_sent === 1 ? 'it' : 'them'} too.`);
  }
  const meanwhile = o.contest?.stop.signal.aborted ? (o.contest.stop.signal.reason as Error) : undefined;
  if (meanwhile) return paidMeanwhile(deps, o, summary, meanwhile);
  if (o.lockLost?.aborted && summary.not_sent) {
    const lost = `${(o.lockLost.reason as Error).message} Rows in flight finished; ${plural(summary.not_sent, 'row was', 'rows were')} not sent: without the lock, another run of batch "${o.batch.id}" could send beside this one.`;
    // Unknown outcomes are said as such (exit 4), the lost lock with them.
    if (!summary.unknown)
      throw new LocalError(lost, `When the ledger answers again, send the rest with (rows already accepted are skipped, nothing is paid twice):\n  ${o.rerun}`);
    deps.log.warn(lost);
  } else if (stopped && deps.signal.aborted) {
    const resume = `(rows already accepted are skipped, nothing is paid twice):\n  ${o.rerun}`;
    if (!summary.unknown) throw new InterruptedError('Stopped: rows in flight finished; the rest were not sent.', `Resume with ${resume}`);
    // Unknown outcomes are said as such (exit 4, as without the stop), with the command that finishes them and sends the rest.
    const rest = plural(summary.not_sent, 'row was', 'rows were');
    const held = outcomes.every((r) => r.outcome !== 'unknown' || r.held);
    deps.log.warn(held ? `Stopped: ${rest} not sent. Send the rest with ${resume}` : `Stopped: ${rest} not sent; the same command (below) sends them too.`);
  }
  const declined = outcomes.filter(failedAtOnce);
  if (declined.length) deps.log.warn(failedAtOnceAdvice(declined, o.reportPath, deps));
  if (summary.unknown) {
    // Held: unknown, first sent more than 24 hours ago or dated in the future (payouts/entry-age.ts). Running the batch again would hold them again; rows of another profile are said apart (other-sender-rows.ts).
    const held = outcomes.filter((r) => r.outcome === 'unknown' && r.held).length;
    const fresh = summary.unknown - held - outcomes.filter((r) => r.sender !== undefined).length;
    if (fresh || fault?.notSent) deps.log.warn(unknownAdvice(fresh, fault, o.rerun));
    if (held)
      deps.log.warn(
        `${plural(held, 'payout')} may or may not have been made, first sent more than 24 hours ago (or dated in the future: when cannot be told): the service may have forgotten ${held === 1 ? 'its key' : 'their keys'}, so payctl does not resend ${held === 1 ? 'it' : 'them'} on its own. ` +
          `See the payouts at the service that could be ${held === 1 ? 'it' : 'each'}, and choose (record as made, or resend), with:\n  ${commandLine(invocationOf(deps.globals, deps.env), ['history', 'reconcile'])}`,
      );
    return ExitCode.unknown;
  }
  if (fault?.notSent) {
    // README "After sending": a full disk or a read-only journal is a plain message naming the cause, exit 2.
    throw new ConfigError(
      `${fault.cause}. ${plural(fault.notSent, 'row was', 'rows were')} not sent.`,
      `${fault.then} the same command again to send ${fault.notSent === 1 ? 'it' : 'them'} (rows accepted are skipped, nothing is paid twice):\n  ${o.rerun}`,
    );
  }
  if (summary.not_sent) {
    deps.log.warn(
      `${plural(summary.not_sent, 'row was', 'rows were')} not sent (see the report). Run the same command again to send ${summary.not_sent === 1 ? 'it' : 'them'}:\n  ${o.rerun}`,
    );
    return ExitCode.failed;
  }
  if (summary.rejected) deps.log.info(rejectedAdvice(summary.rejected, o.reportPath, deps));
  return summary.rejected || declined.length ? ExitCode.failed : ExitCode.ok;
}

/**
 * `payout batch status <report> --failed-out <stem>.rejected<ext>` (a name not taken yet): rejected
 * rows paid nobody, but sent again under their keys are refused again (the service keeps a key's
 * first answer), and a new batch id would pay the accepted rows again too: this writes them (with
 * the Failed ones) to a file of their own, and prints the command that sends it.
 */
function failedOutCommand(reportPath: string, deps: Deps): string {
  const ext = extname(reportPath);
  const stem = reportPath.slice(0, reportPath.length - ext.length).replace(/\.report$/, '');
  const out = freePath(`${stem}.rejected`, ext);
  return commandLine(invocationOf(deps.globals, deps.env), ['payout', 'batch', 'status'], [fileOperand(reportPath), '--failed-out', out]);
}

/** Rows accepted whose answers say the provider failed them at once (batch-outcomes.ts failedAtOnce): nothing was paid for them. */
function failedAtOnceAdvice(rows: RowOutcome[], reportPath: string, deps: Deps): string {
  const n = rows.length;
  const shown = rows.slice(0, 10).map((r) => r.row);
  const said = `${plural(n, 'payout was', 'payouts were')} accepted, but the service's answer says the provider failed ${n === 1 ? 'it' : 'them'} (row${n === 1 ? '' : 's'} ${shown.join(', ')}${n > shown.length ? ', ...' : ''}; the report has ${n === 1 ? 'it' : 'each'}): nothing was paid for ${n === 1 ? 'it' : 'them'}. Once the cause is fixed, put the failed payouts in a file of their own to send as new payouts:`;
  return `${wrapText(said, deps.io.stderrColumns)}\n  ${failedOutCommand(reportPath, deps)}`;
}

function rejectedAdvice(n: number, reportPath: string, deps: Deps): string {
  const cmd = failedOutCommand(reportPath, deps);
  const said = `Sent again, ${n === 1 ? 'the rejected row is' : 'rejected rows are'} refused again under ${n === 1 ? 'its key' : 'their keys'} (the service keeps a key's first answer). Once the cause is fixed, put ${n === 1 ? 'it' : 'them'} in a file of ${n === 1 ? 'its' : 'their'} own to send as new payouts:`;
  // The prose to the terminal's width; the command whole, to be pasted.
  return `${wrapText(said, deps.io.stderrColumns)}\n  ${cmd}`;
}

/**
 * A run stopped because another run pays its rows (paid-meanwhile.ts): said with where to see
 * what each paid, exit 1; or 4, its unknown outcomes to finish with history reconcile (running
 * the same command again is refused: its rows are the other run's now). A look-up that failed
 * stops it too: the rest is sent by running it again once the ledger answers.
 */
function paidMeanwhile(deps: Deps, o: SendRowsOptions, summary: Summary, why: Error): number {
  const inv = invocationOf(deps.globals, deps.env);
  const head = why instanceof PaidMeanwhile ? why.message : `Cannot check that no other run is paying these rows: ${why.message.replace(/\.$/, '')}.`;
  const said = `${head} Rows in flight finished; ${plural(summary.not_sent, 'row was', 'rows were')} not sent, so none is paid twice.`;
  const next =
    why instanceof PaidMeanwhile
      ? `${why.advice(commandLine(inv, ['history', 'reconcile']))} See what each run paid with:\n  ${commandLine(inv, ['history'], ['--batch-id', why.other.batch!.id, '--since', why.other.createdAt.slice(0, 10)])}`
      : `When the ledger answers again, send the rest with (rows already accepted are skipped, nothing is paid twice):\n  ${o.rerun}`;
  if (!summary.unknown) throw new LocalError(said, next);
  deps.log.warn(`${said} ${next}`);
  deps.log.warn(
    `${plural(summary.unknown, 'payout')} may or may not have been made. Finish them safely (same keys) with:\n  ${commandLine(inv, ['history', 'reconcile'])}`,
  );
  return ExitCode.unknown;
}

/**
 * What to do about unknown outcomes that are not held: run the same command again (same keys).
 * When the journal could not be written, its cause comes first, once, with the rows it left
 * unknown or unsent, and the fix before the rerun: rerunning on a disk still full changes nothing.
 */
function unknownAdvice(fresh: number, fault: FaultSaid | undefined, rerun: string): string {
  if (!fault) return `${plural(fresh, 'payout')} may or may not have been made. Run the same command again to finish them safely (same keys):\n  ${rerun}`;
  const what = [
    fresh ? `${plural(fresh, 'payout')} may or may not have been made` : '',
    fault.notSent ? `${plural(fault.notSent, 'row was', 'rows were')} not sent` : '',
  ].filter(Boolean);
  return `${fault.cause}. ${what.join(' and ')}. ${fault.then} the same command again to finish them safely (same keys; rows accepted are skipped, nothing is paid twice):\n  ${rerun}`;
}

/** File-system failures that mean the journal cannot be written on this machine (a full disk, a read-only or closed folder): a state to fix, not a bug. */
const WRITE_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'ENOTDIR', 'EISDIR', 'EFBIG', 'EIO']);

/** The journal's failure as a person is told it once: its cause, and what to do before running again. */
export interface JournalFault {
  /** "Cannot write the payout journal /c/journal: no space left on device (ENOSPC)" */
  cause: string;
  /** The fix, leading into the command to run again: "Free some space on that disk, then run". */
  then: string;
}

/** The journal's failure as a batch's summary says it: with the rows it left unsent. */
interface FaultSaid extends JournalFault {
  /** Rows not sent because their entry could not be written. */
  notSent: number;
}

/**
 * What the journal could not write during a run (docs/architecture.md, "Idempotency journal"):
 * the first failure, and the payout ids it left unsent (no entry, so no request) or unknown (sent,
 * the outcome not recorded). Each row's line in a report says it too; this is so that the end of
 * the run names the cause once (and exits as a local fault), instead of counting rows "not sent"
 * or pointing at the network. Shared by `payout batch`, `plan send` and `history reconcile`.
 */
export class JournalFaults {
  #first: { cause: string; code: string | undefined } | undefined;
  readonly #notJournaled = new Set<string>();
  readonly #unrecorded = new Set<string>();

  /** `dir`: the journal folder, named in the cause of a failure that does not name it. */
  constructor(private readonly dir: string) {}

  /**
   * The journal as the run uses it, every other call passed through as it is: a claim or an
   * outcome it fails to write is noted (if local) and thrown on, so nothing it did changes. A
   * Proxy whose methods are bound to the journal (once each: a batch asks for them every row), so
   * a store with private fields works as itself.
   */
  watch(journal: Ledger): Ledger {
    const methods = new Map<PropertyKey, unknown>([
      ['begin', ((opts) => journal.begin(opts).catch((err: unknown) => this.#note(err, opts.payoutId, this.#notJournaled))) satisfies Ledger['begin']],
      [
        'record',
        ((entry, outcome) => journal.record(entry, outcome).catch((err: unknown) => this.#note(err, entry.payoutId, this.#unrecorded))) satisfies Ledger['record'],
      ],
    ]);
    return new Proxy(journal, {
      get: (target, prop) => {
        if (methods.has(prop)) return methods.get(prop);
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        const bound = (value as (...args: unknown[]) => unknown).bind(target);
        methods.set(prop, bound);
        return bound;
      },
    });
  }

  /** The first local failure, said for a person; undefined when the journal took every write. */
  get fault(): JournalFault | undefined {
    return this.#first && { cause: this.#first.cause, then: fixFor(this.#first.code) };
  }

  /** Whether this payout's entry could not be written (so it was not sent). */
  notJournaled(payoutId: string): boolean {
    return this.#notJournaled.has(payoutId);
  }

  /** Whether an outcome of this payout could not be recorded (so it may be left unknown). */
  unrecorded(payoutId: string): boolean {
    return this.#unrecorded.has(payoutId);
  }

  /** `err`, thrown by the journal for `payoutId`, noted in `rows` when it is a local failure to write; thrown on either way. */
  #note(err: unknown, payoutId: string, rows: Set<string>): never {
    const fault = this.#faultOf(err, payoutId);
    if (fault) {
      this.#first ??= fault;
      rows.add(payoutId);
    }
    throw err;
  }

  /** A local failure to write, in words; undefined for anything else (another run's claim, a bug). */
  #faultOf(err: unknown, payoutId: string): { cause: string; code: string | undefined } | undefined {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code === 'string' && WRITE_FAULTS.has(code)) return { cause: `Cannot write the payout journal ${this.dir}: ${fsFault(err)}`, code };
    // The journal's own refusal (a claim it could not write, its key or folder: ledger/atomic-files.ts
    // writeError names the code, "... (ENOSPC). Nothing was sent for payout <id>."), said once without the payout.
    if (!(err instanceof ConfigError)) return undefined;
    const cause = err.message.replace(` Nothing was sent for payout ${payoutId}.`, '').replace(/\.$/, '');
    return { cause, code: cause.match(/\bE[A-Z]+\b/g)?.find((c) => WRITE_FAULTS.has(c)) };
  }
}

/**
 * The journal's failure for a batch's summary, when it left rows unsent or unknown (counted over
 * the rows as they ended: a row sent by a later attempt is not its doing); undefined otherwise.
 */
function faultSaid(faults: JournalFaults, outcomes: readonly RowOutcome[]): FaultSaid | undefined {
  const fault = faults.fault;
  if (!fault) return undefined;
  const notSent = outcomes.filter((r) => r.outcome === 'not sent' && faults.notJournaled(r.payoutId)).length;
  const unknown = outcomes.some((r) => r.outcome === 'unknown' && faults.unrecorded(r.payoutId));
  return notSent || unknown ? { ...fault, notSent } : undefined;
}

/** What to do before running again, by the failure's code, leading into the command: "Free some space on that disk, then run". */
function fixFor(code: string | undefined): string {
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'Free some space on that disk, then run';
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM' || code === 'ENOTDIR' || code === 'EISDIR') return 'Make the journal folder writable again, then run';
  return 'Once the journal can be written, run';
}
