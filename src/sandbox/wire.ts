/**
 * How the sandbox writes its records (docs/service.md): the create answer, the look-up record
 * (status in lower case, grouped amounts), a listed record, a webhook event's `data`, a wallet;
 * and the exact records `Sandbox.wallets()` and `Sandbox.payouts()` give tests (amounts as the
 * JSON literal the API sends and as minor units).
 */
import { formatAmount, minorToJsonNumber } from '../money/amount.js';
import { money, type JsonNumber } from './json.js';
import { digitsOf, type Payout, type Recipient, type Wallet } from './state.js';
import { isoFromMicros } from './time.js';

/** A wallet as `Sandbox.wallets()` gives it: the wire fields, balance exact. */
export interface WalletRecord {
  wallet_id: string;
  wallet_name: string;
  currency: string;
  /** The exact JSON literal the API sends, e.g. "1250000.75". */
  balance: string;
  balance_minor: bigint;
  updated_at: string;
}

/** A payout as `Sandbox.payouts()` gives it: the wire record, amounts exact. */
export interface PayoutRecord {
  transaction_id: string;
  payout_id: string;
  wallet_id: string;
  /** The exact JSON literal the API sends, e.g. "1500.5". */
  amount: string;
  amount_minor: bigint;
  fee: string;
  fee_minor: bigint;
  currency: string;
  status: string;
  failure_reason: string | null;
  recipient: Recipient;
  provider_response: ProviderResponse;
  metadata: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

export interface ProviderResponse {
  status: 'Pending';
  beneficiary: string;
  provider: string;
  orderId: string;
  idempotency_key: string;
}

export function providerResponse(p: Payout): ProviderResponse {
  return {
    status: 'Pending',
    beneficiary: p.recipient.accountDetails.accountNumber,
    provider: p.recipient.accountDetails.provider.toUpperCase(),
    orderId: p.orderId,
    idempotency_key: p.idempotencyKey,
  };
}

/** `data` of a successful POST /payout (docs/service.md). */
export function initiationWire(p: Payout): Record<string, unknown> {
  const d = digitsOf(p.currency);
  return {
    transaction_id: p.transactionId,
    amount: money(p.amount, d),
    fee: money(p.fee, d),
    currency: p.currency,
    provider_response: providerResponse(p),
    payout_id: p.payoutId,
    created_at: isoFromMicros(p.createdUs),
  };
}

/** The documented recipient of a look-up: transfer type, account, name, provider in capitals. */
function recipientWire(p: Payout): Record<string, string> {
  const a = p.recipient.accountDetails;
  return { transfer_type: p.recipient.type, account_number: a.accountNumber, name: a.name, bank: a.provider.toUpperCase() };
}

/**
 * `data` of GET /payout/{transactionId}, exactly the documented look-up: status in lower case,
 * amounts as grouped strings with the currency's digits ("1,000.00"), the note as
 * `description`, the order id as `provider_reference`; `failure_reason` on failed payouts only.
 */
export function lookupWire(p: Payout): Record<string, unknown> {
  const out: Record<string, unknown> = {
    transaction_id: p.transactionId,
    status: p.status.toLowerCase(),
    amount: formatAmount(p.amount, p.currency),
    currency: p.currency,
    fee: formatAmount(p.fee, p.currency),
    total_amount: formatAmount(p.amount + p.fee, p.currency),
    recipient: recipientWire(p),
    description: p.recipient.accountDetails.note,
    created_at: isoFromMicros(p.createdUs),
    updated_at: isoFromMicros(p.updatedUs),
    provider_reference: p.orderId,
  };
  if (p.status === 'Failed') out.failure_reason = p.failureReason;
  return out;
}

/** A record of GET /payout/list: the look-up record and the wallet it was paid from. */
export function listedWire(p: Payout): Record<string, unknown> {
  return { ...lookupWire(p), wallet_id: p.walletId };
}

/**
 * `data` of a webhook event: the look-up record as the documented event writes it, status
 * capitalised ("Pending") and amounts as JSON numbers.
 */
export function webhookWire(p: Payout): Record<string, unknown> {
  const d = digitsOf(p.currency);
  const out: Record<string, unknown> = {
    status: p.status,
    transaction_id: p.transactionId,
    amount: money(p.amount, d),
    fee: money(p.fee, d),
    total_amount: money(p.amount + p.fee, d),
    currency: p.currency,
    recipient: recipientWire(p),
    description: p.recipient.accountDetails.note,
    created_at: isoFromMicros(p.createdUs),
    updated_at: isoFromMicros(p.updatedUs),
    provider_reference: p.orderId,
  };
  if (p.status === 'Failed') out.failure_reason = p.failureReason;
  return out;
}

export function walletWire(w: Wallet): { wallet_id: string; wallet_name: string; currency: string; balance: JsonNumber; updated_at: string } {
  return {
    wallet_id: w.id,
    wallet_name: w.name,
    currency: w.currency,
    balance: money(w.balance, digitsOf(w.currency)),
    updated_at: isoFromMicros(w.updatedUs),
  };
}

export function walletRecord(w: Wallet): WalletRecord {
  return {
    wallet_id: w.id,
    wallet_name: w.name,
    currency: w.currency,
    balance: minorToJsonNumber(w.balance, digitsOf(w.currency)),
    balance_minor: w.balance,
    updated_at: isoFromMicros(w.updatedUs),
  };
}

export function payoutRecord(p: Payout): PayoutRecord {
  const d = digitsOf(p.currency);
  return {
    transaction_id: p.transactionId,
    payout_id: p.payoutId,
    wallet_id: p.walletId,
    amount: minorToJsonNumber(p.amount, d),
    amount_minor: p.amount,
    fee: minorToJsonNumber(p.fee, d),
    fee_minor: p.fee,
    currency: p.currency,
    status: p.status,
    failure_reason: p.failureReason,
    recipient: structuredClone(p.recipient),
    provider_response: providerResponse(p),
    metadata: p.metadata === null ? null : structuredClone(p.metadata),
    created_at: isoFromMicros(p.createdUs),
    updated_at: isoFromMicros(p.updatedUs),
  };
}
