/**
 * Validation of request input: the POST /payout body (every problem at once, with full
 * field paths such as `recipient.accountDetails.phoneNumber`), list queries and the
 * summary body. The result is typed input for the ledger or the field problems for a
 * 400 VALIDATION_ERROR.
 */
import { decimalFromNumber } from '../money/amount.js';
import { minorDigits } from '../money/currencies.js';
import type { FieldProblem } from './respond.js';
import type { PayoutFilter, PayoutInput, Recipient } from './state.js';
import { parseTimeBound } from './time.js';

type Result<T> = { ok: true; value: T } | { ok: false; errors: FieldProblem[] };

const MAX_TEXT = 255;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function requiredText(obj: Record<string, unknown>, key: string, path: string, errors: FieldProblem[]): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) {
    errors.push({ field: path, message: 'is required' });
    return undefined;
  }
  if (typeof v !== 'string') {
    errors.push({ field: path, message: 'must be a string' });
    return undefined;
  }
  if (v.trim() === '') {
    errors.push({ field: path, message: 'must not be empty' });
    return undefined;
  }
  if (v.length > MAX_TEXT) {
    errors.push({ field: path, message: `must be at most ${MAX_TEXT} characters` });
    return undefined;
  }
  return v;
}

function optionalText(obj: Record<string, unknown>, key: string, path: string, errors: FieldProblem[]): string | null {
  const v = obj[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') {
    errors.push({ field: path, message: 'must be a string or null' });
    return null;
  }
  if (v.length > MAX_TEXT) {
    errors.push({ field: path, message: `must be at most ${MAX_TEXT} characters` });
    return null;
  }
  return v;
}

/** Validates a parsed POST /payout body. */
export function validatePayout(body: unknown): Result<PayoutInput> {
  const errors: FieldProblem[] = [];
  if (!isObject(body)) return { ok: false, errors: [{ field: 'body', message: 'must be a JSON object' }] };

  // currency
  let currency: string | undefined;
  const rawCurrency = body.currency;
  if (rawCurrency === undefined || rawCurrency === null) errors.push({ field: 'currency', message: 'is required' });
  else if (typeof rawCurrency !== 'string' || !/^[A-Z]{3}$/.test(rawCurrency) || minorDigits(rawCurrency) === undefined) {
    errors.push({ field: 'currency', message: 'must be an ISO 4217 currency code in capitals, e.g. SLE' });
  } else currency = rawCurrency;

  // amount: a JSON number > 0 with at most the currency's minor digits
  let amount: bigint | undefined;
  const rawAmount = body.amount;
  if (rawAmount === undefined || rawAmount === null) errors.push({ field: 'amount', message: 'is required' });
  else if (typeof rawAmount !== 'number' || !Number.isFinite(rawAmount)) {
    errors.push({ field: 'amount', message: 'must be a JSON number, e.g. 1500.5' });
  } else if (rawAmount <= 0) {
    errors.push({ field: 'amount', message: 'must be greater than 0' });
  } else {
    const decimal = decimalFromNumber(rawAmount);
    const [whole = '', frac = ''] = decimal.split('.');
    const significant = (whole.replace(/^0+/, '') + frac).replace(/^0+/, '');
    if (significant.length > 15) {
      errors.push({ field: 'amount', message: 'has more than 15 significant digits and cannot be exact' });
    } else if (currency !== undefined) {
      const digits = minorDigits(currency)!;
      if (frac.length > digits) {
        errors.push({
          field: 'amount',
          message: digits === 0 ? `must be a whole number for ${currency}` : `must have at most ${digits} decimal places for ${currency}`,
        });
      } else amount = BigInt(whole + frac.padEnd(digits, '0'));
    }
  }

  const payoutId = requiredText(body, 'payoutId', 'payoutId', errors);
  const walletId = requiredText(body, 'walletId', 'walletId', errors);

  // recipient
  let recipient: Recipient | undefined;
  const r = body.recipient;
  if (r === undefined || r === null) errors.push({ field: 'recipient', message: 'is required' });
  else if (!isObject(r)) errors.push({ field: 'recipient', message: 'must be an object' });
  else {
    const type = r.type;
    if (type === undefined || type === null) errors.push({ field: 'recipient.type', message: 'is required' });
    else if (type !== 'bank' && type !== 'wallet') errors.push({ field: 'recipient.type', message: 'must be "bank" or "wallet"' });
    const ad = r.accountDetails;
    const base = 'recipient.accountDetails';
    if (ad === undefined || ad === null) errors.push({ field: base, message: 'is required' });
    else if (!isObject(ad)) errors.push({ field: base, message: 'must be an object' });
    else {
      const name = requiredText(ad, 'name', `${base}.name`, errors);
      let provider = requiredText(ad, 'provider', `${base}.provider`, errors);
      if (provider !== undefined && !/^[a-z0-9]+(_[a-z0-9]+)*$/.test(provider)) {
        errors.push({ field: `${base}.provider`, message: 'must be lowercase with underscores, e.g. orange_money' });
        provider = undefined;
      }
      let accountNumber = requiredText(ad, 'accountNumber', `${base}.accountNumber`, errors);
      if (accountNumber !== undefined && !/^[A-Za-z0-9-]{1,34}$/.test(accountNumber)) {
        errors.push({ field: `${base}.accountNumber`, message: 'must be 1 to 34 letters, digits or dashes' });
        accountNumber = undefined;
      }
      let phoneNumber: string | null = null;
      if (type === 'wallet') {
        const p = requiredText(ad, 'phoneNumber', `${base}.phoneNumber`, errors);
        if (p !== undefined) phoneNumber = p;
      } else {
        phoneNumber = optionalText(ad, 'phoneNumber', `${base}.phoneNumber`, errors);
      }
      if (phoneNumber !== null && !/^\+?[0-9]{6,15}$/.test(phoneNumber)) {
        errors.push({ field: `${base}.phoneNumber`, message: 'must be 6 to 15 digits, optionally after a +' });
      }
      const note = optionalText(ad, 'note', `${base}.note`, errors);
      if ((type === 'bank' || type === 'wallet') && name !== undefined && provider !== undefined && accountNumber !== undefined) {
        recipient = { type, accountDetails: { name, provider, accountNumber, phoneNumber, note } };
      }
    }
  }

  let metadata: Record<string, unknown> | null = null;
  if (body.metadata !== undefined && body.metadata !== null) {
    if (!isObject(body.metadata)) errors.push({ field: 'metadata', message: 'must be an object' });
    else metadata = body.metadata;
  }

  if (errors.length > 0 || amount === undefined || currency === undefined || !payoutId || !walletId || !recipient) {
    return { ok: false, errors };
  }
  return { ok: true, value: { amount, currency, payoutId, walletId, recipient, metadata } };
}

export interface ListQuery {
  page: number;
  limit: number;
  filter: PayoutFilter;
}

const POSITIVE_INT = /^[1-9]\d*$/;

/** Validates the GET /payouts query (page 1-based, limit 1..100, filters). */
export function validateListQuery(query: Record<string, string>): Result<ListQuery> {
  const errors: FieldProblem[] = [];
  let page = 1;
  let limit = 20;
  if (query.page !== undefined) {
    // Any page number is accepted; one past the last page is an empty page. A page too large
    // to count exactly is past every page there can be.
    if (!POSITIVE_INT.test(query.page)) errors.push({ field: 'page', message: 'must be a whole number of at least 1' });
    else page = Math.min(Number(query.page), Number.MAX_SAFE_INTEGER);
  }
  if (query.limit !== undefined) {
    if (!POSITIVE_INT.test(query.limit) || query.limit.length > 3 || Number(query.limit) > 100) {
      errors.push({ field: 'limit', message: 'must be a whole number from 1 to 100' });
    } else limit = Number(query.limit);
  }
  const filter = validateFilter(query, errors);
  return errors.length ? { ok: false, errors } : { ok: true, value: { page, limit, filter } };
}

/** Validates the POST /payouts/summary body: `{ from?, to?, walletId?, currency? }`. */
export function validateSummaryBody(body: unknown): Result<{ filter: PayoutFilter; from: string | null; to: string | null }> {
  if (body === undefined || body === null) body = {};
  if (!isObject(body)) return { ok: false, errors: [{ field: 'body', message: 'must be a JSON object' }] };
  const errors: FieldProblem[] = [];
  const strings: Record<string, string> = {};
  for (const key of ['from', 'to', 'walletId', 'currency', 'status']) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') errors.push({ field: key, message: 'must be a string' });
    else strings[key] = v;
  }
  const filter = validateFilter(strings, errors);
  if (errors.length) return { ok: false, errors };
  return { ok: true, value: { filter, from: strings.from ?? null, to: strings.to ?? null } };
}

function validateFilter(q: Record<string, string>, errors: FieldProblem[]): PayoutFilter {
  const filter: PayoutFilter = {};
  if (q.status !== undefined && q.status !== '') filter.status = q.status;
  if (q.walletId !== undefined && q.walletId !== '') filter.walletId = q.walletId;
  if (q.currency !== undefined && q.currency !== '') {
    if (!/^[A-Za-z]{3}$/.test(q.currency)) errors.push({ field: 'currency', message: 'must be a 3-letter currency code' });
    else filter.currency = q.currency.toUpperCase();
  }
  for (const edge of ['from', 'to'] as const) {
    const v = q[edge];
    if (v === undefined || v === '') continue;
    const us = parseTimeBound(v, edge);
    if (us === undefined) {
      errors.push({ field: edge, message: 'must be a date (2026-11-01) or an ISO 8601 timestamp with a zone (2026-11-01T10:00:00Z)' });
    } else if (edge === 'from') filter.fromUs = us;
    else filter.toUs = us;
  }
  if (filter.fromUs !== undefined && filter.toUs !== undefined && filter.fromUs > filter.toUs) {
    errors.push({ field: 'from', message: 'must not be after to' });
  }
  return filter;
}
