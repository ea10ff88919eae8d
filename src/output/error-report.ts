/**
 * Errors for people (what failed, status and code, field errors, request id, what to
 * do next) and for scripts (`{"error":{message,status,code,request_id,errors,hint}}`, and
 * `payout_id` when the error is about one payout: its outcome unknown, interrupted, settled
 * Failed or still Pending; an unknown outcome is always code OUTCOME_UNKNOWN, with what left
 * it so in `cause`). Network faults get payctl's own codes (errors.ts networkCode), never the
 * HTTP client's names.
 * In JSON each of `errors` names its flag or column in `field` (and a batch file's `row`)
 * and holds the message without it; the hint (what to do next) is `hint`, never part of
 * the message (null when there is none), a sentence even where people read it as an aside
 * in parentheses. commander's own usage errors are read into that shape by parse-error.ts.
 *
 * Every string in an error may come from the service (its message, code, field errors,
 * request id, and hints that quote them), so all of them pass through the sanitizer, in
 * text and in JSON alike: the JSON is printed by consumers too, and JSON.stringify escapes
 * only C0 controls, passing 8-bit CSI (U+009B) and bidi controls through as they are.
 * One-line parts (code, request id, field names and field messages) also lose newlines.
 */
import {
  ApiError,
  AuthError,
  CancelledError,
  CliError,
  InterruptedError,
  NetworkError,
  NotAskedError,
  OutcomeUnknownError,
  PayoutFailedError,
  StillPendingError,
  StatusUnknownError,
  UsageError,
  networkCode,
  type FieldError,
} from '../errors.js';

const OUTCOME_UNKNOWN = 'OUTCOME_UNKNOWN';

/** What left a payout's outcome unknown, as a documented code (TIMEOUT, SERVICE_ERROR, ...); null when nothing more is known. */
function causeOf(err: OutcomeUnknownError): string | null {
  return err.causeCode === undefined || err.causeCode === OUTCOME_UNKNOWN ? null : networkCode(err.causeCode);
}
import { jsonLine } from './json.js';
import { asSentence } from './parse-error.js';
import { sanitize, sanitizeInline } from './sanitize.js';
import type { Style } from './style.js';

/** A field error; a usage error's problem on a batch file's row also gives the row. */
type ErrorItem = FieldError & { row?: number };

interface ErrorFields {
  message: string;
  status: number | null;
  code: string | null;
  request_id: string | null;
  errors: ErrorItem[];
}

function fieldsOf(err: unknown): ErrorFields {
  const base: ErrorFields = { message: '', status: null, code: null, request_id: null, errors: [] };
  if (err instanceof ApiError) {
    return {
      ...base,
      message: err.message,
      status: err.status ?? null,
      code: err.code ?? null,
      request_id: err.requestId ?? null,
      errors: err.errors,
    };
  }
  if (err instanceof AuthError) {
    return { ...base, message: err.message, status: err.status ?? null, code: err.status === 403 ? 'FORBIDDEN' : 'UNAUTHORIZED', request_id: err.requestId ?? null };
  }
  if (err instanceof UsageError) {
    return {
      ...base,
      message: err.message,
      code: 'USAGE_ERROR',
      // Each problem one entry (README): a refusal of no single flag or cell is one of field "".
      errors: err.issues.length
        ? err.issues.map(({ field, message, row }) => ({ field, message, ...(row !== undefined ? { row } : {}) }))
        : [{ field: '', message: err.message }],
    };
  }
  // One code for a payout of unknown outcome, whatever left it so (create, get, reconcile alike).
  if (err instanceof OutcomeUnknownError)
    return { ...base, message: err.message, code: OUTCOME_UNKNOWN, errors: err.rows.map(({ field, message, row }) => ({ field, message, row })) };
  if (err instanceof NetworkError) return { ...base, message: err.message, code: networkCode(err.causeCode) };
  if (err instanceof InterruptedError) return { ...base, message: err.message, code: 'INTERRUPTED' };
  // A payout that settled Failed (exit 1) or is still Pending at the --wait limit (exit 5).
  if (err instanceof PayoutFailedError) return { ...base, message: err.message, code: 'PAYOUT_FAILED' };
  if (err instanceof StillPendingError) return { ...base, message: err.message, code: err.code };
  if (err instanceof StatusUnknownError) return { ...base, message: err.message, code: 'STATUS_UNKNOWN' };
  if (err instanceof CliError) return { ...base, message: err.message };
  return { ...base, message: err instanceof Error ? err.message : String(err) };
}

/** The payout an error is about, when it is about one. */
function payoutIdOf(err: unknown): string | undefined {
  if (
    err instanceof OutcomeUnknownError ||
    err instanceof PayoutFailedError ||
    err instanceof StillPendingError ||
    err instanceof StatusUnknownError ||
    err instanceof InterruptedError
  )
    return err.payoutId;
  return undefined;
}

/** The fields of an error with every string sanitized; the hint only for CliErrors (else null). */
function cleanFieldsOf(err: unknown): ErrorFields & { hint: string | null; payout_id?: string; cause?: string | null } {
  const f = fieldsOf(err);
  const payoutId = payoutIdOf(err);
  return {
    message: sanitize(f.message),
    status: f.status,
    code: f.code === null ? null : sanitizeInline(f.code),
    request_id: f.request_id === null ? null : sanitizeInline(f.request_id),
    errors: f.errors.map((e) => ({ field: sanitizeInline(e.field), message: sanitizeInline(e.message), ...(e.row !== undefined ? { row: e.row } : {}) })),
    hint: err instanceof CliError && err.hint ? sanitize(err.hint) : null,
    ...(payoutId !== undefined ? { payout_id: sanitizeInline(payoutId) } : {}),
    ...(err instanceof OutcomeUnknownError ? { cause: causeOf(err) } : {}),
  };
}

export function renderErrorJson(err: unknown): string {
  const fields = cleanFieldsOf(err);
  // A hint written for people as an aside, "(run `payctl x --help` for usage)", is a sentence here.
  if (fields.hint !== null) fields.hint = asSentence(fields.hint);
  // cli.ts writes this to the process's stderr itself: escaped here too (json.ts).
  return jsonLine({ error: fields });
}

/** commander's usage errors, as --json reports them (cli.ts loads this module only for an error). */
export { parseUsageError } from './parse-error.js';

export function renderErrorText(err: unknown, style: Style, verbose = false): string {
  // A No at a confirmation is an answer, not an error: said as it is, without "Error:".
  if (err instanceof CancelledError) return `${sanitize(err.message)}\n`;
  const f = cleanFieldsOf(err);
  const lines: string[] = [];
  lines.push(`${style.red('Error:')} ${f.message}`);
  // The service's status and code, when the service answered (not for local problems, nor an id not asked of it).
  if (f.status !== null || (f.code && err instanceof ApiError && !(err instanceof NotAskedError))) {
    lines.push(`  ${[f.status !== null ? `HTTP ${f.status}` : '', f.code ?? ''].filter(Boolean).join(' ')}`);
  }
  // A usage error's problems as listed for people (row and field in words); others by field.
  // A batch's rows of unknown outcome as listed for people ("row 2: payout_id ...").
  const items =
    err instanceof UsageError
      ? err.problems.map(sanitizeInline)
      : err instanceof OutcomeUnknownError && err.rows.length
        ? err.rows.map((p) => sanitizeInline(p.text))
        : f.errors.map((e) => `${e.field ? style.bold(e.field) + ': ' : ''}${e.message}`);
  for (const item of items) lines.push(`  - ${item}`);
  if (f.request_id) lines.push(`  Request ID: ${f.request_id}`);
  if (f.hint) lines.push(f.hint);
  if (!(err instanceof CliError)) {
    // The stack starts with the message, which may quote the service.
    if (verbose && err instanceof Error && err.stack) lines.push(style.dim(sanitize(err.stack)));
    else lines.push('This is a bug in payctl. Run again with --verbose for details.');
  }
  return lines.join('\n') + '\n';
}
