import { describe, expect, it } from 'vitest';
import { decimalFromNumber, decimalToMinor, formatAmount, minorToDecimal, minorToJsonNumber, parseAmount, sumMinor } from '../../src/money/amount.js';
import { isKnownCurrency, knownCurrencies, minorDigits } from '../../src/money/currencies.js';

describe('parseAmount: good inputs', () => {
  const good: Array<[input: string, currency: string, minor: bigint, digits: number, decimal: string]> = [
    ['1500.50', 'SLE', 150050n, 2, '1500.50'],
    ['1500.5', 'SLE', 150050n, 2, '1500.50'],
    ['0.30', 'SLE', 30n, 2, '0.30'],
    ['0.01', 'NGN', 1n, 2, '0.01'],
    ['1', 'NGN', 100n, 2, '1.00'],
    ['1', 'SLE', 100n, 2, '1.00'],
    ['0.001', 'KWD', 1n, 3, '0.001'],
    ['1234.5', 'KWD', 1234500n, 3, '1234.500'],
    ['100', 'JPY', 100n, 0, '100'],
    ['007.5', 'SLE', 750n, 2, '7.50'],
    ['000100', 'JPY', 100n, 0, '100'],
    ['1500.50', 'sle', 150050n, 2, '1500.50'],
    ['99999999999999999999.99', 'NGN', 9999999999999999999999n, 2, '99999999999999999999.99'],
  ];
  it.each(good)('%s %s -> %s minor units', (input, currency, minor, digits, decimal) => {
    expect(parseAmount(input, currency)).toEqual({ ok: true, minor, digits, decimal });
  });
});

describe('parseAmount: bad inputs', () => {
  const NOT_PLAIN = /is not a plain decimal amount/;
  const bad: Array<[input: string, currency: string, reason: RegExp]> = [
    ['', 'SLE', NOT_PLAIN],
    [' 1', 'SLE', /^" 1" has a space at its start: write 1$/],
    ['1 ', 'SLE', /^"1 " has a space at its end: write 1$/],
    ['1\n', 'SLE', NOT_PLAIN],
    ['-1', 'SLE', NOT_PLAIN],
    ['+1', 'SLE', NOT_PLAIN],
    ['1e3', 'SLE', NOT_PLAIN],
    ['0x10', 'SLE', NOT_PLAIN],
    ['1,000.00', 'SLE', /has ',' between thousands: write 1000\.00/],
    ['1.', 'SLE', NOT_PLAIN],
    ['.5', 'SLE', NOT_PLAIN],
    ['1..5', 'SLE', NOT_PLAIN],
    ['1.2.3', 'SLE', NOT_PLAIN],
    ['NaN', 'SLE', NOT_PLAIN],
    ['Infinity', 'SLE', NOT_PLAIN],
    ['１２', 'SLE', NOT_PLAIN], // full-width digits
    ['١٢', 'SLE', NOT_PLAIN], // Arabic-Indic digits
    ['0', 'SLE', /must be greater than zero: "0"/],
    ['0.00', 'SLE', /must be greater than zero: "0.00"/],
    ['000', 'JPY', /must be greater than zero/],
    ['1.234', 'SLE', /^"1\.234" has 3 decimal places, more than SLE has \(2\)$/],
    ['1.234', 'NGN', /more than NGN has \(2\)/],
    ['1.5', 'JPY', /^"1\.5" has 1 decimal place; JPY has no minor units \(whole numbers only\)$/],
    ['1.0', 'JPY', /^"1\.0" has 1 decimal place; JPY has no minor units \(whole numbers only\): its extra digits are zeros, write 1$/],
    ['1.2345', 'KWD', /^"1\.2345" has 4 decimal places, more than KWD has \(3\)$/],
    ['1.2345', 'kwd', /more than KWD has \(3\)/],
    ['10', 'XYZ', /unknown currency "XYZ"/],
    ['10', '', /unknown currency ""/],
  ];
  it.each(bad)('%j %s is refused', (input, currency, reason) => {
    const r = parseAmount(input, currency);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problem).toMatch(reason);
  });

  it('names the input in the "not plain" problem', () => {
    const r = parseAmount('1e3', 'SLE');
    expect(r).toEqual({
      ok: false,
      problem: '"1e3" is not a plain decimal amount (use digits and at most one ".", e.g. 1500.50)',
    });
  });
});

describe('minorToDecimal', () => {
  it.each([
    [150050n, 2, '1500.50'],
    [30n, 2, '0.30'],
    [5n, 2, '0.05'],
    [0n, 2, '0.00'],
    [1n, 3, '0.001'],
    [1500n, 0, '1500'],
    [0n, 0, '0'],
    [-5n, 2, '-0.05'],
    [-150050n, 2, '-1500.50'],
  ])('%s with %i digits -> %s', (minor, digits, out) => {
    expect(minorToDecimal(minor, digits)).toBe(out);
  });
});

describe('minorToJsonNumber', () => {
  it.each([
    [150050n, 2, '1500.5'],
    [30n, 2, '0.3'],
    [100n, 2, '1'],
    [1500n, 0, '1500'],
    [1n, 3, '0.001'],
    [1000n, 3, '1'],
    [1010n, 3, '1.01'],
    [100n, 0, '100'],
    [-150050n, 2, '-1500.5'],
  ])('%s with %i digits -> %s', (minor, digits, out) => {
    expect(minorToJsonNumber(minor, digits)).toBe(out);
  });

  it('round-trips parseAmount through JSON.parse exactly', () => {
    const r = parseAmount('1500.50', 'SLE');
    if (!r.ok) throw new Error(r.problem);
    expect(JSON.parse(minorToJsonNumber(r.minor, r.digits))).toBe(1500.5);
  });
});

describe('decimalFromNumber', () => {
  it.each([
    [1e21, '1000000000000000000000'],
    [1.5e21, '1500000000000000000000'],
    [1e-7, '0.0000001'],
    [1.25e-7, '0.000000125'],
    [-1e-7, '-0.0000001'],
    [0.1, '0.1'],
    [1250000.75, '1250000.75'],
    [123456789012.34, '123456789012.34'],
    [1500.5, '1500.5'],
    [0, '0'],
    [-0, '0'],
    [100, '100'],
    [-2.5, '-2.5'],
  ])('%d -> %s', (n, out) => {
    expect(decimalFromNumber(n)).toBe(out);
  });

  it.each([NaN, Infinity, -Infinity])('refuses %d', (n) => {
    expect(() => decimalFromNumber(n)).toThrow(RangeError);
  });
});

describe('decimalToMinor', () => {
  it.each([
    ['1500.5', 2, 150050n],
    ['1500.50', 2, 150050n],
    ['1500.500', 2, 150050n], // trailing zeros beyond the digits are fine
    ['0.3', 2, 30n],
    ['7', 2, 700n],
    ['1500', 0, 1500n],
    ['0.001', 3, 1n],
    ['-0.05', 2, -5n],
    ['-12', 0, -12n],
  ])('%s with %i digits -> %s', (decimal, digits, out) => {
    expect(decimalToMinor(decimal, digits)).toBe(out);
  });

  it.each([
    ['1.234', 2, /more than 2 decimals/],
    ['1.5', 0, /more than 0 decimals/],
    ['abc', 2, /not a decimal/],
    ['1e3', 2, /not a decimal/],
    ['', 2, /not a decimal/],
    ['+1', 2, /not a decimal/],
  ])('refuses %j with %i digits', (decimal, digits, why) => {
    expect(() => decimalToMinor(decimal, digits)).toThrow(why);
  });
});

describe('formatAmount', () => {
  it.each([
    [1500.5, 'SLE', '1,500.50'],
    [1234567.8, 'NGN', '1,234,567.80'],
    [1234567, 'JPY', '1,234,567'],
    [1234.5, 'KWD', '1,234.500'],
    [0, 'SLE', '0.00'],
    [0, 'JPY', '0'],
    ['0.30', 'SLE', '0.30'],
    ['1500.5', 'SLE', '1,500.50'],
    ['0001500.5', 'SLE', '1,500.50'],
    [999, 'SLE', '999.00'],
    [1000, 'SLE', '1,000.00'],
    [150050n, 'SLE', '1,500.50'],
    [1234567n, 'JPY', '1,234,567'],
    [1n, 'KWD', '0.001'],
    [-150050n, 'NGN', '-1,500.50'],
    [-1500.5, 'SLE', '-1,500.50'],
    [1e21, 'NGN', '1,000,000,000,000,000,000,000.00'],
    [0.1, 'sle', '0.10'],
  ])('%s %s -> %s', (value, currency, out) => {
    expect(formatAmount(value, currency)).toBe(out);
  });

  it('keeps digits beyond the currency exponent instead of rounding', () => {
    expect(formatAmount(1.005, 'SLE')).toBe('1.005');
    expect(formatAmount('1234.5678', 'NGN')).toBe('1,234.5678');
    expect(formatAmount(12.5, 'JPY')).toBe('12.5');
  });

  it('uses two digits for an unknown currency', () => {
    expect(formatAmount(1500.5, 'XYZ')).toBe('1,500.50');
  });

  it('returns a non-decimal string as it is', () => {
    expect(formatAmount('n/a', 'SLE')).toBe('n/a');
  });
});

describe('sumMinor', () => {
  it('adds numbers and strings exactly', () => {
    expect(sumMinor([0.1, 0.2], 2)).toBe(30n);
    expect(sumMinor([1500.5, '15.01', 0.3], 2)).toBe(151581n);
    expect(sumMinor([], 2)).toBe(0n);
    expect(sumMinor([1500, '20'], 0)).toBe(1520n);
    expect(sumMinor(['0.001', 0.002], 3)).toBe(3n);
    expect(sumMinor([10, -2.5], 2)).toBe(750n);
  });

  it('refuses a value with more digits than asked', () => {
    expect(() => sumMinor([0.001], 2)).toThrow(RangeError);
  });
});

describe('currencies', () => {
  it('knows ISO 4217 exponents, case-insensitively', () => {
    expect(minorDigits('SLE')).toBe(2);
    expect(minorDigits('sle')).toBe(2);
    expect(minorDigits('NGN')).toBe(2);
    expect(minorDigits('JPY')).toBe(0);
    expect(minorDigits('jpy')).toBe(0);
    expect(minorDigits('KWD')).toBe(3);
    expect(minorDigits('Kwd')).toBe(3);
    expect(minorDigits('CLF')).toBe(4);
    // ISO, not Intl: IQD has 3 digits, ISK 0.
    expect(minorDigits('IQD')).toBe(3);
    expect(minorDigits('ISK')).toBe(0);
    expect(minorDigits('XYZ')).toBeUndefined();
    expect(minorDigits('')).toBeUndefined();
  });

  it('isKnownCurrency is case-insensitive and refuses unknown codes', () => {
    expect(isKnownCurrency('SLE')).toBe(true);
    expect(isKnownCurrency('sle')).toBe(true);
    expect(isKnownCurrency('kWd')).toBe(true);
    expect(isKnownCurrency('XYZ')).toBe(false);
    expect(isKnownCurrency('SL')).toBe(false);
    expect(isKnownCurrency('')).toBe(false);
    expect(isKnownCurrency('toString')).toBe(false);
  });

  it('lists known currencies sorted and unique', () => {
    const all = knownCurrencies();
    expect(all).toContain('SLE');
    expect(all).toContain('JPY');
    expect([...all].sort()).toEqual(all);
    expect(new Set(all).size).toBe(all.length);
  });
});
