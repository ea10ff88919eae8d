/**
 * A 2xx answer's envelope read (docs/service.md, "Every request"): JSON no deeper than
 * MAX_JSON_DEPTH, numbers kept exact (exact-json.ts), the envelope's shape checked, and a
 * status other than success (`"Failed"` with HTTP 200, with or without `data`) refused in the
 * service's words, so that no command takes it for a success.
 */
import { ApiError } from '../errors.js';
import { sanitize, sanitizeInline } from '../output/sanitize.js';
import { parseServiceJson } from '../service/exact-json.js';
import { envelopeSchema, envelopeSucceeded, MAX_JSON_DEPTH, parseErrorBody, parseOrThrow, tooDeep, type Envelope } from '../service/schemas.js';
import type { HttpResponse } from './client.js';

export function parseEnvelope(res: HttpResponse): Envelope {
  if (tooDeep(res.raw)) {
    throw new ApiError(`The service answered HTTP ${res.status} with JSON nested more than ${MAX_JSON_DEPTH} levels deep; payctl does not read it.`, {
      status: res.status,
      requestId: res.requestId,
      hint: 'The service or a proxy in between is misbehaving. Run with --verbose to see the response.',
    });
  }
  let json: unknown;
  try {
    json = parseServiceJson(res.raw, { exponents: 'text' });
  } catch {
    const compressed = compressedBody(res);
    throw new ApiError(compressed ?? `The service answered HTTP ${res.status} with a body that is not JSON: ${excerpt(res.raw)}`, {
      status: res.status,
      requestId: res.requestId,
      hint: compressed ? COMPRESSED_HINT : 'Check the base URL (a proxy or the wrong host may have answered). Run with --verbose for the whole response.',
    });
  }
  // A status other than success is said first, in the service's words: an error's envelope
  // usually has no `data` ({"status":"Failed","message":"..."}), which the shape check would
  // report instead ("the field data is missing"), losing the service's reason.
  const status = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as { status?: unknown }).status : undefined;
  if (typeof status === 'string' && !envelopeSucceeded({ status })) throw failedEnvelope(res, { status });
  const envelope = parseOrThrow(envelopeSchema, json, 'a response', res.requestId);
  if (!envelopeSucceeded(envelope)) throw failedEnvelope(res, envelope);
  return envelope;
}

/**
 * A 2xx whose envelope says something other than success (`"status": "Failed"` with HTTP 200):
 * an unreadable answer (docs/service.md, "Every request"), so that no command takes it for a
 * success, a read exits 1 with the service's own words, and a payout stays an unknown outcome.
 */
function failedEnvelope(res: HttpResponse, envelope: Pick<Envelope, 'status'>): ApiError {
  const parsed = parseErrorBody(res.raw);
  const word = JSON.stringify(clip(sanitize(String(envelope.status)).trim(), 40));
  const said = parsed?.message ? ` (${clip(sanitize(parsed.message).replace(/\s+/g, ' ').trim(), 200)})` : '';
  return new ApiError(`The service answered HTTP ${res.status} with status ${word}${said}, not "Successful": payctl does not take it for a success.`, {
    status: res.status,
    code: parsed?.code,
    requestId: res.requestId,
    errors: parsed?.errors ?? [],
    hint: 'A success code with a failure in its body: the service, or a proxy in between, is misbehaving. Run with --verbose to see the response.',
  });
}

/** At most `max` characters of `text`, with … when cut. */
function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) + '…' : text;
}

/** A body that is not what was expected, for a message: sanitized, on one line, at most 120 characters. */
export function excerpt(raw: string): string {
  const text = sanitize(raw).replace(/\s+/g, ' ').trim();
  if (!text) return '(empty)';
  return JSON.stringify(text.length > 120 ? text.slice(0, 120) + '…' : text);
}

/**
 * A body that is no JSON because it came compressed (`Content-Encoding: gzip`: a proxy that
 * compresses answers; payctl sends no Accept-Encoding and reads none), said so, never as its
 * bytes read as text (probe 70-S, finding 8: "not JSON: \"���� �0…\""). Undefined for a body
 * with no encoding, or `identity`.
 */
export function compressedBody(res: Pick<HttpResponse, 'status' | 'headers'>): string | undefined {
  const encoding = res.headers['content-encoding']?.trim();
  if (!encoding || /^identity$/i.test(encoding)) return undefined;
  const shown = sanitizeInline(encoding).slice(0, 40);
  return `The service answered HTTP ${res.status} with a compressed body (Content-Encoding: ${shown}), which payctl did not ask for and does not read.`;
}

export const COMPRESSED_HINT =
  'A proxy in between may be compressing answers: have it pass them as they are (payctl sends no Accept-Encoding). Run with --verbose to see the headers.';
