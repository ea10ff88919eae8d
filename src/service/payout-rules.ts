/**
 * What the service documents of a POST /payout body (docs/service.md, "Initiate a payout";
 * openapi/v2.yaml, PayoutRequest): the recipient types, the phone a wallet recipient needs,
 * the forms of a provider, an account number and a phone number, how long text may be and how
 * it is counted, and which currencies it takes. The client's check (src/payouts/request.ts)
 * and the sandbox's (src/sandbox/validation.ts) both read these rules from here; each words
 * its own problems (the client for people and flags, the sandbox as the service answers: a
 * 422 naming the field as the body does). Amounts follow src/money/amount.ts (`parseAmount`,
 * `MAX_SIGNIFICANT_DIGITS`), the one home of exact amounts.
 */
import { isKnownCurrency } from '../money/currencies.js';

/** `recipient.type`: a bank account or a mobile-money wallet. */
export const RECIPIENT_TYPES = ['bank', 'wallet'] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];

export function isRecipientType(v: unknown): v is RecipientType {
  return v === 'bank' || v === 'wallet';
}

/** `phoneNumber` is required (a string) for a wallet recipient; a bank takes it null or not at all. */
export function needsPhone(type: unknown): boolean {
  return type === 'wallet';
}

/** `phoneNumber`: 6 to 15 digits, optionally after a `+`. */
export const PHONE_PATTERN = /^\+?[0-9]{6,15}$/;

/** `provider`: lower case letters and digits, words joined by one underscore (`orange_money`); the list is open. */
export const PROVIDER_PATTERN = /^[a-z0-9]+(_[a-z0-9]+)*$/;

/** The most characters of an `accountNumber` (an IBAN is at most 34 characters). */
export const ACCOUNT_MAX = 34;

/** `accountNumber`: 1 to ACCOUNT_MAX letters, digits or dashes. */
export const ACCOUNT_PATTERN = /^[A-Za-z0-9-]{1,34}$/;

/** The most characters of a text field (`payoutId`, `walletId`, `name`, `provider`, `note`). */
export const MAX_TEXT = 255;

/**
 * Whether `text` has more than `max` characters, counted as the service (Laravel's mb_strlen)
 * and JSON Schema's maxLength count them: code points, not UTF-16 units. The units are counted
 * first: no more units than `max` is no more characters either.
 */
export function longerThan(text: string, max: number): boolean {
  return text.length > max && [...text].length > max;
}

/** `currency`: a known ISO 4217 code, in capitals (`SLE`). */
export function isServiceCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && isKnownCurrency(code);
}
