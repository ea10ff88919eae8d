/**
 * JSON text with exact numbers. Money leaves the sandbox as JSON numbers written from
 * digits (`minorToJsonNumber`), never through a binary float: a `JsonNumber` holds the
 * literal and `toJson` copies it into the text as is. Everything else is written as
 * JSON.stringify would write it (undefined properties are left out).
 */
import { minorToJsonNumber } from '../money/amount.js';

export class JsonNumber {
  constructor(readonly literal: string) {
    if (!/^-?(0|[1-9]\d*)(\.\d+)?$/.test(literal)) throw new RangeError(`not a JSON number literal: ${literal}`);
  }
}

/**
 * A number of a request body that a binary double would change (more than 15 significant
 * digits, or past a double's range: src/service/exact-json.ts), kept as its literal: body.ts
 * reads bodies so, and validation refuses it as an amount. Written as the string of its digits.
 */
export class ExactNumber {
  constructor(readonly literal: string) {}

  toJSON(): string {
    return this.literal;
  }
}

/** A number literal's value: sign, significant digits (no leading or trailing zeros; '' for zero) and exponent. */
export interface DecimalValue {
  negative: boolean;
  digits: string;
  exp: bigint;
}

/** The value of a JSON number literal ("-10.50e2" is -105e1), exact; undefined for anything else. */
export function decimalValue(literal: string): DecimalValue | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  const all = (m[2]! + frac).replace(/^0+/, '');
  const digits = all.replace(/0+$/, '');
  if (!digits) return { negative: false, digits: '', exp: 0n };
  // A bigint exponent: a 400-digit exponent stays exact too.
  const exp = BigInt(m[4] ?? '0') - BigInt(frac.length) + BigInt(all.length - digits.length);
  return { negative: m[1] === '-', digits, exp };
}

/** Whether two number literals have the same value ("10.0" and "1e1"). */
function sameNumber(a: string, b: string): boolean {
  const x = decimalValue(a);
  const y = decimalValue(b);
  return x !== undefined && y !== undefined ? x.negative === y.negative && x.digits === y.digits && x.exp === y.exp : a === b;
}

/** An amount in minor units as an exact JSON number: 150050n, 2 -> 1500.5. */
export function money(minor: bigint, digits: number): JsonNumber {
  return new JsonNumber(minorToJsonNumber(minor, digits));
}

export function toJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

function write(value: unknown, out: string[]): void {
  if (value instanceof JsonNumber) {
    out.push(value.literal);
    return;
  }
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') throw new TypeError('bigint in a JSON payload: wrap it with money()');
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      const item: unknown = value[i];
      write(item === undefined || typeof item === 'function' ? null : item, out);
    }
    out.push(']');
    return;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    write((value as { toJSON(): unknown }).toJSON(), out);
    return;
  }
  out.push('{');
  let first = true;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function') continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    write(v, out);
  }
  out.push('}');
}

/**
 * Deep equality of parsed JSON values (object key order does not matter). An ExactNumber
 * equals only another of the same value: never a number a double holds, which has another value.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof ExactNumber || b instanceof ExactNumber) {
    return a instanceof ExactNumber && b instanceof ExactNumber && sameNumber(a.literal, b.literal);
  }
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k], bo[k]));
}
