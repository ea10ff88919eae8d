/**
 * Exact money. An amount is a decimal string; arithmetic happens on bigint minor
 * units; JSON numbers are written from digits, never through a binary float.
 */
import { minorDigits } from './currencies.js';
import { ODD_SPACES, visibleWord } from '../words.js';

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
  if (!m) return { ok: false, problem: notPlain(input, digits) };
  const whole = m[1]!;
  const frac = m[2] ?? '';
  if (frac.length > digits) return { ok: false, problem: extraDecimals(input, currency)!.problem };
  const minor = BigInt(whole + frac.padEnd(digits, '0'));
  if (minor <= 0n) return { ok: false, problem: `amount must be greater than zero: "${input}"` };

  return { ok: true, minor, digits, decimal: minorToDecimal(minor, digits) };
}

/** An amount with more decimal places than its currency has: why, and whether the extra digits are all zeros. */
export interface ExtraDecimals {
  problem: string;
  /** The currency's minor-unit digits. */
  digits: number;
  /** The digits past them are all zeros: the same amount, as a column formatted with more decimals writes it. */
  zeros: boolean;
  /** The same amount with the currency's digits (only when `zeros`). */
  write?: string;
  /**
   * The other reading of a `zeros` amount that is one group of three after a '.' ("1.000",
   * "250.500"): a thousand written with '.' between thousands, as in much of Europe (1000,
   * 250500). Both are said, never one chosen: 1.00 written for a meant 1000 pays a thousandth.
   */
  thousands?: string;
}

/**
 * A plain decimal with more decimal places than the currency has ("100.250" SLE), said so;
 * undefined for any other amount. Never rounded: the extra digits are only dropped in what
 * to write when they are zeros (the same amount).
 */
export function extraDecimals(input: string, currency: string): ExtraDecimals | undefined {
  const digits = minorDigits(currency);
  const m = PLAIN_DECIMAL.exec(input);
  if (digits === undefined || !m || (m[2] ?? '').length <= digits) return undefined;
  const frac = m[2]!;
  const cur = currency.toUpperCase();
  const zeros = /^0+$/.test(frac.slice(digits));
  const write = zeros ? m[1]! + (digits > 0 ? `.${frac.slice(0, digits)}` : '') : undefined;
  const has = `"${input}" has ${frac.length === 1 ? '1 decimal place' : `${frac.length} decimal places`}`;
  const more = digits === 0 ? `${has}; ${cur} has no minor units (whole numbers only)` : `${has}, more than ${cur} has (${digits})`;
  if (write === undefined) return { problem: more, digits, zeros };
  const thousands = /^\d{1,3}\.\d{3}$/.test(input) ? input.replace('.', '') : undefined;
  if (thousands === undefined) return { problem: `${more}: its extra digits are zeros, write ${write}`, digits, zeros, write };
  const problem = `${more}: it could be ${write} (its extra digits are zeros) or ${thousands} ('.' between thousands); write ${write} or ${thousands}`;
  return { problem, digits, zeros, write, thousands };
}

/**
 * An amount from the service (a plain decimal or JSON number) whose digits past the currency's
 * are not all zeros ("10.005" SLE, "100.5" JPY: no sum of that currency): how many decimal
 * places it has ("3 decimal places"); undefined for any other amount. It is kept as written
 * (never rounded): this only says why it is odd (output/payout.ts digitsPhrase says it).
 */
export function beyondCurrency(value: number | string, currency: string): string | undefined {
  const digits = minorDigits(currency);
  const frac = /^-?\d+\.(\d+)$/.exec(toDecimal(value))?.[1];
  if (digits === undefined || !frac || !/[1-9]/.test(frac.slice(digits))) return undefined;
  return frac.length === 1 ? '1 decimal place' : `${frac.length} decimal places`;
}

/** What a currency's minor units are, for a sentence: "SLE has 2", "JPY has no minor units". */
export function currencyDigitsWords(currency: string): string {
  const digits = minorDigits(currency);
  return `${currency.toUpperCase()} has ${digits === 0 ? 'no minor units' : String(digits)}`;
}

/**
 * Why an amount is not a plain decimal, with the plain one when a copied amount is certain:
 * "1,000.00" as payctl and the service print it is 1000.00; a European one says what to write
 * (ungroupAmount). "1,250" in a currency of three decimals may be 1.250 or 1250: no guess.
 */
function notPlain(input: string, digits: number): string {
  const u = ungroupAmount(input);
  if (!u.ok) return u.problem;
  if (u.plain !== input && !(digits === 3 && ONE_GROUP.test(input))) return `"${input}" has ',' between thousands: write ${u.plain}`;
  return currencyMarked(input, digits) ?? spaced(input, digits) ?? `"${visibleWord(input)}" is not a plain decimal amount (use digits and at most one ".", e.g. 1500.50)`;
}

/** Currency symbols written as letters ("Le 100.00", the leone's), besides ISO codes and the symbols of Unicode (\p{Sc}). */
const LETTER_SYMBOLS = new Set(['le', 'rs', 'rp', 'kr', 'fr', 'kz', 'ksh', 'sh', 'br', 'ft', 'zł']);
const MARK = '[A-Za-zł]{0,3}\\p{Sc}|[A-Za-zł]{1,3}\\.?';
const NUMBER = `\\d(?:[\\d.,${ODD_SPACES} ]*\\d)?`;
/** "Le 100.00", "100.00 SLE", "$ 5", "US$5.00": a mark before or after a number, spaces between (captured) or around. */
const MARKED = new RegExp(`^\\s*(?:(${MARK})(\\s*)(${NUMBER})|(${NUMBER})(\\s*)(${MARK}))\\s*$`, 'u');
/** Letters a currency is written with besides the known ones (KD, BD, RO, QR, Dh, Rs): 2 or 3, set apart from the number by a space. */
const SPACED_LETTERS = /^[A-Za-z]{2,3}$/;

/**
 * An amount with a currency code or symbol in its cell ("Le 100.00", "100.00 SLE", "KD 5": 2 or 3
 * letters set apart by a space are taken for one): said as that, with the amount to write when it
 * is certain (plainOf). Undefined for any other amount, and for letters joined to it ("10k").
 */
function currencyMarked(input: string, digits: number): string | undefined {
  // No amount with a currency mark is longer; a long hostile cell is not searched (the pattern backtracks).
  const m = input.length <= 64 ? MARKED.exec(input) : null;
  if (!m) return undefined;
  const mark = (m[1] ?? m[6])!;
  const letters = mark.replace(/\.$/, '');
  // Letters beside the number with a space ("KD 5", "5 KD") mark a currency; joined to it ("10k") they may be anything else.
  const apart = (m[2] ?? m[5])! !== '' && SPACED_LETTERS.test(letters);
  const isMark = /\p{Sc}/u.test(mark) || LETTER_SYMBOLS.has(letters.toLowerCase()) || (letters.length === 3 && minorDigits(letters) !== undefined) || apart;
  if (!isMark) return undefined;
  const plain = plainOf((m[3] ?? m[4])!, digits);
  const write = plain === undefined ? 'write the amount alone (e.g. 1500.50)' : `write ${plain}`;
  return `"${visibleWord(input)}" holds a currency code or symbol ("${mark}"): ${write}, and the currency in the currency column`;
}

/** Spaces a spreadsheet or a copy leaves in an amount: the plain one, a tab, the no-break and typographic ones. */
const SPACE = new RegExp(`[ \\t${ODD_SPACES}]`);
const SPACES_AT_ENDS = new RegExp(`^[ \\t${ODD_SPACES}]+|[ \\t${ODD_SPACES}]+$`, 'g');
/** Thousands grouped by spaces: "1 000.00", "1\u00a0000.00", "1 000,00" (LibreOffice's separator in many languages). */
const SPACE_GROUPED = new RegExp(`^\\d{1,3}(?:[ ${ODD_SPACES}]\\d{3})+(?:[.,]\\d+)?$`);
const SPACES = new RegExp(SPACE.source, 'g');

/**
 * The plain amount a written one certainly is, or undefined: spaces at its ends dropped, spaces
 * between groups of three digits dropped, then "1,000.00" ungrouped and a European "1000,00" or
 * "1.250,00" turned round. "1,250" in a currency of three decimals may be 1.250 or 1250: no guess.
 */
function plainOf(input: string, digits: number): string | undefined {
  let t = input.replace(SPACES_AT_ENDS, '');
  if (SPACE.test(t)) {
    if (!SPACE_GROUPED.test(t)) return undefined;
    t = t.replace(SPACES, '');
  }
  if (PLAIN_DECIMAL.test(t)) return t;
  if (GROUPED_DECIMAL.test(t)) return digits === 3 && ONE_GROUP.test(t) ? undefined : t.replace(/,/g, '');
  const u = ungroupAmount(t);
  return !u.ok && u.kind === 'european' ? u.write : undefined;
}

function spaceName(c: string): string {
  if (c === ' ') return 'a space';
  if (c === '\t') return 'a tab';
  const u = `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  if (c === '\u00a0') return `a no-break space (${u})`;
  if (c === '\u202f') return `a narrow no-break space (${u})`;
  return `a space (${u})`;
}

/**
 * An amount refused for a space in it, naming the space (a no-break one looks like any other)
 * and what to write when that is certain: the amount without spaces at its ends, or without
 * the spaces between its groups of thousands. Undefined when it holds no space.
 */
function spaced(input: string, digits: number): string | undefined {
  const m = SPACE.exec(input);
  if (!m) return undefined;
  const trimmed = input.replace(SPACES_AT_ENDS, '');
  const where = SPACE.test(trimmed) ? 'between its digits' : m.index === 0 ? 'at its start' : 'at its end';
  // "1,000.00 " is 1000.00 and "1 000,00" is 1000.00, written plain: what every command takes.
  const plain = plainOf(input, digits);
  const write = plain !== undefined ? `write ${plain}` : 'write the amount without spaces (e.g. 1500.50)';
  return `"${visibleWord(input)}" has ${spaceName(m[0])} ${where}: ${write}`;
}

/** "1,250": one group of thousands, no decimals. */
const ONE_GROUP = /^\d{1,3},\d{3}$/;

/** "1,250.00", "12,345,678.9": a first group of 1-3 digits, then groups of exactly three after each ','. */
const GROUPED_DECIMAL = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
/** "1,25", "0,5": one ',' before one or two digits, the decimal point of most of Europe. */
const DECIMAL_COMMA = /^\d+,\d{1,2}$/;
/** "1.250,00", "12.345.678,9": '.' between groups of three digits and ',' as the decimal point. */
const EUROPEAN_DECIMAL = /^\d{1,3}(?:\.\d{3})+,\d+$/;
/** "1.250.000": '.' between groups of three digits, twice or more (one would be a decimal point). */
const EUROPEAN_WHOLE = /^\d{1,3}(?:\.\d{3}){2,}$/;
/** Digits with ',' between them that are not groups of three ("12,34,567", "1234,567"), maybe a decimal part. */
const BAD_GROUPS = /^\d+(?:,\d+)+(?:\.\d+)?$/;

/**
 * An amount as a spreadsheet writes it, ungrouped: `plain` is what parseAmount reads. Amounts
 * without ',' (and any that is not a number at all) are given back unchanged, for parseAmount
 * to accept or refuse with its own words. Refused, with why and what to write instead:
 * - `european`: ',' as the decimal point ("1,25", "1.250,00") or '.' between thousands ("1.250.000");
 * - `grouping`: ',' between digits that are not groups of three ("12,34,567", "1234,567").
 */
export type UngroupedAmount = { ok: true; plain: string } | { ok: false; kind: 'european' | 'grouping'; problem: string; write?: string };

/** How a batch file may write an amount, said after a refused one. */
export const GROUPING_RULE = "write digits with '.' as the decimal point (1250.00), and ',' only between groups of three digits if at all (1,250.00)";

/**
 * Reads an amount with thousands separators when it is unambiguous: "1,250.00" -> "1250.00",
 * "12,345,678.9" -> "12345678.9" (groups of exactly three digits after the first, '.' as the
 * decimal point). Only the text is changed, never through a number: the amount stays exact.
 * Single payouts do not use it (`--amount` takes plain decimals only); batch files do.
 */
export function ungroupAmount(input: string): UngroupedAmount {
  if (GROUPED_DECIMAL.test(input)) return { ok: true, plain: input.replace(/,/g, '') };
  if (EUROPEAN_DECIMAL.test(input) || DECIMAL_COMMA.test(input)) {
    const write = input.replace(/\./g, '').replace(',', '.');
    return { ok: false, kind: 'european', problem: `"${input}" uses ',' as the decimal point; write ${write}`, write };
  }
  if (EUROPEAN_WHOLE.test(input)) {
    const write = input.replace(/\./g, '');
    return { ok: false, kind: 'european', problem: `"${input}" uses '.' between thousands; write ${write}`, write };
  }
  // No amount is suggested: "1,2345" may be 1.2345 or 12345, and a wrong guess pays ten thousand times too much.
  if (BAD_GROUPS.test(input)) {
    return { ok: false, kind: 'grouping', problem: `"${input}" has ',' between digits that are not groups of three; ${GROUPING_RULE}` };
  }
  return { ok: true, plain: input };
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

/**
 * Whether two amounts are the same money, by value: "10.000" and "10.00" and 10 are; "10.001"
 * and "10.00" are not. False when either cannot be read as a decimal. Answers are checked with
 * it: the service may write more decimals than the currency has (formatAmount keeps them).
 */
export function sameAmount(a: number | string, b: number | string, currency: string): boolean {
  try {
    const { minors } = toCommonMinor([a, b], currency);
    return minors[0] === minors[1];
  } catch {
    return false;
  }
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

/**
 * How an amount the service wrote, `got`, compares with one payctl sent, `sent` (in the
 * currency's digits): `same`, `differs`, or undefined when payctl cannot tell: `got` cannot be
 * read as a decimal, or it holds digits past the currency's (`500.0000000001` SLE: no sum of SLE,
 * most likely a float's remainder) and lies within one minor unit of `sent`.
 */
export function compareAmount(got: number | string, sent: number | string, currency: string): 'same' | 'differs' | undefined {
  const digits = minorDigits(currency) ?? 2;
  let g: RegExpExecArray | null;
  let s: bigint;
  try {
    g = /^(-?)(\d+)(?:\.(\d+))?$/.exec(toDecimal(got));
    s = decimalToMinor(toDecimal(sent), digits);
  } catch {
    return undefined;
  }
  if (!g) return undefined;
  const frac = g[3] ?? '';
  const whole = BigInt(g[2]! + frac.slice(0, digits).padEnd(digits, '0')) * (g[1] ? -1n : 1n);
  if (!frac.slice(digits).replace(/0+$/, '')) return whole === s ? 'same' : 'differs';
  // Between two minor units: `whole` and the one past it, away from zero.
  const near = g[1] ? whole - 1n : whole + 1n;
  return s === whole || s === near ? undefined : 'differs';
}
