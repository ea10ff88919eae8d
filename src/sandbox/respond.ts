/**
 * What the sandbox answers: the success envelope, the error body of contract.md's
 * error table, request ids. A handler returns a `Reply`; the server writes it
 * (or, under a fault, drops it).
 */
import { randomBytes } from 'node:crypto';
import { toJson } from './json.js';
import { isoFromMicros, nowMicros } from './time.js';

export interface Reply {
  status: number;
  /** The raw body text (JSON unless `contentType` says otherwise). */
  body: string;
  headers?: Record<string, string>;
  contentType?: string;
}

export interface FieldProblem {
  field: string;
  message: string;
}

export function requestId(): string {
  return 'req_' + randomBytes(12).toString('hex');
}

export function timestamp(): string {
  return isoFromMicros(nowMicros());
}

/** `{ status: "Successful", message, data, timestamp }`; `data` may hold JsonNumber amounts. */
export function success(status: number, message: string, data: unknown, headers?: Record<string, string>): Reply {
  const reply: Reply = { status, body: toJson({ status: 'Successful', message, data, timestamp: timestamp() }) };
  if (headers) reply.headers = headers;
  return reply;
}

/** `{ status: "Failed", message, code, errors?, timestamp }`. */
export function failure(status: number, code: string, message: string, opts: { errors?: FieldProblem[]; headers?: Record<string, string> } = {}): Reply {
  const body = { status: 'Failed', message, code, errors: opts.errors, timestamp: timestamp() };
  const reply: Reply = { status, body: toJson(body) };
  if (opts.headers) reply.headers = opts.headers;
  return reply;
}

export function validationFailure(errors: FieldProblem[]): Reply {
  const first = errors[0];
  const message = errors.length === 1 && first ? `Validation failed: ${first.field} ${first.message}.` : `Validation failed: ${errors.length} problems.`;
  return failure(400, 'VALIDATION_ERROR', message, { errors });
}

export function unauthorized(message: string): Reply {
  return failure(401, 'UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': 'Bearer' } });
}

export function notFound(message: string): Reply {
  return failure(404, 'NOT_FOUND', message);
}

export function rateLimited(retryAfterSeconds: number): Reply {
  return failure(429, 'RATE_LIMITED', `Too many requests; retry after ${retryAfterSeconds} s.`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

/** The error a bare status stands for (used by the `status` fault). */
export function failureForStatus(status: number, override: { code?: string; message?: string } = {}): Reply {
  const table: Record<number, [string, string]> = {
    400: ['VALIDATION_ERROR', 'The request is invalid.'],
    401: ['UNAUTHORIZED', 'Credentials are missing, wrong or expired.'],
    403: ['FORBIDDEN', 'Not allowed.'],
    404: ['NOT_FOUND', 'Not found.'],
    408: ['REQUEST_TIMEOUT', 'The request took too long.'],
    409: ['IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed.'],
    422: ['UNPROCESSABLE', 'The request cannot be processed.'],
    429: ['RATE_LIMITED', 'Too many requests; retry after 1 s.'],
  };
  const [code, message] = table[status] ?? (status >= 500 ? ['INTERNAL_ERROR', 'Internal error; please retry.'] : [`HTTP_${status}`, `HTTP ${status}.`]);
  const headers: Record<string, string> = {};
  if (status === 429 || status === 409 || status === 503) headers['Retry-After'] = '1';
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  return failure(status, override.code ?? code, override.message ?? message, { headers });
}
