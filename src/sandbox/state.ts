/**
 * The sandbox's books: wallets, payouts and the ledger moves between them (how they are
 * written on the wire is wire.ts). Amounts are integer minor units (bigint) in the
 * currency's ISO 4217 digits; nothing here ever goes through a binary float. Payouts are
 * kept oldest-first in one array sorted by creation time (a newest-first page is read
 * from the end), with maps by payoutId and transaction id, so listing stays fast with
 * 100,000 records.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { decimalToMinor, minorToJsonNumber } from '../money/amount.js';
import { minorDigits } from '../money/currencies.js';
import { nowMicros } from './time.js';
import type { RecipientType } from '../service/payout-rules.js';

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
  type: RecipientType;
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

/** A refusal of POST /payout; with `field`, a validation failure on that field. */
export type Refusal = { status: number; code: string; message: string; field?: string };

/** The counts of POST /payout/summary; `totalSent` is the successful amounts of every currency. */
export interface Summary {
  total: number;
  successful: number;
  pending: number;
  failed: number;
  walletTransfers: number;
  bankTransfers: number;
  totalSent: { minor: bigint; digits: number };
}

export function digitsOf(currency: string): number {
  return minorDigits(currency) ?? 2;
}

/** 1% of the amount, rounded half up to the minor unit: 150050 -> 1501. */
export function feeFor(amountMinor: bigint): bigint {
  return (amountMinor + 50n) / 100n;
}

/** `TXN-BOK-` and 26 uppercase hex digits, as the documentation's transaction ids. */
export function newTransactionId(): string {
  return 'TXN-BOK-' + randomBytes(13).toString('hex').toUpperCase();
}

/** `ORD-` and 16 uppercase hex digits (the provider's order id, `provider_reference`). */
export function newOrderId(): string {
  return 'ORD-' + randomBytes(8).toString('hex').toUpperCase();
}

/** Ten digits, not starting with 0, as the documentation's wallet ids ("5553881136"). */
export function newWalletId(): string {
  return String(randomInt(1_000_000_000, 10_000_000_000));
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

  /** By transaction id: the only look-up the service offers. */
  find(transactionId: string): Payout | undefined {
    return this.byTransactionId.get(transactionId);
  }

  /**
   * The business checks of POST /payout, then the debit of amount + fee and the new
   * Pending record, in one synchronous step (so concurrent requests cannot both pass).
   */
  commitPayout(input: PayoutInput, idempotencyKey: string): { ok: true; payout: Payout } | ({ ok: false } & Refusal) {
    if (this.byPayoutId.has(input.payoutId)) {
      // Laravel's `unique` rule: a 422 validation failure on payoutId.
      return { ok: false, status: 422, code: 'DUPLICATE_PAYOUT_ID', message: 'The payout id has already been taken.', field: 'payoutId' };
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

  /** Newest first; `page` is 1-based. Reads only what the page needs. */
  list(page: number, perPage: number): Payout[] {
    const arr = this.payoutsAsc;
    const out: Payout[] = [];
    const start = arr.length - 1 - (page - 1) * perPage;
    for (let i = start; i >= 0 && out.length < perPage; i--) out.push(arr[i]!);
    return out;
  }

  /** The counts of every payout; `totalSent` exact at the largest scale of the currencies summed. */
  summary(): Summary {
    const s: Summary = { total: 0, successful: 0, pending: 0, failed: 0, walletTransfers: 0, bankTransfers: 0, totalSent: { minor: 0n, digits: 0 } };
    const sent = new Map<number, bigint>();
    for (const p of this.payoutsAsc) {
      s.total += 1;
      if (p.recipient.type === 'wallet') s.walletTransfers += 1;
      else s.bankTransfers += 1;
      if (p.status === 'Successful') {
        s.successful += 1;
        const d = digitsOf(p.currency);
        sent.set(d, (sent.get(d) ?? 0n) + p.amount);
      } else if (p.status === 'Failed') s.failed += 1;
      else s.pending += 1;
    }
    const digits = Math.max(0, ...sent.keys());
    let minor = 0n;
    for (const [d, v] of sent) minor += v * 10n ** BigInt(digits - d);
    s.totalSent = { minor, digits };
    return s;
  }
}
