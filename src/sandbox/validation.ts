/**
 * Validation of request input as the service, a Laravel application, does it: the
 * POST /payout body (every field problem at once, each field named as the request names
 * it, `recipient.accountDetails.phoneNumber`, with Laravel's sentence for the rule that
 * failed) and the GET /payout/list query. Like Laravel's middleware, strings are trimmed
 * and an empty string counts as absent; a body that is not a JSON object counts as empty.
 * Numbers come read from their text (body.ts): `amount` is judged on its exact value, never
 * through a binary float, and a number a double cannot hold is refused as an amount.
 * The result is typed input for the ledger or the field problems of a 422. The rules
 * themselves are the documented ones (src/service/payout-rules.ts, shared with the client's
 * check); what is the sandbox's own is how it answers: Laravel's sentences, the fields as the
 * body names them, and the order Laravel checks them in.
 */
import { decimalFromNumber, MAX_SIGNIFICANT_DIGITS, parseAmount } from '../money/amount.js';
import { minorDigits } from '../money/currencies.js';
import { MAX_JSON_DEPTH } from '../service/error-body.js';
import { ACCOUNT_PATTERN, isRecipientType, isServiceCurrency, longerThan, MAX_TEXT, needsPhone, PHONE_PATTERN, PROVIDER_PATTERN } from '../service/payout-rules.js';
import { decimalValue, ExactNumber } from './json.js';
import type { FieldProblem } from './respond.js';
import type { AccountDetails, PayoutInput, Recipient } from './state.js';

type Result<T> = { ok: true; value: T } | { ok: false; errors: FieldProblem[] };

/** The attribute as Laravel shows it: `Str::snake`, underscores as spaces ("recipient.account details.phone number"). */
export function laravelAttribute(field: string): string {
  return field
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/_/g, ' ');
}

/** Laravel's sentences for the rules used here. */
export const rule = {
  required: (f: string) => `The ${laravelAttribute(f)} field is required.`,
  requiredIf: (f: string, other: string, value: string) => `The ${laravelAttribute(f)} field is required when ${laravelAttribute(other)} is ${value}.`,
  string: (f: string) => `The ${laravelAttribute(f)} field must be a string.`,
  numeric: (f: string) => `The ${laravelAttribute(f)} field must be a number.`,
  integer: (f: string) => `The ${laravelAttribute(f)} field must be an integer.`,
  array: (f: string) => `The ${laravelAttribute(f)} field must be an array.`,
  gt: (f: string, n: number) => `The ${laravelAttribute(f)} field must be greater than ${n}.`,
  min: (f: string, n: number) => `The ${laravelAttribute(f)} field must be at least ${n}.`,
  max: (f: string, n: number) => `The ${laravelAttribute(f)} field must not be greater than ${n}.`,
  maxText: (f: string, n: number) => `The ${laravelAttribute(f)} field must not be greater than ${n} characters.`,
  decimal: (f: string, digits: number) => `The ${laravelAttribute(f)} field must have ${digits === 0 ? '0' : `0-${digits}`} decimal places.`,
  in: (f: string) => `The selected ${laravelAttribute(f)} is invalid.`,
  format: (f: string) => `The ${laravelAttribute(f)} field format is invalid.`,
  unique: (f: string) => `The ${laravelAttribute(f)} has already been taken.`,
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Laravel's TrimStrings and ConvertEmptyStringsToNull: a blank string is absent. */
function present(v: unknown): boolean {
  return v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
}

function text(obj: Record<string, unknown>, key: string, path: string, errors: FieldProblem[], required: boolean): string | null | undefined {
  const v = obj[key];
  if (!present(v)) {
    if (required) errors.push({ field: path, message: rule.required(path) });
    return required ? undefined : null;
  }
  if (typeof v !== 'string') {
    errors.push({ field: path, message: rule.string(path) });
    return undefined;
  }
  const trimmed = v.trim();
  if (longerThan(trimmed, MAX_TEXT)) {
    errors.push({ field: path, message: rule.maxText(path, MAX_TEXT) });
    return undefined;
  }
  return trimmed;
}

/** A text field that must also match `pattern`: undefined (and a format problem) when it does not. */
function patterned(obj: Record<string, unknown>, key: string, path: string, errors: FieldProblem[], required: boolean, pattern: RegExp): string | null | undefined {
  const v = text(obj, key, path, errors, required);
  if (!v || pattern.test(v)) return v;
  errors.push({ field: path, message: rule.format(path) });
  return undefined;
}

/**
 * Significant digits as the service counts them (openapi/v2.yaml, `x-max-significant-digits`):
 * from the first non-zero digit to the last digit, so trailing zeros of the integer part count.
 */
function significantDigitsOf(decimal: string): number {
  const [whole = '', frac = ''] = decimal.split('.');
  return (whole.replace(/^0+/, '') + frac).replace(/^0+/, '').length;
}

const TOO_MANY_DIGITS = `The amount field must not have more than ${MAX_SIGNIFICANT_DIGITS} significant digits.`;

/**
 * What is wrong with an amount whose number a double cannot hold (`10.00000000000000000001`,
 * `1e400`), judged on its exact value. One with at most 15 significant digits would read back
 * exactly unless it is past a double's range, so it is not more than zero, has too many
 * significant digits, or has too many decimals (`1e-400`): always refused, never read through
 * a float. Undefined only when the currency is unknown (its own error says so).
 */
function exactAmountProblem(n: ExactNumber, currency: string | undefined): string | undefined {
  const v = decimalValue(n.literal);
  if (!v) return rule.numeric('amount');
  if (v.negative || v.digits === '') return rule.gt('amount', 0);
  if (BigInt(v.digits.length) + (v.exp > 0n ? v.exp : 0n) > BigInt(MAX_SIGNIFICANT_DIGITS)) return TOO_MANY_DIGITS;
  return currency === undefined ? undefined : rule.decimal('amount', minorDigits(currency)!);
}

/** `amount`: a JSON number > 0 with at most 15 significant digits and the currency's minor digits, in minor units. */
function amountOf(raw: unknown, currency: string | undefined, errors: FieldProblem[]): bigint | undefined {
  if (raw instanceof ExactNumber) {
    const problem = exactAmountProblem(raw, currency);
    if (problem !== undefined) errors.push({ field: 'amount', message: problem });
  } else if (!present(raw)) errors.push({ field: 'amount', message: rule.required('amount') });
  else if (typeof raw !== 'number' || !Number.isFinite(raw)) errors.push({ field: 'amount', message: rule.numeric('amount') });
  else if (raw <= 0) errors.push({ field: 'amount', message: rule.gt('amount', 0) });
  else {
    const decimal = decimalFromNumber(raw);
    if (significantDigitsOf(decimal) > MAX_SIGNIFICANT_DIGITS) {
      errors.push({ field: 'amount', message: TOO_MANY_DIGITS });
    } else if (currency !== undefined) {
      // A positive number's decimal is plain, and not zero in minor units: too many decimals is the one refusal left.
      const parsed = parseAmount(decimal, currency);
      if (parsed.ok) return parsed.minor;
      errors.push({ field: 'amount', message: rule.decimal('amount', minorDigits(currency)!) });
    }
  }
  return undefined;
}

function checkCurrency(raw: unknown, errors: FieldProblem[]): void {
  if (!present(raw)) errors.push({ field: 'currency', message: rule.required('currency') });
  else if (typeof raw !== 'string') errors.push({ field: 'currency', message: rule.string('currency') });
  else if (!isServiceCurrency(raw)) errors.push({ field: 'currency', message: rule.in('currency') });
}

/** `recipient.accountDetails` for a recipient of `type` (as given: it may be missing or wrong). */
function accountDetailsOf(ad: Record<string, unknown>, type: unknown, errors: FieldProblem[]): AccountDetails | undefined {
  const base = 'recipient.accountDetails';
  const name = text(ad, 'name', `${base}.name`, errors, true);
  const provider = patterned(ad, 'provider', `${base}.provider`, errors, true, PROVIDER_PATTERN);
  const accountNumber = patterned(ad, 'accountNumber', `${base}.accountNumber`, errors, true, ACCOUNT_PATTERN);
  const phonePath = `${base}.phoneNumber`;
  let phoneNumber: string | null | undefined;
  if (needsPhone(type) && !present(ad.phoneNumber)) {
    errors.push({ field: phonePath, message: rule.requiredIf(phonePath, 'recipient.type', 'wallet') });
  } else {
    phoneNumber = patterned(ad, 'phoneNumber', phonePath, errors, false, PHONE_PATTERN);
  }
  const note = text(ad, 'note', `${base}.note`, errors, false);
  if (!name || !provider || !accountNumber || phoneNumber === undefined || note === undefined) return undefined;
  return { name, provider, accountNumber, phoneNumber, note };
}

function recipientOf(r: unknown, errors: FieldProblem[]): Recipient | undefined {
  if (!present(r)) errors.push({ field: 'recipient', message: rule.required('recipient') });
  else if (!isObject(r)) errors.push({ field: 'recipient', message: rule.array('recipient') });
  else {
    const type = r.type;
    if (!present(type)) errors.push({ field: 'recipient.type', message: rule.required('recipient.type') });
    else if (!isRecipientType(type)) errors.push({ field: 'recipient.type', message: rule.in('recipient.type') });
    const ad = r.accountDetails;
    const base = 'recipient.accountDetails';
    if (!present(ad)) errors.push({ field: base, message: rule.required(base) });
    else if (!isObject(ad)) errors.push({ field: base, message: rule.array(base) });
    else {
      const accountDetails = accountDetailsOf(ad, type, errors);
      if (isRecipientType(type) && accountDetails) return { type, accountDetails };
    }
  }
  return undefined;
}

/** A value of metadata as kept: a number a double cannot hold becomes the string of its digits (body.ts). */
function keptValue(v: unknown): unknown {
  if (v instanceof ExactNumber) return v.literal;
  if (Array.isArray(v)) return v.map(keptValue);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  // defineProperty: a member named __proto__ stays a member.
  for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: keptValue(x), enumerable: true, writable: true, configurable: true });
  return out;
}

function metadataOf(m: unknown, errors: FieldProblem[]): Record<string, unknown> | null {
  if (m === undefined || m === null) return null;
  if (isObject(m)) return keptValue(m) as Record<string, unknown>;
  errors.push({ field: 'metadata', message: rule.array('metadata') });
  return null;
}

/**
 * The 422 problem of a body nested deeper than MAX_JSON_DEPTH (body.ts), which is not read:
 * named by the top-level member where it is, or `body` when it is in none.
 */
export function tooDeepProblem(member: string): FieldProblem {
  const field = member === '' ? 'body' : member;
  return { field, message: `The ${laravelAttribute(field)} field is nested too deeply: a request body may nest at most ${MAX_JSON_DEPTH} levels.` };
}

/** Validates a parsed POST /payout body (anything but a JSON object counts as an empty one). */
export function validatePayout(input: unknown): Result<PayoutInput> {
  const body = isObject(input) ? input : {};
  const errors: FieldProblem[] = [];
  const currency = typeof body.currency === 'string' && isServiceCurrency(body.currency) ? body.currency : undefined;
  const amount = amountOf(body.amount, currency, errors);
  checkCurrency(body.currency, errors);
  const payoutId = text(body, 'payoutId', 'payoutId', errors, true);
  const walletId = text(body, 'walletId', 'walletId', errors, true);
  const recipient = recipientOf(body.recipient, errors);
  const metadata = metadataOf(body.metadata, errors);
  if (errors.length > 0 || amount === undefined || currency === undefined || !payoutId || !walletId || !recipient) {
    return { ok: false, errors };
  }
  return { ok: true, value: { amount, currency, payoutId, walletId, recipient, metadata } };
}

export interface ListQuery {
  page: number;
  perPage: number;
}

export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;

/**
 * The GET /payout/list query: `page` (1-based, default 1) and `per_page` (1 to 100, default
 * 15). Every other parameter is ignored: the service documents no filters. A page too large
 * to count exactly is past every page there can be.
 */
export function validateListQuery(query: Record<string, string>): Result<ListQuery> {
  const errors: FieldProblem[] = [];
  const whole = (field: string, min: number, max?: number): number | undefined => {
    const v = query[field]?.trim();
    if (v === undefined || v === '') return undefined;
    if (!/^[+-]?\d+$/.test(v)) {
      errors.push({ field, message: rule.integer(field) });
      return undefined;
    }
    const n = Number(v);
    if (n < min) errors.push({ field, message: rule.min(field, min) });
    else if (max !== undefined && n > max) errors.push({ field, message: rule.max(field, max) });
    else return Math.min(n, Number.MAX_SAFE_INTEGER);
    return undefined;
  };
  const page = whole('page', 1) ?? 1;
  const perPage = whole('per_page', 1, MAX_PER_PAGE) ?? DEFAULT_PER_PAGE;
  return errors.length ? { ok: false, errors } : { ok: true, value: { page, perPage } };
}
