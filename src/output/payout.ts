/** How a payout looks to people: a card for one, rows for a list, CSV cells for a file. */
import { formatAmount, minorToDecimal, plainAmount, toCommonMinor } from '../money/amount.js';
import { recordStatus, type Money, type PayoutRecord } from '../api/schemas.js';
import { renderCard, text, utcTime } from './text.js';
import type { Column } from './table.js';
import { statusColor, type Style } from './style.js';

/** amount + fee exactly, formatted; undefined when the fee is unknown. */
export function totalDebited(amount: Money, fee: Money | null | undefined, currency: string): string | undefined {
  if (fee === undefined || fee === null) return undefined;
  const { minors, digits } = toCommonMinor([amount, fee], currency);
  return formatAmount(minorToDecimal(minors[0]! + minors[1]!, digits), currency);
}

export function money(value: Money | null | undefined, currency: string): string {
  if (value === undefined || value === null) return '';
  return `${formatAmount(value, currency)} ${text(currency)}`;
}

export function renderPayoutCard(r: PayoutRecord, style: Style): string {
  const d = r.recipient?.accountDetails;
  const pr = r.provider_response;
  const status = recordStatus(r);
  const pairs: Array<[string, string]> = [
    ['Transaction', text(r.transaction_id)],
    ['Payout ID', text(r.payout_id)],
    ['Status', statusColor(style, text(status))],
  ];
  if (r.failure_reason) pairs.push(['Failure reason', text(r.failure_reason)]);
  pairs.push(['Amount', money(r.amount, r.currency)]);
  if (r.fee !== undefined && r.fee !== null) {
    pairs.push(['Fee', money(r.fee, r.currency)]);
    pairs.push(['Total debited', `${totalDebited(r.amount, r.fee, r.currency)} ${text(r.currency)}`]);
  }
  if (r.wallet_id) pairs.push(['Wallet', text(r.wallet_id)]);
  if (d?.name) pairs.push(['Recipient', text(d.name)]);
  if (r.recipient?.type) pairs.push(['Type', text(r.recipient.type)]);
  const provider = pr?.provider ?? d?.provider;
  if (provider) pairs.push(['Provider', text(provider)]);
  if (d?.accountNumber) pairs.push(['Account', text(d.accountNumber)]);
  if (pr?.beneficiary && pr.beneficiary !== d?.accountNumber) pairs.push(['Beneficiary', text(pr.beneficiary)]);
  if (d?.phoneNumber) pairs.push(['Phone', text(d.phoneNumber)]);
  if (d?.note) pairs.push(['Note', text(d.note)]);
  if (pr?.orderId) pairs.push(['Order ID', text(pr.orderId)]);
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

/** At a narrow terminal the IDs and the recipient are cut with … (the time, amount and status never are). */
export const LIST_COLUMNS: Column[] = [
  { header: 'CREATED (UTC)' },
  { header: 'TRANSACTION', minWidth: 8 },
  { header: 'PAYOUT ID', minWidth: 8 },
  { header: 'RECIPIENT', minWidth: 8 },
  { header: 'AMOUNT', align: 'right' },
  { header: 'STATUS' },
];

export function payoutRow(r: PayoutRecord, style: Style): string[] {
  return [
    utcTime(r.created_at).replace(/ UTC$/, ''),
    text(r.transaction_id),
    text(r.payout_id),
    text(r.recipient?.accountDetails?.name),
    money(r.amount, r.currency),
    statusColor(style, text(recordStatus(r))),
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
  const d = r.recipient?.accountDetails;
  return [
    r.created_at,
    r.transaction_id,
    r.payout_id,
    r.wallet_id,
    recordStatus(r),
    plainAmount(r.amount, r.currency),
    r.fee === undefined || r.fee === null ? '' : plainAmount(r.fee, r.currency),
    r.currency,
    r.recipient?.type,
    d?.name,
    d?.provider ?? r.provider_response?.provider,
    d?.accountNumber,
    d?.phoneNumber,
    d?.note,
    r.failure_reason,
  ];
}
