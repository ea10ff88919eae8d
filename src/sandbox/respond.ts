/**
 * What the sandbox answers: the success envelope, errors, request ids. A handler returns a
 * `Reply`: either a finished body (successes, replays) or an `ApiFailure`, which `render`
 * writes in the error shape the sandbox is set to (docs/service.md "Errors"):
 *
 * - `laravel` (default): validation failures as Laravel writes them, 422
 *   `{message: "<first> (and N more errors)", errors: {field: [messages]}}`; 401 as
 *   `{message: "Unauthenticated."}`; everything else the envelope
 *   `{status: "Failed", message, code?, timestamp}`.
 * - `envelope`: every error `{status: "Failed" | "Error", message, errors?, timestamp}`.
 * - `error`: `{error: {message, code}}`.
 * - `problem`: RFC 9457 `application/problem+json` `{type, title, status, detail, errors?}`.
 *
 * Admin routes keep one shape of their own (`admin`): the envelope with `code` and `errors`.
 */
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { toJson } from './json.js';
import type { ErrorShape } from './shapes.js';
import { isoFromMicros, nowMicros } from './time.js';

export interface FieldProblem {
  /** The field as the request names it: `amount`, `recipient.accountDetails.phoneNumber`. */
  field: string;
  /** The whole sentence, as Laravel writes it: "The amount field is required." */
  message: string;
}

/** An error before it is written in a shape. */
export interface ApiFailure {
  /** A machine code (kept from the earlier contract); left out where the service has none. */
  code?: string;
  message: string;
  /** Field problems: a validation failure. */
  fields?: FieldProblem[];
}

export interface Reply {
  status: number;
  /** The raw body text (JSON unless `contentType` says otherwise); absent when `failure` is set. */
  body?: string;
  failure?: ApiFailure;
  headers?: Record<string, string>;
  contentType?: string;
}

/** A reply ready to be written. */
export interface Rendered {
  status: number;
  body: string;
  headers?: Record<string, string>;
  contentType?: string;
}

export function requestId(): string {
  return 'req_' + randomBytes(12).toString('hex');
}

export function timestamp(): string {
  return isoFromMicros(nowMicros());
}

/** `{ status: "Successful", message, data, ...extra, timestamp }`; `data` may hold JsonNumber amounts. */
export function success(status: number, message: string, data: unknown, opts: { headers?: Record<string, string>; extra?: Record<string, unknown> } = {}): Reply {
  const reply: Reply = { status, body: toJson({ status: 'Successful', message, data, ...opts.extra, timestamp: timestamp() }) };
  if (opts.headers) reply.headers = opts.headers;
  return reply;
}

/** An error reply, written later in the sandbox's error shape. */
export function failure(status: number, code: string | undefined, message: string, opts: { fields?: FieldProblem[]; headers?: Record<string, string> } = {}): Reply {
  const f: ApiFailure = { message };
  if (code !== undefined) f.code = code;
  if (opts.fields) f.fields = opts.fields;
  const reply: Reply = { status, failure: f };
  if (opts.headers) reply.headers = opts.headers;
  return reply;
}

/** 422 with field problems (Laravel's validation failure). */
export function validationFailure(fields: FieldProblem[]): Reply {
  return failure(422, 'VALIDATION_ERROR', laravelSummary(fields), { fields });
}

/** Laravel's summary of a validation failure: the first message, then "(and N more errors)". */
export function laravelSummary(fields: FieldProblem[]): string {
  const first = fields[0]?.message ?? 'The given data was invalid.';
  const more = fields.length - 1;
  return more <= 0 ? first : `${first} (and ${more} more ${more === 1 ? 'error' : 'errors'})`;
}

export function unauthorized(): Reply {
  return failure(401, 'UNAUTHORIZED', 'Unauthenticated.', { headers: { 'WWW-Authenticate': 'Bearer' } });
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
    400: ['BAD_REQUEST', 'The request is invalid.'],
    401: ['UNAUTHORIZED', 'Unauthenticated.'],
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

function fieldMap(fields: FieldProblem[]): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const f of fields) (map[f.field] ??= []).push(f.message);
  return map;
}

/** Writes a reply: a failure in `shape`, anything else as it is. */
export function render(reply: Reply, shape: ErrorShape | 'admin'): Rendered {
  const out: Rendered = { status: reply.status, body: reply.body ?? '' };
  if (reply.headers) out.headers = reply.headers;
  if (reply.contentType) out.contentType = reply.contentType;
  const f = reply.failure;
  if (!f) return out;
  const errors = f.fields?.length ? fieldMap(f.fields) : undefined;
  switch (shape) {
    case 'laravel':
      if (errors) out.body = toJson({ message: f.message, errors });
      else if (reply.status === 401) out.body = toJson({ message: f.message });
      else out.body = toJson({ status: 'Failed', message: f.message, code: f.code, timestamp: timestamp() });
      break;
    case 'envelope':
      out.body = toJson({ status: reply.status >= 500 ? 'Error' : 'Failed', message: f.message, errors, timestamp: timestamp() });
      break;
    case 'error':
      out.body = toJson({ error: { message: f.message, code: f.code ?? `HTTP_${reply.status}` } });
      break;
    case 'problem':
      out.body = toJson({ type: 'about:blank', title: STATUS_CODES[reply.status] ?? `HTTP ${reply.status}`, status: reply.status, detail: f.message, errors });
      out.contentType = 'application/problem+json; charset=utf-8';
      break;
    case 'admin':
      out.body = toJson({ status: 'Failed', message: f.message, code: f.code, errors: f.fields, timestamp: timestamp() });
      break;
  }
  return out;
}
