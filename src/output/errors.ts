/**
 * Errors for people (what failed, status and code, field errors, request id, what to
 * do next) and for scripts (`{"error":{message,status,code,request_id,errors}}`).
 */
import { ApiError, AuthError, CliError, NetworkError, UsageError, type FieldError } from '../errors.js';
import { sanitize } from './sanitize.js';
import type { Style } from './style.js';

interface ErrorFields {
  message: string;
  status: number | null;
  code: string | null;
  request_id: string | null;
  errors: FieldError[];
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
    return { ...base, message: err.message, status: err.status ?? null, code: 'UNAUTHORIZED', request_id: err.requestId ?? null };
  }
  if (err instanceof UsageError) {
    return {
      ...base,
      message: err.message,
      code: 'USAGE_ERROR',
      errors: err.problems.map((p) => ({ field: '', message: p })),
    };
  }
  if (err instanceof NetworkError) return { ...base, message: err.message, code: err.causeCode ?? 'NETWORK_ERROR' };
  if (err instanceof CliError) return { ...base, message: err.message };
  return { ...base, message: err instanceof Error ? err.message : String(err) };
}

export function renderErrorJson(err: unknown): string {
  const f = fieldsOf(err);
  const out: ErrorFields & { hint?: string } = { ...f, message: sanitize(f.message) };
  out.errors = f.errors.map((e) => ({ field: sanitize(e.field), message: sanitize(e.message) }));
  if (err instanceof CliError && err.hint) out.hint = err.hint;
  return JSON.stringify({ error: out }) + '\n';
}

export function renderErrorText(err: unknown, style: Style, verbose = false): string {
  const f = fieldsOf(err);
  const lines: string[] = [];
  lines.push(`${style.red('Error:')} ${sanitize(f.message)}`);
  // The service's status and code, when the service answered (not for local problems).
  if (f.status !== null || (f.code && err instanceof ApiError)) {
    lines.push(`  ${[f.status !== null ? `HTTP ${f.status}` : '', f.code ?? ''].filter(Boolean).join(' ')}`);
  }
  for (const e of f.errors) {
    const field = sanitize(e.field);
    lines.push(`  - ${field ? style.bold(field) + ': ' : ''}${sanitize(e.message)}`);
  }
  if (f.request_id) lines.push(`  Request ID: ${sanitize(f.request_id)}`);
  if (err instanceof CliError && err.hint) lines.push(err.hint);
  if (!(err instanceof CliError)) {
    if (verbose && err instanceof Error && err.stack) lines.push(style.dim(err.stack));
    else lines.push('This is a bug in payctl. Run again with --verbose for details.');
  }
  return lines.join('\n') + '\n';
}
