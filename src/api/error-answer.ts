/**
 * A non-2xx answer as an ApiError (apiErrorFrom): the service's words from any tolerated
 * error-body form (sanitized onto one line), else what its status means, a redirect said with
 * where it points (payctl follows none), a compressed body said as such; and the hint for it.
 */
import { ApiError } from '../errors.js';
import { sanitizeInline } from '../output/sanitize.js';
import { maskBaseUrl } from '../config/mask.js';
import { parseErrorBody } from '../service/schemas.js';
import { COMPRESSED_HINT, compressedBody, excerpt } from './envelope.js';
import type { HttpResponse } from './client.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'The request was rejected as invalid',
  403: 'The request was forbidden',
  404: 'Not found',
  409: 'The request conflicts with an earlier one',
  422: 'The service could not process the request',
  429: 'The service is rate limiting requests',
};

/** An ApiError from a non-2xx answer, in any tolerated error-body form. */
export function apiErrorFrom(res: HttpResponse, prefix?: string): ApiError {
  const parsed = parseErrorBody(res.raw);
  let message: string;
  // The service's words, on one line: a message with line breaks would print lines of its own
  // making under "Error:" ("✓ Payout … is Successful." on stderr of a refusal, exit 1).
  if (parsed?.message) message = sanitizeInline(parsed.message);
  else if (parsed) message = STATUS_TEXT[res.status] ?? `The service answered HTTP ${res.status}`;
  else if (REDIRECTS.has(res.status)) message = redirectMessage(res);
  else message = compressedBody(res) ?? `The service answered HTTP ${res.status} with a body that is not JSON: ${excerpt(res.raw)}`;
  if (prefix) message = `${prefix}: ${message}`;
  const code = parsed?.code ?? (res.status === 404 ? 'NOT_FOUND' : undefined);
  let hint: string | undefined;
  if (res.status >= 500) hint = 'The service failed; try again later. If it persists, quote the request id to support.';
  else if (res.status === 429) hint = 'Wait a little and try again.';
  else if (!parsed && compressedBody(res)) hint = COMPRESSED_HINT;
  else if (REDIRECTS.has(res.status))
    hint = 'If the service has moved, the base URL needs changing: log in again with the new one (payctl login --base-url URL, with --profile for another profile).';
  return new ApiError(message, {
    status: res.status,
    code,
    requestId: res.requestId,
    errors: parsed?.errors ?? [],
    hint,
  });
}

/** The statuses that send a client elsewhere (304 Not Modified sends nowhere). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A redirect said as one, with where it points (sanitized, a user name and password in it masked):
 * payctl follows none, since the key is sent to the base URL's origin only (a redirect to another
 * host would carry it there).
 */
function redirectMessage(res: HttpResponse): string {
  const location = res.headers.location;
  const to = location ? `to ${JSON.stringify(maskBaseUrl(sanitizeInline(location)).slice(0, 200))}` : 'without a Location';
  return `The service answered HTTP ${res.status}, a redirect ${to}: payctl does not follow redirects (the API key goes only to the base URL's origin).`;
}
