/**
 * The plan of a batch, shown before anything is sent: count and exact total per
 * source wallet and currency, against the live balances, flagging wallets that would
 * go short, and the grand total per currency. Fees are charged by the service and only known
 * once a payout is accepted: its documentation gives no fee rule (docs/service.md), so the plan
 * estimates none.
 */
import type { Wallet } from '../service/schemas.js';
import { balanceMinor, minorToDecimal } from '../money/amount.js';
import type { PayoutRequest } from './request.js';
import { currencyTotals } from '../output/batch.js';

export interface PlanGroup {
  walletId: string;
  walletName: string | undefined;
  currency: string;
  digits: number;
  count: number;
  totalMinor: bigint;
  balanceMinor: bigint | undefined;
  /** The wallet's currency differs from the rows' (the service will refuse them). */
  currencyMismatch: boolean;
  short: boolean;
  missingWallet: boolean;
}

/** Totals per wallet and currency, one payout at a time (a batch is streamed, not held). */
export class PlanBuilder {
  readonly #wallets: Map<string, Wallet>;
  readonly #groups = new Map<string, PlanGroup>();

  constructor(wallets: Wallet[]) {
    this.#wallets = new Map(wallets.map((w) => [w.wallet_id, w]));
  }

  add(r: PayoutRequest): void {
    const key = `${r.walletId}\n${r.currency}`;
    let g = this.#groups.get(key);
    if (!g) {
      const w = this.#wallets.get(r.walletId);
      g = {
        walletId: r.walletId,
        walletName: w?.wallet_name,
        currency: r.currency,
        digits: r.digits,
        count: 0,
        totalMinor: 0n,
        balanceMinor: w && w.currency.toUpperCase() === r.currency ? balanceMinor(w.balance, w.currency) : undefined,
        currencyMismatch: !!w && w.currency.toUpperCase() !== r.currency,
        short: false,
        missingWallet: !w,
      };
      this.#groups.set(key, g);
    }
    g.count++;
    g.totalMinor += r.amountMinor;
  }

  /** In first-seen order. */
  groups(): PlanGroup[] {
    for (const g of this.#groups.values()) g.short = g.balanceMinor !== undefined && g.totalMinor > g.balanceMinor;
    return [...this.#groups.values()];
  }
}

export function computePlan(requests: PayoutRequest[], wallets: Wallet[]): PlanGroup[] {
  const b = new PlanBuilder(wallets);
  for (const r of requests) b.add(r);
  return b.groups();
}

export function totalsJson(groups: PlanGroup[]) {
  return currencyTotals(groups).map((t) => ({ currency: t.currency, count: t.count, total: minorToDecimal(t.totalMinor, t.digits) }));
}

export function planJson(groups: PlanGroup[]) {
  return groups.map((g) => ({
    wallet_id: g.walletId,
    currency: g.currency,
    count: g.count,
    total: minorToDecimal(g.totalMinor, g.digits),
    balance: g.balanceMinor === undefined ? null : minorToDecimal(g.balanceMinor, g.digits),
    short: g.short,
  }));
}
