/**
 * The service's error answers, in every shape docs/service.md ("Errors") says payctl tolerates:
 * Laravel's `{ message, errors: {field: [..]} }`, the envelope's `{ status: "Failed", message,
 * code, errors }`, `error` as a string or object, and RFC 9457 problem details; read into one
 * ParsedError (message, code, field errors). Also the depth guard for any JSON the service
 * sends, and the code of a duplicate payout id.
 */
import * as z from 'zod/mini';
import '../zod.js';
import type { FieldError } from '../errors.js';

const opt = z.optional;
/** A field read when it has a tolerable type, and left out (the rest still read) when it has another: `message: null` lost the whole answer. */
const tolerant = <T extends z.core.SomeType>(schema: T) => z.catch(z.optional(schema), undefined);
/** A code as a string or a number (`"code": 40101`), read as a string. */
const codeField = () => tolerant(z.union([z.string(), z.pipe(z.number(), z.transform(String))]));

/**
 * Every tolerated error body (docs/service.md "Errors"): Laravel's `{ message, errors: {field: [..]} }`, the envelope's `{ status: "Failed", message, code, errors }`, `error` as a
 * string or object, and RFC 9457 problem details (`type`, `title`, numeric `status`, `detail`, `errors`).
 */
export const errorBodySchema = z.lazy(() => {
  const errorsList = z.array(
    z.union([
      // { field, message }; RFC 9457's extension members often use { pointer, detail }.
      z.looseObject({ field: opt(z.string()), path: opt(z.string()), pointer: opt(z.string()), message: opt(z.string()), detail: opt(z.string()) }),
      z.string(),
    ]),
  );
  const errorsMap = z.record(z.string(), z.union([z.array(z.string()), z.string()]));
  return z.looseObject({
    status: tolerant(z.union([z.string(), z.number()])),
    message: tolerant(z.string()),
    code: codeField(),
    title: tolerant(z.string()),
    detail: tolerant(z.string()),
    errors: tolerant(z.union([errorsList, errorsMap])),
    error: tolerant(z.union([z.string(), z.looseObject({ message: tolerant(z.string()), code: codeField() })])),
  });
});

export interface ParsedError {
  message: string | undefined;
  code: string | undefined;
  errors: FieldError[];
}

/** Deeper JSON than this is refused: nothing in the contract nests past a few levels, and a 10,000-deep answer overflowed the stack. */
export const MAX_JSON_DEPTH = 64;

/** True when arrays and objects in this JSON text nest deeper than `limit` (one linear pass; strings skipped). */
export function tooDeep(json: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string, escapes included.
      for (i++; i < json.length && json.charCodeAt(i) !== 0x22; i++) if (json.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Reads an error body in any tolerated form; `undefined` when it is not JSON of that shape. */
export function parseErrorBody(raw: string): ParsedError | undefined {
  let json: unknown;
  try {
    if (tooDeep(raw)) return undefined;
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const r = errorBodySchema.safeParse(json);
  if (!r.success) return undefined;
  const b = r.data;
  const errors: FieldError[] = [];
  if (Array.isArray(b.errors)) {
    for (const e of b.errors) {
      if (typeof e === 'string') errors.push({ field: '', message: e });
      else errors.push({ field: e.field ?? e.path ?? pointerField(e.pointer) ?? '', message: e.message ?? e.detail ?? 'invalid' });
    }
  } else if (b.errors) {
    for (const [field, msgs] of Object.entries(b.errors)) {
      for (const m of Array.isArray(msgs) ? msgs : [msgs]) errors.push({ field, message: m });
    }
  }
  const nested = typeof b.error === 'object' ? b.error : undefined;
  const message = b.message ?? problemText(b.title, b.detail) ?? (typeof b.error === 'string' ? b.error : nested?.message);
  const given: string | undefined = b.code ?? nested?.code;
  // A code of the service's own is kept, unless it too says duplicate ("DUPLICATE", 409's
  // "ALREADY_EXISTS") of a refusal naming the payout id: read as another refusal, the payout
  // the service says it has was recorded as never made, and paid again.
  const duplicate = (given === undefined || DUPLICATE_CODE.test(given)) && namesDuplicatePayoutId(message, errors);
  return { message, code: duplicate ? DUPLICATE_PAYOUT_ID : given, errors };
}

/** A service's own code that says a duplicate (its message or field errors say of what). */
const DUPLICATE_CODE = /duplicate|already|taken|exists/i;

/** The code payctl gives an answer that says the payout id was used before, however the service words it. */
export const DUPLICATE_PAYOUT_ID = 'DUPLICATE_PAYOUT_ID';

/**
 * A refusal naming a payout id used before: a field error on payoutId (Laravel's unique rule:
 * "The payout id has already been taken.") or a message saying so.
 */
function namesDuplicatePayoutId(message: string | undefined, errors: FieldError[]): boolean {
  const dup = /already (been )?(taken|used|exists)|duplicate/i;
  if (errors.some((e) => /^payout_?id$/i.test(e.field) && dup.test(e.message))) return true;
  return !!message && /payout ?_?id/i.test(message) && dup.test(message);
}

/** A problem's text: its detail, after its title when the detail does not already say it. */
function problemText(title: string | undefined, detail: string | undefined): string | undefined {
  if (!detail) return title || undefined;
  return title && !detail.toLowerCase().includes(title.toLowerCase()) ? `${title}: ${detail}` : detail;
}

/** A JSON Pointer (RFC 6901) to a body field as a field path: `/recipient/accountDetails/name` -> `recipient.accountDetails.name`. */
function pointerField(pointer: string | undefined): string | undefined {
  if (pointer === undefined) return undefined;
  const path = pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  return path.length ? path.join('.') : undefined;
}
