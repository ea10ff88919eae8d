/**
 * The canonical JSON form that plan hashes and signatures are computed over (RFC 8785,
 * JSON Canonicalization Scheme, for the values a plan holds): object keys sorted by their
 * UTF-16 code units, no whitespace, strings escaped as JSON.stringify escapes them (lone
 * surrogates as \uXXXX), numbers in ECMAScript's shortest form. Strings are never
 * normalized: "é" written as one code point or as e + U+0301 are different bytes, so
 * different plans. Numbers other than safe integers are refused: amounts travel inside
 * the exact request bodies (strings), never as numbers to be re-printed.
 */

export class CanonicalError extends Error {}

export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out, 0);
  return out.join('');
}

function write(value: unknown, out: string[], depth: number): void {
  if (depth > 32) throw new CanonicalError('nested more than 32 levels deep');
  if (value === null || typeof value === 'boolean') {
    out.push(String(value));
    return;
  }
  if (typeof value === 'string') {
    out.push(JSON.stringify(value));
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new CanonicalError(`the number ${String(value)} is not a whole number a plan can hold exactly`);
    out.push(Object.is(value, -0) ? '0' : String(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item: unknown, i) => {
      if (i > 0) out.push(',');
      write(item, out, depth + 1);
    });
    out.push(']');
    return;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    // Sorted by UTF-16 code units (RFC 8785 3.2.3): the default sort of JS strings.
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out.push('{');
    entries.forEach(([k, v], i) => {
      if (i > 0) out.push(',');
      out.push(JSON.stringify(k), ':');
      write(v, out, depth + 1);
    });
    out.push('}');
    return;
  }
  throw new CanonicalError(`a ${typeof value} cannot be part of a plan`);
}
