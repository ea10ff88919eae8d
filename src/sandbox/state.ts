/**
 * The sandbox's books: wallets, payouts and the ledger moves between them. Amounts are
 * integer minor units (bigint) in the currency's ISO 4217 digits; nothing here ever
 * goes through a binary float. Payouts are kept oldest-first in one array sorted by
 * creation time (a newest-first page is read from the end), with maps by payoutId and
 * transaction id, so listing stays fast with 100,000 records.
 */
import { randomBytes } from 'node:crypto';
import { decimalToMinor, minorToJsonNumber } from '../money/amount.js';
import { minorDigits } from '../money/currencies.js';
import { money, type JsonNumber } from './json.js';
import { isoFromMicros, nowMicros } from './time.js';

export const STATUSES = ['Pending', 'Successful', 'Failed'] as const;

export interface Wallet {
  id: string;
  name: string;
  currency: string;
  balance: bigint;
  updatedUs: number;
}

export interface AccountDetails {
  name: string;
  provider: string;
  accountNumber: string;
  phoneNumber: string | null;
  note: string | null;
}

export interface Recipient {
  type: 'bank' | 'wallet';
  accountDetails: AccountDetails;
}

export interface Payout {
  transactionId: string;
  payoutId: string;
  walletId: string;
  amount: bigint;
  fee: bigint;
  currency: string;
  status: string;
  failureReason: string | null;
  recipient: Recipient;
  orderId: string;
  idempotencyKey: string;
  metadata: Record<string, unknown> | null;
  createdUs: number;
  updatedUs: number;
  /** Settles by itself (payouts made through the API); demo and generated records do not. */
  autoSettle: boolean;
}

/** A payout request that passed validation (see validation.ts). */
export interface PayoutInput {
  amount: bigint;
  currency: string;
  payoutId: string;
  walletId: string;
  recipient: Recipient;
  metadata: Record<string, unknown> | null;
}

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

export interface PayoutFilter {
  status?: string;
  walletId?: string;
  currency?: string;
  fromUs?: number;
  toUs?: number;
}

export type Refusal = { status: number; code: string; message: string };

export interface CurrencySummary {
  currency: string;
  count: number;
  amount: bigint;
  fee: bigint;
  statuses: Map<string, { count: number; amount: bigint }>;
}

export function digitsOf(currency: string): number {
  return minorDigits(currency) ?? 2;
}

/** 1% of the amount, rounded half up to the minor unit: 150050 -> 1501. */
export function feeFor(amountMinor: bigint): bigint {
  return (amountMinor + 50n) / 100n;
}

export function newTransactionId(): string {
  return 'TRX' + randomBytes(10).toString('hex').toUpperCase();
}

export function newOrderId(): string {
  return 'ORD-' + randomBytes(6).toString('hex').toUpperCase();
}

export function newWalletId(): string {
  return 'wal_' + randomBytes(8).toString('hex');
}

export class Ledger {
  private readonly walletsById = new Map<string, Wallet>();
  /** Oldest first, sorted by createdUs (ties in insertion order). */
  private payoutsAsc: Payout[] = [];
  private readonly byPayoutId = new Map<string, Payout>();
  private readonly byTransactionId = new Map<string, Payout>();
  /** Called after every change (persistence listens). */
  onChange: () => void = () => {};

  // --- wallets --------------------------------------------------------------

  wallets(): Wallet[] {
    return [...this.walletsById.values()];
  }

  wallet(id: string): Wallet | undefined {
    return this.walletsById.get(id);
  }

  putWallet(w: Wallet): void {
    this.walletsById.set(w.id, w);
    this.onChange();
  }

  /** Adds or replaces a wallet from a decimal balance string ("1250000.75"). */
  setWallet(w: { wallet_id?: string; wallet_name: string; currency: string; balance: string }): Wallet {
    const currency = String(w.currency ?? '').toUpperCase();
    const digits = minorDigits(currency);
    if (digits === undefined) throw new RangeError(`unknown currency "${w.currency}"`);
    if (typeof w.wallet_name !== 'string' || w.wallet_name.trim() === '') throw new RangeError('wallet_name is required');
    let balance: bigint;
    try {
      balance = decimalToMinor(String(w.balance), digits);
    } catch {
      throw new RangeError(`balance must be a decimal string with at most ${digits} decimals, got "${w.balance}"`);
    }
    if (balance < 0n) throw new RangeError('balance must not be negative');
    const wallet: Wallet = {
      id: w.wallet_id ?? newWalletId(),
      name: w.wallet_name,
      currency,
      balance,
      updatedUs: nowMicros(),
    };
    this.putWallet(wallet);
    return wallet;
  }

  // --- payouts --------------------------------------------------------------

  count(): number {
    return this.payoutsAsc.length;
  }

  allPayouts(): readonly Payout[] {
    return this.payoutsAsc;
  }

  find(id: string): Payout | undefined {
    return this.byPayoutId.get(id) ?? this.byTransactionId.get(id);
  }

  hasPayoutId(payoutId: string): boolean {
    return this.byPayoutId.has(payoutId);
  }

  /**
   * The business checks of POST /payout, then the debit of amount + fee and the new
   * Pending record, in one synchronous step (so concurrent requests cannot both pass).
   */
  commitPayout(input: PayoutInput, idempotencyKey: string): { ok: true; payout: Payout } | ({ ok: false } & Refusal) {
    if (this.byPayoutId.has(input.payoutId)) {
      return {
        ok: false,
        status: 409,
        code: 'DUPLICATE_PAYOUT_ID',
        message: `payoutId "${input.payoutId}" was already used with another Idempotency-Key.`,
      };
    }
    const wallet = this.walletsById.get(input.walletId);
    if (!wallet) {
      return { ok: false, status: 422, code: 'WALLET_NOT_FOUND', message: `Wallet "${input.walletId}" does not exist.` };
    }
    if (wallet.currency !== input.currency) {
      return {
        ok: false,
        status: 422,
        code: 'CURRENCY_MISMATCH',
        message: `Wallet ${wallet.id} holds ${wallet.currency}, not ${input.currency}.`,
      };
    }
    const fee = feeFor(input.amount);
    const digits = digitsOf(wallet.currency);
    if (wallet.balance < input.amount + fee) {
      return {
        ok: false,
        status: 422,
        code: 'INSUFFICIENT_FUNDS',
        message:
          `Wallet ${wallet.id} has ${minorToJsonNumber(wallet.balance, digits)} ${wallet.currency}; ` +
          `the payout needs ${minorToJsonNumber(input.amount + fee, digits)} (amount ${minorToJsonNumber(input.amount, digits)} + fee ${minorToJsonNumber(fee, digits)}).`,
      };
    }
    const now = Math.max(nowMicros(), this.latestUs() + 1);
    wallet.balance -= input.amount + fee;
    wallet.updatedUs = now;
    const payout: Payout = {
      transactionId: newTransactionId(),
      payoutId: input.payoutId,
      walletId: wallet.id,
      amount: input.amount,
      fee,
      currency: wallet.currency,
      status: 'Pending',
      failureReason: null,
      recipient: input.recipient,
      orderId: newOrderId(),
      idempotencyKey,
      metadata: input.metadata,
      createdUs: now,
      updatedUs: now,
      autoSettle: true,
    };
    this.insertNewest(payout);
    this.onChange();
    return { ok: true, payout };
  }

  /**
   * Settles a Pending payout: Successful, or Failed (with a reason) and the wallet gets
   * amount + fee back. Returns the payout when its status changed.
   */
  settle(id: string, outcome: 'Successful' | 'Failed', reason: string | null = null): Payout | undefined {
    const p = this.find(id);
    if (!p || p.status !== 'Pending') return undefined;
    const now = nowMicros();
    p.status = outcome;
    p.updatedUs = now;
    if (outcome === 'Failed') {
      p.failureReason = reason ?? 'Rejected by the provider.';
      const w = this.walletsById.get(p.walletId);
      if (w) {
        w.balance += p.amount + p.fee;
        w.updatedUs = now;
      }
    }
    this.onChange();
    return p;
  }

  /** Inserts records (any creation times); used by loading, demo data and bulk generation. */
  insertMany(records: Payout[]): void {
    const batch = records.slice().sort((a, b) => a.createdUs - b.createdUs);
    for (const p of batch) {
      if (this.byPayoutId.has(p.payoutId)) throw new RangeError(`duplicate payoutId ${p.payoutId}`);
      this.byPayoutId.set(p.payoutId, p);
      this.byTransactionId.set(p.transactionId, p);
    }
    const old = this.payoutsAsc;
    if (old.length === 0 || batch.length === 0 || old[old.length - 1]!.createdUs <= batch[0]!.createdUs) {
      for (const p of batch) old.push(p);
    } else {
      const merged = new Array<Payout>(old.length + batch.length);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < old.length && j < batch.length) {
        merged[k++] = old[i]!.createdUs <= batch[j]!.createdUs ? old[i++]! : batch[j++]!;
      }
      while (i < old.length) merged[k++] = old[i++]!;
      while (j < batch.length) merged[k++] = batch[j++]!;
      this.payoutsAsc = merged;
    }
    this.onChange();
  }

  private insertNewest(p: Payout): void {
    this.payoutsAsc.push(p);
    this.byPayoutId.set(p.payoutId, p);
    this.byTransactionId.set(p.transactionId, p);
  }

  private latestUs(): number {
    return this.payoutsAsc.length ? this.payoutsAsc[this.payoutsAsc.length - 1]!.createdUs : 0;
  }

  /** Newest first; `page` is 1-based. Reads only what the page needs when unfiltered. */
  list(filter: PayoutFilter, page: number, limit: number): Payout[] {
    const arr = this.payoutsAsc;
    const skip = (page - 1) * limit;
    const { lo, hi } = this.range(filter);
    const out: Payout[] = [];
    const filtered = filter.status !== undefined || filter.walletId !== undefined || filter.currency !== undefined;
    if (!filtered) {
      for (let i = hi - 1 - skip; i >= lo && out.length < limit; i--) out.push(arr[i]!);
      return out;
    }
    let matched = 0;
    for (let i = hi - 1; i >= lo && out.length < limit; i--) {
      const p = arr[i]!;
      if (!matches(p, filter)) continue;
      if (matched++ >= skip) out.push(p);
    }
    return out;
  }

  /** Totals per currency (sorted by code) and, within it, per status; exact. */
  summary(filter: PayoutFilter): CurrencySummary[] {
    const { lo, hi } = this.range(filter);
    const byCurrency = new Map<string, CurrencySummary>();
    for (let i = lo; i < hi; i++) {
      const p = this.payoutsAsc[i]!;
      if (!matches(p, filter)) continue;
      let c = byCurrency.get(p.currency);
      if (!c) {
        c = { currency: p.currency, count: 0, amount: 0n, fee: 0n, statuses: new Map() };
        for (const s of STATUSES) c.statuses.set(s, { count: 0, amount: 0n });
        byCurrency.set(p.currency, c);
      }
      c.count += 1;
      c.amount += p.amount;
      c.fee += p.fee;
      let s = c.statuses.get(p.status);
      if (!s) c.statuses.set(p.status, (s = { count: 0, amount: 0n }));
      s.count += 1;
      s.amount += p.amount;
    }
    return [...byCurrency.values()].sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
  }

  /** Index range [lo, hi) of payouts created within [fromUs, toUs]. */
  private range(filter: PayoutFilter): { lo: number; hi: number } {
    const arr = this.payoutsAsc;
    const lo = filter.fromUs === undefined ? 0 : lowerBound(arr, filter.fromUs);
    const hi = filter.toUs === undefined ? arr.length : lowerBound(arr, filter.toUs + 1);
    return { lo, hi: Math.max(lo, hi) };
  }
}

function matches(p: Payout, f: PayoutFilter): boolean {
  if (f.walletId !== undefined && p.walletId !== f.walletId) return false;
  if (f.currency !== undefined && p.currency !== f.currency.toUpperCase()) return false;
  if (f.status !== undefined && p.status.toLowerCase() !== f.status.toLowerCase()) return false;
  return true;
}

/** First index whose createdUs >= t. */
function lowerBound(arr: readonly Payout[], t: number): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]!.createdUs < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// --- wire shapes -----------------------------------------------------------------

export function providerResponse(p: Payout): ProviderResponse {
  return {
    status: 'Pending',
    beneficiary: p.recipient.accountDetails.accountNumber,
    provider: p.recipient.accountDetails.provider.toUpperCase(),
    orderId: p.orderId,
    idempotency_key: p.idempotencyKey,
  };
}

/** `data` of a successful POST /payout (contract.md). */
export function initiationWire(p: Payout): Record<string, unknown> {
  const d = digitsOf(p.currency);
  return {
    transaction_id: p.transactionId,
    amount: money(p.amount, d),
    fee: money(p.fee, d),
    currency: p.currency,
    payout_id: p.payoutId,
    created_at: isoFromMicros(p.createdUs),
    provider_response: providerResponse(p),
  };
}

/** The recipient on the wire: a note that was not sent is left out (the contract makes `note` an optional string). */
function recipientWire(r: Recipient): { type: string; accountDetails: Record<string, string | null | undefined> } {
  const { note, ...rest } = r.accountDetails;
  return { type: r.type, accountDetails: note === null ? rest : { ...rest, note } };
}

/** A payout record on the wire (contract.md "Payout records"). */
export function payoutWire(p: Payout): Record<string, unknown> {
  const d = digitsOf(p.currency);
  return {
    transaction_id: p.transactionId,
    payout_id: p.payoutId,
    wallet_id: p.walletId,
    amount: money(p.amount, d),
    fee: money(p.fee, d),
    currency: p.currency,
    status: p.status,
    failure_reason: p.failureReason,
    recipient: recipientWire(p.recipient),
    provider_response: providerResponse(p),
    // Absent optional fields are left out, not sent as null (the contract makes them optional objects and strings).
    metadata: p.metadata ?? undefined,
    created_at: isoFromMicros(p.createdUs),
    updated_at: isoFromMicros(p.updatedUs),
  };
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
