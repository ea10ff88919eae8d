/** How a payout looks to people: a card for one, rows for a list, CSV cells for a file. */
import { beyondCurrency, currencyDigitsWords, formatAmount, minorToDecimal, plainAmount, toCommonMinor } from '../money/amount.js';
import { recordStatus, type Money, type PayoutRecord } from '../service/schemas.js';
import { totalMismatch } from '../service/payout-totals.js';
import { renderCard, text, utcTime } from './text.js';
import type { Column } from './table.js';
import { statusColor, type Style } from './style.js';

/** amount + fee exactly, formatted; undefined when the fee is unknown. */
export function totalDebited(amount: Money, fee: Money | null | undefined, currency: string): string | undefined {
  if (fee === undefined || fee === null) return undefined;
  const { minors, digits } = toCommonMinor([amount, fee], currency);
  return formatAmount(minorToDecimal(minors[0]! + minors[1]!, digits), currency);
}

/**
 * The warning for an answer's record (as the service sent it) whose total_amount is not its
 * amount plus its fee (service/payout-totals.ts): the three values as sent, a string quoted, a
 * number as written; undefined when the total is right or not given.
 */
export function totalWarning(item: unknown): string | undefined {
  const m = totalMismatch(item);
  if (!m) return undefined;
  const v = (x: unknown) => (typeof x === 'string' ? `"${text(x)}"` : text(x));
  return `The service's answer for payout ${text(m.transactionId) || '(no transaction id)'} gives total_amount ${v(m.total)}, which is not its amount ${v(m.amount)} plus its fee ${v(m.fee)}${typeof m.currency === 'string' ? ` (${text(m.currency)})` : ''}: check it with the service before relying on it.`;
}

/**
 * The one rule for amounts of an answer with more decimal places than their currency has
 * ("10.005" SLE): each named as the service wrote it (a string quoted as it came, `"1,000.005"`;
 * a number as read), with how many places it has, and what the currency has: `amount
 * "1,000.005" with 3 decimal places, where SLE has 2`; undefined when each fits. `fields`:
 * the field's name, its value as read, and as it came in the answer (`raw`, when known).
 */
export function digitsPhrase(fields: ReadonlyArray<readonly [string, Money | null | undefined, unknown]>, currency: string): string | undefined {
  const said: string[] = [];
  for (const [field, value, raw] of fields) {
    const places = value === undefined || value === null ? undefined : beyondCurrency(value, currency);
    if (places) said.push(`${field} ${typeof raw === 'string' ? `"${text(raw)}"` : text(String(value))} with ${places}`);
  }
  return said.length ? `${said.join(', ')}, where ${text(currencyDigitsWords(currency))}` : undefined;
}

/** What each of those warnings ends with: what payctl did with such an amount. */
export const DIGITS_KEPT = 'shown as the service wrote it, not rounded; check it with the service.';

/**
 * The warning for a record whose amount, fee or total has more decimal places than its currency
 * ("10.005" SLE): shown, exported and summed as the service wrote it, never rounded, but named
 * (digitsPhrase; `raw`: the record as the answer wrote it); undefined when every amount fits.
 */
export function digitsWarning(r: Pick<PayoutRecord, 'transaction_id' | 'amount' | 'fee' | 'total_amount' | 'currency'>, raw?: unknown): string | undefined {
  const sent = (key: string) => (raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>)[key] : undefined);
  const fields = (['amount', 'fee', 'total_amount'] as const).map((k) => [k, r[k], sent(k)] as const);
  const phrase = digitsPhrase(fields, r.currency);
  return phrase && `The service's answer for payout ${text(r.transaction_id) || '(no transaction id)'} gives ${phrase}: ${DIGITS_KEPT}`;
}

export function money(value: Money | null | undefined, currency: string): string {
  if (value === undefined || value === null) return '';
  return `${formatAmount(value, currency)} ${text(currency)}`;
}

/**
 * The payout's provider as `payout create --provider` takes it and the create body sends it
 * (`orange_money`, docs/service.md), when the record has that word; else the service's own
 * (`provider_response.provider`, which it writes in capitals: `ORANGE_MONEY`). One rule for the
 * card and the CSV, so both show the same word.
 */
export function recordProvider(r: PayoutRecord): string | undefined {
  return r.recipient?.provider ?? r.provider_response?.provider;
}

/** A record's status for a person: coloured by its word; `(none)` for a record without one, never a blank that reads as nothing to worry about. */
function shownStatus(status: string, style: Style): string {
  return status === '' ? style.dim(NO_STATUS) : statusColor(style, text(status));
}

/** What a card or the list's table shows for a record the service gave no status. */
export const NO_STATUS = '(none)';

export function renderPayoutCard(r: PayoutRecord, style: Style): string {
  const d = r.recipient;
  const pr = r.provider_response;
  const status = recordStatus(r);
  const pairs: Array<[string, string]> = [['Transaction', text(r.transaction_id)]];
  if (r.payout_id) pairs.push(['Payout ID', text(r.payout_id)]);
  pairs.push(['Status', shownStatus(status, style)]);
  if (r.failure_reason) pairs.push(['Failure reason', text(r.failure_reason)]);
  pairs.push(['Amount', money(r.amount, r.currency)]);
  if (r.fee !== undefined && r.fee !== null) pairs.push(['Fee', money(r.fee, r.currency)]);
  // The service's own total when it gives one (the look-up's total_amount), else amount + fee.
  const total = r.total_amount ?? undefined;
  if (total !== undefined) pairs.push(['Total debited', money(total, r.currency)]);
  else if (r.fee !== undefined && r.fee !== null) pairs.push(['Total debited', `${totalDebited(r.amount, r.fee, r.currency)} ${text(r.currency)}`]);
  if (r.wallet_id) pairs.push(['Wallet', text(r.wallet_id)]);
  if (d?.name) pairs.push(['Recipient', text(d.name)]);
  if (d?.type) pairs.push(['Type', text(d.type)]);
  const provider = recordProvider(r);
  if (provider) pairs.push(['Provider', text(provider)]);
  if (d?.bank) pairs.push(['Bank', text(d.bank)]);
  if (d?.accountNumber) pairs.push(['Account', text(d.accountNumber)]);
  if (pr?.beneficiary && pr.beneficiary !== d?.accountNumber) pairs.push(['Beneficiary', text(pr.beneficiary)]);
  if (d?.phoneNumber) pairs.push(['Phone', text(d.phoneNumber)]);
  if (r.note) pairs.push(['Note', text(r.note)]);
  if (r.provider_reference) pairs.push(['Provider ref', text(r.provider_reference)]);
  if (r.created_at) pairs.push(['Created', utcTime(r.created_at)]);
  if (r.updated_at && r.updated_at !== r.created_at) pairs.push(['Updated', utcTime(r.updated_at)]);
  if (r.metadata && Object.keys(r.metadata).length) {
    pairs.push([
      'Metadata',
      Object.entries(r.metadata)
        .map(([k, v]) => `${text(k)}=${text(typeof v === 'string' ? v : JSON.stringify(v))}`)
        .join(', '),
    ]);
  }
  return renderCard(pairs, style);
}

/**
 * The list's columns. A list record has no payout id (docs/service.md), so the wallet it was
 * paid from is shown instead. At a narrow terminal only the recipient is cut with …; the ids
 * (transaction, wallet), the time, amount and status never are: when the row cannot fit
 * even so, each payout is shown as a card.
 */
export const LIST_COLUMNS: Column[] = [
  { header: 'CREATED (UTC)' },
  { header: 'TRANSACTION' },
  { header: 'WALLET' },
  { header: 'RECIPIENT', minWidth: 8 },
  { header: 'AMOUNT', align: 'right' },
  { header: 'STATUS' },
];

export function payoutRow(r: PayoutRecord, style: Style): string[] {
  return [
    utcTime(r.created_at).replace(/ UTC$/, ''),
    text(r.transaction_id),
    text(r.wallet_id),
    text(r.recipient?.name),
    money(r.amount, r.currency),
    shownStatus(recordStatus(r), style),
  ];
}

export const CSV_HEADER = [
  'created_at',
  'transaction_id',
  'payout_id',
  'wallet_id',
  'status',
  'amount',
  'fee',
  'currency',
  'type',
  'recipient_name',
  'provider',
  'account_number',
  'phone_number',
  'note',
  'failure_reason',
];

/**
 * Values of one CSV row; csvRow neutralizes them. Amount and fee are exact, with the
 * currency's digits and no grouping ("100.00", "250.50", fee "1.00"), as in the batch report.
 */
export function payoutCsvValues(r: PayoutRecord): unknown[] {
  const d = r.recipient;
  return [
    r.created_at,
    r.transaction_id,
    r.payout_id,
    r.wallet_id,
    recordStatus(r),
    plainAmount(r.amount, r.currency),
    r.fee === undefined || r.fee === null ? '' : plainAmount(r.fee, r.currency),
    r.currency,
    d?.type,
    d?.name,
    recordProvider(r) ?? d?.bank,
    d?.accountNumber,
    d?.phoneNumber,
    r.note,
    r.failure_reason,
  ];
}
