/**
 * A payout request: the fields a person or a file gives, validated all at once
 * (every problem listed), and the exact JSON body sent to POST /payout, whose
 * amount is written from integer minor units, never through a binary float.
 */
import { randomUUID } from 'node:crypto';
import { MAX_SIGNIFICANT_DIGITS, minorToJsonNumber, parseAmount, significantDigits, type AmountParse } from '../money/amount.js';
import { fieldProblem, type Problem } from '../errors.js';
import { isRecipientType, isServiceCurrency, longerThan, MAX_TEXT, needsPhone, PHONE_PATTERN, PROVIDER_PATTERN, type RecipientType } from '../service/payout-rules.js';
import { CLOSING_QUOTES, OPENING_QUOTES, visibleWord } from '../words.js';
import { codePoint, CONTROL, hiddenCharacter, unseenCharacters } from './unseen.js';

import { normalizeProvider } from './providers.js';

export type { RecipientType } from '../service/payout-rules.js';

/** Fields as given (strings, possibly missing). */
export interface PayoutFields {
  payoutId?: string;
  walletId?: string;
  amount?: string;
  currency?: string;
  type?: string;
  name?: string;
  provider?: string;
  account?: string;
  phone?: string;
  note?: string;
  /** `key=value` pairs (flags), or already split pairs (files). */
  metadata?: string[] | Record<string, string>;
}

export type FieldName = keyof PayoutFields;

/** The fields every payout needs (the phone too for wallet recipients), with what each holds. */
export const REQUIRED_FIELDS: ReadonlyArray<readonly [Exclude<FieldName, 'metadata'>, string]> = [
  ['walletId', 'the source wallet id'],
  ['amount', 'a decimal amount such as 1500.50'],
  ['currency', 'an ISO 4217 code such as SLE'],
  ['type', 'bank or wallet'],
  ['name', "the recipient's full name"],
  ['provider', 'e.g. orange_money, afrimoney, ecobank'],
  ['account', "the recipient's account number"],
];

/** True when a required field (or a wallet recipient's phone) is missing: what the interactive flow asks for. */
export function missingFields(f: PayoutFields): boolean {
  return REQUIRED_FIELDS.some(([k]) => !f[k]) || (f.type === 'wallet' && !f.phone);
}

export interface PayoutRequest {
  payoutId: string;
  walletId: string;
  currency: string;
  amountMinor: bigint;
  digits: number;
  /** Canonical decimal with the currency's digits ("1500.50"). */
  amount: string;
  type: RecipientType;
  name: string;
  provider: string;
  account: string;
  phone: string | undefined;
  note: string | undefined;
  metadata: Record<string, string> | undefined;
}

const PAYOUT_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * Why an id PAYOUT_ID refuses is refused. An id of allowed characters that starts with another
 * one (`-x1`) is told so: "may only hold ... -" would name the very character it starts with.
 */
function payoutIdProblem(id: string): string {
  if (SCIENTIFIC.test(id)) return `is ${SCIENTIFIC_SAID}`;
  if (/^[_.:-][A-Za-z0-9_.:-]{0,127}$/.test(id)) return `must start with a letter or digit, not "${id[0]}"`;
  return 'may only hold letters, digits and _ . : - (at most 128)';
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const METADATA_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
/** Anything but printable ASCII (after CONTROL and hiddenCharacter have said theirs). */
const NOT_ASCII = /[^\u0020-\u007e]/u;
/** Metadata keys that name an object's machinery in JavaScript, not data. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export type Labels = Record<FieldName, string>;

/** Fields named as they are (callers name them for their input: flags, columns). */
export const FIELD_NAMES: Labels = {
  payoutId: 'payoutId',
  walletId: 'walletId',
  amount: 'amount',
  currency: 'currency',
  type: 'type',
  name: 'name',
  provider: 'provider',
  account: 'account',
  phone: 'phone',
  note: 'note',
  metadata: 'metadata',
};

/** What is wrong with a metadata pair (without the field's name), or undefined. */
function metadataProblem(k: string, v: string): string | undefined {
  if (!METADATA_KEY.test(k)) return `key "${k}" may only hold letters, digits and _ . - (at most 64)`;
  if (RESERVED_KEYS.has(k)) return `key "${k}" is reserved; choose another name`;
  if (CONTROL.test(v)) return `the value of "${k}" must not contain control characters`;
  const hidden = hiddenCharacter(v);
  if (hidden !== undefined) return `the value of "${k}" must not contain invisible or direction-changing characters (${codePoint(hidden)})`;
  if (v.length > 500) return `the value of "${k}" is longer than 500 characters`;
  return undefined;
}

/** An own property even for a name like __proto__ (never the prototype). */
function setOwn(o: Record<string, string>, k: string, v: string): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function present(v: string | undefined): v is string {
  return v !== undefined && v.trim() !== '';
}

/** Records a problem of field k, read as "label: message" (or "label message" with join ' '). */
type Fault = (k: FieldName, message: string, join?: ': ' | ' ') => void;

/** Control, invisible and direction-changing characters, and more than `max` characters. */
function checkText(fault: Fault, k: FieldName, v: string | undefined, max: number): void {
  if (!present(v)) return;
  for (const problem of unseenCharacters(v)) fault(k, problem, ' ');
  if (longerThan(v, max)) fault(k, `is longer than ${max} characters`, ' ');
}

/**
 * A value wrapped whole in curly quotes (`‘Fatmata’`, `“Nov rent”`): straight quotes that a
 * chat app or word processor changed on their way into a command (which a shell does not
 * remove) or a file. Paid as typed, the quotes would be part of the name.
 */
const CURLY_WRAPPED = new RegExp(`^\\s*[${OPENING_QUOTES}][^]*[${CLOSING_QUOTES}${OPENING_QUOTES}]\\s*$`);

function checkQuotes(fault: Fault, k: FieldName, v: string | undefined): void {
  if (present(v) && v.trim().length > 1 && CURLY_WRAPPED.test(v)) {
    const t = v.trim();
    fault(k, `is wrapped in curly quotes (${t[0]}...${t[t.length - 1]}), most likely straight quotes changed by a chat app or word processor: type it without them`, ' ');
  }
}

/**
 * A long number as a spreadsheet shows it, and saves it when the column holds numbers:
 * "1.23457E+18". Its digits past the first few are gone; it is no account or phone number,
 * nor payout id.
 */
const SCIENTIFIC = /^\s*[0-9](?:[.,][0-9]+)?E\+[0-9]{1,3}\s*$/i;
const SCIENTIFIC_SAID = 'a long number as a spreadsheet writes it in scientific notation, its other digits lost: format the column as Text and type the number again';

/** Every required field present, then the text of each (its own bounds, within the service's). */
function checkPresentText(f: PayoutFields, fault: Fault): void {
  // By index, not `for (const [k, what] of ...)`: unoptimized, that made an iterator and its
  // results for every pair of every row of a batch.
  for (let i = 0; i < REQUIRED_FIELDS.length; i++) {
    const pair = REQUIRED_FIELDS[i]!;
    if (!present(f[pair[0]])) fault(pair[0], `is required (${pair[1]})`, ' ');
  }
  checkText(fault, 'walletId', f.walletId, 128);
  checkText(fault, 'name', f.name, 200);
  checkQuotes(fault, 'name', f.name);
  checkText(fault, 'account', f.account, 64);
  // An account number is typed in plain ASCII: a look-alike ("０76123456", a fullwidth 0) reads
  // as the right account in a confirmation and is another to the service (it refused with a 422
  // after the request had left). Spaces and dashes are left to the service, whose rule is not documented.
  const foreign = present(f.account) && !CONTROL.test(f.account) && hiddenCharacter(f.account) === undefined ? NOT_ASCII.exec(f.account) : null;
  if (foreign) fault('account', `has a character that is not plain ASCII (${codePoint(foreign[0])}): type it with the digits and letters of a keyboard`, ' ');
  else if (present(f.account) && SCIENTIFIC.test(f.account)) fault('account', `"${f.account}" is ${SCIENTIFIC_SAID}`);
  // The service's own limit (service/payout-rules.ts): a longer note would be refused after it left.
  checkText(fault, 'note', f.note, MAX_TEXT);
  checkQuotes(fault, 'note', f.note);
  checkText(fault, 'provider', f.provider, 64);
  checkText(fault, 'phone', f.phone, 32);
}

/** The currency (upper case) and the amount in it, when both are good. */
function checkMoney(f: PayoutFields, fault: Fault): { currency: string | undefined; amount: AmountParse | undefined } {
  const currency = f.currency?.trim().toUpperCase();
  const known = present(currency) && isServiceCurrency(currency);
  if (present(currency) && !known) fault('currency', `"${f.currency}" is not an ISO 4217 currency code`);
  let amount: AmountParse | undefined;
  if (present(f.amount) && known) {
    amount = parseAmount(f.amount, currency);
    if (!amount.ok) fault('amount', amount.problem);
    else if (significantDigits(amount.minor) > MAX_SIGNIFICANT_DIGITS) {
      fault(
        'amount',
        `"${f.amount}" has ${significantDigits(amount.minor)} significant digits; a JSON number carries at most ${MAX_SIGNIFICANT_DIGITS} exactly (a service that reads numbers as binary floats, as most do, would pay another amount)`,
      );
      amount = undefined;
    }
  } else if (present(f.amount) && !/^\d+(\.\d+)?$/.test(f.amount)) {
    fault('amount', `"${visibleWord(f.amount)}" is not a plain decimal amount (use digits and at most one ".", e.g. 1500.50)`);
  }
  return { currency, amount };
}

/** The recipient's type, provider (normalized) and phone (digits, maybe after +). */
function checkRecipient(f: PayoutFields, fault: Fault): { type: string | undefined; provider: string | undefined; phone: string | undefined } {
  const type = f.type?.trim().toLowerCase();
  if (present(type) && !isRecipientType(type)) fault('type', `must be bank or wallet (got "${f.type}")`, ' ');

  // Normalized, a provider has the service's form, or is empty when it had no letters or digits.
  const provider = present(f.provider) ? normalizeProvider(f.provider) : undefined;
  if (provider !== undefined && !PROVIDER_PATTERN.test(provider)) fault('provider', `"${f.provider}" has no letters or digits`);

  let phone = present(f.phone) ? f.phone.replace(/[\s\-().]/g, '') : undefined;
  if (phone !== undefined && !PHONE_PATTERN.test(phone)) {
    fault('phone', `"${f.phone}" is ${SCIENTIFIC.test(f.phone!) ? SCIENTIFIC_SAID : 'not a phone number (6 to 15 digits, optionally after a +)'}`);
    phone = undefined;
  }
  if (needsPhone(type) && !present(f.phone)) fault('phone', 'is required for wallet recipients', ' ');
  return { type, provider, phone };
}

/** The metadata pairs, from `key=value` flags or a file's already split pairs. */
function checkMetadata(given: PayoutFields['metadata'], fault: Fault): Record<string, string> | undefined {
  let metadata: Record<string, string> | undefined;
  if (Array.isArray(given)) {
    for (const pair of given) {
      const eq = pair.indexOf('=');
      if (eq <= 0) {
        fault('metadata', `"${pair}" is not key=value`);
        continue;
      }
      const k = pair.slice(0, eq).trim();
      const v = pair.slice(eq + 1);
      const bad = metadataProblem(k, v);
      if (bad) fault('metadata', bad);
      else if (metadata && Object.hasOwn(metadata, k)) fault('metadata', `key "${k}" is given twice`);
      else setOwn((metadata ??= {}), k, v);
    }
  } else if (given && Object.keys(given).length) {
    for (const [k, v] of Object.entries(given)) {
      const bad = metadataProblem(k, v);
      if (bad) fault('metadata', bad);
      else setOwn((metadata ??= {}), k, v);
    }
  }
  return metadata;
}

/**
 * Validates every field; returns the request or every problem, each naming its field:
 * `problems` as people read them ("--amount: ..."), `issues` the same with the field's
 * label apart from the message (for --json). The service's own rules (recipient types, the
 * phone a wallet needs, the forms of a provider and a phone) come from
 * src/service/payout-rules.ts; the bounds here are payctl's, for what people type.
 */
export function validatePayout(
  f: PayoutFields,
  labels: Labels = FIELD_NAMES,
): { ok: true; request: PayoutRequest } | { ok: false; problems: string[]; issues: Problem[] } {
  const issues: Problem[] = [];
  const fault: Fault = (k, message, join = ': ') => issues.push(fieldProblem(labels[k], message, join));

  checkPresentText(f, fault);
  const { currency, amount } = checkMoney(f, fault);
  const { type, provider, phone } = checkRecipient(f, fault);
  const payoutId = present(f.payoutId) ? f.payoutId.trim() : randomUUID();
  if (!PAYOUT_ID.test(payoutId)) fault('payoutId', `"${f.payoutId}" ${payoutIdProblem(payoutId)}`);
  const metadata = checkMetadata(f.metadata, fault);

  if (issues.length || !amount?.ok) return { ok: false, problems: issues.map((p) => p.text), issues };
  return {
    ok: true,
    request: {
      payoutId,
      walletId: f.walletId!.trim(),
      currency: currency!,
      amountMinor: amount.minor,
      digits: amount.digits,
      amount: amount.decimal,
      type: type as RecipientType,
      name: f.name!.trim(),
      provider: provider!,
      account: f.account!.trim(),
      phone,
      note: present(f.note) ? f.note : undefined,
      metadata,
    },
  };
}

const AMOUNT_SLOT = '"__payctl_amount__"';

/**
 * The exact body of POST /payout. The amount is spliced in as a JSON number literal
 * made from minor units ("1500.50" -> 1500.5), so no float ever holds it.
 */
export function payoutBody(r: PayoutRequest): string {
  const body = {
    amount: '__payctl_amount__',
    currency: r.currency,
    payoutId: r.payoutId,
    walletId: r.walletId,
    recipient: {
      type: r.type,
      accountDetails: {
        name: r.name,
        provider: r.provider,
        accountNumber: r.account,
        phoneNumber: r.phone ?? null,
        // Left out when undefined (JSON.stringify omits it): the same text as when not written,
        // and one object shape for every row (see batch-outcomes.ts rowOutcome).
        note: r.note,
      },
    },
    metadata: r.metadata || undefined,
  };
  const json = JSON.stringify(body);
  return json.replace(AMOUNT_SLOT, minorToJsonNumber(r.amountMinor, r.digits));
}
