/**
 * Typed errors and the one exit-code table (README.md "Output, scripting and exit codes").
 * Commands throw these; only bin/payctl.js turns the code into the exit status.
 */

export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  auth: 3,
  unknown: 4,
  pending: 5,
  interrupted: 130,
} as const;

export abstract class CliError extends Error {
  abstract readonly exitCode: number;
  /** What to do next, shown after the message. */
  hint?: string;
  constructor(message: string, hint?: string) {
    super(message);
    this.name = new.target.name;
    if (hint !== undefined) this.hint = hint;
  }
}

/**
 * Bad input: nothing was sent (exit 2). `problems` lists every problem at once. `said`: the one
 * problem of a refusal of one flag that its message says in full ("--forward-to: \"x\" is not a
 * URL."): `--json`'s entry (the flag in `field`, the message without it), not listed again
 * under the message for people.
 */
export class UsageError extends CliError {
  readonly exitCode = ExitCode.usage;
  /** Every problem as a person reads it, one line each ("--amount is required (...)", "row 3: amount: ..."). */
  readonly problems: string[];
  /** The same problems, each with the flag or column it names (and its row), for `--json`. */
  readonly issues: Problem[];
  constructor(message: string, problems: ReadonlyArray<Problem | string> = [], hint?: string, said?: Problem) {
    super(message, hint);
    this.issues = said ? [said] : problems.map(problemOf);
    this.problems = said ? [] : this.issues.map((p) => p.text);
  }
}

/** A refusal of one flag said in one line (the problem's text, as a person reads it), `--json` naming the flag in `field`. */
export function flagRefusal(problem: Problem, hint?: string): UsageError {
  return new UsageError(problem.text, [], hint, problem);
}

/**
 * `err`, a refusal said in one line of a value `flag` gave ("The base URL must use https://"),
 * as a refusal of that flag: the same message and hint, `--json` naming the flag in `field`.
 */
export function refusalOfFlag(err: UsageError, flag: string): UsageError {
  return new UsageError(err.message, [], err.hint, { field: flag, message: err.message, text: err.message });
}

/**
 * Input understood and refused (a plan approved already, a file that is no plan): exit 2,
 * nothing done, as any UsageError; not about how the command was typed, so a message without
 * a hint of its own does not end by pointing at the command's help (program.ts).
 */
export class RefusedError extends UsageError {}

/**
 * A person answered No at a confirmation (exit 2, as any stop before sending): not an
 * error, so it is shown as said ("Nothing was sent."), without "Error:" (output/error-report.ts).
 */
export class CancelledError extends UsageError {
  constructor(message = 'Nothing was sent.') {
    super(message);
  }
}

/** The config store is unreadable or damaged (exit 2: nothing was sent). */
export class ConfigError extends CliError {
  readonly exitCode = ExitCode.usage;
}

/** Not logged in, or credentials refused (exit 3). */
export class AuthError extends CliError {
  readonly exitCode = ExitCode.auth;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  constructor(message: string, opts: { hint?: string; status?: number; requestId?: string } = {}) {
    super(message, opts.hint ?? 'Run `payctl login` to sign in again.');
    this.status = opts.status;
    this.requestId = opts.requestId;
  }
}

export interface FieldError {
  field: string;
  message: string;
}

/**
 * One problem of a usage error: the flag or column at fault (`--amount`, `amount`; ''
 * when no single one is), what is wrong (without the field's name), the row of a batch
 * file it is on, and the line a person reads, which says all of that in words.
 */
export interface Problem extends FieldError {
  /** The batch file's row (as a spreadsheet numbers it, or the JSON line). */
  row?: number;
  /** As listed for people: "--amount: ...", "--type must be ...", "row 3: amount: ...". */
  text: string;
}

/** A problem of one field, read as field + join + message: "--amount: \"x\" is not ...", "--name is required". */
export function fieldProblem(field: string, message: string, join: ': ' | ' ' = ': '): Problem {
  return { field, message, text: `${field}${join}${message}` };
}

/**
 * A line that starts with flag `flag` and its value ("--report /x/r.csv: the folder /x does not
 * exist"): the flag in `field`, the rest (the value first) as its message; another line as problemOf reads it.
 */
export function flagLineProblem(flag: string, line: string): Problem {
  return line.startsWith(`${flag} `) ? fieldProblem(flag, line.slice(flag.length + 1), ' ') : problemOf(line);
}

/** The same problem, on a batch file's row: "row 3: amount: ...". */
export function rowProblem(row: number, p: Problem | string): Problem {
  const q = problemOf(p);
  return { ...q, row, text: `row ${row}: ${q.text}` };
}

/** A line that starts with a flag and says what is wrong with it: "--limit must be ...", "--from: ...". */
const LEADING_FLAG = /^(--[a-z][a-z0-9-]*)(?:: | (?=(?:is|are|must|may|cannot|has|needs) ))/;

/**
 * A problem given as a line of text (callers that list problems as strings): a line that
 * starts with a flag names it; any other names no field ("--csv and --json cannot be used
 * together" is about two).
 */
export function problemOf(p: Problem | string): Problem {
  if (typeof p !== 'string') return p;
  const m = LEADING_FLAG.exec(p);
  return m ? { field: m[1]!, message: p.slice(m[0].length), text: p } : { field: '', message: p, text: p };
}

/** The service refused or failed (exit 1). */
export class ApiError extends CliError {
  readonly exitCode: number = ExitCode.failed;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  readonly errors: FieldError[];
  constructor(message: string, opts: { status?: number; code?: string; requestId?: string; errors?: FieldError[]; hint?: string } = {}) {
    super(message, opts.hint);
    this.status = opts.status;
    this.code = opts.code;
    this.requestId = opts.requestId;
    this.errors = opts.errors ?? [];
  }
}

/**
 * An id `payout get` did not ask the service about (no payout it can look up by it): code
 * NOT_FOUND, and no HTTP status, as nothing was asked (output/error-report.ts prints no service
 * status line for it). Exit 1, or 2 (usage) under --wait, whose exit 1 says Failed.
 */
export class NotAskedError extends ApiError {
  override readonly exitCode: number;
  constructor(message: string, opts: { hint?: string; exitCode?: number } = {}) {
    super(message, { code: 'NOT_FOUND', ...(opts.hint !== undefined ? { hint: opts.hint } : {}) });
    this.exitCode = opts.exitCode ?? ExitCode.failed;
  }
}

/** Something on this machine failed, not the service: a process that would not start or stop (exit 1). */
export class LocalError extends CliError {
  readonly exitCode = ExitCode.failed;
}

/** A lock another payctl held past the wait (config/lock-files.ts, a shared ledger's advisory locks): exit 1, nothing of its step done. */
export class LockHeldError extends LocalError {}

/**
 * Standard output refused what the run wrote (a full disk, /dev/full, an I/O error; a reader
 * that went away is no error: the run ends quietly, as in any pipeline). The output is
 * incomplete. Exit 1 when the run sent no payout; exit 4 when it did, as for an answer that
 * never arrived: the caller has not seen the outcome, and must not take the run as failed.
 */
export class OutputError extends CliError {
  readonly exitCode: number;
  constructor(message: string, opts: { sentPayouts: boolean; hint?: string }) {
    super(message, opts.hint);
    this.exitCode = opts.sentPayouts ? ExitCode.unknown : ExitCode.failed;
  }
}

/** A network failure or time-out (exit 4). For a payout the outcome may be unknown. */
export class NetworkError extends CliError {
  readonly exitCode = ExitCode.unknown;
  readonly causeCode: string | undefined;
  constructor(message: string, opts: { hint?: string; causeCode?: string } = {}) {
    super(message, opts.hint);
    this.causeCode = opts.causeCode;
  }
}

/**
 * What a network failure's cause code (undici's and Node's names: UND_ERR_*, ECONNRESET, an
 * OpenSSL ERR_SSL_*) says happened: one reading, for the sentence said to a person
 * (api/network-error.ts) and the documented `--json` code (networkCode). A code not known here
 * has none.
 */
export type NetworkFault = 'connect-timeout' | 'answer-timeout' | 'timeout' | 'refused' | 'reset' | 'host' | 'certificate' | 'handshake';

const FAULTS: Readonly<Record<string, NetworkFault>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect-timeout',
  UND_ERR_HEADERS_TIMEOUT: 'answer-timeout',
  UND_ERR_BODY_TIMEOUT: 'answer-timeout',
  PAYCTL_DEADLINE: 'timeout',
  ETIMEDOUT: 'timeout',
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CLOSED: 'reset',
  ENOTFOUND: 'host',
  EAI_AGAIN: 'host',
};

export function networkFault(causeCode: string | undefined): NetworkFault | undefined {
  if (causeCode === undefined) return undefined;
  const known = FAULTS[causeCode];
  if (known) return known;
  // A certificate refused (self-signed, unknown issuer, expired, another host's); else a handshake OpenSSL gave up on.
  if (/CERT|SELF_SIGNED|UNABLE_TO_(VERIFY|GET_ISSUER)/.test(causeCode)) return 'certificate';
  return causeCode.startsWith('ERR_SSL_') ? 'handshake' : undefined;
}

/** The documented `--json` code of each fault (README.md "Output, scripting and exit codes"): undici's and Node's names are never printed. */
const FAULT_CODES: Readonly<Record<NetworkFault, string>> = {
  'connect-timeout': 'TIMEOUT',
  'answer-timeout': 'TIMEOUT',
  timeout: 'TIMEOUT',
  refused: 'CONNECTION_REFUSED',
  reset: 'CONNECTION_RESET',
  host: 'HOST_NOT_FOUND',
  certificate: 'TLS_ERROR',
  handshake: 'TLS_ERROR',
};

/** Codes payctl gives a NetworkError's cause itself, printed as they are. */
const OWN_CODES = new Set([
  'TIMEOUT',
  'CONNECTION_REFUSED',
  'CONNECTION_RESET',
  'HOST_NOT_FOUND',
  'TLS_ERROR',
  'SERVICE_ERROR',
  'JOURNAL_ERROR',
  'LOCKED',
  'NETWORK_ERROR',
]);

/** A NetworkError's cause as its documented code: TIMEOUT, CONNECTION_RESET, ..., else NETWORK_ERROR. */
export function networkCode(causeCode: string | undefined): string {
  if (causeCode === undefined) return 'NETWORK_ERROR';
  if (OWN_CODES.has(causeCode)) return causeCode;
  const fault = networkFault(causeCode);
  return fault ? FAULT_CODES[fault] : 'NETWORK_ERROR';
}

/**
 * A payout was (maybe) sent but no answer came back (exit 4): `payoutId` is that payout's (none
 * when the error is about several); `rows`, a batch's rows of unknown outcome it is about, each
 * with its payout id (`--json`'s `errors`, field "payout_id").
 */
export class OutcomeUnknownError extends NetworkError {
  readonly payoutId: string | undefined;
  readonly rows: Problem[];
  constructor(message: string, opts: { payoutId: string | undefined; hint?: string; causeCode?: string; rows?: Problem[] }) {
    super(message, opts);
    this.payoutId = opts.payoutId;
    this.rows = opts.rows ?? [];
  }
}

/**
 * A payout that settled as Failed (exit 1): `reason` is the service's failure_reason, when it
 * gave one; `payoutId` its payout id, when known (a look-up by transaction id alone has none).
 */
export class PayoutFailedError extends CliError {
  readonly exitCode = ExitCode.failed;
  readonly payoutId: string | undefined;
  readonly reason: string | undefined;
  constructor(message: string, opts: { payoutId: string | undefined; reason?: string; hint?: string }) {
    super(message, opts.hint);
    this.payoutId = opts.payoutId;
    this.reason = opts.reason;
  }
}

/** A payout still Pending when `--wait` ran out of time (exit 5): it was accepted and may still settle (`payoutId` as above). */
export class StillPendingError extends CliError {
  readonly exitCode = ExitCode.pending;
  readonly payoutId: string | undefined;
  /** Its --json code: Pending at the --wait limit, or accepted with a status that could not be read or followed. */
  readonly code: 'STILL_PENDING' | 'STATUS_NOT_READ';
  constructor(message: string, opts: { payoutId: string | undefined; hint?: string; notRead?: boolean }) {
    super(message, opts.hint);
    this.payoutId = opts.payoutId;
    this.code = opts.notRead ? 'STATUS_NOT_READ' : 'STILL_PENDING';
  }
}

/**
 * A payout whose status is a word payctl does not know (exit 4, as an outcome that cannot be
 * known): neither settled nor Pending. `payoutId` as for StillPendingError.
 */
export class StatusUnknownError extends CliError {
  readonly exitCode = ExitCode.unknown;
  readonly payoutId: string | undefined;
  constructor(message: string, opts: { payoutId: string | undefined; hint?: string }) {
    super(message, opts.hint);
    this.payoutId = opts.payoutId;
  }
}

/** Ctrl-C (exit 130); `payoutId`: the payout it may have left made or not (payout create). */
export class InterruptedError extends CliError {
  readonly exitCode = ExitCode.interrupted;
  readonly payoutId: string | undefined;
  constructor(message = 'Interrupted.', hint?: string, payoutId?: string) {
    super(message, hint);
    this.payoutId = payoutId;
  }
}

/**
 * A batch's first stop ended a request that had not started (its connection or its proxy tunnel
 * not open yet): nothing of it was sent. (The first stop lets requests in flight finish.)
 */
export class NotSentError extends InterruptedError {}

export function exitCodeOf(err: unknown): number {
  return err instanceof CliError ? err.exitCode : ExitCode.failed;
}
