/**
 * Keeps secrets out of --verbose output: credential headers and secret-looking JSON
 * fields become ***, and any known secret value is masked wherever it appears, in any form
 * SecretMask knows (output/secrets.ts).
 */
import { parseServiceJson } from '../service/exact-json.js';

const SECRET_HEADER = /^(authorization|api-key|x-api-key|proxy-authorization|cookie|set-cookie)$/i;
const SECRET_FIELD = /(token|api[-_]?key|secret|password|authorization)/i;

export const MASK = '***';

export function redactHeader(name: string, value: string): string {
  if (!SECRET_HEADER.test(name)) return value;
  if (/^authorization$/i.test(name)) {
    const scheme = /^(\w+)\s/.exec(value)?.[1];
    return scheme ? `${scheme} ${MASK}` : MASK;
  }
  return MASK;
}

function maskValues(value: unknown, key?: string): unknown {
  if (key !== undefined && SECRET_FIELD.test(key) && (typeof value === 'string' || typeof value === 'number')) return MASK;
  if (Array.isArray(value)) return value.map((v) => maskValues(v));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskValues(v, k)]));
  }
  return value;
}

/** What masks the known secrets in a text, in every form it knows (output/secrets.ts, SecretMask). */
export interface Masker {
  apply(text: string): string;
}

/** A body for the verbose log: secret JSON fields masked, known secrets masked, long bodies cut. */
export function redactBody(body: string, secrets: Masker, limit = 64 * 1024): string {
  let text = body;
  try {
    const parsed: unknown = parseServiceJson(body);
    // Only re-serialize when something is masked: keep the service's bytes otherwise.
    const masked = maskValues(parsed);
    if (JSON.stringify(masked) !== JSON.stringify(parsed)) text = JSON.stringify(masked);
  } catch {
    // not JSON: mask known secrets only
  }
  text = secrets.apply(text);
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length - limit} more characters)` : text;
}
