/**
 * ISO 4217 minor-unit digits of active currency codes (the List One table).
 * Not Intl: its digits differ from ISO for some currencies (e.g. IQD, RSD, ISK).
 * Codes not listed here are not known currencies.
 */
import { visibleWord } from '../words.js';

const DIGITS_EXCEPT_TWO: Record<string, number> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

const TWO_DIGITS = (
  'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN ' +
  'BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP ' +
  'GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT ' +
  'LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN ' +
  'NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE ' +
  'SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED ' +
  'VES WST XCD XCG YER ZAR ZMW ZWG ZWL'
).split(' ');

const TABLE: ReadonlyMap<string, number> = new Map([...TWO_DIGITS.map((c) => [c, 2] as const), ...Object.entries(DIGITS_EXCEPT_TWO)]);

/** Minor-unit digits of an ISO 4217 code (case-insensitive), or undefined when unknown. */
export function minorDigits(currency: string): number | undefined {
  return TABLE.get(currency.toUpperCase());
}

export function isKnownCurrency(currency: string): boolean {
  return TABLE.has(currency.toUpperCase());
}

export function knownCurrencies(): string[] {
  return [...TABLE.keys()].sort();
}

/**
 * A --currency filter (balances, payouts list, summary): uppercased, or a problem pushed
 * to `problems` when it is not an ISO 4217 code. Undefined when not given or refused.
 */
export function currencyFilter(value: string | undefined, problems: string[]): string | undefined {
  if (value === undefined) return undefined;
  const currency = value.toUpperCase();
  if (isKnownCurrency(currency)) return currency;
  problems.push(`--currency: "${visibleWord(value)}" is not an ISO 4217 currency code`);
  return undefined;
}
