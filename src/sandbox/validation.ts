/**
 * Validation of request input as the service, a Laravel application, does it: the
 * POST /payout body (every field problem at once, each field named as the request names
 * it, `recipient.accountDetails.phoneNumber`, with Laravel's sentence for the rule that
 * failed) and the GET /payout/list query. Like Laravel's middleware, strings are trimmed
 * and an empty string counts as absent; a body that is not a JSON object counts as empty.
 * The result is typed input for the ledger or the field problems of a 422.
 */
import { decimalFromNumber, MAX_SIGNIFICANT_DIGITS } from '../money/amount.js';
import { minorDigits } from '../money/currencies.js';
import type { FieldProblem } from './respond.js';
import type { PayoutInput, Recipient } from './state.js';

type Result<T> = { ok: true; value: T } | { ok: false; errors: FieldProblem[] };

const MAX_TEXT = 255;
export const PROVIDER_PATTERN = /^[a-z0-9]+(_[a-z0-9]+)*$/;
export const ACCOUNT_PATTERN = /^[A-Za-z0-9-]{1,34}$/;
export const PHONE_PATTERN = /^\+?[0-9]{6,15}$/;

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
  // Characters, as Laravel's max:255 (mb_strlen) and JSON Schema's maxLength count them: not UTF-16 units.
  if ([...trimmed].length > MAX_TEXT) {
    errors.push({ field: path, message: rule.maxText(path, MAX_TEXT) });
    return undefined;
  }
  return trimmed;
}

/** Validates a parsed POST /payout body (anything but a JSON object counts as an empty one). */
export function validatePayout(input: unknown): Result<PayoutInput> {
  const body = isObject(input) ? input : {};
  const errors: FieldProblem[] = [];

  const rawCurrency = body.currency;
  const currencyOk = typeof rawCurrency === 'string' && /^[A-Z]{3}$/.test(rawCurrency) && minorDigits(rawCurrency) !== undefined;
  const currency = currencyOk ? rawCurrency : undefined;

  // amount: a JSON number > 0 with at most the currency's minor digits and 15 significant digits
  let amount: bigint | undefined;
  const rawAmount = body.amount;
  if (!present(rawAmount)) errors.push({ field: 'amount', message: rule.required('amount') });
  else if (typeof rawAmount !== 'number' || !Number.isFinite(rawAmount)) errors.push({ field: 'amount', message: rule.numeric('amount') });
  else if (rawAmount <= 0) errors.push({ field: 'amount', message: rule.gt('amount', 0) });
  else {
    const decimal = decimalFromNumber(rawAmount);
    const [whole = '', frac = ''] = decimal.split('.');
    const significant = (whole.replace(/^0+/, '') + frac).replace(/^0+/, '');
    if (significant.length > MAX_SIGNIFICANT_DIGITS) {
      errors.push({ field: 'amount', message: `The amount field must not have more than ${MAX_SIGNIFICANT_DIGITS} significant digits.` });
    } else if (currency !== undefined) {
      const digits = minorDigits(currency)!;
      if (frac.length > digits) errors.push({ field: 'amount', message: rule.decimal('amount', digits) });
      else amount = BigInt(whole + frac.padEnd(digits, '0'));
    }
  }

  if (!present(rawCurrency)) errors.push({ field: 'currency', message: rule.required('currency') });
  else if (typeof rawCurrency !== 'string') errors.push({ field: 'currency', message: rule.string('currency') });
  else if (!currencyOk) errors.push({ field: 'currency', message: rule.in('currency') });

  const payoutId = text(body, 'payoutId', 'payoutId', errors, true);
  const walletId = text(body, 'walletId', 'walletId', errors, true);

  let recipient: Recipient | undefined;
  const r = body.recipient;
  if (!present(r)) errors.push({ field: 'recipient', message: rule.required('recipient') });
  else if (!isObject(r)) errors.push({ field: 'recipient', message: rule.array('recipient') });
  else {
    const type = r.type;
    if (!present(type)) errors.push({ field: 'recipient.type', message: rule.required('recipient.type') });
    else if (type !== 'bank' && type !== 'wallet') errors.push({ field: 'recipient.type', message: rule.in('recipient.type') });
    const ad = r.accountDetails;
    const base = 'recipient.accountDetails';
    if (!present(ad)) errors.push({ field: base, message: rule.required(base) });
    else if (!isObject(ad)) errors.push({ field: base, message: rule.array(base) });
    else {
      const name = text(ad, 'name', `${base}.name`, errors, true);
      let provider = text(ad, 'provider', `${base}.provider`, errors, true);
      if (provider && !PROVIDER_PATTERN.test(provider)) {
        errors.push({ field: `${base}.provider`, message: rule.format(`${base}.provider`) });
        provider = undefined;
      }
      let accountNumber = text(ad, 'accountNumber', `${base}.accountNumber`, errors, true);
      if (accountNumber && !ACCOUNT_PATTERN.test(accountNumber)) {
        errors.push({ field: `${base}.accountNumber`, message: rule.format(`${base}.accountNumber`) });
        accountNumber = undefined;
      }
      const phonePath = `${base}.phoneNumber`;
      let phoneNumber: string | null | undefined;
      if (type === 'wallet' && !present(ad.phoneNumber)) {
        errors.push({ field: phonePath, message: rule.requiredIf(phonePath, 'recipient.type', 'wallet') });
      } else {
        phoneNumber = text(ad, 'phoneNumber', phonePath, errors, false);
        if (phoneNumber && !PHONE_PATTERN.test(phoneNumber)) {
          errors.push({ field: phonePath, message: rule.format(phonePath) });
          phoneNumber = undefined;
        }
      }
      const note = text(ad, 'note', `${base}.note`, errors, false);
      if ((type === 'bank' || type === 'wallet') && name && provider && accountNumber && phoneNumber !== undefined && note !== undefined) {
        recipient = { type, accountDetails: { name, provider, accountNumber, phoneNumber, note } };
      }
    }
  }

  let metadata: Record<string, unknown> | null = null;
  if (body.metadata !== undefined && body.metadata !== null) {
    if (!isObject(body.metadata)) errors.push({ field: 'metadata', message: rule.array('metadata') });
    else metadata = body.metadata;
  }

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
