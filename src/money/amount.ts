/**
 * Exact money. An amount is a decimal string; arithmetic happens on bigint minor
 * units; JSON numbers are written from digits, never through a binary float.
 */
import { minorDigits } from './currencies.js';

const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export type AmountParse = { ok: true; minor: bigint; digits: number; decimal: string } | { ok: false; problem: string };

/**
 * Parses what a person or a file gives as an amount: a plain decimal string
 * ("1500.50"), no sign, exponent, hex, grouping commas or spaces, greater than
 * zero, with at most the currency's ISO 4217 minor-unit digits.
 */
export function parseAmount(input: string, currency: string): AmountParse {
  const digits = minorDigits(currency);
  if (digits === undefined) return { ok: false, problem: `unknown currency "${currency}"` };
  const m = PLAIN_DECIMAL.exec(input);
  if (!m) {
    return {
      ok: false,
      problem: `"${input}" is not a plain decimal amount (use digits and at most one ".", e.g. 1500.50)`,
    };
  }
  const whole = m[1]!;
  const frac = m[2] ?? '';
  if (frac.length > digits) {
    return {
      ok: false,
      problem:
        digits === 0
          ? `${currency.toUpperCase()} has no minor units: "${input}" must be a whole number`
          : `${currency.toUpperCase()} allows at most ${digits} decimal places: "${input}"`,
    };
  }
  const minor = BigInt(whole + frac.padEnd(digits, '0'));
  if (minor <= 0n) return { ok: false, problem: `amount must be greater than zero: "${input}"` };

  return { ok: true, minor, digits, decimal: minorToDecimal(minor, digits) };
}

/**
 * Digits a JSON amount may have: 15 significant digits survive any reader that parses
 * JSON numbers as IEEE doubles (RFC 7493, I-JSON); more may come out as another amount.
 */
export const MAX_SIGNIFICANT_DIGITS = 15;

/** Significant digits of minor units: from the first to the last non-zero digit. */
export function significantDigits(minor: bigint): number {
  return (minor < 0n ? -minor : minor).toString().replace(/0+$/, '').length;
}

/** Minor units to a canonical decimal string with exactly `digits` decimals ("1500.50"). */
export function minorToDecimal(minor: bigint, digits: number): string {
  const neg = minor < 0n;
  const s = (neg ? -minor : minor).toString().padStart(digits + 1, '0');
  const whole = s.slice(0, s.length - digits);
  const frac = s.slice(s.length - digits);
  return (neg ? '-' : '') + whole + (digits > 0 ? '.' + frac : '');
}

/**
 * Minor units to the JSON number literal with no needless zeros:
 * 150050n, 2 -> "1500.5"; 30n, 2 -> "0.3"; 1500n, 0 -> "1500".
 */
export function minorToJsonNumber(minor: bigint, digits: number): string {
  const d = minorToDecimal(minor, digits);
  return d.includes('.') ? d.replace(/0+$/, '').replace(/\.$/, '') : d;
}

/**
 * A JSON number as the service sent it, as an exact decimal string. String(n) gives
 * the shortest literal that reads back as n, which is the literal the service wrote
 * for every amount of up to 15 significant digits; exponent forms are expanded by
 * moving the point in the digit string, not by arithmetic.
 */
export function decimalFromNumber(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite amount: ${n}`);
  const s = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, int, frac = '', expStr] = m;
  const exp = Number(expStr);
  const digits = int! + frac;
  const point = int!.length + exp;
  let out: string;
  if (point <= 0) out = '0.' + '0'.repeat(-point) + digits;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = digits.slice(0, point) + '.' + digits.slice(point);
  return sign + out;
}

/** An amount as the service sends it (a JSON number, or a decimal string) as an exact decimal string. */
export function toDecimal(value: number | string): string {
  return typeof value === 'number' ? decimalFromNumber(value) : value;
}

function fractionDigits(decimal: string): number {
  return decimal.includes('.') ? decimal.length - decimal.indexOf('.') - 1 : 0;
}

/**
 * Amounts of one currency in minor units at one scale: the currency's digits, or more
 * when an amount from the service has more (so nothing is ever rounded away).
 */
export function toCommonMinor(values: Array<number | string>, currency: string): { minors: bigint[]; digits: number } {
  const decimals = values.map(toDecimal);
  const digits = Math.max(minorDigits(currency) ?? 2, ...decimals.map(fractionDigits));
  return { minors: decimals.map((d) => decimalToMinor(d, digits)), digits };
}

/** A decimal string (possibly signed) to minor units; extra digits beyond `digits` are an error. */
export function decimalToMinor(decimal: string, digits: number): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(decimal);
  if (!m) throw new RangeError(`not a decimal: ${decimal}`);
  const frac = m[3] ?? '';
  if (frac.replace(/0+$/, '').length > digits) throw new RangeError(`${decimal} has more than ${digits} decimals`);
  const v = BigInt(m[2]! + frac.slice(0, digits).padEnd(digits, '0'));
  return m[1] ? -v : v;
}

/**
 * An amount for people: the currency's digits, thousands separators, no rounding.
 * formatAmount(1500.5, 'SLE') -> "1,500.50"; formatAmount(1234567, 'JPY') -> "1,234,567".
 * Digits beyond the currency's exponent are kept (never rounded away) if the service sends them.
 */
export function formatAmount(value: number | string | bigint, currency: string): string {
  const digits = minorDigits(currency) ?? 2;
  const decimal = typeof value === 'bigint' ? minorToDecimal(value, digits) : toDecimal(value);
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(decimal);
  if (!m) return decimal;
  const [, sign, int, frac = ''] = m;
  const fracOut = frac.length >= digits ? frac : frac.padEnd(digits, '0');
  const grouped = int!.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return sign + grouped + (fracOut ? '.' + fracOut : '');
}

/** Adds decimal amounts exactly (for totals), returning minor units. */
export function sumMinor(values: Array<number | string>, digits: number): bigint {
  let total = 0n;
  for (const v of values) total += decimalToMinor(toDecimal(v), digits);
  return total;
}

/** An amount as a plain exact decimal with at least the currency's digits, no grouping ("1.00"). */
export function plainAmount(value: number | string, currency: string): string {
  return formatAmount(value, currency).replace(/,/g, '');
}

/** A balance as the service gave it, in minor units of its currency; undefined when it cannot be read exactly. */
export function balanceMinor(balance: number | string, currency: string): bigint | undefined {
  const digits = minorDigits(currency);
  if (digits === undefined) return undefined;
  try {
    return decimalToMinor(toDecimal(balance), digits);
  } catch {
    return undefined;
  }
}
